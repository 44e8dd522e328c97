// The arena's wire format in C++17 with nothing but the standard library and POSIX read/write
// (protocol.md sections 1 and 13): a msgpack decoder (every format but extensions, which the
// arena never sends) into a Value tree, an encoder for what a bot sends, and the message stream
// on the raw file descriptors (never iostreams for the protocol: a buffered read on a pipe waits
// for more than the arena sends, protocol.md section 10).
#pragma once
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wire {

struct Value {
    enum class Kind { Nil, Bool, Int, Uint, Float, Str, Bin, Array, Map } kind = Kind::Nil;
    bool b = false;
    int64_t i = 0;                  // Int: every integer that fits
    uint64_t u = 0;                 // Uint: above INT64_MAX (hello.seed may be)
    double f = 0;
    std::string s;                  // Str (UTF-8), Bin
    std::vector<Value> items;       // Array; Map: the values
    std::vector<std::string> keys;  // Map: the keys, keys[k] for items[k]

    const Value& operator[](std::string_view key) const {  // a map's field, else nil
        for (size_t k = 0; k < keys.size(); k++)
            if (keys[k] == key) return items[k];
        return nil();
    }
    const Value& operator[](size_t k) const { return k < items.size() ? items[k] : nil(); }
    size_t size() const { return items.size(); }
    bool is(std::string_view text) const { return kind == Kind::Str && s == text; }
    int64_t as_int(int64_t otherwise = 0) const { return kind == Kind::Int ? i : otherwise; }
    uint64_t as_uint() const { return kind == Kind::Uint ? u : kind == Kind::Int ? static_cast<uint64_t>(i) : 0; }
    static const Value& nil() { static const Value none; return none; }
};

struct Incomplete {};  // the bytes end inside a value: read more

class Decoder {
  public:
    Decoder(const std::string& buf, size_t pos) : buf_(buf), pos_(pos) {}
    size_t pos() const { return pos_; }

    Value value() {
        Value v;
        uint8_t b = byte();
        if (b <= 0x7f || b >= 0xe0) {  // fixints: the byte is the value, as a signed byte
            v.kind = Value::Kind::Int;
            v.i = static_cast<int8_t>(b);
            return v;
        }
        if (b <= 0x8f) return map(b & 0x0f);
        if (b <= 0x9f) return array(b & 0x0f);
        if (b <= 0xbf) return text(b & 0x1f, Value::Kind::Str);
        switch (b) {
            case 0xc0: return v;
            case 0xc2: case 0xc3: v.kind = Value::Kind::Bool; v.b = b == 0xc3; return v;
            case 0xc4: case 0xc5: case 0xc6: return text(number(1 << (b - 0xc4)), Value::Kind::Bin);
            case 0xca: { uint32_t x = static_cast<uint32_t>(number(4)); float f; std::memcpy(&f, &x, 4); v.kind = Value::Kind::Float; v.f = f; return v; }
            case 0xcb: { uint64_t x = number(8); v.kind = Value::Kind::Float; std::memcpy(&v.f, &x, 8); return v; }
            case 0xcc: case 0xcd: case 0xce: case 0xcf: {
                uint64_t x = number(1 << (b - 0xcc));
                if (x > INT64_MAX) { v.kind = Value::Kind::Uint; v.u = x; }
                else { v.kind = Value::Kind::Int; v.i = static_cast<int64_t>(x); }
                return v;
            }
            case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
                int width = 1 << (b - 0xd0), shift = 64 - 8 * width;
                v.kind = Value::Kind::Int;
                v.i = static_cast<int64_t>(number(width) << shift) >> shift;  // sign-extended
                return v;
            }
            case 0xd9: case 0xda: case 0xdb: return text(number(1 << (b - 0xd9)), Value::Kind::Str);
            case 0xdc: case 0xdd: return array(number(2 << (b - 0xdc)));
            case 0xde: case 0xdf: return map(number(2 << (b - 0xde)));
        }
        throw std::runtime_error("a msgpack type that is not part of the protocol");
    }

  private:
    const std::string& buf_;
    size_t pos_;

    void need(uint64_t n) const { if (n > buf_.size() - pos_) throw Incomplete{}; }
    uint8_t byte() { need(1); return static_cast<uint8_t>(buf_[pos_++]); }
    uint64_t number(int width) {  // big-endian
        need(width);
        uint64_t x = 0;
        for (int k = 0; k < width; k++) x = x << 8 | static_cast<uint8_t>(buf_[pos_++]);
        return x;
    }
    Value text(uint64_t n, Value::Kind kind) {
        need(n);
        Value v;
        v.kind = kind;
        v.s = buf_.substr(pos_, n);
        pos_ += n;
        return v;
    }
    Value array(uint64_t n) {
        need(n);  // each item takes a byte at least
        Value v;
        v.kind = Value::Kind::Array;
        for (uint64_t k = 0; k < n; k++) v.items.push_back(value());
        return v;
    }
    Value map(uint64_t n) {
        need(n);
        Value v;
        v.kind = Value::Kind::Map;
        for (uint64_t k = 0; k < n; k++) {
            Value key = value();
            v.keys.push_back(key.s);
            v.items.push_back(value());
        }
        return v;
    }
};

// Messages from a file descriptor, each as soon as its bytes are in.
class Reader {
  public:
    explicit Reader(int fd) : fd_(fd) {}
    bool next(Value& message) {  // false at end of input
        for (;;) {
            if (pos_ < buf_.size()) {
                try {
                    Decoder d(buf_, pos_);
                    message = d.value();
                    pos_ = d.pos();
                    return true;
                } catch (const Incomplete&) {
                }
            }
            buf_.erase(0, pos_);
            pos_ = 0;
            char chunk[1 << 16];
            ssize_t got = ::read(fd_, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return false;
            buf_.append(chunk, static_cast<size_t>(got));
        }
    }

  private:
    int fd_;
    std::string buf_;
    size_t pos_ = 0;
};

// A reply: map(n), then n keys and values; str, integer.
class Writer {
  public:
    Writer& map(uint32_t pairs) { return head(0xdf, pairs, 4); }
    Writer& str(std::string_view text) {
        if (text.size() < 32) out_.push_back(static_cast<char>(0xa0 | text.size()));
        else head(0xdb, text.size(), 4);
        out_.append(text);
        return *this;
    }
    Writer& integer(int64_t x) {
        if (x >= -32 && x <= 127) { out_.push_back(static_cast<char>(x)); return *this; }
        return head(0xd3, static_cast<uint64_t>(x), 8);
    }
    bool send(int fd) const {  // write it whole
        for (size_t done = 0; done < out_.size();) {
            ssize_t w = ::write(fd, out_.data() + done, out_.size() - done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return false;
            done += static_cast<size_t>(w);
        }
        return true;
    }

  private:
    std::string out_;
    Writer& head(uint8_t type, uint64_t n, int width) {
        out_.push_back(static_cast<char>(type));
        for (int k = width - 1; k >= 0; k--) out_.push_back(static_cast<char>(n >> (8 * k)));
        return *this;
    }
};

}  // namespace wire

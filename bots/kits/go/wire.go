// The arena's wire format with nothing but the standard library (protocol.md sections 1 and
// 13): a msgpack decoder (every format but extensions, which the arena never sends) into maps,
// slices, strings, int64 (uint64 above its range), float64, bool and nil, an encoder for what a
// bot sends, and the message stream on the raw os.Stdin and os.Stdout (both unbuffered).

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

var errIncomplete = errors.New("the bytes end inside a value")

type decoder struct {
	buf []byte
	pos int
}

func (d *decoder) take(n uint64) ([]byte, error) {
	if n > uint64(len(d.buf)-d.pos) {
		return nil, errIncomplete
	}
	d.pos += int(n)
	return d.buf[d.pos-int(n) : d.pos], nil
}

func (d *decoder) number(width int) (uint64, error) {
	b, err := d.take(uint64(width))
	var x uint64
	for _, c := range b {
		x = x<<8 | uint64(c)
	}
	return x, err
}

func (d *decoder) value() (any, error) {
	head, err := d.take(1)
	if err != nil {
		return nil, err
	}
	b := head[0]
	switch {
	case b <= 0x7f || b >= 0xe0:
		return int64(int8(b)), nil
	case b <= 0x8f:
		return d.mapOf(uint64(b & 0x0f))
	case b <= 0x9f:
		return d.array(uint64(b & 0x0f))
	case b <= 0xbf:
		return d.text(uint64(b & 0x1f))
	}
	switch b {
	case 0xc0:
		return nil, nil
	case 0xc2, 0xc3:
		return b == 0xc3, nil
	case 0xc4, 0xc5, 0xc6:
		n, err := d.number(1 << (b - 0xc4))
		if err != nil {
			return nil, err
		}
		raw, err := d.take(n)
		return append([]byte(nil), raw...), err
	case 0xca:
		x, err := d.number(4)
		return float64(math.Float32frombits(uint32(x))), err
	case 0xcb:
		x, err := d.number(8)
		return math.Float64frombits(x), err
	case 0xcc, 0xcd, 0xce, 0xcf:
		x, err := d.number(1 << (b - 0xcc))
		if x > math.MaxInt64 {
			return x, err
		}
		return int64(x), err
	case 0xd0, 0xd1, 0xd2, 0xd3:
		width := 1 << (b - 0xd0)
		x, err := d.number(width)
		shift := 64 - 8*width
		return int64(x<<shift) >> shift, err // sign-extended
	case 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf:
		widths := map[byte]int{0xd9: 1, 0xda: 2, 0xdb: 4, 0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4}
		n, err := d.number(widths[b])
		if err != nil {
			return nil, err
		}
		if b <= 0xdb {
			return d.text(n)
		} else if b <= 0xdd {
			return d.array(n)
		}
		return d.mapOf(n)
	}
	return nil, fmt.Errorf("msgpack type %#02x is not part of the protocol", b)
}

func (d *decoder) text(n uint64) (any, error) {
	raw, err := d.take(n)
	return string(raw), err
}

func (d *decoder) array(n uint64) (any, error) {
	if n > uint64(len(d.buf)-d.pos) { // each item takes a byte at least
		return nil, errIncomplete
	}
	items := make([]any, n)
	for k := range items {
		item, err := d.value()
		if err != nil {
			return nil, err
		}
		items[k] = item
	}
	return items, nil
}

func (d *decoder) mapOf(n uint64) (any, error) {
	if n > uint64(len(d.buf)-d.pos) {
		return nil, errIncomplete
	}
	fields := make(map[string]any, n)
	for k := uint64(0); k < n; k++ {
		key, err := d.value()
		if err != nil {
			return nil, err
		}
		value, err := d.value()
		if err != nil {
			return nil, err
		}
		fields[fmt.Sprint(key)] = value
	}
	return fields, nil
}

// Reader gives the messages of a stream, each as soon as its bytes are in.
type Reader struct {
	in  io.Reader
	buf []byte
}

// Next is the next message; io.EOF at end of input.
func (r *Reader) Next() (map[string]any, error) {
	chunk := make([]byte, 1<<16)
	for {
		if len(r.buf) > 0 {
			d := decoder{buf: r.buf}
			message, err := d.value()
			if err == nil {
				r.buf = r.buf[d.pos:]
				fields, ok := message.(map[string]any)
				if !ok {
					return nil, errors.New("a message that is not a map")
				}
				return fields, nil
			} else if err != errIncomplete {
				return nil, err
			}
		}
		n, err := r.in.Read(chunk)
		if n == 0 && err != nil {
			return nil, err
		}
		r.buf = append(r.buf, chunk[:n]...)
	}
}

// Pack appends the msgpack bytes of a map, slice, string, integer, bool or nil (what a bot sends).
func Pack(out []byte, value any) []byte {
	head := func(kind byte, n uint64, width int) []byte {
		out = append(out, kind)
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], n)
		return append(out, b[8-width:]...)
	}
	switch v := value.(type) {
	case nil:
		return append(out, 0xc0)
	case bool:
		if v {
			return append(out, 0xc3)
		}
		return append(out, 0xc2)
	case int:
		return Pack(out, int64(v))
	case int64:
		if v >= -32 && v <= 127 {
			return append(out, byte(v))
		}
		return head(0xd3, uint64(v), 8)
	case string:
		if len(v) < 32 {
			out = append(out, 0xa0|byte(len(v)))
		} else {
			out = head(0xdb, uint64(len(v)), 4)
		}
		return append(out, v...)
	case []any:
		out = head(0xdd, uint64(len(v)), 4)
		for _, item := range v {
			out = Pack(out, item)
		}
		return out
	case map[string]any:
		out = head(0xdf, uint64(len(v)), 4)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = Pack(Pack(out, k), v[k])
		}
		return out
	}
	panic(fmt.Sprintf("cannot send a %T", value))
}

// Send writes one message whole to stdout.
func Send(message map[string]any) error {
	_, err := os.Stdout.Write(Pack(nil, message))
	return err
}

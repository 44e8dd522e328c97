#!/usr/bin/env ruby
# frozen_string_literal: true

# A complete bot for every game the arena hosts, in Ruby with nothing but the core language.
#
# It plays a legal move chosen at random from the `act` message's `legal` list, with a generator
# seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put your strategy
# in `choose`. Run: `ruby bot.rb`; register: arena bot add bots/kits/ruby/bot.rb
# The file's second half is the arena's wire format: a msgpack decoder (every format but
# extensions, which the arena never sends) into hashes, arrays, strings, integers, floats, true,
# false and nil, an encoder for what a bot sends, and the message stream on the raw standard
# input and output (readpartial returns what has arrived: no waiting for a full buffer).

NAME = "kit-ruby"

# The index in `legal` of the move to play (the game's forms: its page, games/<game>/protocol.md).
def choose(_observation, legal, rng)
  rng.rand(legal.length)
end

def main
  out = $stdout.dup # stdout is the protocol: keep it private and send stray prints to the log
  $stdout.reopen($stderr)
  out.binmode
  rng = Random.new(0)
  Msgpack.messages($stdin) do |message|
    case message["type"]
    when "hello"
      rng = Random.new(message["seed"])
      warn "#{NAME}: seat #{message["seat"]} of a #{message["game"]} table"
      Msgpack.send(out, { "type" => "ready", "name" => NAME, "version" => "1" })
    when "act"
      Msgpack.send(out, { "type" => "move", "index" => choose(message["observation"], message["legal"], rng) })
    when "bye"
      return
    end # "deal" and "deal_end" need no reply: read them here to keep track of a board.
  end
end

# --- msgpack -------------------------------------------------------------------------------------

module Msgpack
  class Incomplete < StandardError; end

  FIXED = { 0xcc => "C", 0xcd => "n", 0xce => "N", 0xcf => "Q>", 0xd0 => "c", 0xd1 => "s>", 0xd2 => "l>",
            0xd3 => "q>", 0xca => "g", 0xcb => "G" }.freeze
  WIDTH = { "C" => 1, "c" => 1, "n" => 2, "s>" => 2, "N" => 4, "l>" => 4, "g" => 4, "Q>" => 8, "q>" => 8, "G" => 8 }.freeze
  SIZED = { 0xd9 => ["C", :str], 0xda => ["n", :str], 0xdb => ["N", :str], 0xc4 => ["C", :bin], 0xc5 => ["n", :bin],
            0xc6 => ["N", :bin], 0xdc => ["n", :array], 0xdd => ["N", :array], 0xde => ["n", :map],
            0xdf => ["N", :map] }.freeze

  # Yields each message as soon as its bytes are in; returns at end of input.
  def self.messages(input)
    input.binmode
    buf = String.new(encoding: Encoding::BINARY)
    loop do
      buf << input.readpartial(1 << 16)
      pos = 0
      begin
        loop do
          message, pos = unpack(buf, pos)
          yield message
        end
      rescue Incomplete
        buf = buf.byteslice(pos..)
      end
    end
  rescue EOFError
    nil
  end

  def self.take(buf, pos, n)
    raise Incomplete if pos + n > buf.bytesize

    [buf.byteslice(pos, n), pos + n]
  end

  # One value of buf at pos: [value, the position after it].
  def self.unpack(buf, pos)
    raise Incomplete if pos >= buf.bytesize

    b = buf.getbyte(pos)
    pos += 1
    return [b, pos] if b <= 0x7f
    return [b - 0x100, pos] if b >= 0xe0
    return [nil, pos] if b == 0xc0
    return [b == 0xc3, pos] if [0xc2, 0xc3].include?(b)

    if (format = FIXED[b])
      raw, pos = take(buf, pos, WIDTH[format])
      return [raw.unpack1(format), pos]
    end
    n, kind =
      if b & 0xe0 == 0xa0 then [b & 0x1f, :str]
      elsif b & 0xf0 == 0x90 then [b & 0x0f, :array]
      elsif b & 0xf0 == 0x80 then [b & 0x0f, :map]
      elsif (sized = SIZED[b])
        raw, pos = take(buf, pos, WIDTH[sized[0]])
        [raw.unpack1(sized[0]), sized[1]]
      else raise format("msgpack type 0x%02x is not part of the protocol", b)
      end
    case kind
    when :str, :bin
      raw, pos = take(buf, pos, n)
      [kind == :str ? raw.force_encoding(Encoding::UTF_8) : raw, pos]
    else
      items = Array.new(kind == :map ? 2 * n : n) { item, pos = unpack(buf, pos); item }
      [kind == :map ? items.each_slice(2).to_h : items, pos]
    end
  end

  # msgpack bytes of a Hash, Array, String, Integer, true, false or nil (what a bot sends).
  def self.pack(value)
    case value
    when nil then "\xc0".b
    when true then "\xc3".b
    when false then "\xc2".b
    when Integer then (-32..127).cover?(value) ? [value].pack("c") : [0xd3, value].pack("Cq>")
    when String
      bytes = value.encode(Encoding::UTF_8).b
      (bytes.bytesize < 32 ? [0xa0 | bytes.bytesize].pack("C") : [0xdb, bytes.bytesize].pack("CN")) + bytes
    when Array then [0xdd, value.length].pack("CN") + value.map { |v| pack(v) }.join.b
    when Hash then [0xdf, value.length].pack("CN") + value.map { |k, v| pack(k) + pack(v) }.join.b
    else raise ArgumentError, "cannot send a #{value.class}"
    end
  end

  # Write one message whole.
  def self.send(out, message)
    out.write(pack(message))
    out.flush
  end
end

main

#!/usr/bin/env ruby
# A Zwicker bot in Ruby that plays the first legal move, msgpack by hand (tests/test_runtimes.py).
require 'json'
require 'set'

$stdin.binmode
$stdout.binmode
$stdout.sync = true
FIXED = { 0xc0 => 0, 0xc2 => 0, 0xc3 => 0, 0xcc => 1, 0xd0 => 1, 0xcd => 2, 0xd1 => 2,
          0xce => 4, 0xd2 => 4, 0xca => 4, 0xcf => 8, 0xd3 => 8, 0xcb => 8 }.freeze

def take(n)
  s = $stdin.read(n)
  exit 0 if s.nil? || s.bytesize < n
  s
end

def skip(n)
  n.times { value }
  nil
end

def map_of(n)
  (1..n).to_h { [value, value] }
end

def value # one msgpack value: a str as a string, a map as a hash, anything else skipped
  b = take(1).ord
  return nil if b <= 0x7f || b >= 0xe0
  return take(b & 0x1f) if b & 0xe0 == 0xa0
  return map_of(b & 0x0f) if b & 0xf0 == 0x80
  return skip(b & 0x0f) if b & 0xf0 == 0x90
  case b
  when 0xd9 then take(take(1).ord)
  when 0xda then take(take(2).unpack1('n'))
  when 0xdb then take(take(4).unpack1('N'))
  when 0xde then map_of(take(2).unpack1('n'))
  when 0xdf then map_of(take(4).unpack1('N'))
  when 0xdc then skip(take(2).unpack1('n'))
  when 0xdd then skip(take(4).unpack1('N'))
  else
    take(FIXED.fetch(b) { raise format('unexpected msgpack type 0x%02x', b) })
    nil
  end
end

def str(s)
  (0xa0 | s.bytesize).chr + s
end

loop do
  msg = value
  type = msg.is_a?(Hash) ? msg['type'] : nil
  case type
  when 'hello' then $stdout.write("\x82".b + str('type') + str('ready') + str('name') + str(JSON.parse('"ruby-first"')))
  when 'act' then $stdout.write("\x82".b + str('type') + str('move') + str('index') + "\x00")
  when 'bye' then exit 0
  end
end

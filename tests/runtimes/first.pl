#!/usr/bin/perl
# A Zwicker bot in Perl that plays the first legal move, msgpack by hand (tests/test_runtimes.py).
use strict;
use warnings;
use List::Util qw(sum);
use POSIX qw(floor);

binmode STDIN;
binmode STDOUT;
$| = 1;
my $buf = '';

sub take {
    my $n = shift;
    while (length($buf) < $n) {
        my $got = sysread(STDIN, $buf, 65536, length $buf);
        exit 0 unless $got;
    }
    return substr($buf, 0, $n, '');
}

sub byte { return ord(take(1)) }

my %fixed = (0xc0 => 0, 0xc2 => 0, 0xc3 => 0, 0xcc => 1, 0xd0 => 1, 0xcd => 2, 0xd1 => 2,
             0xce => 4, 0xd2 => 4, 0xca => 4, 0xcf => 8, 0xd3 => 8, 0xcb => 8);

sub value {  # one msgpack value: a str as a string, a map as a hash, anything else skipped
    my $b = byte();
    return undef if $b <= 0x7f || $b >= 0xe0;
    return take($b & 0x1f) if ($b & 0xe0) == 0xa0;
    return map_of($b & 0x0f) if ($b & 0xf0) == 0x80;
    return skip($b & 0x0f) if ($b & 0xf0) == 0x90;
    return take(byte()) if $b == 0xd9;
    return take(unpack 'n', take(2)) if $b == 0xda;
    return take(unpack 'N', take(4)) if $b == 0xdb;
    return map_of(unpack 'n', take(2)) if $b == 0xde;
    return map_of(unpack 'N', take(4)) if $b == 0xdf;
    return skip(unpack 'n', take(2)) if $b == 0xdc;
    return skip(unpack 'N', take(4)) if $b == 0xdd;
    die sprintf("unexpected msgpack type 0x%02x\n", $b) unless exists $fixed{$b};
    take($fixed{$b});
    return undef;
}

sub skip { my $n = shift; value() for 1 .. $n; return undef }

sub map_of {
    my $n = shift;
    my %m;
    for (1 .. $n) { my $k = value() // ''; $m{$k} = value(); }
    return \%m;
}

sub str { my $s = shift; return chr(0xa0 | length $s) . $s }

while (1) {
    my $msg = value();
    my $type = ref $msg ? ($msg->{type} // '') : '';
    if ($type eq 'hello') { print "\x82", str('type'), str('ready'), str('name'), str('perl-first') }
    elsif ($type eq 'act') { print "\x82", str('type'), str('move'), str('index'), "\x00" }
    elsif ($type eq 'bye') { exit 0 }
}

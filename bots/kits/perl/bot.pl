#!/usr/bin/perl
# A complete bot for every game the arena hosts, in Perl 5 with nothing but the core language.
#
# It plays a legal move chosen at random from the `act` message's `legal` list, with perl's own
# generator seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put your
# strategy in `choose`. Run: `perl bot.pl`; register: arena bot add bots/kits/perl/bot.pl
# The file's second half is the arena's wire format: a msgpack decoder (every format but
# extensions, which the arena never sends) into hashes, arrays, strings, numbers and undef
# (true and false as 1 and 0), an encoder for what a bot sends, and the message stream on the
# raw standard input and output (sysread and syswrite: no buffering, protocol.md section 10).
use strict;
use warnings;
use B ();

my $NAME = "kit-perl";

# The index in @$legal of the move to play (the game's forms: its page, games/<game>/protocol.md).
sub choose {
    my ($observation, $legal) = @_;
    return int(rand(scalar @$legal));
}

sub main {
    # stdout is the protocol: keep it private and send stray prints to the log.
    open(my $out, '>&', \*STDOUT) or die "kit-perl: $!";
    open(STDOUT, '>&', \*STDERR) or die "kit-perl: $!";
    binmode $out;
    binmode STDIN;
    my $buf = '';
    while (sysread(STDIN, $buf, 1 << 16, length $buf)) {
        my $pos = 0;
        while (defined(my $message = unpack_value(\$buf, \$pos))) {
            my $type = $message->{type} // '';
            if ($type eq 'hello') {
                srand($message->{seed} % 4294967296);
                print STDERR "$NAME: seat $message->{seat} of a $message->{game} table\n";
                send_message($out, {type => 'ready', name => $NAME, version => '1'});
            } elsif ($type eq 'act') {
                send_message($out, {type => 'move', index => choose($message->{observation}, $message->{legal})});
            } elsif ($type eq 'bye') {
                return;
            }  # "deal" and "deal_end" need no reply: read them here to keep track of a board.
        }
        substr($buf, 0, $pos) = '';
    }
}

# --- msgpack ------------------------------------------------------------------------------------

# One value of $$buf at $$pos (moved past it), or undef, $$pos unmoved, when the bytes end inside it.
sub unpack_value {
    my ($buf, $pos) = @_;
    my $at = $$pos;
    my $value = eval { value($buf, \$at) };
    if ($@) {
        die $@ unless $@ eq "incomplete\n";
        return undef;
    }
    $$pos = $at;
    return $value;
}

my %FIXED = (0xcc => 'C', 0xcd => 'n', 0xce => 'N', 0xcf => 'Q>', 0xd0 => 'c', 0xd1 => 's>', 0xd2 => 'l>',
             0xd3 => 'q>', 0xca => 'f>', 0xcb => 'd>');
my %SIZED = (0xd9 => ['C', 's'], 0xda => ['n', 's'], 0xdb => ['N', 's'], 0xc4 => ['C', 'b'], 0xc5 => ['n', 'b'],
             0xc6 => ['N', 'b'], 0xdc => ['n', 'a'], 0xdd => ['N', 'a'], 0xde => ['n', 'm'], 0xdf => ['N', 'm']);

sub take {  # the next $n bytes
    my ($buf, $at, $n) = @_;
    die "incomplete\n" if $$at + $n > length $$buf;
    $$at += $n;
    return substr($$buf, $$at - $n, $n);
}

sub value {
    my ($buf, $at) = @_;
    my $b = ord take($buf, $at, 1);
    my ($n, $kind);
    return $b if $b <= 0x7f;
    return $b - 0x100 if $b >= 0xe0;
    return undef if $b == 0xc0;
    return 0 if $b == 0xc2;
    return 1 if $b == 0xc3;
    if (my $format = $FIXED{$b}) {
        return unpack($format, take($buf, $at, length pack($format, 0)));
    } elsif (($b & 0xe0) == 0xa0) {
        ($n, $kind) = ($b & 0x1f, 's');
    } elsif (($b & 0xf0) == 0x90) {
        ($n, $kind) = ($b & 0x0f, 'a');
    } elsif (($b & 0xf0) == 0x80) {
        ($n, $kind) = ($b & 0x0f, 'm');
    } elsif (my $sized = $SIZED{$b}) {
        $kind = $sized->[1];
        $n = unpack($sized->[0], take($buf, $at, length pack($sized->[0], 0)));
    } else {
        die sprintf("msgpack type 0x%02x is not part of the protocol\n", $b);
    }
    if ($kind eq 's' || $kind eq 'b') {
        my $bytes = take($buf, $at, $n);
        utf8::decode($bytes) if $kind eq 's';
        return $bytes;
    }
    die "incomplete\n" if $n > length($$buf) - $$at;  # each item takes a byte at least
    my @items = map { value($buf, $at) } 1 .. ($kind eq 'm' ? 2 * $n : $n);
    return $kind eq 'm' ? {@items} : \@items;
}

# msgpack bytes of a hash, array, string, integer or undef (what a bot sends): a scalar made as a
# number is sent as an integer, one made as a string ("1") as a string.
sub pack_value {
    my ($value) = @_;
    return "\xc0" unless defined $value;
    if (ref $value eq 'HASH') {
        return pack('CN', 0xdf, scalar keys %$value) . join('', map { pack_value($_) . pack_value($value->{$_}) } sort keys %$value);
    }
    if (ref $value eq 'ARRAY') {
        return pack('CN', 0xdd, scalar @$value) . join('', map { pack_value($_) } @$value);
    }
    my $flags = B::svref_2object(\$value)->FLAGS;  # a number, unless it was ever a string
    if ($flags & (B::SVp_IOK | B::SVp_NOK) && !($flags & B::SVp_POK) && $value == int $value) {
        return pack('C', $value & 0xff) if $value >= -32 && $value <= 127;
        return pack('Cq>', 0xd3, $value);
    }
    my $bytes = $value;
    utf8::encode($bytes);
    return (length $bytes < 32 ? pack('C', 0xa0 | length $bytes) : pack('CN', 0xdb, length $bytes)) . $bytes;
}

# Write one message whole.
sub send_message {
    my ($out, $message) = @_;
    my $bytes = pack_value($message);
    while (length $bytes) {
        my $written = syswrite($out, $bytes);
        die "kit-perl: $!" unless defined $written;
        substr($bytes, 0, $written) = '';
    }
}

main();

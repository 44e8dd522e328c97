// A complete bot for every game the arena hosts, in Java with nothing but the JDK.
//
// It plays a legal move chosen at random from the `act` message's `legal` list, with a generator
// seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put your strategy
// in `choose`. The class Msgpack below is the arena's wire format: a decoder for every msgpack
// format but extensions (which the arena never sends) into maps, lists, strings, Long (BigInteger
// above 2^63), Double, Boolean and null, and an encoder for what a bot sends. Build, register and
// the JVM flags that fit the sandbox: README.md.

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

public final class Bot {
    static final String NAME = "kit-java";

    /** The index in `legal` of the move to play (the game's forms: its page, games/<game>/protocol.md). */
    static int choose(Map<String, Object> observation, List<Object> legal, SplittableRandom rng) {
        return rng.nextInt(legal.size());
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws IOException {
        // stdout is the protocol: replies go to the raw descriptor, System.out (stray prints) to the log.
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        Msgpack.Reader in = new Msgpack.Reader(new FileInputStream(FileDescriptor.in));
        SplittableRandom rng = new SplittableRandom();
        for (Map<String, Object> message; (message = in.next()) != null; ) {
            Object type = message.get("type");
            if ("hello".equals(type)) {
                rng = new SplittableRandom(((Number) message.get("seed")).longValue());
                System.err.println(NAME + ": seat " + message.get("seat") + " of a " + message.get("game") + " table");
                Msgpack.send(out, Map.of("type", "ready", "name", NAME, "version", "1"));
            } else if ("act".equals(type)) {
                int index = choose((Map<String, Object>) message.get("observation"), (List<Object>) message.get("legal"), rng);
                Msgpack.send(out, Map.of("type", "move", "index", index));
            } else if ("bye".equals(type)) {
                return;
            }  // "deal" and "deal_end" need no reply: read them here to keep track of a board.
        }
    }
}

final class Msgpack {
    private static final class Incomplete extends Exception {
        Incomplete() { super(null, null, false, false); }
    }

    /** Messages from a stream, each as soon as its bytes are in (one read(2) at a time). */
    static final class Reader {
        private final InputStream in;
        private byte[] buf = new byte[1 << 16];
        private int len, pos;

        Reader(InputStream in) { this.in = in; }

        /** The next message, or null at end of input. */
        @SuppressWarnings("unchecked")
        Map<String, Object> next() throws IOException {
            for (;;) {
                int start = pos;
                try {
                    Object value = value();
                    if (!(value instanceof Map)) throw new IOException("a message that is not a map");
                    return (Map<String, Object>) value;
                } catch (Incomplete e) {
                    pos = start;
                }
                System.arraycopy(buf, pos, buf, 0, len - pos);  // keep the unread bytes, then read more
                len -= pos;
                pos = 0;
                if (len == buf.length) buf = Arrays.copyOf(buf, 2 * buf.length);
                int got = in.read(buf, len, buf.length - len);
                if (got < 0) return null;
                len += got;
            }
        }

        private int take(int n) throws Incomplete {
            if (n < 0 || len - pos < n) throw new Incomplete();
            pos += n;
            return pos - n;
        }

        private long number(int bytes) throws Incomplete {  // big-endian, `bytes` wide
            int at = take(bytes);
            long x = 0;
            for (int k = 0; k < bytes; k++) x = x << 8 | (buf[at + k] & 0xff);
            return x;
        }

        private Object value() throws Incomplete {
            int b = buf[take(1)] & 0xff;
            if (b <= 0x7f) return (long) b;
            if (b >= 0xe0) return (long) (b - 0x100);
            if (b <= 0x8f) return map(b & 0x0f);
            if (b <= 0x9f) return list(b & 0x0f);
            if (b <= 0xbf) return text(b & 0x1f);
            switch (b) {
                case 0xc0: return null;
                case 0xc2: return false;
                case 0xc3: return true;
                case 0xc4: case 0xc5: case 0xc6: {
                    int at = take((int) number(1 << (b - 0xc4)));
                    return Arrays.copyOfRange(buf, at, pos);
                }
                case 0xca: return (double) Float.intBitsToFloat((int) number(4));
                case 0xcb: return Double.longBitsToDouble(number(8));
                case 0xcc: return number(1);
                case 0xcd: return number(2);
                case 0xce: return number(4);
                case 0xcf: {
                    long x = number(8);
                    return x >= 0 ? (Object) x : new BigInteger(Long.toUnsignedString(x));
                }
                case 0xd0: return (long) (byte) number(1);
                case 0xd1: return (long) (short) number(2);
                case 0xd2: return (long) (int) number(4);
                case 0xd3: return number(8);
                case 0xd9: case 0xda: case 0xdb: return text((int) number(1 << (b - 0xd9)));
                case 0xdc: case 0xdd: return list((int) number(2 << (b - 0xdc)));
                case 0xde: case 0xdf: return map((int) number(2 << (b - 0xde)));
                default: throw new IllegalStateException("msgpack type " + b + " is not part of the protocol");
            }
        }

        private String text(int n) throws Incomplete {
            int at = take(n);
            return new String(buf, at, n, StandardCharsets.UTF_8);
        }

        private List<Object> list(int n) throws Incomplete {
            if (n < 0 || n > len - pos) throw new Incomplete();  // each item takes a byte at least
            List<Object> out = new ArrayList<>(n);
            for (int k = 0; k < n; k++) out.add(value());
            return out;
        }

        private Map<String, Object> map(int n) throws Incomplete {
            if (n < 0 || n > len - pos) throw new Incomplete();
            Map<String, Object> out = new LinkedHashMap<>();
            for (int k = 0; k < n; k++) out.put(String.valueOf(value()), value());
            return out;
        }
    }

    /** Write one message whole: maps, lists, strings, integers, booleans and null. */
    static void send(OutputStream out, Object message) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        pack(bytes, message);
        bytes.writeTo(out);
        out.flush();
    }

    private static void head(ByteArrayOutputStream out, int type, long n, int bytes) {
        out.write(type);
        for (int k = bytes - 1; k >= 0; k--) out.write((int) (n >>> (8 * k)));
    }

    static void pack(ByteArrayOutputStream out, Object value) {
        if (value == null) {
            out.write(0xc0);
        } else if (value instanceof Boolean) {
            out.write((Boolean) value ? 0xc3 : 0xc2);
        } else if (value instanceof Integer || value instanceof Long) {
            long x = ((Number) value).longValue();
            if (x >= -32 && x <= 127) out.write((int) x);
            else head(out, 0xd3, x, 8);
        } else if (value instanceof String) {
            byte[] text = ((String) value).getBytes(StandardCharsets.UTF_8);
            if (text.length < 32) out.write(0xa0 | text.length);
            else head(out, 0xdb, text.length, 4);
            out.writeBytes(text);
        } else if (value instanceof List) {
            head(out, 0xdd, ((List<?>) value).size(), 4);
            for (Object item : (List<?>) value) pack(out, item);
        } else if (value instanceof Map) {
            head(out, 0xdf, ((Map<?, ?>) value).size(), 4);
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                pack(out, e.getKey());
                pack(out, e.getValue());
            }
        } else {
            throw new IllegalArgumentException("cannot send a " + value.getClass().getSimpleName());
        }
    }
}

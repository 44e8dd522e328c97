// A Zwicker bot in Java that plays the first legal move, msgpack by hand (tests/test_runtimes.py).
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

public class Bot {
    static final DataInputStream in = new DataInputStream(new BufferedInputStream(System.in));
    static final OutputStream out = new FileOutputStream(FileDescriptor.out);

    static Object value() throws IOException {  // a str as a String, a map as a Map, anything else skipped
        int b = in.readUnsignedByte();
        if (b <= 0x7f || b >= 0xe0) return null;
        if ((b & 0xe0) == 0xa0) return str(b & 0x1f);
        if ((b & 0xf0) == 0x80) return map(b & 0x0f);
        if ((b & 0xf0) == 0x90) return skip(b & 0x0f);
        switch (b) {
            case 0xd9: return str(in.readUnsignedByte());
            case 0xda: return str(in.readUnsignedShort());
            case 0xdb: return str(in.readInt());
            case 0xde: return map(in.readUnsignedShort());
            case 0xdf: return map(in.readInt());
            case 0xdc: return skip(in.readUnsignedShort());
            case 0xdd: return skip(in.readInt());
            case 0xc0: case 0xc2: case 0xc3: return null;
            case 0xcc: case 0xd0: in.readFully(new byte[1]); return null;
            case 0xcd: case 0xd1: in.readFully(new byte[2]); return null;
            case 0xce: case 0xd2: case 0xca: in.readFully(new byte[4]); return null;
            case 0xcf: case 0xd3: case 0xcb: in.readFully(new byte[8]); return null;
            default: throw new IOException("unexpected msgpack type " + b);
        }
    }

    static String str(int n) throws IOException {
        byte[] s = new byte[n];
        in.readFully(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    static Object skip(int n) throws IOException {
        for (int i = 0; i < n; i++) value();
        return null;
    }

    static Map<Object, Object> map(int n) throws IOException {
        Map<Object, Object> m = new HashMap<>();
        for (int i = 0; i < n; i++) m.put(value(), value());
        return m;
    }

    static void send(String... words) throws IOException {  // a map of str keys and values, index 0 as an int
        ByteArrayOutputStream msg = new ByteArrayOutputStream();
        msg.write(0x80 | words.length / 2);
        for (String w : words) {
            if (w.equals("0")) { msg.write(0); continue; }
            byte[] s = w.getBytes(StandardCharsets.UTF_8);
            msg.write(0xa0 | s.length);
            msg.write(s);
        }
        out.write(msg.toByteArray());
        out.flush();
    }

    public static void main(String[] args) throws IOException {
        while (true) {
            Object msg;
            try {
                msg = value();
            } catch (EOFException e) {
                return;
            }
            Object type = msg instanceof Map ? ((Map<?, ?>) msg).get("type") : null;
            if ("hello".equals(type)) send("type", "ready", "name", "java-first");
            else if ("act".equals(type)) send("type", "move", "index", "0");
            else if ("bye".equals(type)) return;
        }
    }
}

// A Tabletop Bot Protocol v1 bot (docs/protocol.md): plays a random legal move.
// Reads one JSON message a line on stdin, writes one a line on stdout; logs go to stderr.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public class Bot {
    /** A small JSON reader: objects are Maps, arrays Lists, numbers Doubles. */
    static final class Reader {
        private final String s;
        private int i = 0;

        Reader(String s) { this.s = s; }

        static Object parse(String s) {
            Reader r = new Reader(s);
            Object v = r.value();
            r.space();
            if (r.i != s.length()) throw new IllegalArgumentException("trailing characters");
            return v;
        }

        private void space() { while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++; }

        private char peek() {
            space();
            if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
            return s.charAt(i);
        }

        private void expect(char c) {
            if (peek() != c) throw new IllegalArgumentException("expected " + c);
            i++;
        }

        private Object value() {
            char c = peek();
            if (c == '{') {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                if (peek() == '}') { i++; return m; }
                while (true) {
                    String key = string();
                    expect(':');
                    m.put(key, value());
                    if (peek() == ',') { i++; continue; }
                    expect('}');
                    return m;
                }
            }
            if (c == '[') {
                i++;
                List<Object> v = new ArrayList<>();
                if (peek() == ']') { i++; return v; }
                while (true) {
                    v.add(value());
                    if (peek() == ',') { i++; continue; }
                    expect(']');
                    return v;
                }
            }
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            return Double.parseDouble(s.substring(start, i));
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return out.toString();
                if (c != '\\') { out.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u': out.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: out.append(e);   // \" \\ \/
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");   // flushes every line
        Random random = new Random();
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> message = (Map<String, Object>) Reader.parse(line);
            String type = (String) message.get("type");
            if ("start".equals(type)) {
                random = new Random(((Double) message.get("seed")).longValue());
                System.err.println("playing " + message.get("game") + " in seat " + message.get("seat"));
                out.println("{\"type\":\"hello\",\"name\":\"java-starter\",\"protocol\":1}");
            } else if ("request".equals(type)) {
                List<Object> legal = (List<Object>) message.get("legal");
                Map<String, Object> choice = (Map<String, Object>) legal.get(random.nextInt(legal.size()));
                out.println("{\"type\":\"action\",\"id\":" + ((Double) choice.get("id")).longValue() + "}");
            } else if ("end".equals(type)) {
                return;
            }
        }
    }
}

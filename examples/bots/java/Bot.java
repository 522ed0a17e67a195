// A Tabletop Bot Protocol v1 bot (docs/protocol.md): on Insert it completes or blocks a line,
// in every other game it plays a random legal move.
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

    /** A row, a column, both diagonals. */
    static final int[][] DIRECTIONS = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};

    /** The longest line of `colour` through (row, col) along any direction, counting that cell. */
    static int runThrough(List<Object> board, int row, int col, char colour) {
        int size = board.size(), longest = 0;
        for (int[] d : DIRECTIONS) {
            int length = 1;
            for (int sign = -1; sign <= 1; sign += 2) {
                int r = row + sign * d[0], c = col + sign * d[1];
                while (r >= 0 && r < size && c >= 0 && c < size && ((String) board.get(r)).charAt(c) == colour) {
                    length++;
                    r += sign * d[0];
                    c += sign * d[1];
                }
            }
            longest = Math.max(longest, length);
        }
        return longest;
    }

    /** A cell a1..f6 (a1 is the bottom left: the board's last string): five of mine wins, five of
     *  theirs must be blocked, else the longer lines of mine and of theirs the better. */
    static int insertScore(List<Object> board, String cell, char me, char them) {
        int row = board.size() - Integer.parseInt(cell.substring(1)), col = cell.charAt(0) - 'a';
        int mine = runThrough(board, row, col, me), theirs = runThrough(board, row, col, them);
        return (mine >= 5 ? 1000 : 0) + (theirs >= 5 ? 100 : 0) + 3 * mine + 2 * theirs;
    }

    @SuppressWarnings("unchecked")
    static long choose(String game, Map<String, Object> message, Random random) {
        List<Object> legal = (List<Object>) message.get("legal");
        if ("insert".equals(game)) {   // seat 0 plays R, seat 1 plays W
            Map<String, Object> observation = (Map<String, Object>) message.get("observation");
            List<Object> board = (List<Object>) observation.get("board");
            char me = ((Double) observation.get("to_move")).intValue() == 0 ? 'R' : 'W', them = me == 'R' ? 'W' : 'R';
            List<Object> best = new ArrayList<>();
            int bestScore = Integer.MIN_VALUE;
            for (Object action : legal) {
                int score = insertScore(board, (String) ((Map<String, Object>) action).get("text"), me, them);
                if (score > bestScore) { bestScore = score; best.clear(); }
                if (score == bestScore) best.add(action);
            }
            legal = best;
        }
        Map<String, Object> choice = (Map<String, Object>) legal.get(random.nextInt(legal.size()));
        return ((Double) choice.get("id")).longValue();
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");   // flushes every line
        Random random = new Random();
        String game = null;
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> message = (Map<String, Object>) Reader.parse(line);
            String type = (String) message.get("type");
            if ("start".equals(type)) {
                random = new Random(((Double) message.get("seed")).longValue());
                game = (String) message.get("game");
                System.err.println("playing " + game + " in seat " + ((Double) message.get("seat")).intValue());
                out.println("{\"type\":\"hello\",\"name\":\"java-kit\",\"protocol\":1}");
            } else if ("request".equals(type)) {
                out.println("{\"type\":\"action\",\"id\":" + choose(game, message, random) + "}");
            } else if ("end".equals(type)) {
                return;
            }
        }
    }
}

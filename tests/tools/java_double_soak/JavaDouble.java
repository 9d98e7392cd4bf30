import java.io.*;

/* Reads lines "d:HEX" (a double's bits) and prints Double.toString and
 * String.format("%e|%.3e|%.17e|%.1e|%.0e") of each, '|'-separated. */
public class JavaDouble {
    public static void main(String[] a) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
        PrintWriter w = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        String l;
        while ((l = r.readLine()) != null) {
            double d = Double.longBitsToDouble(Long.parseUnsignedLong(l.substring(2), 16));
            w.println(Double.toString(d) + "|" + String.format("%e|%.3e|%.17e|%.1e|%.0e", d, d, d, d, d));
        }
        w.flush();
    }
}

// equimorph's trivial-compiler-equivalence check for Java mutants, run as a program in the
// oracle's sandbox (through the warm Java worker, like any Java program).
//
// Stdin: a count N, then N + 1 sources (the original first), each as a line holding its length
// in chars followed by that many chars. Stdout: one character per mutant: `1` when it compiles
// to the original's class files byte for byte, `0` otherwise (a difference, or a source that
// does not compile).
//
// Compiled with `-g:none`, so class files carry no line numbers, local-variable names or
// source-file name: two sources that differ only where javac folds constants (`2 * 3` and `6`),
// drops dead code (`if (false)`) or ignores a layout change compile to the same bytes.
import javax.tools.*;
import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.regex.*;

public class Main {
    static final Pattern PUBLIC_TYPE = Pattern.compile(
        "(?m)^\\s*public\\s+(?:(?:final|abstract|strictfp)\\s+)*(?:class|interface|enum|record)\\s+([A-Za-z_$][A-Za-z0-9_$]*)");

    /** Class name to bytes, or null when `source` does not compile. */
    static Map<String, byte[]> compile(JavaCompiler compiler, StandardJavaFileManager std, String source) {
        Matcher m = PUBLIC_TYPE.matcher(source);
        String unit = m.find() ? m.group(1) : "Main";
        Map<String, ByteArrayOutputStream> out = new TreeMap<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + unit + ".java"), JavaFileObject.Kind.SOURCE) {
            public CharSequence getCharContent(boolean ignore) { return source; }
        };
        JavaFileManager fm = new ForwardingJavaFileManager<StandardJavaFileManager>(std) {
            public JavaFileObject getJavaFileForOutput(Location loc, String name, JavaFileObject.Kind kind, FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + name.replace('.', '/') + ".class"), kind) {
                    public OutputStream openOutputStream() {
                        ByteArrayOutputStream b = new ByteArrayOutputStream();
                        out.put(name, b);
                        return b;
                    }
                };
            }
        };
        List<String> options = List.of("-proc:none", "-nowarn", "-Xlint:none", "-g:none");
        Boolean ok = compiler.getTask(new StringWriter(), fm, null, options, null, List.of(file)).call();
        if (!ok) return null;
        Map<String, byte[]> classes = new TreeMap<>();
        for (Map.Entry<String, ByteArrayOutputStream> e : out.entrySet()) classes.put(e.getKey(), e.getValue().toByteArray());
        return classes;
    }

    static boolean same(Map<String, byte[]> a, Map<String, byte[]> b) {
        if (a == null || b == null || !a.keySet().equals(b.keySet())) return false;
        for (String k : a.keySet()) if (!Arrays.equals(a.get(k), b.get(k))) return false;
        return true;
    }

    public static void main(String[] args) throws IOException {
        String in = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        int[] at = {0};
        int n = Integer.parseInt(line(in, at).trim());
        List<String> sources = new ArrayList<>();
        for (int i = 0; i <= n; i++) {
            int len = Integer.parseInt(line(in, at).trim());
            sources.add(in.substring(at[0], at[0] + len));
            at[0] += len;
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager std = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        Map<String, byte[]> original = compile(compiler, std, sources.get(0));
        StringBuilder flags = new StringBuilder();
        for (int i = 1; i <= n; i++) flags.append(same(original, compile(compiler, std, sources.get(i))) ? '1' : '0');
        System.out.println(flags);
    }

    /** The text from `at` up to the next newline (consumed). */
    static String line(String s, int[] at) {
        int end = s.indexOf('\n', at[0]);
        if (end < 0) end = s.length();
        String l = s.substring(at[0], end);
        at[0] = Math.min(s.length(), end + 1);
        return l;
    }
}

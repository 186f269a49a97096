// equimorph's warm Java worker: the Java counterpart of the Python fork server. It runs inside
// the same sandbox (bubblewrap, cleared environment, private /tmp) and stays up between runs,
// so a test costs a class loader instead of a JVM start.
//
// Protocol on fds 0/1: frames of <u32 little-endian length><bytes>, as the fork server's.
// Request: a JSON header {"timeout": seconds, "cap": bytes}, then the program's source, then its
// stdin. Response: a JSON result {"status": exited|timeout|output_limit|compile_error, "code",
// "seconds", "dirty"}, then stdout, then the tail of stderr (the compiler's messages for
// compile_error). "dirty": true means the run left something behind (a thread still running,
// a timeout, memory exhausted): the host must not reuse this worker.
//
// Each program is compiled once in memory with the JDK's own compiler (javax.tools) and kept
// by source text (the most recent 64), and every run loads its classes in a fresh class loader
// whose parent is the platform loader: static state starts anew and the worker's own classes
// are out of reach. System.exit is turned into the run's exit status by a security manager;
// System properties, the default locale and time zone are restored after each run.
import javax.tools.*;
import java.io.*;
import java.lang.reflect.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.regex.*;

public class JavaWorker {
    static final int STDERR_TAIL = 8192;
    static final DataInputStream IN =
        new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in)));
    static final OutputStream OUT = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
    static final JavaCompiler COMPILER = ToolProvider.getSystemJavaCompiler();
    static final Map<String, Map<String, byte[]>> COMPILED = new LinkedHashMap<>(64, 0.75f, true) {
        protected boolean removeEldestEntry(Map.Entry<String, Map<String, byte[]>> e) {
            return size() > 64;
        }
    };

    /** Thrown in a program's thread when it calls System.exit: it ends the run. */
    static final class ExitRequest extends SecurityException {
        final int code;
        ExitRequest(int code) { super("System.exit(" + code + ")"); this.code = code; }
    }

    /** Thrown when the program writes past the output cap. */
    static final class OutputLimit extends Error {
        OutputLimit() { super("output limit"); }
    }

    /** The run in progress (one at a time per worker). */
    static final class Run {
        final ThreadGroup group = new ThreadGroup("program");
        volatile Integer exitCode = null;
        volatile boolean exitCalled = false;
        volatile boolean overCap = false;
        final Object done = new Object();
        volatile boolean mainEnded = false;
    }
    static volatile Run current = null;

    static boolean inRun() {
        Run r = current;
        if (r == null) return false;
        for (ThreadGroup g = Thread.currentThread().getThreadGroup(); g != null; g = g.getParent())
            if (g == r.group) return true;
        return false;
    }

    /** Bytes written, kept up to a cap (stdout) or as a tail (stderr). */
    static final class Capture extends OutputStream {
        final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        final long cap;
        final boolean tail;
        final long[] total;
        /** Its own run, not `current`: the worker clears `current` when the run ends, while a
         *  thread of the program may still be printing (after catching System.exit's exception). */
        final Run run;
        Capture(long cap, boolean tail, long[] total, Run run) {
            this.cap = cap; this.tail = tail; this.total = total; this.run = run;
        }
        public synchronized void write(int b) { write(new byte[] {(byte) b}, 0, 1); }
        public synchronized void write(byte[] b, int off, int len) {
            Run r = run;
            // What a program prints after System.exit, or after its run ended, is never seen by
            // `java`'s caller.
            if (r.exitCalled || current != r) return;
            total[0] += len;
            if (total[0] > cap) {
                r.overCap = true;
                throw new OutputLimit();
            }
            buf.write(b, off, len);
            if (tail && buf.size() > 4 * STDERR_TAIL) {
                byte[] all = buf.toByteArray();
                buf.reset();
                buf.write(all, all.length - STDERR_TAIL, STDERR_TAIL);
            }
        }
        byte[] bytes() {
            byte[] all = buf.toByteArray();
            if (tail && all.length > STDERR_TAIL) return Arrays.copyOfRange(all, all.length - STDERR_TAIL, all.length);
            return all;
        }
    }

    static byte[] readFrame() throws IOException {
        int n = Integer.reverseBytes(IN.readInt());
        byte[] b = new byte[n];
        IN.readFully(b);
        return b;
    }

    static void writeFrame(byte[] b) throws IOException {
        int n = b.length;
        OUT.write(new byte[] {(byte) n, (byte) (n >>> 8), (byte) (n >>> 16), (byte) (n >>> 24)});
        OUT.write(b);
    }

    static double number(String json, String key, double fallback) {
        Matcher m = Pattern.compile("\"" + key + "\"\\s*:\\s*([0-9.eE+-]+)").matcher(json);
        return m.find() ? Double.parseDouble(m.group(1)) : fallback;
    }

    /** The name of the file a compilation unit must have: its public top-level type, else Main. */
    static String unitName(String source) {
        Matcher m = Pattern.compile("(?m)^\\s*public\\s+(?:(?:final|abstract|strictfp)\\s+)*(?:class|interface|enum|record)\\s+([A-Za-z_$][A-Za-z0-9_$]*)").matcher(source);
        return m.find() ? m.group(1) : "Main";
    }

    /** Compiles `source` in memory: class name → bytes, or throws with the compiler's messages. */
    static Map<String, byte[]> compile(String source) throws CompileError {
        String unit = unitName(source);
        Map<String, ByteArrayOutputStream> out = new HashMap<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + unit + ".java"), JavaFileObject.Kind.SOURCE) {
            public CharSequence getCharContent(boolean ignore) { return source; }
        };
        StandardJavaFileManager std = COMPILER.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
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
        StringWriter messages = new StringWriter();
        List<String> options = List.of("-proc:none", "-nowarn", "-Xlint:none", "-g:source,lines");
        Boolean ok = COMPILER.getTask(messages, fm, null, options, null, List.of(file)).call();
        if (!ok) throw new CompileError(messages.toString());
        Map<String, byte[]> classes = new HashMap<>();
        for (Map.Entry<String, ByteArrayOutputStream> e : out.entrySet()) classes.put(e.getKey(), e.getValue().toByteArray());
        return classes;
    }

    static final class CompileError extends Exception {
        CompileError(String m) { super(m); }
    }

    /** A fresh loader per run: the program's classes, then the JDK (never the worker's classes). */
    static final class ProgramLoader extends ClassLoader {
        final Map<String, byte[]> classes;
        ProgramLoader(Map<String, byte[]> classes) { super("program", ClassLoader.getPlatformClassLoader()); this.classes = classes; }
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) throw new ClassNotFoundException(name);
            return defineClass(name, b, 0, b.length);
        }
    }

    static Method findMain(ClassLoader loader, String unit, Map<String, byte[]> classes) throws Exception {
        List<String> order = new ArrayList<>();
        order.add(unit);
        order.add("Main");
        List<String> rest = new ArrayList<>(classes.keySet());
        Collections.sort(rest);
        order.addAll(rest);
        for (String name : order) {
            if (!classes.containsKey(name)) continue;
            Class<?> c = Class.forName(name, false, loader);
            try {
                Method m = c.getMethod("main", String[].class);
                if (Modifier.isStatic(m.getModifiers())) return m;
            } catch (NoSuchMethodException e) {
                // not this one
            }
        }
        return null;
    }

    public static void main(String[] argv) throws Exception {
        final Properties savedProps = (Properties) System.getProperties().clone();
        final Locale savedLocale = Locale.getDefault();
        final TimeZone savedZone = TimeZone.getDefault();
        final Thread.UncaughtExceptionHandler savedHandler = Thread.getDefaultUncaughtExceptionHandler();
        final PrintStream realErr = System.err;
        System.setSecurityManager(new SecurityManager() {
            public void checkPermission(java.security.Permission p) {
                if (inRun() && p instanceof RuntimePermission && p.getName().equals("setSecurityManager"))
                    throw new SecurityException("the sandbox's security manager stays");
            }
            public void checkPermission(java.security.Permission p, Object ctx) { checkPermission(p); }
            public void checkExit(int status) {
                Run r = current;
                if (r != null && inRun()) {
                    if (!r.exitCalled) { r.exitCode = status & 0xFF; r.exitCalled = true; }
                    synchronized (r.done) { r.done.notifyAll(); }
                    throw new ExitRequest(status);
                }
            }
        });
        // Warm the compiler up before saying ready: the first compilation loads javac.
        try { compile("public class Main { public static void main(String[] a) { System.out.println(a.length); } }"); }
        catch (CompileError e) { realErr.println(e.getMessage()); }
        writeFrame("{\"ready\":true}".getBytes(StandardCharsets.UTF_8));
        OUT.flush();
        while (true) {
            String header = new String(readFrame(), StandardCharsets.UTF_8);
            String source = new String(readFrame(), StandardCharsets.UTF_8);
            byte[] stdin = readFrame();
            long timeoutMs = (long) (number(header, "timeout", 10) * 1000);
            long cap = (long) number(header, "cap", 1 << 20);
            long start = System.nanoTime();
            Map<String, byte[]> classes = COMPILED.get(source);
            if (classes == null) {
                try {
                    classes = compile(source);
                    COMPILED.put(source, classes);
                } catch (CompileError e) {
                    reply("compile_error", null, start, false, new byte[0], e.getMessage().getBytes(StandardCharsets.UTF_8));
                    continue;
                }
            }
            long[] total = {0};
            Run run = new Run();
            Capture out = new Capture(cap, false, total, run);
            Capture err = new Capture(cap, true, total, run);
            PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
            final Map<String, byte[]> program = classes;
            final String unit = unitName(source);
            System.setIn(new ByteArrayInputStream(stdin));
            System.setOut(outStream);
            System.setErr(errStream);
            current = run;
            Thread main = new Thread(run.group, () -> {
                try {
                    ClassLoader loader = new ProgramLoader(program);
                    Method m = findMain(loader, unit, program);
                    if (m == null) {
                        System.err.println("error: no class of the program has a public static void main(String[])");
                        run.exitCode = 1;
                        return;
                    }
                    m.setAccessible(true);
                    Thread.currentThread().setContextClassLoader(loader);
                    m.invoke(null, (Object) new String[0]);
                } catch (InvocationTargetException e) {
                    uncaught(run, e.getCause());
                } catch (Throwable e) {
                    uncaught(run, e);
                } finally {
                    run.mainEnded = true;
                    synchronized (run.done) { run.done.notifyAll(); }
                }
            }, "main", 512L << 20);
            main.start();
            long deadline = start + timeoutMs * 1_000_000L;
            boolean timedOut = !waitForEnd(run, deadline);
            current = null;
            outStream.flush();
            errStream.flush();
            System.setOut(new PrintStream(OutputStream.nullOutputStream()));
            System.setErr(realErr);
            System.setIn(new ByteArrayInputStream(new byte[0]));
            boolean leftRunning = run.group.activeCount() > 0 || spawnedProcesses();
            System.setProperties((Properties) savedProps.clone());
            Locale.setDefault(savedLocale);
            TimeZone.setDefault(savedZone);
            Thread.setDefaultUncaughtExceptionHandler(savedHandler);
            String status = timedOut ? "timeout" : run.overCap ? "output_limit" : "exited";
            Integer code = run.exitCode == null ? Integer.valueOf(0) : run.exitCode;
            boolean dirty = timedOut || run.overCap || leftRunning;
            reply(status, code, start, dirty, out.bytes(), err.bytes());
            if (dirty) {
                OUT.flush();
                Runtime.getRuntime().halt(0);
            }
        }
    }

    /**
     * Whether a program left a process behind: its children are killed here, and inside the
     * worker's own pid namespace any other process (an orphan re-parented to the namespace's
     * init) counts too; the worker then retires, which ends the namespace and all in it.
     */
    static boolean spawnedProcesses() {
        boolean any = false;
        for (ProcessHandle d : (Iterable<ProcessHandle>) ProcessHandle.current().descendants()::iterator) {
            d.destroyForcibly();
            any = true;
        }
        if (Boolean.getBoolean("equimorph.pidns")) {
            java.util.Set<Long> keep = new java.util.HashSet<>();
            for (ProcessHandle h = ProcessHandle.current(); h != null; h = h.parent().orElse(null)) keep.add(h.pid());
            any |= ProcessHandle.allProcesses().anyMatch(h -> !keep.contains(h.pid()));
        }
        return any;
    }

    /** What `java` does with an exception that leaves main: a stack trace and exit status 1. */
    static void uncaught(Run run, Throwable e) {
        if (e instanceof ExitRequest) return;
        if (e instanceof OutputLimit || run.overCap) { run.overCap = true; return; }
        if (run.exitCalled) return;
        try {
            System.err.print("Exception in thread \"main\" ");
            e.printStackTrace();
        } catch (Throwable ignored) {
            // the program broke its own stderr
        }
        run.exitCode = 1;
    }

    /** Waits until main ended (and every non-daemon thread it started) or it exited; false on timeout. */
    static boolean waitForEnd(Run run, long deadline) throws InterruptedException {
        while (true) {
            if (run.exitCalled || run.overCap) return true;
            if (run.mainEnded && !nonDaemonAlive(run)) return true;
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) return false;
            synchronized (run.done) { run.done.wait(Math.min(left, 5)); }
        }
    }

    static boolean nonDaemonAlive(Run run) {
        Thread[] threads = new Thread[run.group.activeCount() + 8];
        int n = run.group.enumerate(threads, true);
        for (int i = 0; i < n; i++) if (threads[i].isAlive() && !threads[i].isDaemon()) return true;
        return false;
    }

    static void reply(String status, Integer code, long start, boolean dirty, byte[] out, byte[] err) throws IOException {
        double seconds = (System.nanoTime() - start) / 1e9;
        String json = "{\"status\":\"" + status + "\",\"code\":" + (code == null ? "null" : code.toString())
            + ",\"seconds\":" + seconds + ",\"dirty\":" + dirty + "}";
        writeFrame(json.getBytes(StandardCharsets.UTF_8));
        writeFrame(out);
        writeFrame(err);
        OUT.flush();
    }
}

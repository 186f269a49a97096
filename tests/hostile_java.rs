//! Hostile Java programs run as candidates: each is rejected or contained in bounded time, the
//! warm JVM worker that ran it is healthy or replaced, no stray process survives, nothing is
//! written outside the sandbox, and state a program changes does not leak into the next run.
//! One test, run sequentially: a thread bomb must not starve other tests' workers.

mod common;

use equimorph::oracle::{ExitClass, OracleMode, ValidationStatus};
use equimorph::program::Language;
use equimorph::task::{Task, TestCase};
use std::time::Duration;

const SUM: &str = "import java.util.*;\npublic class Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        int a = in.nextInt(), b = in.nextInt();\n        System.out.println(a + b);\n    }\n}\n";

/// Prints what a polluting program would have changed: the line separator, number formatting,
/// the time zone, whether stdin and stdout still work, and (through a thread that fails)
/// whether an uncaught-exception handler it installed is still there.
const PROBE: &str = "import java.util.*;\npublic class Main {\n    public static void main(String[] args) throws Exception {\n        Thread t = new Thread(() -> { throw new IllegalStateException(\"probe\"); });\n        t.start();\n        t.join();\n        Scanner in = new Scanner(System.in);\n        int a = in.nextInt();\n        System.out.print(String.format(\"%.2f|%s|%d\", 1.5, TimeZone.getDefault().getID(), a) + System.lineSeparator());\n    }\n}\n";

#[test]
fn hostile_java_programs_are_contained_and_leave_the_workers_healthy() {
    // SAFETY: set before the oracle starts any thread of its own in this test.
    unsafe { std::env::set_var("EQUIMORPH_SECRET_CANARY", "hunter2") };
    let oracle = common::oracle(OracleMode::Fork);
    let task = Task::new(
        "sum",
        SUM,
        vec![
            TestCase::stdin("1 2\n", Some("3\n".to_string())),
            TestCase::stdin("40 2\n", None),
        ],
    )
    .in_language(Language::Java);
    let v = oracle.validate(&task);
    assert_eq!(v.status, ValidationStatus::Ok, "{:?}", v.reason);
    let reference = v.reference.unwrap();
    let healthy = |after: &str| {
        let variant = SUM.replace("a + b", "b + a");
        let d = oracle
            .check(&task, &reference, &variant)
            .unwrap_or_else(|e| panic!("the oracle must keep working after {after}: {e}"));
        assert!(d.equivalent, "after {after}: {:?}", d.failure);
        let r = oracle.run_in(Language::Java, PROBE, "7\n", Duration::from_secs(10), 0);
        assert_eq!(
            (r.class, r.stdout.as_str()),
            (ExitClass::Success, "1.50|UTC|7\n"),
            "state leaked after {after}: {}",
            r.stderr_tail
        );
    };
    let sandboxed = oracle.isolation().launcher == "bubblewrap";
    for name in [
        "ThreadBomb",
        "MemoryHog",
        "HugeStdout",
        "Sleep",
        "SpawnProcess",
        "Daemon",
        "Halt",
        "WriteOutside",
        "ReadEnv",
        "KillParent",
        "Pollute",
        "StackOverflow",
    ] {
        let src = common::read(format!("fixtures/hostile/java/{name}.java"));
        common::assert_rejected(
            &oracle,
            &task,
            &reference,
            name,
            &src,
            Duration::from_secs(30),
        );
        let r = oracle.run_in(Language::Java, &src, "", Duration::from_secs(3), 0);
        match name {
            // Out of threads the JVM throws (an error), or dies (a crash: its worker is
            // replaced), or the run times out first.
            "ThreadBomb" => assert!(
                matches!(
                    r.class,
                    ExitClass::Timeout | ExitClass::Error | ExitClass::Crash
                ),
                "{name}: {:?} {}",
                r.class,
                r.stderr_tail
            ),
            "MemoryHog" => {
                assert_eq!(r.class, ExitClass::Error, "{name}: {}", r.stderr_tail);
                assert!(
                    r.stderr_tail.contains("OutOfMemoryError"),
                    "{}",
                    r.stderr_tail
                );
            }
            // Runs get a 512 MiB stack (deep recursion is common in contest code), which takes
            // a few seconds to fill: an error or, first, the deadline.
            // (The tail of stderr may hold only the trace's last frames.)
            "StackOverflow" => match r.class {
                ExitClass::Error => assert!(
                    r.stderr_tail.contains("StackOverflowError")
                        || r.stderr_tail.contains("Main.depth("),
                    "{}",
                    r.stderr_tail
                ),
                other => assert_eq!(other, ExitClass::Timeout, "{}", r.stderr_tail),
            },
            "HugeStdout" => assert_eq!(r.class, ExitClass::OutputLimit),
            "Sleep" => assert_eq!(r.class, ExitClass::Timeout),
            "SpawnProcess" => assert_eq!(r.class, ExitClass::Success, "{}", r.stderr_tail),
            "Daemon" => {
                // The run ends when main returns; the thread it left is the worker's problem
                // (it retires), not the verdict's.
                assert_eq!(
                    (r.class, r.stdout.as_str()),
                    (ExitClass::Success, "main done\n")
                );
                assert!(r.seconds < 2.5, "waited for the thread: {}", r.seconds);
            }
            "Halt" => {
                // The security manager stays, and halt is an exit status like System.exit.
                assert_eq!(r.stdout, "before\nmanager kept\n", "{}", r.stderr_tail);
                assert_eq!(r.class, ExitClass::Success, "{}", r.stderr_tail);
            }
            // Only the sandbox's private scratch space (its /tmp, /dev/shm and the run's own
            // directory) takes writes; the host paths are checked for canaries below.
            "WriteOutside" if sandboxed => {
                assert!(r.stdout.starts_with("wrote: "), "{}", r.stderr_tail);
                for d in ["/root", "/etc", "/work", "/var/tmp"] {
                    assert!(!r.stdout.contains(&format!("{d},")), "{}", r.stdout);
                    assert!(!r.stdout.contains(&format!("{d}]")), "{}", r.stdout);
                }
            }
            "ReadEnv" => assert!(!r.stdout.contains("hunter2"), "environment leaked"),
            "KillParent" => assert_ne!(r.class, ExitClass::Timeout, "{}", r.stderr_tail),
            "Pollute" => assert_eq!(r.class, ExitClass::Success, "{}", r.stderr_tail),
            _ => {}
        }
        common::assert_nothing_left(name, Duration::from_millis(200));
        healthy(name);
    }
}

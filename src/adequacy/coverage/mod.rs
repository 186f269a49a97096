//! Branch coverage of a Python program on one test, measured in the oracle's sandbox: the
//! program runs under a `sys.settrace` tracer (opcode events) that records every branch taken
//! or not taken in the program's own bytecode, and prints them to standard error when it ends.
//!
//! Coverage only guides which inputs `tests grow` keeps (an input that reaches an arc no kept
//! test reached tells the program's behaviour apart where mutants may not point); it never
//! decides a verdict. A Java program reports its branches through probes written into its
//! source ([`java`]). A program coverage cannot be read from (`os._exit`, a run past the
//! deadline, a Java source the probes cannot be placed in) has no coverage, and growth falls
//! back on its mutants alone.

mod java;

use crate::oracle::{ExitClass, Oracle, RunResult, REFERENCE_HASH_SEED};
use crate::program::Language;
use crate::task::TestCase;
use std::collections::BTreeSet;
use std::time::Duration;

/// One arc of the covered program's bytecode, as `FIRST:FROM:TO`: in the code object whose
/// first line is FIRST, the instruction at offset TO ran after the one at FROM (`-1`: the
/// code's entry; `r`: its return; `x`: an exception). Only what follows a jump instruction
/// (taken or not) and entries are recorded, so
/// the set is branch coverage at the granularity of the bytecode: both ways of a conditional
/// expression, a short-circuit `and`/`or` or a comprehension's filter on one line count.
pub type Arc = String;

/// The marker the tracer prints before its arcs.
const MARKER: &str = "@@equimorph-arcs@@";

/// The traced program: `source` (written as a JSON string, which is also a Python string
/// literal: serde_json escapes only `"`, `\\` and control characters) compiled under its own
/// file name and run as `__main__`, with a
/// tracer that keeps the last line per frame and prints the arcs at exit (also on
/// `SystemExit` and uncaught exceptions, which it re-raises so the run ends as it would).
fn traced(source: &str) -> String {
    let quoted = serde_json::to_string(source).unwrap_or_else(|_| "\"\"".into());
    format!(
        r#"import sys as _eqm_sys, dis as _eqm_dis
_eqm_arcs = set()
_eqm_jumps = set(_eqm_dis.hasjrel) | set(_eqm_dis.hasjabs)
def _eqm_trace(frame, event, arg):
    code = frame.f_code
    if code.co_filename != "<covered>":
        return None
    frame.f_trace_opcodes = True
    first = code.co_firstlineno
    ops = code.co_code
    last = [-1]
    def local(frame, event, arg):
        if event == "opcode":
            at = frame.f_lasti
            was = last[0]
            if was < 0 or ops[was] in _eqm_jumps:
                _eqm_arcs.add("%d:%d:%d" % (first, was, at))
            last[0] = at
        elif event == "return":
            _eqm_arcs.add("%d:%d:r" % (first, last[0]))
        elif event == "exception":
            _eqm_arcs.add("%d:%d:x" % (first, last[0]))
        return local
    return local
_eqm_code = compile({quoted}, "<covered>", "exec")
_eqm_globals = {{"__name__": "__main__", "__builtins__": __builtins__}}
_eqm_sys.settrace(_eqm_trace)
try:
    exec(_eqm_code, _eqm_globals)
finally:
    _eqm_sys.settrace(None)
    _eqm_sys.stdout.flush()
    _eqm_sys.stderr.write("\n{MARKER} " + " ".join(sorted(_eqm_arcs)) + "\n")
    _eqm_sys.stderr.flush()
"#
    )
}

/// The arcs in a traced run's standard error (after the last marker), or `None` without one.
fn parse_arcs(stderr: &str) -> Option<BTreeSet<Arc>> {
    let (_, tail) = stderr.rsplit_once(MARKER)?;
    let line = tail.lines().next().unwrap_or("");
    Some(line.split_whitespace().map(str::to_string).collect())
}

/// The arcs of `source` (a program of `language`) that `test` reaches, or `None` when they
/// cannot be read: a run that timed out or left the sandbox's output unreadable, a Python
/// program that ended without running the tracer's exit (`os._exit`), a Java program the
/// probes cannot be placed in or that reached none. The traced run may fail (an uncaught
/// exception): its arcs up to the failure count. A Java program's arcs are its probes (`jK`).
pub fn arcs_of(
    oracle: &Oracle,
    language: Language,
    source: &str,
    test: &TestCase,
    timeout: Duration,
) -> Option<BTreeSet<Arc>> {
    match language {
        Language::Python => {
            let program = test.program(source);
            let run =
                oracle.run_seeded(&traced(&program), &test.input, timeout, REFERENCE_HASH_SEED);
            read(&run).and_then(parse_arcs)
        }
        Language::Java => {
            let probed = java::with_probes(source)?;
            let run = oracle.run_in(
                Language::Java,
                &probed,
                &test.input,
                timeout,
                REFERENCE_HASH_SEED,
            );
            read(&run).and_then(java::parse_probes)
        }
        // No branch tracing of C and C++ programs yet: new answers still count.
        Language::Cpp | Language::C => None,
    }
}

/// The standard error of a coverage run that compiled and ended in time and in the sandbox.
fn read(run: &RunResult) -> Option<&str> {
    let unread = matches!(
        run.class,
        ExitClass::Timeout | ExitClass::Crash | ExitClass::CompileError
    );
    (!unread).then_some(run.stderr_tail.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arcs_are_read_after_the_last_marker() {
        let err = format!("noise\n{MARKER} 1:2:3\n{MARKER} 1:-1:0 1:4:10 1:10:r\nmore\n");
        let arcs = parse_arcs(&err).unwrap_or_default();
        assert_eq!(arcs.len(), 3);
        assert!(arcs.contains("1:-1:0") && arcs.contains("1:10:r"));
        assert!(parse_arcs("no marker").is_none());
    }

    #[test]
    fn the_traced_program_quotes_the_source_as_a_string_literal() {
        let t = traced("print(\"a\\n\")\n");
        assert!(
            t.contains(r#"compile("print(\"a\\n\")\n", "<covered>""#),
            "{t}"
        );
    }
}

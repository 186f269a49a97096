//! The one exit-code table. Every command exits with one of these statuses and its `--help`
//! text is generated from this table, so the two cannot disagree.
//!
//! | status | meaning |
//! |---|---|
//! | 0 | the command did what was asked (results were produced, the answer is yes) |
//! | 1 | a negative answer, or a run that produced nothing usable (each command says which) |
//! | 2 | bad usage or input, or an error; an invalid candidate program is an input error |
//! | 130 | interrupted by SIGINT or SIGTERM (finished work is saved; rerun to resume) |
//! | 141 | standard output was closed (`equimorph … \| head`) |

/// An exit status of the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitStatus {
    /// 0: done.
    Ok,
    /// 1: a negative answer, or nothing usable.
    Negative,
    /// 2: bad usage or input, or an error.
    Error,
    /// 130: interrupted by SIGINT or SIGTERM.
    Interrupted,
    /// 141: standard output was closed.
    BrokenPipe,
}

impl ExitStatus {
    /// Every status, in table order.
    pub const ALL: [ExitStatus; 5] = [
        ExitStatus::Ok,
        ExitStatus::Negative,
        ExitStatus::Error,
        ExitStatus::Interrupted,
        ExitStatus::BrokenPipe,
    ];

    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Ok => 0,
            ExitStatus::Negative => 1,
            ExitStatus::Error => 2,
            ExitStatus::Interrupted => 130,
            ExitStatus::BrokenPipe => 141,
        }
    }

    /// What the status means for every command.
    pub fn meaning(self) -> &'static str {
        match self {
            ExitStatus::Ok => "done: results were produced (or the answer is yes)",
            ExitStatus::Negative => "a negative answer, or nothing usable",
            ExitStatus::Error => {
                "bad usage or input, or an error (an invalid candidate: not a verdict)"
            }
            ExitStatus::Interrupted => {
                "interrupted by SIGINT or SIGTERM (work done is saved; rerun to resume)"
            }
            ExitStatus::BrokenPipe => "standard output was closed",
        }
    }
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(s: ExitStatus) -> Self {
        std::process::ExitCode::from(s.code())
    }
}

/// Exit code of a run that finished but produced nothing usable, or a negative answer.
pub const NOTHING_USABLE: u8 = 1;

/// Exit code of a run stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it, for
/// both signals).
pub const INTERRUPTED: u8 = 130;

/// Exit code when the reader of standard output went away.
pub const BROKEN_PIPE: u8 = 141;

/// What status 1 means for `command` (a subcommand's name; `tests score` as "tests score"),
/// or `None` for a command that never exits 1.
pub fn negative_meaning(command: &str) -> Option<&'static str> {
    Some(match command {
        "attack" => "the run finished but no task was attacked (every task skipped or in error)",
        "augment" => "the run finished but no task was augmented",
        "select" => {
            "no candidate could be judged, or some task could not be evaluated (rerun to retry)"
        }
        "robustness" => "no detector could be evaluated",
        "check" => "the candidate is not equivalent to the original",
        "validate" => "some original is not ok (failing, flaky or timing out)",
        "verify" => "some winner or variant was rejected, or has no verdict",
        "tests score" => "no task could be scored (no mutant was made for any task)",
        "tests grow" => "no task could be grown",
        "design" => "fewer designs than asked for were made",
        "implement" => "some implementation failed",
        _ => return None,
    })
}

/// The exit-code section of `command`'s `--help` (the top level when `command` is `None`).
pub fn help(command: Option<&str>) -> String {
    let mut out = String::from("Exit codes:\n");
    for s in ExitStatus::ALL {
        let meaning = match (s, command) {
            (ExitStatus::Negative, Some(c)) => match negative_meaning(c) {
                Some(m) => m,
                None => continue,
            },
            (ExitStatus::Negative, None) => {
                "a negative answer, or nothing usable (each command's --help says which)"
            }
            _ => s.meaning(),
        };
        out.push_str(&format!("  {:>3}  {meaning}\n", s.code()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_status_a_command_can_exit_with() {
        let h = help(Some("check"));
        for code in ["0", "1", "2", "130", "141"] {
            assert!(h.contains(&format!("  {code:>3}  ")), "{code} missing: {h}");
        }
        assert!(h.contains("not equivalent"));
        // A command that never answers no has no status 1 line.
        assert!(!help(Some("score")).contains("    1  "));
        assert_eq!(ExitStatus::Interrupted.code(), INTERRUPTED);
    }
}

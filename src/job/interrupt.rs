//! SIGINT and SIGTERM as a flag: a job takes it before any work, checks it between steps and
//! tasks, then writes what it finished and exits 130 ([`super::exit::INTERRUPTED`]).

use super::exit::INTERRUPTED;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The process's interrupt flag, once installed.
static INTERRUPT_FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// A flag set by the first SIGINT or SIGTERM; a second one exits the process at once (status
/// 130). Installed once per process: later calls return the same flag.
pub fn interrupt_flag() -> std::io::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    if let Some(flag) = INTERRUPT_FLAG.get() {
        return Ok(flag.clone());
    }
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as it was before this signal set it.
        signal_hook::flag::register_conditional_shutdown(
            sig,
            i32::from(INTERRUPTED),
            flag.clone(),
        )?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(INTERRUPT_FLAG.get_or_init(|| flag).clone())
}

/// A run stopped by SIGINT/SIGTERM before its tasks started: the command line prints it and
/// exits 130.
#[derive(Debug, thiserror::Error)]
#[error("interrupted while {doing}: {done}; rerun the same command to start again")]
pub struct InterruptedBeforeStart {
    /// What the run was doing ("calibrating the threshold").
    pub doing: String,
    /// What was done, in words ("no task was attacked").
    pub done: String,
}

/// Fails with [`InterruptedBeforeStart`] when `stop` is set: called between the steps that
/// come before a run's first task.
pub fn stop_point(
    stop: &AtomicBool,
    doing: &str,
    done: &str,
) -> Result<(), InterruptedBeforeStart> {
    if stop.load(Ordering::Relaxed) {
        return Err(InterruptedBeforeStart {
            doing: doing.into(),
            done: done.into(),
        });
    }
    Ok(())
}

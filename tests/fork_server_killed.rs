//! A fork server killed from outside in the middle of a run: the run is retried once on a fresh
//! server; killed every time (the original's run as well), the check is a fault (never "not
//! equivalent", never cached). In a test
//! binary of its own, so that the killing touches no other test's servers.

mod common;

/// The parent of `pid`, from /proc.
fn parent(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` descends from this test process.
fn ours(pid: i32) -> bool {
    let me = std::process::id() as i32;
    let mut p = pid;
    for _ in 0..8 {
        match parent(p) {
            Some(pp) if pp == me => return true,
            Some(pp) if pp > 1 => p = pp,
            _ => return false,
        }
    }
    false
}

/// Kills the fork servers this test process started (their command line holds the zygote's
/// first comment line).
fn kill_fork_servers() -> usize {
    let mut killed = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains("# equimorph fork server.") && ours(pid) {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed += 1;
        }
    }
    killed
}

#[test]
fn a_fork_server_killed_mid_run_is_retried_on_a_fresh_one() {
    use equimorph::oracle::OracleMode;
    let oracle = common::oracle(OracleMode::Fork);
    let task = common::fixture("sum-two");
    let reference = oracle.reference(&task);
    let slow = format!("import time\ntime.sleep(0.6)\n{}", task.source);
    // Killed once: the retry on a fresh server gives the true verdict.
    let killer = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_millis(250));
        kill_fork_servers()
    });
    let d = oracle
        .check(&task, &reference, &slow)
        .expect("the retry succeeds");
    assert!(
        killer.join().unwrap() > 0,
        "no fork server was found to kill"
    );
    assert!(d.equivalent);
    assert!(oracle.stats().retries >= 1);

    // Killed again and again, the original too when it runs once more to tell whose doing the
    // failure is: a fault of that check, not "not equivalent", and not cached.
    let slow_task = equimorph::task::Task {
        source: slow.clone(),
        ..task.clone()
    };
    let slow_reference = oracle.reference(&slow_task);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    let killer = std::thread::spawn(move || {
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            kill_fork_servers();
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    let slower = format!("{slow}# again\n");
    let r = oracle.check(&slow_task, &slow_reference, &slower);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    killer.join().unwrap();
    assert!(r.is_err(), "{r:?}");
    assert!(
        r.unwrap_err()
            .reason
            .contains("the original failed the same way"),
        "the original was run again"
    );
    let d = oracle
        .check(&slow_task, &slow_reference, &slower)
        .expect("the sandbox works again");
    assert!(d.equivalent && !d.cached);
}

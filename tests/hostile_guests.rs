//! A test-only guest that misbehaves on purpose: every misbehaviour is a typed error of that
//! one call, within its limits, the host goes on, and memory comes back.

mod common;

use equimorph::transform::{ApplyError, Limits};
use std::time::{Duration, Instant};

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

#[test]
fn hostile_guest_behaviours_are_typed_errors_and_the_host_goes_on() {
    let limits = Limits {
        memory_bytes: 64 << 20,
        wall_time: Duration::from_millis(300),
        output_bytes: 1 << 20,
    };
    let (rt, _cache) = common::runtime(limits);
    let hostile = rt
        .load(&common::test_transforms_dir().join("hostile.wasm"))
        .expect("hostile guest loads");
    assert_eq!(hostile.name, "hostile");
    let ok = || {
        assert_eq!(
            hostile.apply("x = 1\n", 7),
            Ok(Some("x = 1\n# seen by hostile 7\n".to_string()))
        )
    };
    ok();

    let t = Instant::now();
    assert_eq!(
        hostile.apply("loop\n", 1),
        Err(ApplyError::Timeout { millis: 300 })
    );
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "timeout took {:?}",
        t.elapsed()
    );
    ok();

    assert_eq!(
        hostile.apply("alloc\n", 1),
        Err(ApplyError::OutOfMemory {
            limit_bytes: 64 << 20
        })
    );
    ok();

    assert!(
        matches!(hostile.apply("recurse\n", 1), Err(ApplyError::Trap(_))),
        "stack overflow traps"
    );
    ok();

    match hostile.apply("panic\n", 1) {
        Err(ApplyError::Trap(msg)) => assert!(msg.contains("unreachable"), "{msg}"),
        other => panic!("{other:?}"),
    }
    ok();

    // 64 MiB output: over the 1 MiB output limit (and over the 64 MiB memory cap on the way).
    assert!(matches!(
        hostile.apply("huge\n", 1),
        Err(ApplyError::OutputTooLarge { .. } | ApplyError::OutOfMemory { .. })
    ));
    ok();
    assert_eq!(
        hostile.apply("error\n", 1),
        Err(ApplyError::Guest("hostile guest refuses this input".into()))
    );
    ok();

    // Memory comes back: many allocating calls do not grow the host.
    let before = rss_bytes();
    for _ in 0..20 {
        assert!(hostile.apply("alloc\n", 2).is_err());
    }
    let after = rss_bytes();
    assert!(
        after < before + (256 << 20),
        "host memory grew from {before} to {after} bytes"
    );
    ok();
}

#[test]
fn huge_output_within_memory_is_refused_by_the_output_limit() {
    let limits = Limits {
        memory_bytes: 256 << 20,
        wall_time: Duration::from_secs(5),
        output_bytes: 1 << 20,
    };
    let (rt, _cache) = common::runtime(limits);
    let hostile = rt
        .load(&common::test_transforms_dir().join("hostile.wasm"))
        .unwrap();
    assert_eq!(
        hostile.apply("huge\n", 0),
        Err(ApplyError::OutputTooLarge {
            bytes: 64 << 20,
            limit: 1 << 20
        })
    );
}

#[test]
fn hostile_calls_from_many_threads_do_not_interfere() {
    use rayon::prelude::*;
    let limits = Limits {
        memory_bytes: 32 << 20,
        wall_time: Duration::from_millis(200),
        output_bytes: 1 << 20,
    };
    let (rt, _cache) = common::runtime(limits);
    let hostile = rt
        .load(&common::test_transforms_dir().join("hostile.wasm"))
        .unwrap();
    let inputs = ["loop\n", "x\n", "alloc\n", "y\n", "panic\n", "z\n"];
    let outs: Vec<_> = (0..24)
        .into_par_iter()
        .map(|i| hostile.apply(inputs[i % 6], i as u64))
        .collect();
    for (i, o) in outs.iter().enumerate() {
        match i % 6 {
            0 => assert!(matches!(o, Err(ApplyError::Timeout { .. }))),
            2 => assert!(matches!(o, Err(ApplyError::OutOfMemory { .. }))),
            4 => assert!(matches!(o, Err(ApplyError::Trap(_)))),
            _ => assert!(matches!(o, Ok(Some(_)))),
        }
    }
}

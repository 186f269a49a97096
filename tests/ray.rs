//! `scripts/ray_run.py` on a local Ray cluster (a head and a second node on 127.0.0.1, one
//! CPU and one declared GPU each): the merged result equals the single-process run, with shard
//! directories shared or sent through the object store, and a shard that fails is retried.
//! With `--gpus 1` each shard gets its own GPU from Ray and runs with `--device cuda:0`; the
//! GPUs are only declared (Ray's resource accounting needs no GPU), and the job's detector
//! here is the classic one, which runs anywhere, so the path is tested without a GPU.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn venv_bin(name: &str) -> PathBuf {
    let home = std::env::var_os("EQUIMORPH_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join(".equimorph"));
    home.join("venv/bin").join(name)
}

/// A two-node Ray cluster on 127.0.0.1, stopped (with every Ray process of this user) on drop.
struct Cluster {
    address: String,
}

impl Cluster {
    fn start() -> Cluster {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let address = format!("127.0.0.1:{port}");
        let common_args = [
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "1",
            "--num-gpus",
            "1",
            "--object-store-memory",
            "100000000",
            "--disable-usage-stats",
        ];
        let ray = |args: &[&str]| {
            let o = Command::new(venv_bin("ray"))
                .args(args)
                .args(common_args)
                .env("RAY_USAGE_STATS_ENABLED", "0")
                .output()
                .expect("ray is installed in the project's virtualenv (make setup)");
            assert!(
                o.status.success(),
                "ray {args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        };
        ray(&[
            "start",
            "--head",
            "--port",
            &port.to_string(),
            "--include-dashboard",
            "false",
        ]);
        let cluster = Cluster { address };
        ray(&["start", "--address", &cluster.address]);
        cluster
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(venv_bin("ray"))
            .args(["stop", "--force"])
            .output();
    }
}

fn launch(cluster: &Cluster, out: &Path, extra: &[&str], job: &[&str]) -> std::process::Output {
    Command::new(venv_bin("python"))
        .arg(common::root().join("scripts/ray_run.py"))
        .args(["--address", &cluster.address, "--shards", "2", "--out"])
        .arg(out)
        .args(extra)
        .arg("--")
        .args(job)
        .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .env("RAY_USAGE_STATS_ENABLED", "0")
        .output()
        .unwrap()
}

#[test]
fn ray_shards_merge_into_the_single_process_run() {
    let (_d, tasks) = common::fixture_subset(8);
    let tasks = tasks.to_str().unwrap().to_string();
    let root = tempfile::tempdir().unwrap();
    let job = [
        "augment",
        &tasks,
        "--variants",
        "2",
        "--seed",
        "6",
        "--format",
        "codexglue",
    ];
    let single = root.path().join("single");
    let mut args: Vec<&str> = job.to_vec();
    let single_s = single.to_str().unwrap().to_string();
    args.extend(["--out", &single_s, "--quiet"]);
    common::success_stdout(&common::equimorph(&args, None));

    let cluster = Cluster::start();
    let same = |dir: &Path| {
        assert_eq!(
            common::read(dir.join("variants.jsonl")),
            common::read(single.join("variants.jsonl"))
        );
        assert_eq!(
            common::read(dir.join("codexglue/pairs.txt")),
            common::read(single.join("codexglue/pairs.txt"))
        );
        assert_eq!(
            common::timeless_lines(dir.join("tasks.jsonl")),
            common::timeless_lines(single.join("tasks.jsonl"))
        );
    };
    for transfer in ["shared", "object-store"] {
        let out = root.path().join(transfer);
        let o = launch(&cluster, &out, &["--transfer", transfer], &job);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{transfer}: {err}");
        assert!(err.contains("cluster: 2 nodes, 2 CPUs"), "{err}");
        assert!(
            err.contains("shard 1/2 done") && err.contains("shard 2/2 done"),
            "{err}"
        );
        same(&out);
        let record: serde_json::Value =
            serde_json::from_str(&common::read(out.join("ray_run.json"))).unwrap();
        assert_eq!(record["shards"].as_object().unwrap().len(), 2);
    }

    // One declared GPU per shard: each runs with --device cuda:0 on a GPU of its own.
    let out = root.path().join("gpus");
    let o = launch(&cluster, &out, &["--gpus", "1"], &job);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("and 1 GPU(s)"), "{err}");
    same(&out);
    let record: serde_json::Value =
        serde_json::from_str(&common::read(out.join("ray_run.json"))).unwrap();
    let shards = record["shards"].as_object().unwrap();
    assert_eq!(shards.len(), 2);
    for shard in shards.values() {
        // Ray reserved one GPU for the shard (its id on that node).
        assert_eq!(shard["gpus"].as_array().unwrap().len(), 1, "{shard}");
        let cmd: Vec<&str> = shard["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert!(
            cmd.windows(2).any(|w| w == ["--device", "cuda:0"]),
            "{cmd:?}"
        );
    }

    // A binary that fails the first try of every shard: Ray retries, and the result is the same.
    let wrapper = root.path().join("flaky-equimorph");
    let marks = root.path().join("marks");
    std::fs::create_dir(&marks).unwrap();
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n# Fails the first try of each shard (its --shard value names it).\n\
             for a in \"$@\"; do case \"$a\" in */2) s=$(echo \"$a\" | tr / _);; esac; done\n\
             if [ ! -e '{m}'/\"$s\" ]; then touch '{m}'/\"$s\"; echo 'injected failure' >&2; exit 3; fi\n\
             exec '{bin}' \"$@\"\n",
            m = marks.display(),
            bin = env!("CARGO_BIN_EXE_equimorph")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = root.path().join("retried");
    let o = launch(
        &cluster,
        &out,
        &["--retries", "1", "--binary", wrapper.to_str().unwrap()],
        &job,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_dir(&marks).unwrap().count(),
        2,
        "both shards failed once"
    );
    same(&out);

    // No retries left: the launcher says which shard failed and exits non-zero.
    std::fs::remove_dir_all(&marks).unwrap();
    std::fs::create_dir(&marks).unwrap();
    let o = launch(
        &cluster,
        &root.path().join("failed"),
        &["--retries", "0", "--binary", wrapper.to_str().unwrap()],
        &job,
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("2 shard(s) failed") && err.contains("injected failure"),
        "{err}"
    );
}

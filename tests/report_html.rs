//! The HTML report opens offline in a real browser: headless Chromium loads it, its script
//! runs (the task table becomes sortable), and the gallery shows every attacked task.

use crate::common;

use equimorph::report::{results, Status};

fn chromium() -> std::path::PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(p) = which(name) {
            return p;
        }
    }
    panic!("no chromium found: `make test` installs it (scripts/ensure-apt.sh chromium)");
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}

#[test]
fn report_renders_in_headless_chromium_with_a_gallery_entry_per_attacked_task() {
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let (_d, tasks) = common::fixture_subset(4);
    let out = tempfile::tempdir().unwrap();
    let o = common::attack_command(
        &tasks,
        out.path(),
        &format!("onnx:{}", model.display()),
        2,
        &["--beam", "2"],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = out.path().join("report.html");
    let profile = tempfile::tempdir().unwrap();
    let dom = std::process::Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.status.success() && dom_text.contains("</html>"),
        "chromium failed: {}",
        String::from_utf8_lossy(&dom.stderr)
    );
    // The inline script ran to its end (it marks every sortable table ready).
    assert!(dom_text.contains("data-ready=\"1\""), "script did not run");
    let lines = results::read(&out.path().join("results.jsonl")).unwrap();
    let ok: Vec<_> = lines.iter().filter(|l| l.status == Status::Ok).collect();
    assert!(!ok.is_empty());
    for (i, l) in ok.iter().enumerate() {
        assert!(
            dom_text.contains(&format!("id=\"task-{i}\"><h3>{}</h3>", l.id)),
            "gallery entry for {}",
            l.id
        );
        assert!(dom_text.contains(&format!("href=\"#task-{i}\"")));
    }
    assert_eq!(
        dom_text.matches("<section class=\"task\"").count(),
        ok.len()
    );
    assert!(dom_text.contains("id=\"anytime\""));
    assert!(dom_text.contains("Strength: mean L of one application"));
    // Nothing is fetched from outside the file (the SVG namespace URI is only a name).
    let html = common::read(&page);
    for outside in ["src=\"http", "href=\"http", "<link", "url(http", "@import"] {
        assert!(!html.contains(outside), "{outside}");
    }
}

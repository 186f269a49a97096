//! The generated reference pages in `docs/reference/` are what the code generates: a page
//! that differs fails here. `SNAPSHOTS=overwrite cargo test --release --test integration docs::` rewrites
//! them after a change to `--help` or to an SPT's documentation.

use std::process::Command;

fn equimorph(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args(args)
        // One width everywhere: clap wraps help to the terminal's.
        .env("COLUMNS", "100")
        .env_remove("EQUIMORPH_TRANSFORMS")
        .output()
        .expect("run equimorph");
    assert!(
        out.status.success(),
        "equimorph {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The subcommands a `--help` text lists under `Commands:` (less `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim_end() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // A name starts at two spaces; wrapped descriptions are indented further.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// One section per command, depth first, in the order `--help` lists them.
fn cli_page(path: &mut Vec<String>, out: &mut String) {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let help = equimorph(&args);
    let title = std::iter::once("equimorph")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let level = "#".repeat((path.len() + 2).min(4));
    out.push_str(&format!(
        "{level} `{title}`\n\n```text\n{}\n```\n\n",
        help.trim_end()
    ));
    for sub in subcommands(&help) {
        path.push(sub);
        cli_page(path, out);
        path.pop();
    }
}

#[test]
fn the_cli_reference_is_what_help_prints() {
    let mut page = String::from(
        "# Command-line reference\n\n\
         Generated from `equimorph … --help` by `tests/docs.rs` (a test fails when this page \
         and the help differ; `SNAPSHOTS=overwrite cargo test --release --test integration docs::` \
         regenerates it).\n\n",
    );
    cli_page(&mut Vec::new(), &mut page);
    assert!(page.contains("\n### `equimorph attack`\n"));
    assert!(page.contains("\n#### `equimorph tests grow`\n"));
    snapbox::assert_data_eq!(page, snapbox::file!["../docs/reference/cli.md"].raw());
}

/// A built-in SPT's listing and its page.
struct SptPage {
    name: String,
    /// The index row: name, language, category, description.
    row: String,
    /// `transforms show` less the machine-specific `file:` line.
    page: String,
}

/// Each built-in SPT's page, by name.
fn spt_pages() -> Vec<SptPage> {
    let list: serde_json::Value =
        serde_json::from_str(&equimorph(&["transforms", "list", "--json"])).expect("JSON list");
    let mut pages = Vec::new();
    for t in list.as_array().expect("a list") {
        let field = |k: &str| t[k].as_str().unwrap_or_default().to_string();
        let name = field("name");
        let languages: Vec<&str> = t["languages"]
            .as_array()
            .expect("languages")
            .iter()
            .filter_map(|l| l.as_str())
            .collect();
        let languages = languages.join(", ");
        let show = equimorph(&["transforms", "show", &name]);
        let body: Vec<&str> = show
            .lines()
            .skip(2)
            .filter(|l| !l.starts_with("file: "))
            // Some crates' docs open with their own name as a title: the page has one.
            .filter(|l| l.trim() != format!("# {name}"))
            .collect();
        let page = format!(
            "# `{name}`\n\n{}\n\nLanguage: {} · category: {} · kind: {}\n{}\n",
            field("description"),
            languages,
            field("category"),
            field("kind"),
            body.join("\n").trim_end()
        );
        let row = format!(
            "| [`{name}`](spts/{name}.md) | {} | {} | {} |\n",
            languages,
            field("category"),
            field("description")
        );
        pages.push(SptPage { name, row, page });
    }
    pages
}

#[test]
fn the_spt_pages_are_what_transforms_show_prints() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference/spts");
    let pages = spt_pages();
    assert!(pages.len() >= 60, "only {} SPTs", pages.len());
    let mut index = String::from(
        "# The SPT library\n\n\
         One page per built-in SPT, generated from `equimorph transforms show` by `tests/docs.rs`.\n\n\
         | SPT | language | category | what it does |\n|---|---|---|---|\n",
    );
    let overwrite = std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite");
    if overwrite {
        std::fs::create_dir_all(&dir).expect("create docs/reference/spts");
    }
    for SptPage { name, row, page } in &pages {
        index.push_str(row);
        let path = dir.join(format!("{name}.md"));
        if overwrite && !path.exists() {
            std::fs::write(&path, "").expect("create a page");
        }
        snapbox::assert_data_eq!(page.clone(), snapbox::Data::read_from(&path, None).raw());
    }
    // No page for an SPT that is gone.
    let names: std::collections::BTreeSet<String> =
        pages.iter().map(|p| format!("{}.md", p.name)).collect();
    for entry in std::fs::read_dir(&dir).expect("docs/reference/spts") {
        let file = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .to_string();
        assert!(
            names.contains(&file),
            "docs/reference/spts/{file}: no such SPT"
        );
    }
    // mdBook builds only what SUMMARY.md lists: every SPT page is there.
    let summary = std::fs::read_to_string(dir.join("../../SUMMARY.md")).expect("docs/SUMMARY.md");
    for SptPage { name, .. } in &pages {
        let entry = format!("  - [`{name}`](reference/spts/{name}.md)\n");
        assert!(summary.contains(&entry), "docs/SUMMARY.md lacks {entry:?}");
    }
    let index_path = dir.with_file_name("spts.md");
    if overwrite && !index_path.exists() {
        std::fs::write(&index_path, "").expect("create the index");
    }
    snapbox::assert_data_eq!(index, snapbox::Data::read_from(&index_path, None).raw());
}

/// Every relative link target of a Markdown text (`[text](target)`), less its `#anchor`.
fn relative_links(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split('#').next().unwrap_or_default();
        let external = target.contains("://") || target.starts_with("mailto:");
        if !target.is_empty() && !external && !target.contains(' ') {
            out.push(target.to_string());
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 20, "only {} pages", files.len());
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a page");
        for target in relative_links(&text) {
            let base = file.parent().unwrap_or(root);
            if !base.join(&target).exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
}

#[test]
fn links_are_found() {
    let md = "see [a](b/c.md#x), [web](https://x.org), [top](#top) and [d](../d.md).";
    assert_eq!(relative_links(md), vec!["b/c.md", "../d.md"]);
}

#[test]
fn help_sections_are_found() {
    let help = "Usage: x\n\nCommands:\n  list  List things\n  show  Show one,\n        wrapped\n  help  Print this\n\nOptions:\n  -h\n";
    assert_eq!(subcommands(help), vec!["list", "show"]);
}

/// The committed JSON Schemas (docs/reference/schemas/) are what the Rust types generate.
#[test]
fn the_schemas_are_what_the_types_generate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference/schemas");
    let overwrite = std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite");
    if overwrite {
        std::fs::create_dir_all(&dir).expect("create docs/reference/schemas");
    }
    let all = equimorph::schema::all();
    assert_eq!(all.len(), 5);
    for s in &all {
        let path = dir.join(format!("{}.json", s.name));
        if overwrite && !path.exists() {
            std::fs::write(&path, "").expect("create a schema file");
        }
        let text = equimorph::schema::render(s);
        assert_eq!(
            equimorph(&["schema", s.name]),
            text,
            "`equimorph schema {}`",
            s.name
        );
        snapbox::assert_data_eq!(text, snapbox::Data::read_from(&path, None).raw());
    }
}

/// The validator of the schema called `name`.
fn validator(name: &str) -> jsonschema::Validator {
    let schema = equimorph::schema::all()
        .into_iter()
        .find(|s| s.name == name)
        .expect("a schema");
    let value = serde_json::to_value(&schema.schema).expect("schema as JSON");
    jsonschema::validator_for(&value).expect("a valid schema")
}

/// Every value of `file` (each line of a JSONL file) is valid under the schema `name`; the
/// number of values checked.
fn assert_valid(name: &str, file: &std::path::Path) -> usize {
    let v = validator(name);
    let text = std::fs::read_to_string(file).expect("the file");
    let values: Vec<serde_json::Value> = if file.extension().is_some_and(|e| e == "jsonl") {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    } else {
        vec![serde_json::from_str(&text).expect("a JSON document")]
    };
    for value in &values {
        let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{} is not a valid {name}: {errors:?}",
            file.display()
        );
    }
    values.len()
}

/// The files real runs write, and the shipped task files, are valid under their schemas; a
/// line the schema forbids is caught.
#[test]
fn real_files_match_their_schemas() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(assert_valid("task", &root.join("fixtures/tasks.jsonl")) >= 10);
    assert!(assert_valid("task", &root.join("fixtures/java/tasks.jsonl")) >= 1);

    let (_d, tasks) = crate::common::fixture_subset(3);
    let tiny = format!(
        "onnx:{}",
        equimorph::detector::model::models_dir()
            .join("tiny-embedding")
            .display()
    );
    let attack = tempfile::tempdir().expect("temp dir");
    let o = crate::common::attack_command(&tasks, attack.path(), &tiny, 2, &["--beam", "2"])
        .output()
        .expect("attack runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_valid("run", &attack.path().join("run.json"));
    assert_valid("summary", &attack.path().join("summary.json"));
    assert_eq!(
        assert_valid("results", &attack.path().join("results.jsonl")),
        3
    );

    let augment = tempfile::tempdir().expect("temp dir");
    let o = crate::common::equimorph(
        &[
            "augment",
            tasks.to_str().expect("UTF-8 path"),
            "--out",
            augment.path().to_str().expect("UTF-8 path"),
            "--variants",
            "2",
            "--detector",
            &tiny,
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(assert_valid("variants", &augment.path().join("variants.jsonl")) >= 3);

    // The schemas say something: a wrong status, a missing id, a string for a number.
    let results = validator("results");
    let line: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(attack.path().join("results.jsonl"))
            .expect("results")
            .lines()
            .next()
            .expect("a line"),
    )
    .expect("JSON");
    assert!(results.is_valid(&line));
    let mut wrong = line.clone();
    wrong["status"] = "bogus".into();
    assert!(!results.is_valid(&wrong));
    let mut wrong = line.clone();
    wrong.as_object_mut().expect("an object").remove("id");
    assert!(!results.is_valid(&wrong));
    let mut wrong = line;
    wrong["iterations"] = "two".into();
    assert!(!results.is_valid(&wrong));
}

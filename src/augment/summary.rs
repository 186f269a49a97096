//! An augment run directory: `run.json` (settings), `tasks.jsonl` + `variants.jsonl` (the
//! data), and what is rebuilt from them: `summary.json`, `report.md` and, with the CodeXGLUE
//! format, `codexglue/`.

use super::codexglue;
use super::{AugmentConfig, TaskLine, VariantLine};
use crate::report::results::{read_keyed, ResultsError};
use crate::report::Status;
use crate::search::StageSeconds;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// Output layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// `variants.jsonl` only.
    Jsonl,
    /// `variants.jsonl` and `codexglue/` (data.jsonl + pairs.txt).
    Codexglue,
}

/// `run.json` of an augment run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AugmentRun {
    /// Always "augment" (tells `merge` what kind of run a directory holds).
    pub kind: String,
    /// The task file.
    pub tasks: String,
    /// Transform names.
    pub transforms: Vec<String>,
    /// Settings.
    pub config: AugmentConfig,
    /// The detector that scored the variants, if any.
    pub detector: Option<String>,
    /// Output layout.
    pub format: OutputFormat,
    /// Negative pairs per positive pair (CodeXGLUE layout).
    pub negatives: usize,
    /// Train / valid / test fractions of the CodeXGLUE pairs (split by task), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<[f64; 3]>,
    /// `I/N` when this directory is one shard of a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// What the task loader kept and skipped, by reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<crate::task::LoadReport>,
    /// How strong the tasks' tests are: counts, and recorded mutation scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adequacy: Option<crate::adequacy::SetAdequacy>,
    /// The least mutation score a task needed to be augmented (`--min-mutation-score`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_mutation_score: Option<f64>,
    /// Tasks this run must finish (its task file's tasks in its shard); `None` in runs made
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_tasks: Option<usize>,
}

/// Mean, spread and range of a set of numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Population standard deviation.
    pub std: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    fn of(xs: &[f64]) -> Option<Spread> {
        if xs.is_empty() {
            return None;
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        Some(Spread {
            mean,
            std: (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt(),
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }
}

/// `summary.json` of an augment run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AugmentSummary {
    /// Whether every planned task is finished (`null` when the plan was not recorded).
    #[serde(default)]
    pub complete: Option<bool>,
    /// Planned tasks not finished yet (`null` when the plan was not recorded).
    #[serde(default)]
    pub pending: Option<usize>,
    /// Settings.
    pub run: AugmentRun,
    /// Tasks finished.
    pub tasks: usize,
    /// Tasks augmented.
    pub augmented: usize,
    /// Tasks not augmented (original not usable), with why.
    pub skipped: Vec<(String, String)>,
    /// Tasks that failed, with why.
    pub errors: Vec<(String, String)>,
    /// Variants made.
    pub variants: usize,
    /// Variants the oracle checked (all, unless `--unverified`).
    pub verified: usize,
    /// Augmented tasks with fewer than K variants (the task allows no more, within the budget).
    pub short_tasks: usize,
    /// Variants per augmented task.
    pub per_task: Option<Spread>,
    /// Number of augmented tasks with each variant count.
    pub per_task_histogram: BTreeMap<usize, usize>,
    /// Compositions the oracle accepted / checked.
    pub oracle_pass_rate: Option<f64>,
    /// Compositions the sandbox could not judge by their output: they made it fail (killed
    /// their test harness, say) while the original ran normally, so they were rejected.
    #[serde(default)]
    pub sandbox_breakers: u64,
    /// Transform steps in the variants, per transform.
    pub transforms_used: BTreeMap<String, usize>,
    /// Steps per variant.
    pub steps: Option<Spread>,
    /// Distance L of the variants, when a detector scored them.
    pub distance: Option<Spread>,
    /// Variants per clone type, when a detector was used.
    pub clone_types: BTreeMap<String, usize>,
    /// Time per stage, summed over tasks.
    pub seconds: StageSeconds,
    /// Programs, pairs and negative pairs in `codexglue/`, when written.
    pub codexglue: Option<(usize, usize, usize)>,
    /// The symbolic check's totals (`--verify symbolic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<crate::report::SymbolicTotals>,
}

/// Problems with an augment run directory.
#[derive(Debug, Error)]
pub enum AugmentOutputError {
    /// A JSONL file.
    #[error(transparent)]
    Lines(#[from] ResultsError),
    /// The CodeXGLUE pairs cannot be written as asked.
    #[error("{0}")]
    Pairs(String),
    /// Any other file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> AugmentOutputError + '_ {
    move |source| AugmentOutputError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes `text` to `path` through a temporary file.
fn write_atomic(path: &Path, text: &str) -> Result<(), AugmentOutputError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// An augment directory's lines: its tasks, the variants of finished tasks (a variant of an
/// unfinished task is from a run killed between the two writes: it is dropped, and that task
/// redone), and how many variant lines were dropped.
pub type RunLines = (Vec<TaskLine>, Vec<VariantLine>, usize);

/// Reads `dir`'s tasks and the variants of finished tasks (see [`RunLines`]).
pub fn read_run(dir: &Path) -> Result<RunLines, AugmentOutputError> {
    // One line per task and per variant: a log written twice for a task keeps the first.
    let (tasks, _) = read_keyed::<TaskLine>(&dir.join("tasks.jsonl"))?;
    let done: std::collections::HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    let (mut variants, _) = read_keyed::<VariantLine>(&dir.join("variants.jsonl"))?;
    let before = variants.len();
    variants.retain(|v| done.contains(v.task_id.as_str()));
    let orphans = before - variants.len();
    Ok((tasks, variants, orphans))
}

/// Summarises `tasks` and `variants` and writes `summary.json`, `report.md` and (CodeXGLUE
/// format) `codexglue/` into `dir`.
pub fn finish(
    dir: &Path,
    run: &AugmentRun,
    tasks: &[TaskLine],
    variants: &[VariantLine],
) -> Result<AugmentSummary, AugmentOutputError> {
    let progress = crate::run::Progress {
        planned: run.planned_tasks,
        finished: tasks.len(),
    };
    let mut s = AugmentSummary {
        complete: progress.complete(),
        pending: progress.pending(),
        run: run.clone(),
        tasks: tasks.len(),
        augmented: 0,
        skipped: Vec::new(),
        errors: Vec::new(),
        variants: variants.len(),
        verified: variants.iter().filter(|v| v.verified).count(),
        short_tasks: 0,
        per_task: None,
        per_task_histogram: BTreeMap::new(),
        oracle_pass_rate: None,
        sandbox_breakers: 0,
        transforms_used: BTreeMap::new(),
        steps: None,
        distance: None,
        clone_types: BTreeMap::new(),
        seconds: StageSeconds::default(),
        codexglue: None,
        symbolic: crate::report::SymbolicTotals::of(
            tasks.iter().filter_map(|t| t.symbolic.as_ref()),
        ),
    };
    let (mut checked, mut broken) = (0u64, 0u64);
    let mut counts = Vec::new();
    for t in tasks {
        let why = t.reason.clone().unwrap_or_default();
        match t.status {
            Status::Ok => {
                s.augmented += 1;
                counts.push(t.variants as f64);
                *s.per_task_histogram.entry(t.variants).or_default() += 1;
                if t.variants < run.config.variants {
                    s.short_tasks += 1;
                }
            }
            Status::Skipped => s.skipped.push((t.id.clone(), why)),
            Status::Error => s.errors.push((t.id.clone(), why)),
        }
        checked += t.counts.checked;
        broken += t.counts.broken;
        s.sandbox_breakers += t.counts.sandbox_breakers;
        s.seconds.transform += t.seconds.transform;
        s.seconds.detector += t.seconds.detector;
        s.seconds.tokenize += t.seconds.tokenize;
        s.seconds.oracle += t.seconds.oracle;
        s.seconds.total += t.seconds.total;
    }
    s.per_task = Spread::of(&counts);
    s.oracle_pass_rate = (checked > 0).then(|| (checked - broken) as f64 / checked as f64);
    let mut steps = Vec::new();
    let mut distances = Vec::new();
    for v in variants {
        steps.push(v.transforms.len() as f64);
        for step in &v.transforms {
            *s.transforms_used.entry(step.name.clone()).or_default() += 1;
        }
        if let Some(d) = v.distance {
            distances.push(f64::from(d));
        }
        if let Some(c) = &v.clone_type {
            *s.clone_types.entry(c.clone()).or_default() += 1;
        }
    }
    s.steps = Spread::of(&steps);
    s.distance = Spread::of(&distances);
    if run.format == OutputFormat::Codexglue {
        let mut by_task: HashMap<&str, Vec<&str>> = HashMap::new();
        for v in variants {
            by_task
                .entry(v.task_id.as_str())
                .or_default()
                .push(v.source.as_str());
        }
        let groups: Vec<codexglue::Group<'_>> = tasks
            .iter()
            .filter(|t| t.status == Status::Ok)
            .map(|t| codexglue::Group {
                problem: t.problem.as_deref().unwrap_or(&t.id),
                language: t.language,
                programs: std::iter::once(t.original.as_str())
                    .chain(by_task.get(t.id.as_str()).into_iter().flatten().copied())
                    .collect(),
            })
            .collect();
        let d = codexglue::build(&groups, run.negatives, run.config.seed, run.split);
        let lopsided = d.splits_without_negatives();
        // A shard holds part of each split; `merge` checks the whole layout.
        if run.negatives > 0 && !lopsided.is_empty() && run.shard.is_none() {
            return Err(AugmentOutputError::Pairs(format!(
                "the CodeXGLUE {} file(s) would hold clone pairs and no non-clone pair (a split \
                 needs programs of two problems for that); variants.jsonl is kept: pass \
                 --force-new with other --split fractions, or use more tasks",
                lopsided.join(", ")
            )));
        }
        let cg = dir.join("codexglue");
        codexglue::write(&cg, &d).map_err(io(&cg))?;
        let negatives = d.pairs.iter().filter(|p| p.label == 0).count();
        s.codexglue = Some((d.data.len(), d.pairs.len(), negatives));
    }
    let json = serde_json::to_string_pretty(&s).map_err(|e| io(dir)(std::io::Error::other(e)))?;
    write_atomic(&dir.join("summary.json"), &json)?;
    write_atomic(&dir.join("report.md"), &markdown(&s))?;
    write_atomic(&dir.join("report.html"), &html(&s, tasks, variants))?;
    Ok(s)
}

/// Tasks shown with an example variant in `report.html`.
const EXAMPLES: usize = 30;

/// The HTML report of an augment run: the Markdown summary's figures, the distance histogram
/// (when scored), the transforms used, and for the first tasks one variant beside the original.
pub fn html(s: &AugmentSummary, tasks: &[TaskLine], variants: &[VariantLine]) -> String {
    use crate::report::gallery::{esc, side_by_side_titled, CSS};
    use crate::report::render::{bar_chart, histogram_titled};
    let md = markdown(s);
    // The figures table: the Markdown's first section.
    let rows: String = md
        .split("\n## ")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| |") && l.matches(" | ").count() == 1)
        .map(|l| {
            let (k, v) = l.trim_matches('|').split_once(" | ").unwrap_or((l, ""));
            format!(
                "<tr><th>{}</th><td>{}</td></tr>",
                esc(k.trim()),
                esc(v.trim())
            )
        })
        .collect();
    let mut used: Vec<(String, f64)> = s
        .transforms_used
        .iter()
        .map(|(k, v)| (k.clone(), *v as f64))
        .collect();
    used.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut body = format!("<table>{rows}</table>");
    let distances: Vec<f64> = variants
        .iter()
        .filter_map(|v| v.distance.map(f64::from))
        .collect();
    if !distances.is_empty() {
        body.push_str(&histogram_titled(
            "Distance L = 1 − M of the variants",
            &distances,
        ));
    }
    if !used.is_empty() {
        body.push_str(&bar_chart("Transform steps in the variants", &used, None));
    }
    let mut by_task: HashMap<&str, &VariantLine> = HashMap::new();
    for v in variants {
        by_task.entry(v.task_id.as_str()).or_insert(v);
    }
    let shown: Vec<(&TaskLine, &VariantLine)> = tasks
        .iter()
        .filter_map(|t| by_task.get(t.id.as_str()).map(|v| (t, *v)))
        .take(EXAMPLES)
        .collect();
    if !shown.is_empty() {
        let _ = write!(
            body,
            "<h2>Examples: variant 0 of the first {} task(s)</h2>",
            shown.len()
        );
    }
    for (t, v) in shown {
        let steps: Vec<&str> = v.transforms.iter().map(|s| s.name.as_str()).collect();
        let _ = write!(
            body,
            "<h3>{}</h3><p>{} variant(s); variant 0: {}{}</p>{}",
            esc(&t.id),
            t.variants,
            esc(&steps.join(" → ")),
            v.distance
                .map(|d| format!(", L = {d:.4}"))
                .unwrap_or_default(),
            side_by_side_titled(&t.original, &v.source, "variant 0")
        );
    }
    for (title, list) in [("Skipped tasks", &s.skipped), ("Errors", &s.errors)] {
        if !list.is_empty() {
            let _ = write!(body, "<h2>{title}</h2><table>");
            for (id, why) in list {
                let _ = write!(body, "<tr><th>{}</th><td>{}</td></tr>", esc(id), esc(why));
            }
            body.push_str("</table>");
        }
    }
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>equimorph augment report</title>\
         <style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}}\
         table{{border-collapse:collapse}}th,td{{border:1px solid #ccc;padding:4px 8px;text-align:left}}\
         figure{{display:inline-block;margin:1em}}figcaption{{font-weight:bold}}{CSS}</style></head>\
         <body><h1>equimorph augment report</h1>{}<p>Tasks <code>{}</code>, K = {}, {}..{} steps, \
         seed {}, detector {}.</p>{}{body}</body></html>\n",
        s.progress()
            .incomplete_notice()
            .map(|n| format!("<p id=\"incomplete\"><b>{}.</b> The figures below cover the finished tasks only.</p>", esc(&n)))
            .unwrap_or_default(),
        esc(&s.run.tasks),
        s.run.config.variants,
        s.run.config.min_steps,
        s.run.config.max_steps,
        s.run.config.seed,
        esc(s.run.detector.as_deref().unwrap_or("none")),
        s.run
            .adequacy
            .as_ref()
            .map(|a| format!("<p id=\"adequacy\">Test adequacy: {}.</p>", esc(&a.describe())))
            .unwrap_or_default(),
    )
}

impl AugmentSummary {
    /// How far the run has come.
    pub fn progress(&self) -> crate::run::Progress {
        crate::run::Progress {
            planned: self.run.planned_tasks,
            finished: self.tasks,
        }
    }
}

/// The Markdown report of an augment run.
pub fn markdown(s: &AugmentSummary) -> String {
    let mut m = String::new();
    let c = &s.run.config;
    let _ = writeln!(m, "# equimorph augment\n");
    if let Some(notice) = s.progress().incomplete_notice() {
        let _ = writeln!(
            m,
            "**{notice}.** The figures below cover the finished tasks only.\n"
        );
    }
    let _ = writeln!(
        m,
        "Tasks: `{}`; {} transforms; K = {}, {}..{} steps, seed {}{}; detector: {}.\n",
        s.run.tasks,
        s.run.transforms.len(),
        c.variants,
        c.min_steps,
        c.max_steps,
        c.seed,
        match (c.hard, c.hard_share < 1.0) {
            (true, false) => ", hardest first (beam search pool)".to_string(),
            (true, true) => format!(
                ", hardest first (beam search pool) for up to {:.0} % of each task's variants",
                c.hard_share * 100.0
            ),
            (false, _) => String::new(),
        },
        s.run.detector.as_deref().unwrap_or("none")
    );
    if let Some(a) = &s.run.adequacy {
        let _ = writeln!(m, "Test adequacy: {}.\n", a.describe());
    }
    if let Some(sym) = &s.symbolic {
        let _ = writeln!(m, "Symbolic check (CrossHair): {}.\n", sym.describe());
    }
    if let Some(min) = s.run.min_mutation_score {
        let _ = writeln!(
            m,
            "Tasks whose tests score below {min} (mutation score) were refused.\n"
        );
    }
    let _ = writeln!(m, "| | |\n|---|---|");
    let _ = writeln!(m, "| tasks finished | {} |", s.tasks);
    let _ = writeln!(m, "| tasks augmented | {} |", s.augmented);
    let _ = writeln!(
        m,
        "| skipped / errors | {} / {} |",
        s.skipped.len(),
        s.errors.len()
    );
    let _ = writeln!(
        m,
        "| variants | {} ({} verified by the oracle) |",
        s.variants, s.verified
    );
    if let Some(p) = s.per_task {
        let _ = writeln!(
            m,
            "| variants per task | {:.2} (min {}, max {}); {} task(s) below K |",
            p.mean, p.min, p.max, s.short_tasks
        );
    }
    if let Some(r) = s.oracle_pass_rate {
        let _ = writeln!(
            m,
            "| compositions that passed the oracle | {:.1} % |",
            r * 100.0
        );
    }
    if s.sandbox_breakers > 0 {
        let _ = writeln!(
            m,
            "| compositions the sandbox could not judge (they broke their test harness; rejected) | {} |",
            s.sandbox_breakers
        );
    }
    if let Some(st) = s.steps {
        let _ = writeln!(m, "| steps per variant | {:.2} ± {:.2} |", st.mean, st.std);
    }
    if let Some(d) = s.distance {
        let _ = writeln!(
            m,
            "| distance L | {:.4} ± {:.4} (min {:.4}, max {:.4}) |",
            d.mean, d.std, d.min, d.max
        );
    }
    let _ = writeln!(
        m,
        "| time: transform / oracle / detector | {:.1} / {:.1} / {:.1} s |",
        s.seconds.transform, s.seconds.oracle, s.seconds.detector
    );
    if let Some((n, p, neg)) = s.codexglue {
        let _ = writeln!(
            m,
            "| codexglue/ | {n} programs, {p} pairs ({neg} negative) |"
        );
    }
    let _ = writeln!(
        m,
        "\n## Transforms in the variants\n\n| transform | steps |\n|---|---|"
    );
    let mut used: Vec<_> = s.transforms_used.iter().collect();
    used.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (name, n) in used {
        let _ = writeln!(m, "| {name} | {n} |");
    }
    if !s.clone_types.is_empty() {
        let _ = writeln!(m, "\n## Clone types\n\n| type | variants |\n|---|---|");
        for (t, n) in &s.clone_types {
            let _ = writeln!(m, "| {t} | {n} |");
        }
    }
    for (title, list) in [("Skipped tasks", &s.skipped), ("Errors", &s.errors)] {
        if !list.is_empty() {
            let _ = writeln!(m, "\n## {title}\n");
            for (id, why) in list {
                let _ = writeln!(m, "- `{id}`: {why}");
            }
        }
    }
    m
}

/// Combines the shard directories of one augment run: their settings (shard aside) must
/// agree and no task may be in two. Tasks come out in `order` (the task file's), variants
/// with their task, as an unsharded run writes them.
pub fn merge(
    dirs: &[&Path],
    order: &[String],
) -> Result<(AugmentRun, Vec<TaskLine>, Vec<VariantLine>), crate::report::shard::MergeError> {
    use crate::report::shard::MergeError;
    let mut run: Option<AugmentRun> = None;
    // The merged run plans what its shards planned (unknown if one did not record it).
    let mut planned: Option<usize> = Some(0);
    let mut tasks: Vec<TaskLine> = Vec::new();
    let mut variants: Vec<VariantLine> = Vec::new();
    let mut from: HashMap<String, String> = HashMap::new();
    for dir in dirs {
        let path = dir.join("run.json");
        let mut this: AugmentRun = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
            .map_err(|e| MergeError::Run(format!("{}: {e}", path.display())))?;
        this.shard = None;
        planned = planned.zip(this.planned_tasks.take()).map(|(a, b)| a + b);
        match &run {
            None => run = Some(this),
            Some(r) if *r != this => {
                return Err(MergeError::Mismatch(format!(
                    "{} was run with other settings (transforms, K, steps, seed, detector…)",
                    dir.display()
                )))
            }
            Some(_) => {}
        }
        let (t, v, _) = read_run(dir).map_err(|e| MergeError::Run(e.to_string()))?;
        for line in &t {
            if let Some(other) = from.insert(line.id.clone(), dir.display().to_string()) {
                return Err(MergeError::Mismatch(format!(
                    "task {} is in both {other} and {}",
                    line.id,
                    dir.display()
                )));
            }
        }
        tasks.extend(t);
        variants.extend(v);
    }
    let mut run = run.ok_or_else(|| MergeError::Run("no shard directory given".into()))?;
    run.planned_tasks = planned;
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let key = |id: &str| (rank.get(id).copied().unwrap_or(usize::MAX), id.to_string());
    tasks.sort_by_key(|t| key(&t.id));
    variants.sort_by_key(|v| (key(&v.task_id), v.variant));
    Ok((run, tasks, variants))
}

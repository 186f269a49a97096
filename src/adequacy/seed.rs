//! First tests for programs that have none (POJ-104, CodeNet problems without inputs): inputs
//! are drawn from what a problem's programs read, and an input is kept only where most of
//! them print the same on it, so growth ([`super::grow`]) can start from it and the programs
//! can be attacked.
//!
//! A problem's programs are independent solutions of one statement, so an input on which
//! most of them agree is most likely one the statement allows, and their common output is
//! most likely its answer; an input outside the constraints (a negative count, a word where a
//! number is read) makes them disagree, crash or hang, and is dropped. Inputs are drawn from
//! shapes problems commonly read (a count then that many values, a grid, a line of text, a
//! list ended by 0…) filled with the kinds of values the programs' input calls read
//! (`scanf` conversions, `cin >>` targets, line reads). Each program that prints the
//! majority's output on every kept input becomes a tested task, its tests the kept inputs
//! with its own outputs (differential, like grown tests); one that disagrees anywhere stays
//! untested and is reported.
//!
//! A program takes part in a vote only when it ends normally: exit status 0, or any status for
//! a C program declared `void main()` (common in POJ-104), which exits with whatever its last
//! call left in the return register ([`ends_normally`], which growth applies too).

use crate::oracle::{ExitClass, Oracle, REFERENCE_HASH_SEED};
use crate::task::{Task, TestCase};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How untested programs get their first tests.
#[derive(Debug, Clone, Copy)]
pub struct SeedOptions {
    /// Most programs of one problem that vote and may be seeded (the first ones in load order).
    pub programs: usize,
    /// Inputs drawn per problem.
    pub candidates: usize,
    /// Most inputs kept per problem.
    pub max_inputs: usize,
    /// Fewest inputs kept for a problem's programs to be seeded at all.
    pub min_inputs: usize,
    /// Longest a program may run on one input.
    pub deadline: Duration,
    /// Seed of the drawn inputs.
    pub seed: u64,
}

impl Default for SeedOptions {
    fn default() -> Self {
        SeedOptions {
            programs: 8,
            candidates: 48,
            max_inputs: 8,
            min_inputs: 3,
            deadline: Duration::from_secs(2),
            seed: 0,
        }
    }
}

/// The relative tolerance within which two programs' floating outputs agree (for choosing
/// inputs only), when the oracle has none.
const AGREEMENT_TOLERANCE: f64 = 1e-5;

/// What seeding did for one problem.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProblemSeeding {
    /// The problem.
    pub problem: String,
    /// Its untested programs considered (at most [`SeedOptions::programs`]).
    pub programs: usize,
    /// Inputs drawn.
    pub tried: usize,
    /// Inputs kept: most programs agree on them.
    pub kept: usize,
    /// Of the kept inputs, those on which every program that ran agreed.
    pub unanimous: usize,
    /// Programs that print the majority's output on every kept input: now tested tasks.
    pub seeded: Vec<String>,
    /// Programs that disagree with the majority (id, kept inputs it disagrees on).
    pub disagreeing: Vec<(String, usize)>,
    /// Why nothing was seeded, when nothing was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The kinds of values a program reads, as its input calls show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    /// Integers (`%d`, `%lld`, `cin >>` into an integer).
    pub ints: bool,
    /// Floating values (`%f`, `%lf`, `cin >>` into a `double`).
    pub floats: bool,
    /// Whitespace-separated words (`%s`, `cin >>` into a `string` or `char[]`).
    pub words: bool,
    /// Whole lines or characters (`gets`, `fgets`, `getline`, `getchar`, `%c`).
    pub lines: bool,
}

impl Reads {
    /// What `source` reads.
    pub fn of(source: &str) -> Reads {
        let mut r = Reads::default();
        for format in scanf_formats(source) {
            r.add_conversions(&format);
        }
        if source.contains("cin") && source.contains(">>") {
            // The types of the variables declared (an `#include <string>` declares none).
            let code: String = source
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n");
            r.ints = true;
            r.floats |= declares(&code, "double") || declares(&code, "float");
            r.words |= declares(&code, "string") || declares_array(&code, "char");
        }
        r.lines |= [
            "gets(", "fgets(", "getline(", "getchar(", "getc(", "cin.get(",
        ]
        .iter()
        .any(|c| source.contains(c));
        if r == Reads::default() {
            // Nothing recognised (a custom reader): integers, the commonest input.
            r.ints = true;
        }
        r
    }

    /// Records the conversions of one `scanf` format.
    fn add_conversions(&mut self, format: &str) {
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                continue;
            }
            // Flags, widths and length modifiers come before the conversion letter.
            while let Some(&n) = chars.peek() {
                if n.is_ascii_digit() || "*hlLqjzt".contains(n) {
                    chars.next();
                } else {
                    break;
                }
            }
            match chars.next() {
                Some('d' | 'i' | 'u' | 'x' | 'o') => self.ints = true,
                Some('f' | 'e' | 'g' | 'a' | 'E' | 'G') => self.floats = true,
                Some('s' | '[') => self.words = true,
                Some('c') => self.lines = true,
                _ => {}
            }
        }
    }
}

/// Whether `code` declares a variable of type `ty`: the word, then a name.
fn declares(code: &str, ty: &str) -> bool {
    code.match_indices(ty).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let rest = code.get(at + ty.len()..).unwrap_or("");
        before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            && rest.starts_with([' ', '\t'])
            && rest
                .trim_start()
                .starts_with(|c: char| c.is_alphabetic() || c == '_')
    })
}

/// Whether `code` declares an array of `ty` (`char s[100]`): a text to read as a word.
fn declares_array(code: &str, ty: &str) -> bool {
    code.match_indices(ty).any(|(at, _)| {
        let rest = code.get(at + ty.len()..).unwrap_or("");
        let decl = rest.split(';').next().unwrap_or("");
        rest.starts_with([' ', '\t']) && decl.contains('[') && !decl.contains('(')
    })
}

/// The string literals that start the argument lists of `scanf`-family calls in `source`.
fn scanf_formats(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("scanf") {
        rest = &rest[at + "scanf".len()..];
        let Some(open) = rest.find('"') else { break };
        // `scanf("…"`, `sscanf(buf, "…"`, `fscanf(stdin, "…"`: the literal follows soon.
        if open > 24 || !rest.trim_start().starts_with('(') {
            continue;
        }
        let body = &rest[open + 1..];
        let mut literal = String::new();
        let mut escaped = false;
        for c in body.chars() {
            match c {
                '"' if !escaped => break,
                '\\' if !escaped => escaped = true,
                c => {
                    escaped = false;
                    literal.push(c);
                }
            }
        }
        out.push(literal);
    }
    out
}

/// The kind of one drawn value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Int,
    Float,
    Word,
}

/// Draws one value of `kind`: mostly small positive numbers and short lowercase words, where
/// problem constraints usually hold.
fn item(kind: Item, rng: &mut ChaCha8Rng) -> String {
    match kind {
        Item::Int => {
            let v: i64 = match rng.random_range(0..10) {
                0..=5 => rng.random_range(1..=20),
                6..=7 => rng.random_range(0..=100),
                8 => rng.random_range(100..=2000),
                _ => rng.random_range(-20..=20),
            };
            v.to_string()
        }
        Item::Float => {
            let whole: i64 = rng.random_range(0..=100);
            let cents: i64 = rng.random_range(0..100);
            format!("{whole}.{cents:02}")
        }
        Item::Word => {
            let len = rng.random_range(1..=8);
            let upper = rng.random_bool(0.2);
            (0..len)
                .map(|_| {
                    let c = char::from(b'a' + rng.random_range(0..26u8));
                    if upper {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect()
        }
    }
}

/// A small count (of values, lines or cases).
fn count(rng: &mut ChaCha8Rng) -> usize {
    rng.random_range(1..=6)
}

fn items(kind: Item, n: usize, rng: &mut ChaCha8Rng) -> String {
    (0..n)
        .map(|_| item(kind, rng))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Draws one input in a common shape, filled with values of the kinds `reads` shows.
fn draw(reads: Reads, rng: &mut ChaCha8Rng) -> String {
    let mut kinds = Vec::new();
    if reads.ints {
        kinds.push(Item::Int);
    }
    if reads.floats {
        kinds.push(Item::Float);
    }
    if reads.words {
        kinds.push(Item::Word);
    }
    let kind = kinds.choose(rng).copied().unwrap_or(Item::Int);
    let mut lines: Vec<String> = Vec::new();
    let shapes = if reads.lines { 11 } else { 10 };
    match rng.random_range(0..shapes) {
        // A count, then that many values on one line.
        0 => {
            let n = count(rng);
            lines.push(n.to_string());
            lines.push(items(kind, n, rng));
        }
        // A count, then one value per line.
        1 => {
            let n = count(rng);
            lines.push(n.to_string());
            lines.extend((0..n).map(|_| item(kind, rng)));
        }
        // A count, then rows of two or three values.
        2 => {
            let (n, k) = (count(rng), rng.random_range(2..=3));
            lines.push(n.to_string());
            lines.extend((0..n).map(|_| items(kind, k, rng)));
        }
        // A grid: rows and columns, then the rows.
        3 => {
            let (n, m) = (count(rng), count(rng));
            lines.push(format!("{n} {m}"));
            lines.extend((0..n).map(|_| items(kind, m, rng)));
        }
        // One to three values on one line.
        4 => {
            let n = rng.random_range(1..=3);
            lines.push(items(kind, n, rng));
        }
        // Test cases: their count, then each a count and its values.
        5 => {
            let t = rng.random_range(1..=3);
            lines.push(t.to_string());
            for _ in 0..t {
                let n = count(rng);
                lines.push(n.to_string());
                lines.push(items(kind, n, rng));
            }
        }
        // Values ended by 0 (or one value per line ended by 0).
        6 => {
            let n = count(rng);
            let values = (0..n)
                .map(|_| item(Item::Int, rng).trim_start_matches('-').to_string())
                .map(|v| if v == "0" { "1".to_string() } else { v });
            lines.extend(values);
            lines.push("0".into());
        }
        // A count, then lines of several words (names with numbers, records).
        7 => {
            let n = count(rng);
            lines.push(n.to_string());
            lines.extend((0..n).map(|_| {
                kinds
                    .iter()
                    .map(|k| item(*k, rng))
                    .collect::<Vec<_>>()
                    .join(" ")
            }));
        }
        // Rows of two or three values ended by a row of zeros (`0 0`) or of `-1`s.
        8 | 9 => {
            let (n, k) = (count(rng), rng.random_range(2..=3));
            lines.extend((0..n).map(|_| {
                (0..k)
                    .map(|_| rng.random_range(1..=20).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            }));
            let end = if rng.random_bool(0.5) { "0" } else { "-1" };
            lines.push(vec![end; k].join(" "));
        }
        // A line of text.
        _ => {
            let n = rng.random_range(1..=6);
            lines.push(items(Item::Word, n, rng));
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Inputs for programs reading `reads`, `n` of them, without repeats, seeded by `seed`.
pub fn draw_inputs(reads: Reads, n: usize, seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out: Vec<String> = Vec::new();
    // Bounded: a reads set with few distinct shapes cannot loop forever.
    for _ in 0..n.saturating_mul(4) {
        if out.len() >= n {
            break;
        }
        let input = draw(reads, &mut rng);
        if !out.contains(&input) {
            out.push(input);
        }
    }
    out
}

/// Whether a run of `task` that ended as `class` ended normally: exit status 0, or, for a C
/// or C++ program declared `void main()`, any exit status (it returns whatever its last call
/// left in the return register).
pub fn ends_normally(task: &Task, class: ExitClass) -> bool {
    class == ExitClass::Success
        || class == ExitClass::Error
            && task.language.is_native()
            && declares_void_main(&task.source)
}

/// Whether `source` declares `void main(`, spaced any way.
fn declares_void_main(source: &str) -> bool {
    source.match_indices("void").any(|(at, _)| {
        let rest = source.get(at + 4..).unwrap_or("").trim_start();
        rest.strip_prefix("main")
            .is_some_and(|r| r.trim_start().starts_with('('))
    })
}

/// One program's output on one input: `None` when it did not end normally.
fn output_of(oracle: &Oracle, task: &Task, input: &str, deadline: Duration) -> Option<String> {
    let test = TestCase::stdin(input, None);
    let run = oracle.run_test(
        task.language,
        &task.source,
        &test,
        deadline,
        REFERENCE_HASH_SEED,
    );
    ends_normally(task, run.class).then_some(run.stdout)
}

/// The output most programs print, with how many print it; `None` when no output is printed
/// by at least two programs and more than half of all of them (a program that did not end
/// normally counts against: an input that makes most of them hang or crash is no input of the
/// problem), or when it is blank.
fn majority(
    task: &Task,
    outputs: &[Option<String>],
    tolerance: Option<f64>,
) -> Option<(usize, usize)> {
    let ran: Vec<(usize, &String)> = outputs
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.as_ref().map(|o| (i, o)))
        .collect();
    let mut best: Option<(usize, usize)> = None;
    for (i, o) in &ran {
        let agree = ran
            .iter()
            .filter(|(_, p)| task.checker.accepts(o, p, tolerance))
            .count();
        if best.is_none_or(|(_, n)| agree > n) {
            best = Some((*i, agree));
        }
    }
    let (leader, agree) = best?;
    let printed = outputs.get(leader)?.as_deref()?;
    (agree >= 2 && agree * 2 > outputs.len() && !printed.trim().is_empty())
        .then_some((leader, agree))
}

/// Gives first tests to the untested programs of one problem (`programs`, in load order;
/// at most `options.programs` are considered). Returns the programs that agree with the
/// majority on every kept input, as tested tasks, and what happened.
pub fn seed_problem(
    oracle: &Oracle,
    problem: &str,
    programs: &[&Task],
    options: &SeedOptions,
    stop: &AtomicBool,
) -> (Vec<Task>, ProblemSeeding) {
    let voters: Vec<&Task> = programs.iter().copied().take(options.programs).collect();
    let mut report = ProblemSeeding {
        problem: problem.to_string(),
        programs: voters.len(),
        tried: 0,
        kept: 0,
        unanimous: 0,
        seeded: Vec::new(),
        disagreeing: Vec::new(),
        reason: None,
    };
    if voters.len() < 2 {
        report.reason = Some("fewer than 2 programs: no majority to agree".into());
        return (Vec::new(), report);
    }
    let mut reads = Reads::default();
    for v in &voters {
        let r = Reads::of(&v.source);
        reads.ints |= r.ints;
        reads.floats |= r.floats;
        reads.words |= r.words;
        reads.lines |= r.lines;
    }
    let seed = options.seed ^ fnv(problem);
    let inputs = draw_inputs(reads, options.candidates, seed);
    report.tried = inputs.len();
    // Programs print floating answers with different precision (`%.5f`, `%f`); each one's
    // tests hold its own outputs, so a tolerance only decides who agrees.
    let tolerance = oracle
        .config()
        .float_tolerance
        .or(Some(AGREEMENT_TOLERANCE));
    // What each program prints when it reads nothing: an input on which the majority prints
    // that was most likely not read at all (words fed to a number reader).
    let baselines: Vec<Option<String>> = voters
        .par_iter()
        .map(|v| output_of(oracle, v, "", options.deadline))
        .collect();
    // Every program on every input, in parallel (each program compiles once, in the cache).
    let outputs: Vec<Vec<Option<String>>> = inputs
        .par_iter()
        .map(|input| {
            voters
                .iter()
                .map(|v| {
                    if stop.load(Ordering::Relaxed) {
                        None
                    } else {
                        output_of(oracle, v, input, options.deadline)
                    }
                })
                .collect()
        })
        .collect();
    if stop.load(Ordering::Relaxed) {
        report.reason = Some("interrupted".into());
        return (Vec::new(), report);
    }
    let first = voters.first().copied();
    // Kept inputs: unanimous ones first, then by how many agree, one per distinct answer
    // first so the kept set shows the most behaviours.
    let mut candidates: Vec<(usize, usize, usize, bool)> = Vec::new();
    for (k, outs) in outputs.iter().enumerate() {
        let Some(task) = first else { break };
        if let Some((leader, agree)) = majority(task, outs, tolerance) {
            let answer = outs.get(leader).and_then(|o| o.as_deref());
            let unread = baselines.get(leader).and_then(|b| b.as_deref());
            if answer.is_some_and(|a| Some(a) == unread) {
                continue;
            }
            let ran = outs.iter().filter(|o| o.is_some()).count();
            candidates.push((k, leader, agree, agree == ran && ran == voters.len()));
        }
    }
    candidates.sort_by_key(|&(k, _, agree, unanimous)| (!unanimous, std::cmp::Reverse(agree), k));
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut answers: Vec<&str> = Vec::new();
    for distinct_first in [true, false] {
        for &(k, leader, _, _) in &candidates {
            if kept.len() >= options.max_inputs || kept.iter().any(|(j, _)| *j == k) {
                continue;
            }
            let answer = outputs
                .get(k)
                .and_then(|o| o.get(leader))
                .and_then(|o| o.as_deref())
                .unwrap_or("");
            if distinct_first && answers.contains(&answer) {
                continue;
            }
            answers.push(answer);
            kept.push((k, leader));
        }
    }
    kept.sort_unstable();
    report.kept = kept.len();
    report.unanimous = kept
        .iter()
        .filter(|(k, _)| candidates.iter().any(|c| c.0 == *k && c.3))
        .count();
    if kept.len() < options.min_inputs {
        report.reason = Some(format!(
            "its programs agree on {} of {} drawn inputs (at least {} needed): the inputs drawn \
             are not of the shapes it reads (an end marker such as `END`), or its programs hang \
             or print differently formatted answers",
            kept.len(),
            inputs.len(),
            options.min_inputs
        ));
        return (Vec::new(), report);
    }
    let mut seeded = Vec::new();
    for (p, program) in voters.iter().enumerate() {
        let mut tests = Vec::new();
        let mut disagree = 0;
        for &(k, leader) in &kept {
            let row = outputs.get(k);
            let expected = row.and_then(|o| o.get(leader)).and_then(|o| o.as_deref());
            let own = row.and_then(|o| o.get(p)).and_then(|o| o.as_deref());
            match (expected, own) {
                (Some(e), Some(o)) if program.checker.accepts(e, o, tolerance) => {
                    let mut test = TestCase::stdin(
                        inputs.get(k).cloned().unwrap_or_default(),
                        Some(o.to_string()),
                    );
                    test.grown = true;
                    tests.push(test);
                }
                _ => disagree += 1,
            }
        }
        if disagree > 0 {
            report.disagreeing.push((program.id.clone(), disagree));
        } else {
            let mut task = (*program).clone();
            task.tests = tests.into();
            report.seeded.push(task.id.clone());
            seeded.push(task);
        }
    }
    if seeded.is_empty() {
        report.reason = Some("no program agrees with the majority on every kept input".into());
    }
    (seeded, report)
}

/// A stable 64-bit hash of a problem name (FNV-1a), so each problem draws its own inputs
/// whatever the load order.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The untested programs of problems that have no tested program, by problem, in load order.
pub fn untested_problems<'a>(
    tested: &[Task],
    untested: &'a [Task],
) -> BTreeMap<String, Vec<&'a Task>> {
    let mut by: BTreeMap<String, Vec<&Task>> = BTreeMap::new();
    for t in untested {
        let Some(p) = t.problem.as_deref() else {
            continue;
        };
        if tested.iter().any(|s| s.problem.as_deref() == Some(p)) {
            continue;
        }
        by.entry(p.to_string()).or_default().push(t);
    }
    by
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_follow_scanf_conversions_and_streams() {
        let c = Reads::of("int main(){int n; char s[9]; scanf(\"%d %s\", &n, s);}");
        assert!(c.ints && c.words && !c.floats && !c.lines);
        let f =
            Reads::of("int main(){double x; scanf(\"%lf\", &x); fscanf(stdin, \"%*d%5c\", s);}");
        assert!(f.floats && f.lines && f.ints, "%*d still reads an integer");
        let cpp = Reads::of("int main(){ string s; cin >> s; getline(cin, s); }");
        assert!(cpp.words && cpp.ints && cpp.lines);
        assert_eq!(
            Reads::of("int main(){ return 0; }"),
            Reads {
                ints: true,
                ..Reads::default()
            }
        );
    }

    #[test]
    fn drawn_inputs_are_seeded_distinct_and_of_the_kinds_read() {
        let ints = Reads {
            ints: true,
            ..Reads::default()
        };
        let a = draw_inputs(ints, 30, 7);
        assert_eq!(a, draw_inputs(ints, 30, 7), "same seed, same inputs");
        assert_ne!(a, draw_inputs(ints, 30, 8));
        assert_eq!(a.len(), 30);
        let mut unique = a.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), a.len());
        assert!(a
            .iter()
            .all(|i| i.split_whitespace().all(|t| t.parse::<i64>().is_ok())));
        let words = Reads {
            words: true,
            ..Reads::default()
        };
        assert!(draw_inputs(words, 30, 1).iter().any(|i| i
            .split_whitespace()
            .any(|t| t.chars().all(|c| c.is_ascii_alphabetic()))));
    }

    #[test]
    fn void_main_programs_end_normally_with_any_status() {
        let c =
            |src: &str| Task::new("t", src, Vec::new()).in_language(crate::program::Language::C);
        assert!(ends_normally(&c("void  main ( ) { }"), ExitClass::Error));
        assert!(!ends_normally(
            &c("int main() { return 1; }"),
            ExitClass::Error
        ));
        assert!(!ends_normally(&c("void main() { }"), ExitClass::Signal));
        assert!(!ends_normally(
            &c("void mainly(); int main() { }"),
            ExitClass::Error
        ));
        let py = Task::new("t", "def main(): pass\n# void main()", Vec::new());
        assert!(
            !ends_normally(&py, ExitClass::Error),
            "Python: an exception"
        );
    }

    #[test]
    fn the_majority_needs_two_programs_and_more_than_half() {
        let task = Task::new("t", "", Vec::new());
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            majority(&task, &[s("3"), s("3"), s("4")], None),
            Some((0, 2))
        );
        assert_eq!(majority(&task, &[s("3"), s("4")], None), None);
        assert_eq!(
            majority(&task, &[s("3"), s("3"), s("4"), s("4")], None),
            None
        );
        assert_eq!(majority(&task, &[None, s("5"), s("5")], None), Some((1, 2)));
        assert_eq!(
            majority(&task, &[None, None, s("5"), s("5")], None),
            None,
            "programs that hang count against"
        );
        assert_eq!(majority(&task, &[s(" \n"), s(" \n")], None), None, "blank");
    }
}

//! Step 1: iterative design of new SPTs.

use super::client::{ChatRequest, LlmClient, LlmError, Message};
use crate::task::Task;
use crate::transform::ScriptHeader;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::Path;

/// One designed transformation: a line of `designs.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Design {
    /// Kebab-case name (also the candidates' group directory).
    pub name: String,
    /// The exact description.
    pub description: String,
    /// naming | control-flow | data-flow | expression | structure | layout, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

/// A reply that did not become a design.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    /// The request's sample index.
    pub attempt: u32,
    /// Why: malformed, duplicate name, near-identical description.
    pub reason: String,
    /// The whole reply, so a user can see why it was refused.
    pub reply: String,
}

/// What a design run produced.
#[derive(Debug, Clone, Default)]
pub struct DesignRun {
    /// The designs, earlier ones first.
    pub designs: Vec<Design>,
    /// Replies that were retried.
    pub rejected: Vec<Rejection>,
    /// The endpoint's error that stopped the run short of the count, if one did.
    pub error: Option<LlmError>,
    /// Why the run gave up short of the count while the endpoint answered (too many
    /// malformed or duplicate replies), if it did.
    pub gave_up: Option<String>,
}

/// Parses a reply: a JSON object (bare or in a code fence) with `name` and `description`, or
/// labelled lines: `Name:` / `Description:`, or the Auto-SPT paper's `Transformation Name:` /
/// `Description:`, with markdown bullets, numbers, bold and headings around the labels.
pub fn parse_design(reply: &str) -> Result<Design, String> {
    let from_json = json_object(reply).and_then(|v| {
        let name = v.get("name")?.as_str()?.to_string();
        let description = v.get("description")?.as_str()?.to_string();
        let category = v
            .get("category")
            .and_then(|c| c.as_str())
            .map(str::to_string);
        Some((name, description, category))
    });
    let (name, description, category) = match from_json {
        Some(d) => d,
        None => labelled_lines(reply)
            .ok_or("no JSON object with name and description, and no Name:/Description: lines")?,
    };
    let name = ScriptHeader::name_from_stem(Path::new(&format!("{}.x", name.trim())));
    let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if description.len() < 20 {
        return Err(format!("the description is too short: {description:?}"));
    }
    let category = category
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && !c.contains('|'));
    Ok(Design {
        name,
        description,
        category,
    })
}

/// The first `{…}` in `text` that parses as a JSON object.
fn json_object(text: &str) -> Option<serde_json::Value> {
    let bytes = text.as_bytes();
    for (start, _) in text.match_indices('{') {
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            match b {
                _ if escaped => escaped = false,
                b'\\' if in_string => escaped = true,
                b'"' => in_string = !in_string,
                b'{' if !in_string => depth += 1,
                b'}' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        match serde_json::from_str::<serde_json::Value>(&text[start..=i]) {
                            Ok(v) if v.is_object() => return Some(v),
                            _ => break,
                        }
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Which field a line's label names: `Name`, `Transformation Name`, `**Description:**`,
/// `1. Category` and the like, decorations and case aside.
fn label_of(line: &str) -> Option<(&'static str, String)> {
    let clean = line.trim().trim_start_matches(|c: char| {
        "#*-+>_ ".contains(c) || c.is_ascii_digit() || c == '.' || c == ')'
    });
    let (label, value) = clean.split_once(':')?;
    let label: String = label
        .chars()
        .filter(|c| !"*_`".contains(*c))
        .collect::<String>()
        .trim()
        .to_ascii_lowercase();
    let field = match label.as_str() {
        "name" | "transformation name" | "transformation" | "spt name" | "spt" | "title" => "name",
        "description" | "transformation description" | "spt description" => "description",
        "category" => "category",
        _ => return None,
    };
    let value = value.trim().trim_matches(['*', '_']).trim().to_string();
    Some((field, value))
}

fn labelled_lines(text: &str) -> Option<(String, String, Option<String>)> {
    let mut name = None;
    let mut description: Option<String> = None;
    let mut category = None;
    let mut in_description = false;
    for line in text.lines() {
        let clean = line.trim().trim_start_matches(['#', '*', '-', ' ']);
        let labelled = label_of(line);
        if let Some(("name", v)) = &labelled {
            if name.is_none() {
                name = Some(v.trim_matches('`').to_string());
            }
            in_description = false;
        } else if let Some(("category", v)) = &labelled {
            category = Some(v.clone());
            in_description = false;
        } else if let Some(("description", v)) = &labelled {
            description = Some(v.clone());
            in_description = true;
        } else if in_description && !clean.is_empty() {
            if let Some(d) = description.as_mut() {
                d.push(' ');
                d.push_str(clean);
            }
        }
    }
    Some((name?, description?, category))
}

fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether two descriptions are near-identical: at least 80 % of their distinct words shared.
pub fn near_identical(a: &str, b: &str) -> bool {
    let (wa, wb) = (words(a), words(b));
    let union = wa.union(&wb).count();
    union > 0 && wa.intersection(&wb).count() as f64 / union as f64 >= 0.8
}

/// Five programs drawn from `tasks` for request `attempt` (all of them when there are fewer).
fn sample_programs(tasks: &[Task], seed: u64, attempt: u32) -> Vec<&Task> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (u64::from(attempt) << 32));
    tasks
        .choose_multiple(&mut rng, 5.min(tasks.len()))
        .collect()
}

fn programs_block(programs: &[&Task]) -> String {
    programs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                "Program {}:\n```python\n{}\n```",
                i + 1,
                t.source.trim_end()
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn designs_block(designs: &[Design]) -> String {
    if designs.is_empty() {
        return "(none yet)".into();
    }
    designs
        .iter()
        .enumerate()
        .map(|(i, d)| format!("{}. {}: {}", i + 1, d.name, d.description))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Designs transformations until there are `count` (counting `existing`), asking one at a time
/// with five programs sampled from `tasks` (seeded) and the list so far. Malformed replies and
/// duplicates are retried, up to `count + 2·count + 2` requests in all.
pub fn design(
    client: &LlmClient,
    template: &str,
    tasks: &[Task],
    count: usize,
    seed: u64,
    temperature: f32,
    existing: Vec<Design>,
) -> DesignRun {
    let mut run = DesignRun {
        designs: existing,
        ..DesignRun::default()
    };
    let max_attempts = (3 * count + 2) as u32;
    let mut attempt = 0u32;
    while run.designs.len() < count {
        if attempt >= max_attempts {
            run.gave_up = Some(format!(
                "only {} of {count} designs after {attempt} requests: too many malformed or duplicate replies",
                run.designs.len()
            ));
            break;
        }
        let programs = sample_programs(tasks, seed, attempt);
        let prompt = super::render(
            template,
            &[
                ("programs", &programs_block(&programs)),
                ("transformations", &designs_block(&run.designs)),
            ],
        );
        let request = ChatRequest {
            messages: vec![Message::user(prompt)],
            temperature,
            sample: attempt,
        };
        let reply = match client.complete(&request) {
            Ok(c) => c.text,
            Err(e) => {
                run.error = Some(e);
                break;
            }
        };
        let reject = |reason: String| Rejection {
            attempt,
            reason,
            reply: reply.clone(),
        };
        match parse_design(&reply) {
            Err(why) => run.rejected.push(reject(format!("malformed: {why}"))),
            Ok(d) => {
                if let Some(same) = run.designs.iter().find(|o| o.name == d.name) {
                    run.rejected
                        .push(reject(format!("duplicate name {:?}", same.name)));
                } else if let Some(same) = run
                    .designs
                    .iter()
                    .find(|o| near_identical(&o.description, &d.description))
                {
                    run.rejected.push(reject(format!(
                        "near-identical description to {:?}",
                        same.name
                    )));
                } else {
                    run.designs.push(d);
                }
            }
        }
        attempt += 1;
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_json_fenced_json_and_labelled_lines() {
        let d = parse_design(
            r#"{"name": "Loop To While", "category": "control-flow", "description": "Rewrite every for loop as a while loop over an explicit iterator."}"#,
        )
        .unwrap();
        assert_eq!(d.name, "loop-to-while");
        assert_eq!(d.category.as_deref(), Some("control-flow"));
        let d = parse_design(
            "Sure! Here it is:\n```json\n{\"name\": \"x-y\", \"description\": \"a {braced} description that is long enough\"}\n```",
        )
        .unwrap();
        assert_eq!(d.description, "a {braced} description that is long enough");
        let d = parse_design(
            "**Name:** `guard-clauses`\n**Description:** Turn if/else returns into\nearly returns where both branches return.",
        )
        .unwrap();
        assert_eq!(d.name, "guard-clauses");
        assert_eq!(
            d.description,
            "Turn if/else returns into early returns where both branches return."
        );
        // The Auto-SPT paper's own format, with markdown around the labels.
        for reply in [
            "- Transformation Name: Loop Unrolling Lite\n- Description: Unroll loops with a constant \
             trip count of at most three into repeated statements.",
            "### Transformation Name: loop-unrolling-lite\n**Description:** Unroll loops with a \
             constant trip count of at most three into repeated statements.",
            "1. **Transformation Name**: `loop-unrolling-lite`\n2. **Description**: Unroll loops \
             with a constant trip count of at most three into repeated statements.",
        ] {
            let d = parse_design(reply).unwrap_or_else(|e| panic!("{reply}: {e}"));
            assert_eq!(d.name, "loop-unrolling-lite", "{reply}");
            assert!(d.description.starts_with("Unroll loops"), "{reply}");
        }
        assert!(parse_design("I like turtles.").is_err());
        assert!(parse_design(r#"{"name": "a", "description": "short"}"#).is_err());
    }

    #[test]
    fn near_identical_descriptions() {
        assert!(near_identical(
            "Rewrite every for loop as a while loop over an explicit iterator.",
            "rewrite every for-loop as a while loop over an explicit iterator"
        ));
        assert!(!near_identical(
            "Rewrite every for loop as a while loop.",
            "Rename local variables to fresh names."
        ));
    }
}

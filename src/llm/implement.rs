//! Step 2: N candidate implementations of each design, written as transform scripts in the
//! layout `select` reads: `CANDIDATES/<design>/<k>.py`.

use super::client::{ChatRequest, LlmClient, Message};
use super::design::Design;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What became of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImplementStatus {
    /// Written as a candidate.
    Written,
    /// The reply holds no Python program.
    NotPython,
    /// The request failed.
    Error,
}

/// One sample's record: a line of `CANDIDATES/implement.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImplementRecord {
    /// The design's name.
    pub design: String,
    /// The sample index k.
    pub sample: u32,
    /// What became of it.
    pub status: ImplementStatus,
    /// The candidate file, relative to the candidates directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why it is not a candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The program in a reply: the longest fenced code block (```python preferred), else the whole
/// reply; `None` when that does not parse as Python.
pub fn extract_code(reply: &str) -> Option<String> {
    let mut blocks: Vec<(bool, String)> = Vec::new();
    let mut current: Option<(bool, Vec<&str>)> = None;
    for line in reply.lines() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            match current.take() {
                Some((python, body)) => blocks.push((python, body.join("\n"))),
                None => {
                    let lang = info.trim().to_ascii_lowercase();
                    current = Some((lang.is_empty() || lang.starts_with("py"), Vec::new()));
                }
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push(line);
        }
    }
    if let Some((python, body)) = current {
        blocks.push((python, body.join("\n")));
    }
    let code = if blocks.is_empty() {
        reply.trim().to_string()
    } else {
        let best = blocks
            .iter()
            .filter(|(python, _)| *python)
            .max_by_key(|(_, b)| b.len())
            .or_else(|| blocks.iter().max_by_key(|(_, b)| b.len()))?;
        best.1.clone()
    };
    let code = format!("{}\n", code.trim_matches('\n'));
    if code.trim().is_empty() || crate::program::validate(&code).is_err() {
        return None;
    }
    Some(code)
}

/// `code` with its header set from `design`: earlier `# name:`, `# category:` and
/// `# description:` lines in its leading comments are replaced.
pub fn with_header(code: &str, design: &Design) -> String {
    let mut lines: Vec<&str> = code.lines().collect();
    let header_end = lines
        .iter()
        .position(|l| {
            let t = l.trim();
            !(t.is_empty() || t.starts_with('#'))
        })
        .unwrap_or(lines.len());
    let is_meta = |l: &str| {
        let t = l
            .trim_start()
            .trim_start_matches('#')
            .trim_start()
            .to_ascii_lowercase();
        ["name:", "category:", "description:"]
            .iter()
            .any(|k| t.starts_with(k))
    };
    let mut i = 0;
    lines.retain(|l| {
        let keep = i >= header_end || !is_meta(l);
        i += 1;
        keep
    });
    let shebang = lines.first().is_some_and(|l| l.starts_with("#!"));
    let mut out = String::new();
    if shebang {
        out.push_str(lines.remove(0));
        out.push('\n');
    }
    out.push_str(&format!(
        "# name: {}\n# category: {}\n# description: {}\n",
        design.name,
        design.category.as_deref().unwrap_or("llm"),
        design.description
    ));
    out.push_str(&lines.join("\n"));
    out.push('\n');
    out
}

/// Asks for `samples` implementations of every design (all requests in parallel, bounded by
/// the client) and writes the Python ones to `out/<design>/<k>.py`. Returns one record per
/// sample, designs in order.
pub fn implement(
    client: &LlmClient,
    template: &str,
    designs: &[Design],
    samples: u32,
    temperature: f32,
    out: &Path,
) -> std::io::Result<Vec<ImplementRecord>> {
    let requests: Vec<(usize, ChatRequest)> = designs
        .iter()
        .enumerate()
        .flat_map(|(i, d)| {
            let prompt = super::render(
                template,
                &[("name", &d.name), ("description", &d.description)],
            );
            (0..samples).map(move |k| {
                (
                    i,
                    ChatRequest {
                        messages: vec![Message::user(prompt.clone())],
                        temperature,
                        sample: k,
                    },
                )
            })
        })
        .collect();
    let just: Vec<ChatRequest> = requests.iter().map(|(_, r)| r.clone()).collect();
    let replies = client.complete_all(&just);
    let mut records = Vec::new();
    for ((i, request), reply) in requests.iter().zip(replies) {
        let design = &designs[*i];
        let record = |status, file: Option<String>, message: Option<String>| ImplementRecord {
            design: design.name.clone(),
            sample: request.sample,
            status,
            file,
            message,
        };
        match reply {
            Err(e) => records.push(record(ImplementStatus::Error, None, Some(e.to_string()))),
            Ok(c) => match extract_code(&c.text) {
                None => records.push(record(
                    ImplementStatus::NotPython,
                    None,
                    Some(c.text.chars().take(200).collect()),
                )),
                Some(code) => {
                    let dir = out.join(&design.name);
                    std::fs::create_dir_all(&dir)?;
                    let rel = format!("{}/{}.py", design.name, request.sample);
                    std::fs::write(out.join(&rel), with_header(&code, design))?;
                    records.push(record(ImplementStatus::Written, Some(rel), None));
                }
            },
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_taken_from_fences_or_the_whole_reply() {
        let fenced = "Here you go:\n```python\nimport sys\nprint(sys.stdin.read())\n```\nEnjoy.";
        assert_eq!(
            extract_code(fenced).as_deref(),
            Some("import sys\nprint(sys.stdin.read())\n")
        );
        let bare = "import sys\nprint(sys.stdin.read())";
        assert_eq!(
            extract_code(bare).as_deref(),
            Some("import sys\nprint(sys.stdin.read())\n")
        );
        let two = "```text\nnot code at all, just words\n```\n```py\nx = 1\n```";
        assert_eq!(extract_code(two).as_deref(), Some("x = 1\n"));
        assert_eq!(
            extract_code("I am sorry, I can't write that program for you."),
            None
        );
        assert_eq!(extract_code("```python\n```"), None);
    }

    #[test]
    fn header_comes_from_the_design() {
        let d = Design {
            name: "swap-it".into(),
            description: "Swap operands of commutative operators.".into(),
            category: Some("expression".into()),
        };
        let out = with_header("# name: other\n# a comment\nimport sys\n# name: kept\n", &d);
        assert_eq!(
            out,
            "# name: swap-it\n# category: expression\n# description: Swap operands of commutative operators.\n# a comment\nimport sys\n# name: kept\n"
        );
    }
}

//! Script transforms: Python files in the Auto-SPT format (read the program on stdin, print the
//! rewrite on stdout), run by one shared runner component. This module reads their metadata.

use std::path::{Path, PathBuf};

/// The script-runner component: `$EQUIMORPH_SCRIPT_RUNNER`, else the one of this binary's
/// layout ([`crate::install::Layout::script_runner`]).
pub fn default_script_runner() -> PathBuf {
    std::env::var_os("EQUIMORPH_SCRIPT_RUNNER")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::install::layout().script_runner())
}

/// The metadata a script declares in its leading comments:
///
/// ```text
/// # name: for-to-while-iter
/// # category: control-flow
/// # description: for loops become while loops over an explicit iterator
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptHeader {
    /// `# name:` (kebab-case); the file stem when absent.
    pub name: Option<String>,
    /// `# category:`.
    pub category: Option<String>,
    /// `# description:`.
    pub description: Option<String>,
    /// `# language:` (the language of the programs the script rewrites; Python when absent).
    pub language: Option<String>,
    /// The leading comment block and module docstring, as text: the script's documentation.
    pub doc: String,
}

impl ScriptHeader {
    /// Reads the leading comment block (after an optional shebang) and the module docstring.
    pub fn parse(text: &str) -> Self {
        let mut header = ScriptHeader::default();
        let mut doc = Vec::new();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.peek() {
            let trimmed = line.trim();
            if trimmed.starts_with("#!") && doc.is_empty() {
                lines.next();
                continue;
            }
            if trimmed.is_empty() {
                lines.next();
                continue;
            }
            let Some(comment) = trimmed.strip_prefix('#') else {
                break;
            };
            let comment = comment.strip_prefix(' ').unwrap_or(comment);
            if let Some((key, value)) = comment.split_once(':') {
                let value = value.trim().to_string();
                match key.trim().to_ascii_lowercase().as_str() {
                    // The first occurrence of a key counts.
                    "name" if !value.is_empty() => {
                        header.name.get_or_insert(value);
                    }
                    "category" if !value.is_empty() => {
                        header.category.get_or_insert(value);
                    }
                    "language" if !value.is_empty() => {
                        header.language.get_or_insert(value);
                    }
                    "description" if !value.is_empty() => {
                        header.description.get_or_insert(value);
                    }
                    _ => {}
                }
            }
            doc.push(comment.to_string());
            lines.next();
        }
        if let Some(docstring) = module_docstring(lines.map(str::to_string).collect()) {
            if !doc.is_empty() {
                doc.push(String::new());
            }
            doc.push(docstring);
        }
        header.doc = doc.join("\n").trim().to_string();
        header
    }

    /// A kebab-case name from a file stem: `Swap_Operands.py` → `swap-operands`.
    pub fn name_from_stem(path: &Path) -> String {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut name = String::new();
        for c in stem.chars() {
            match c {
                'a'..='z' | '0'..='9' => name.push(c),
                'A'..='Z' => name.push(c.to_ascii_lowercase()),
                _ if !name.ends_with('-') && !name.is_empty() => name.push('-'),
                _ => {}
            }
        }
        name.trim_end_matches('-').to_string()
    }
}

/// The text of a triple-quoted module docstring at the start of `lines`, if there is one.
fn module_docstring(lines: Vec<String>) -> Option<String> {
    let first = lines.first()?.trim_start();
    let quote = ["\"\"\"", "'''"]
        .into_iter()
        .find(|q| first.trim_start_matches(['r', 'R']).starts_with(q))?;
    let body = lines.join("\n");
    let start = body.find(quote)? + 3;
    let end = body[start..].find(quote)? + start;
    Some(body[start..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_and_doc() {
        let h = ScriptHeader::parse(
            "#!/usr/bin/env python3\n# name: swap-it\n# Category: expression\n\
             # description:  swaps operands \n# more words\n\"\"\"Docstring\nline two.\n\"\"\"\nimport sys\n",
        );
        assert_eq!(h.name.as_deref(), Some("swap-it"));
        assert_eq!(h.category.as_deref(), Some("expression"));
        assert_eq!(h.description.as_deref(), Some("swaps operands"));
        assert!(h.doc.contains("more words"), "{}", h.doc);
        assert!(h.doc.ends_with("Docstring\nline two."), "{}", h.doc);
    }

    #[test]
    fn no_header() {
        let h = ScriptHeader::parse("import sys\nprint(sys.stdin.read())\n");
        assert_eq!(h, ScriptHeader::default());
    }

    #[test]
    fn comments_after_code_are_not_header() {
        let h = ScriptHeader::parse("import sys\n# name: late\n");
        assert_eq!(h.name, None);
    }

    #[test]
    fn stems_become_kebab_case() {
        assert_eq!(
            ScriptHeader::name_from_stem(Path::new("a/Swap_Operands v2.py")),
            "swap-operands-v2"
        );
        assert_eq!(ScriptHeader::name_from_stem(Path::new("3.py")), "3");
        assert_eq!(ScriptHeader::name_from_stem(Path::new("__x__.py")), "x");
    }
}

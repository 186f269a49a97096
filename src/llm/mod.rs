//! The LLM steps of Auto-SPT: step 1 designs new SPTs (iterative prompting with five sample
//! programs and the list designed so far), step 2 writes N candidate implementations of each as
//! transform scripts in the layout `select` reads. Any OpenAI-compatible chat-completions
//! endpoint serves; every exchange is cached on disk.

pub mod client;
pub mod design;
pub mod implement;

pub use client::{
    ChatRequest, Completion, LlmClient, LlmConfig, LlmError, LlmStats, Message, Usage,
};
pub use design::{design, parse_design, Design, DesignRun};
pub use implement::{extract_code, implement, ImplementRecord, ImplementStatus};

/// The default step-1 prompt (`prompts/design.md`); `{{programs}}` and `{{transformations}}`
/// are filled in.
pub const DESIGN_PROMPT: &str = include_str!("../../prompts/design.md");

/// The default step-2 prompt (`prompts/implement.md`); `{{name}}` and `{{description}}` are
/// filled in.
pub const IMPLEMENT_PROMPT: &str = include_str!("../../prompts/implement.md");

/// `template` with every `{{key}}` replaced by its value.
pub fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (key, value) in values {
        out = out.replace(&format!("{{{{{key}}}}}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn templates_fill_their_parameters() {
        assert_eq!(
            super::render("a {{x}} b {{y}} {{x}}", &[("x", "1"), ("y", "2")]),
            "a 1 b 2 1"
        );
        assert!(super::DESIGN_PROMPT.contains("{{programs}}"));
        assert!(super::DESIGN_PROMPT.contains("{{transformations}}"));
        assert!(super::IMPLEMENT_PROMPT.contains("{{description}}"));
    }
}

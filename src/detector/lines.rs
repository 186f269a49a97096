//! Line-level reuse of tokenization: a program's tokens are the concatenation of its lines'
//! tokens wherever the tokenizer never lets a token span a line break. A search's candidates
//! differ from their parent in a few lines, so most lines are tokenized once per run instead
//! of once per candidate.
//!
//! Whether a tokenizer allows it is decided per tokenizer ([`LineTokens::for_tokenizer`]): its
//! normalizer must act on each character alone, its pre-tokenizer must split at every
//! whitespace (WordPiece models such as MiniLM), no added token may hold or strip
//! whitespace, and on a set of canary programs the assembled tokens must equal the whole text's.
//! Byte-level BPE (RoBERTa, CodeBERT) glues a line break to the next line's indentation, so
//! those tokenizers tokenize whole texts as before.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::{Encoding, Tokenizer};

/// Distinct lines whose tokens are kept (a line and its ids take about 150 bytes: about
/// 10 MB when full; then the cache starts again).
const LINE_CACHE: usize = 65_536;

/// Lines longer than this many bytes are tokenized every time, not kept.
const LONGEST_KEPT: usize = 4_096;

/// Programs the assembled tokens are checked against before line reuse is turned on: code in
/// both languages, tabs, CRLF, blank and unterminated lines, non-ASCII text, combining marks
/// at a line's start, and a line longer than any window.
const CANARIES: &[&str] = &[
    "def f(xs):\n    total = 0\n\n    for x in xs:\n\ttotal += x  # sum\n    return total\n",
    "class A {\r\n  int f(int[] a) {\r\n    return a.length; // n\r\n  }\r\n}",
    "s = 'héllo wörld'\nt = \"日本語のテキスト\"\n\u{301}x = 1\nprint(s, t, x)",
    "\n\n  \n",
    "x=1;y=2\n",
];

/// Tokens of lines, kept across texts, for one tokenizer that allows it.
pub struct LineTokens {
    lines: Mutex<HashMap<Box<str>, Arc<[u32]>>>,
    reused: AtomicU64,
    tokenized: AtomicU64,
}

/// How many lines were found in the cache and how many were tokenized.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Lines whose tokens were reused.
    pub reused: u64,
    /// Lines tokenized.
    pub tokenized: u64,
}

impl LineTokens {
    /// Line reuse for `tokenizer` (which must neither truncate nor pad), or `None` where the tokenizer could
    /// let a token span a line break or the canaries tokenize differently line by line.
    pub fn for_tokenizer(tokenizer: &Tokenizer) -> Option<Self> {
        let reshapes = tokenizer.get_truncation().is_some() || tokenizer.get_padding().is_some();
        if reshapes || !splits_at_lines(tokenizer) {
            return None;
        }
        let lines = LineTokens {
            lines: Mutex::new(HashMap::new()),
            reused: AtomicU64::new(0),
            tokenized: AtomicU64::new(0),
        };
        let agrees = |text: &str| -> Option<bool> {
            let whole = tokenizer.encode_fast(text, false).ok()?;
            let assembled = lines.ids(tokenizer, text).ok()?;
            Some(whole.get_ids() == assembled.as_slice())
        };
        let long = "v = [".to_string() + &"1, ".repeat(400) + "]\nprint(v)\n";
        let all_agree = CANARIES
            .iter()
            .copied()
            .chain(std::iter::once(long.as_str()))
            .all(|t| agrees(t) == Some(true));
        if !all_agree {
            return None;
        }
        lines.clear();
        Some(lines)
    }

    /// The ids of `text` without special tokens, from its lines' cached ids; lines not cached
    /// are tokenized with `tokenizer` (one that does not truncate) and kept.
    pub fn ids(&self, tokenizer: &Tokenizer, text: &str) -> tokenizers::Result<Vec<u32>> {
        let parts: Vec<&str> = text.split_inclusive('\n').collect();
        let mut found: HashMap<&str, Arc<[u32]>> = {
            let cache = self.lines.lock().unwrap_or_else(|p| p.into_inner());
            parts
                .iter()
                .filter_map(|l| cache.get(*l).map(|ids| (*l, ids.clone())))
                .collect()
        };
        let reused = parts.iter().filter(|l| found.contains_key(*l)).count();
        // Each distinct line not cached is tokenized once (blank lines and `}` repeat).
        let mut fresh: Vec<(&str, Arc<[u32]>)> = Vec::new();
        for line in &parts {
            if !found.contains_key(line) {
                let ids: Arc<[u32]> = tokenizer.encode_fast(*line, false)?.get_ids().into();
                found.insert(line, ids.clone());
                fresh.push((line, ids));
            }
        }
        self.tokenized
            .fetch_add(fresh.len() as u64, Ordering::Relaxed);
        self.reused.fetch_add(reused as u64, Ordering::Relaxed);
        // Long lines (minified code) are not kept: a few edited copies would fill memory.
        fresh.retain(|(line, _)| line.len() <= LONGEST_KEPT);
        if !fresh.is_empty() {
            let mut cache = self.lines.lock().unwrap_or_else(|p| p.into_inner());
            if cache.len() + fresh.len() > LINE_CACHE {
                cache.clear();
            }
            for (line, ids) in fresh {
                cache.insert(line.into(), ids);
            }
        }
        Ok(parts
            .iter()
            .filter_map(|l| found.get(l))
            .flat_map(|ids| ids.iter().copied())
            .collect())
    }

    /// The encoding `tokenizer` would give `text` (special tokens added, truncated as it
    /// truncates), assembled from its lines' ids; `counter` is the same tokenizer without
    /// truncation, which tokenizes lines not cached.
    pub fn encode(
        &self,
        tokenizer: &Tokenizer,
        counter: &Tokenizer,
        text: &str,
        pair: Option<&str>,
    ) -> tokenizers::Result<Encoding> {
        let first = bare_encoding(self.ids(counter, text)?, 0);
        let second = match pair {
            Some(p) => Some(bare_encoding(self.ids(counter, p)?, 1)),
            None => None,
        };
        tokenizer.post_process(first, second, true)
    }

    /// Lines reused and tokenized so far.
    pub fn counts(&self) -> LineCounts {
        LineCounts {
            reused: self.reused.load(Ordering::Relaxed),
            tokenized: self.tokenized.load(Ordering::Relaxed),
        }
    }

    /// Forgets every line's tokens (benchmarks measure a cold tokenizer).
    pub fn clear(&self) {
        self.lines.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.reused.store(0, Ordering::Relaxed);
        self.tokenized.store(0, Ordering::Relaxed);
    }
}

/// An encoding of `ids` alone, as one sequence of type `type_id`, ready for the tokenizer's
/// truncation and post-processor (which read ids, types and lengths, not token strings).
fn bare_encoding(ids: Vec<u32>, type_id: u32) -> Encoding {
    let n = ids.len();
    Encoding::new(
        ids,
        vec![type_id; n],
        vec![String::new(); n],
        vec![None; n],
        vec![(0, 0); n],
        vec![0; n],
        vec![1; n],
        Vec::new(),
        Default::default(),
    )
}

/// Whether `tokenizer`'s normalizer, pre-tokenizer and added tokens keep every token within
/// one line.
fn splits_at_lines(tokenizer: &Tokenizer) -> bool {
    let normalizer_ok = tokenizer.get_normalizer().is_none_or(per_character);
    let pre_ok = tokenizer
        .get_pre_tokenizer()
        .is_some_and(|p| splits_only(p) && splits_at_whitespace(p));
    let added_ok = tokenizer
        .get_added_tokens_decoder()
        .values()
        // Normalized added tokens match the normalized text, where a line break may have
        // become a space: no added token may hold whitespace at all.
        .all(|t| !t.content.chars().any(char::is_whitespace) && !t.lstrip && !t.rstrip);
    normalizer_ok && pre_ok && added_ok
}

/// Normalizers that rewrite each character (or a character and its combining marks, which a
/// line break never joins) without looking across a line break.
fn per_character(n: &NormalizerWrapper) -> bool {
    match n {
        NormalizerWrapper::BertNormalizer(_)
        | NormalizerWrapper::Lowercase(_)
        | NormalizerWrapper::StripAccents(_)
        | NormalizerWrapper::NFC(_)
        | NormalizerWrapper::NFD(_)
        | NormalizerWrapper::NFKC(_)
        | NormalizerWrapper::NFKD(_) => true,
        NormalizerWrapper::Sequence(s) => s.as_ref().iter().all(per_character),
        _ => false,
    }
}

/// Pre-tokenizers that only split (never join pieces or mark a word's start).
fn splits_only(p: &PreTokenizerWrapper) -> bool {
    match p {
        PreTokenizerWrapper::BertPreTokenizer(_)
        | PreTokenizerWrapper::Whitespace(_)
        | PreTokenizerWrapper::WhitespaceSplit(_)
        | PreTokenizerWrapper::Punctuation(_)
        | PreTokenizerWrapper::Digits(_) => true,
        PreTokenizerWrapper::Sequence(s) => s.as_ref().iter().all(splits_only),
        _ => false,
    }
}

/// Pre-tokenizers that split at every whitespace (a line break included) and drop it.
fn splits_at_whitespace(p: &PreTokenizerWrapper) -> bool {
    match p {
        PreTokenizerWrapper::BertPreTokenizer(_)
        | PreTokenizerWrapper::Whitespace(_)
        | PreTokenizerWrapper::WhitespaceSplit(_) => true,
        PreTokenizerWrapper::Sequence(s) => s.as_ref().iter().any(splits_at_whitespace),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    /// A word-level tokenizer over a small vocabulary behind `pre` (a pre-tokenizer's JSON).
    fn word_level(pre: &str, added: &str) -> Tokenizer {
        let json = format!(
            r#"{{"version":"1.0","truncation":null,"padding":null,"added_tokens":[{added}],
            "normalizer":{{"type":"Lowercase"}},"pre_tokenizer":{pre},"post_processor":null,
            "decoder":null,"model":{{"type":"WordLevel","vocab":{{"[UNK]":0,"def":1,"f":2,
            "return":3,"x":4,"(x):":5,"=":6,"1":7,"[MARK]":8}},"unk_token":"[UNK]"}}}}"#
        );
        Tokenizer::from_str(&json).expect("tokenizer json")
    }

    const SPLIT: &str = r#"{"type":"WhitespaceSplit"}"#;

    #[test]
    fn a_whitespace_splitting_tokenizer_assembles_the_whole_texts_ids_and_reuses_lines() {
        let tok = word_level(SPLIT, "");
        let lines = LineTokens::for_tokenizer(&tok).expect("line reuse allowed");
        let parent = "def f(x):\n    x = 1\n    return x\n";
        let child = "def f(x):\n    X = 1\n    return x\n";
        for text in [parent, child, "", "no newline at end", "\r\n\r\n1\n"] {
            let whole = tok.encode_fast(text, false).unwrap();
            assert_eq!(lines.ids(&tok, text).unwrap(), whole.get_ids(), "{text:?}");
        }
        // The child shares two of its three lines with the parent; the canaries were forgotten.
        lines.clear();
        lines.ids(&tok, parent).unwrap();
        lines.ids(&tok, child).unwrap();
        assert_eq!(
            lines.counts(),
            LineCounts {
                reused: 2,
                tokenized: 4
            }
        );
    }

    #[test]
    fn long_lines_are_tokenized_each_time_and_not_kept() {
        let tok = word_level(SPLIT, "");
        let lines = LineTokens::for_tokenizer(&tok).expect("line reuse allowed");
        let text = format!("def f(x):\n{}\n", "x = 1 ".repeat(1_000));
        let whole = tok.encode_fast(text.as_str(), false).unwrap();
        for _ in 0..2 {
            assert_eq!(lines.ids(&tok, &text).unwrap(), whole.get_ids());
        }
        // The short line was kept after the first pass; the 6,000-byte line never was.
        assert_eq!(
            lines.counts(),
            LineCounts {
                reused: 1,
                tokenized: 3
            }
        );
    }

    #[test]
    fn tokenizers_that_can_span_a_line_break_tokenize_whole_texts() {
        let byte_level =
            r#"{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}"#;
        assert!(LineTokens::for_tokenizer(&word_level(byte_level, "")).is_none());
        let metaspace =
            r#"{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}"#;
        assert!(LineTokens::for_tokenizer(&word_level(metaspace, "")).is_none());
        // Punctuation alone never splits at a line break.
        let punctuation = r#"{"type":"Punctuation","behavior":"Isolated"}"#;
        assert!(LineTokens::for_tokenizer(&word_level(punctuation, "")).is_none());
        // An added token that strips the whitespace after it eats a line break.
        let stripping = r#"{"id":8,"content":"[MARK]","single_word":false,"lstrip":false,
            "rstrip":true,"normalized":false,"special":true}"#;
        assert!(LineTokens::for_tokenizer(&word_level(SPLIT, stripping)).is_none());
        // A normalized added token matches the normalized text, where a line break is a space.
        let indent = r#"{"id":8,"content":"  ","single_word":false,"lstrip":false,
            "rstrip":false,"normalized":true,"special":false}"#;
        assert!(LineTokens::for_tokenizer(&word_level(SPLIT, indent)).is_none());
        // A tokenizer that truncates cannot count a long text's lines.
        let mut truncating = word_level(SPLIT, "");
        truncating
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: 8,
                ..Default::default()
            }))
            .unwrap();
        assert!(LineTokens::for_tokenizer(&truncating).is_none());
    }
}

//! Argument types read from an entry point's annotations (`def f(xs: List[int], k: int)`), so
//! new calls can be drawn by type as well as made by editing the calls a task shows: a task
//! whose few calls all hold short lists of small numbers still gets calls of other shapes.

use super::calls::Value;
use rand::Rng;

/// A parameter's type, as far as new arguments can be drawn for it.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    Int,
    Float,
    Str,
    Bool,
    List(Box<Type>),
    /// `Tuple[int, str]`: one type per item.
    Tuple(Vec<Type>),
    /// `Tuple[int, ...]`.
    TupleOf(Box<Type>),
    Dict(Box<Type>, Box<Type>),
    Optional(Box<Type>),
}

/// What drawn values are made of: the integers, string characters and container lengths the
/// task's own calls show.
#[derive(Debug, Clone)]
pub struct Palette<'a> {
    /// The integer range.
    pub int_lo: i64,
    pub int_hi: i64,
    /// The characters strings are made of (`a`, `b`, `c` when none is shown).
    pub alphabet: &'a [char],
    /// The container lengths.
    pub len_lo: usize,
    pub len_hi: usize,
}

/// The types of `entry`'s positional parameters in `source`, when every one is annotated with
/// a type read here (`int`, `float`, `str`, `bool`, `List[…]`, `Tuple[…]`, `Dict[…, …]`,
/// `Optional[…]`, with or without `typing.`, and the lower-case builtins); `None` otherwise.
pub fn parameter_types(source: &str, entry: &str) -> Option<Vec<Type>> {
    super::calls::each_parameter(source, entry, |p| match p.kind() {
        "typed_parameter" | "typed_default_parameter" => p
            .child_by_field_name("type")
            .and_then(|t| source.get(t.byte_range()))
            .and_then(read_type),
        _ => None,
    })
    .filter(|t| !t.is_empty())
}

/// The types of `entry`'s parameters as its text describes them (`Given a positive integer
/// n`, `a string s`, `a list of integers lst`), when it describes every one; `None` otherwise.
/// A word right before the name says its type; a list or array takes its items' type from an
/// `of integers`/`of strings` that follows within the sentence.
pub fn described_types(source: &str, entry: &str) -> Option<Vec<Type>> {
    let params = super::calls::parameters(source, entry).filter(|p| !p.is_empty())?;
    let words: Vec<String> = source
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches('.').to_ascii_lowercase())
        .collect();
    params
        .iter()
        .map(|p| {
            let p = p.to_ascii_lowercase();
            words.iter().enumerate().find_map(|(i, w)| {
                if *w != p || i == 0 {
                    return None;
                }
                let before = words.get(i - 1)?;
                let item = |from: usize| {
                    let window = words.get(from..(from + 6).min(words.len()))?;
                    window
                        .windows(2)
                        .find_map(|pair| match (pair[0].as_str(), pair[1].as_str()) {
                            ("of", "integers" | "numbers" | "ints") => Some(Type::Int),
                            ("of", "strings" | "words") => Some(Type::Str),
                            ("of", "floats") => Some(Type::Float),
                            _ => None,
                        })
                };
                match before.as_str() {
                    "integer" | "int" | "number" => Some(Type::Int),
                    "string" | "str" | "word" | "sentence" => Some(Type::Str),
                    "float" => Some(Type::Float),
                    "list" | "array" | "vector" => item(i + 1)
                        .or_else(|| item(i.saturating_sub(1)))
                        .map(|t| Type::List(Box::new(t))),
                    _ => None,
                }
            })
        })
        .collect()
}

/// Reads an annotation's text as a [`Type`].
fn read_type(text: &str) -> Option<Type> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let (ty, rest) = parse(&compact)?;
    rest.is_empty().then_some(ty)
}

/// One type at the start of `s`, and what follows it.
fn parse(s: &str) -> Option<(Type, &str)> {
    let s = s.strip_prefix("typing.").unwrap_or(s);
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    let (name, rest) = s.split_at(end);
    let Some(inner) = rest.strip_prefix('[') else {
        let ty = match name {
            "int" => Type::Int,
            "float" => Type::Float,
            "str" => Type::Str,
            "bool" => Type::Bool,
            _ => return None,
        };
        return Some((ty, rest));
    };
    let mut args = Vec::new();
    let mut rest = inner;
    let mut open_ended = false;
    loop {
        if let Some(r) = rest.strip_prefix("...") {
            open_ended = true;
            rest = r;
        } else {
            let (t, r) = parse(rest)?;
            args.push(t);
            rest = r;
        }
        if let Some(r) = rest.strip_prefix(',') {
            rest = r;
        } else {
            rest = rest.strip_prefix(']')?;
            break;
        }
    }
    let mut args = args.into_iter();
    let ty = match (name, args.len(), open_ended) {
        ("List" | "list" | "Sequence" | "Iterable", 1, false) => Type::List(Box::new(args.next()?)),
        ("Tuple" | "tuple", 1, true) => Type::TupleOf(Box::new(args.next()?)),
        ("Tuple" | "tuple", _, false) => Type::Tuple(args.collect()),
        ("Dict" | "dict", 2, false) => {
            let k = args.next()?;
            Type::Dict(Box::new(k), Box::new(args.next()?))
        }
        ("Optional", 1, false) => Type::Optional(Box::new(args.next()?)),
        _ => return None,
    };
    Some((ty, rest))
}

impl Type {
    /// A value of this type drawn from `palette`.
    pub fn draw(&self, palette: &Palette<'_>, rng: &mut impl Rng, depth: usize) -> Value {
        let length = |rng: &mut dyn rand::RngCore| {
            if depth > 2 {
                0
            } else {
                rng.random_range(palette.len_lo..=palette.len_hi.max(palette.len_lo))
            }
        };
        match self {
            Type::Int => Value::Int(rng.random_range(palette.int_lo..=palette.int_hi)),
            Type::Float => {
                let v = rng.random_range(palette.int_lo..=palette.int_hi) as f64;
                Value::Float(v + f64::from(rng.random_range(0..10u8)) / 10.0)
            }
            Type::Str => {
                let n = length(rng);
                let fallback = ['a', 'b', 'c'];
                let chars = if palette.alphabet.is_empty() {
                    &fallback[..]
                } else {
                    palette.alphabet
                };
                Value::Str(
                    (0..n)
                        .map(|_| chars[rng.random_range(0..chars.len())])
                        .collect(),
                )
            }
            Type::Bool => Value::Bool(rng.random_bool(0.5)),
            Type::List(t) => {
                let n = length(rng);
                Value::List((0..n).map(|_| t.draw(palette, rng, depth + 1)).collect())
            }
            Type::TupleOf(t) => {
                let n = length(rng);
                Value::Tuple((0..n).map(|_| t.draw(palette, rng, depth + 1)).collect())
            }
            Type::Tuple(ts) => {
                Value::Tuple(ts.iter().map(|t| t.draw(palette, rng, depth + 1)).collect())
            }
            Type::Dict(k, v) => {
                let n = length(rng).min(4);
                let mut kv: Vec<(Value, Value)> = Vec::new();
                for _ in 0..n {
                    let key = k.draw(palette, rng, depth + 1);
                    if !kv.iter().any(|(seen, _)| *seen == key) {
                        kv.push((key, v.draw(palette, rng, depth + 1)));
                    }
                }
                Value::Dict(kv)
            }
            Type::Optional(t) => {
                if rng.random_bool(0.2) {
                    Value::None
                } else {
                    t.draw(palette, rng, depth)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn annotations_read_as_types() {
        let src = "from typing import List, Tuple\n\ndef f(xs: List[int], pair: Tuple[str, float], k: int = 2, d: typing.Dict[str, list[int]] = None, o: Optional[Tuple[int, ...]] = None) -> bool:\n    return True\n";
        let got = parameter_types(src, "f").unwrap();
        assert_eq!(
            got,
            vec![
                Type::List(Box::new(Type::Int)),
                Type::Tuple(vec![Type::Str, Type::Float]),
                Type::Int,
                Type::Dict(
                    Box::new(Type::Str),
                    Box::new(Type::List(Box::new(Type::Int)))
                ),
                Type::Optional(Box::new(Type::TupleOf(Box::new(Type::Int)))),
            ]
        );
        assert_eq!(parameter_types("def f(x, y: int):\n    pass\n", "f"), None);
        assert_eq!(parameter_types("def f(x: Any):\n    pass\n", "f"), None);
        assert_eq!(parameter_types("def f():\n    pass\n", "f"), None);
    }

    #[test]
    fn types_the_text_describes() {
        let src = "def f(n, s, arr):\n    \"\"\"Given a positive integer n, a string s and an\n    array arr of integers, return ...\"\"\"\n";
        assert_eq!(
            described_types(src, "f"),
            Some(vec![Type::Int, Type::Str, Type::List(Box::new(Type::Int))])
        );
        let vague = "def f(n, x):\n    \"\"\"Given a positive integer n and x.\"\"\"\n";
        assert_eq!(described_types(vague, "f"), None);
    }

    #[test]
    fn drawn_values_follow_the_type_and_the_palette() {
        let alphabet = ['x', 'y'];
        let palette = Palette {
            int_lo: -3,
            int_hi: 7,
            alphabet: &alphabet,
            len_lo: 1,
            len_hi: 4,
        };
        let ty = Type::List(Box::new(Type::Tuple(vec![Type::Int, Type::Str])));
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..100 {
            let Value::List(items) = ty.draw(&palette, &mut rng, 0) else {
                panic!("not a list");
            };
            assert!((1..=4).contains(&items.len()));
            for item in items {
                let Value::Tuple(parts) = item else {
                    panic!("not a tuple");
                };
                assert!(matches!(parts[0], Value::Int(i) if (-3..=7).contains(&i)));
                assert!(
                    matches!(&parts[1], Value::Str(s) if s.chars().all(|c| alphabet.contains(&c)))
                );
            }
        }
    }
}

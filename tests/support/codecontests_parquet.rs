//! Writes CodeContests-shaped parquet files: the column names and Arrow types of the Hugging
//! Face copy of deepmind/code_contests (tests and solutions as structs of parallel lists,
//! language and source as int64 enums, time_limit as a {seconds, nanos} struct), with
//! programs we write. Used by the loader tests (a small sample with every case the loader
//! must handle), the parquet benchmark (100,000 synthetic solutions) and
//! `cargo run --example codecontests_parquet` (both, on disk).

#![allow(dead_code)]

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Int32Array, Int64Array, RecordBatch, StringArray,
    StructArray,
};
use arrow_schema::{DataType, Field, Fields};
use std::path::Path;
use std::sync::Arc;

/// `ContestProblem.Solution.Language`.
pub const PYTHON2: i64 = 1;
pub const CPP: i64 = 2;
pub const PYTHON3: i64 = 3;
pub const JAVA: i64 = 4;

/// One `ContestProblem`.
#[derive(Clone, Default)]
pub struct Row {
    pub name: String,
    pub source: i64,
    pub public: Vec<(String, String)>,
    pub private: Vec<(String, String)>,
    pub generated: Vec<(String, String)>,
    pub solutions: Vec<(i64, String)>,
    pub incorrect: Vec<(i64, String)>,
    /// (seconds, nanos); `None` writes a null struct.
    pub time_limit: Option<(i64, i64)>,
    pub input_file: String,
    pub output_file: String,
}

fn tests_array(rows: &[Row], pick: impl Fn(&Row) -> &Vec<(String, String)>) -> ArrayRef {
    let mut inputs = ListBuilder::new(StringBuilder::new());
    let mut outputs = ListBuilder::new(StringBuilder::new());
    for r in rows {
        for (i, o) in pick(r) {
            inputs.values().append_value(i);
            outputs.values().append_value(o);
        }
        inputs.append(true);
        outputs.append(true);
    }
    let (i, o): (ArrayRef, ArrayRef) = (Arc::new(inputs.finish()), Arc::new(outputs.finish()));
    Arc::new(StructArray::from(vec![
        (
            Arc::new(Field::new("input", i.data_type().clone(), true)),
            i,
        ),
        (
            Arc::new(Field::new("output", o.data_type().clone(), true)),
            o,
        ),
    ]))
}

fn solutions_array(rows: &[Row], pick: impl Fn(&Row) -> &Vec<(i64, String)>) -> ArrayRef {
    let mut langs = ListBuilder::new(Int64Builder::new());
    let mut codes = ListBuilder::new(StringBuilder::new());
    for r in rows {
        for (l, c) in pick(r) {
            langs.values().append_value(*l);
            codes.values().append_value(c);
        }
        langs.append(true);
        codes.append(true);
    }
    let (l, c): (ArrayRef, ArrayRef) = (Arc::new(langs.finish()), Arc::new(codes.finish()));
    Arc::new(StructArray::from(vec![
        (
            Arc::new(Field::new("language", l.data_type().clone(), true)),
            l,
        ),
        (
            Arc::new(Field::new("solution", c.data_type().clone(), true)),
            c,
        ),
    ]))
}

fn strings(rows: &[Row], f: impl Fn(&Row) -> String) -> ArrayRef {
    Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
}

/// One record batch of `rows`, with every column of the real dataset.
pub fn batch(rows: &[Row]) -> RecordBatch {
    let n = rows.len();
    let time_limit: ArrayRef = {
        let secs: ArrayRef = Arc::new(Int64Array::from(
            rows.iter()
                .map(|r| r.time_limit.map(|t| t.0))
                .collect::<Vec<_>>(),
        ));
        let nanos: ArrayRef = Arc::new(Int64Array::from(
            rows.iter()
                .map(|r| r.time_limit.map(|t| t.1))
                .collect::<Vec<_>>(),
        ));
        let fields = Fields::from(vec![
            Field::new("seconds", DataType::Int64, true),
            Field::new("nanos", DataType::Int64, true),
        ]);
        let valid = arrow_buffer::NullBuffer::from(
            rows.iter()
                .map(|r| r.time_limit.is_some())
                .collect::<Vec<_>>(),
        );
        Arc::new(StructArray::new(fields, vec![secs, nanos], Some(valid)))
    };
    let mut tags = ListBuilder::new(StringBuilder::new());
    for _ in rows {
        tags.values().append_value("implementation");
        tags.append(true);
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("name", strings(rows, |r| r.name.clone())),
        (
            "description",
            strings(rows, |r| format!("Solve {}.", r.name)),
        ),
        ("public_tests", tests_array(rows, |r| &r.public)),
        ("private_tests", tests_array(rows, |r| &r.private)),
        ("generated_tests", tests_array(rows, |r| &r.generated)),
        (
            "source",
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.source).collect::<Vec<_>>(),
            )),
        ),
        ("difficulty", Arc::new(Int64Array::from(vec![7i64; n]))),
        ("solutions", solutions_array(rows, |r| &r.solutions)),
        (
            "incorrect_solutions",
            solutions_array(rows, |r| &r.incorrect),
        ),
        ("cf_contest_id", Arc::new(Int64Array::from(vec![1i64; n]))),
        ("cf_index", strings(rows, |_| "A".into())),
        ("cf_points", Arc::new(Float32Array::from(vec![500.0f32; n]))),
        ("cf_rating", Arc::new(Int32Array::from(vec![800i32; n]))),
        ("cf_tags", Arc::new(tags.finish())),
        (
            "is_description_translated",
            Arc::new(BooleanArray::from(vec![false; n])),
        ),
        ("untranslated_description", strings(rows, |_| String::new())),
        ("time_limit", time_limit),
        (
            "memory_limit_bytes",
            Arc::new(Int64Array::from(vec![256i64 << 20; n])),
        ),
        ("input_file", strings(rows, |r| r.input_file.clone())),
        ("output_file", strings(rows, |r| r.output_file.clone())),
    ];
    RecordBatch::try_from_iter(columns).expect("consistent columns")
}

/// Writes `rows` to `path`, `per_group` rows per row group, Snappy-compressed like the
/// Hugging Face files.
pub fn write(path: &Path, rows: impl IntoIterator<Item = Row>, per_group: usize) {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    let mut rows = rows.into_iter().peekable();
    let first: Vec<Row> = rows.by_ref().take(per_group).collect();
    let schema = batch(&first).schema();
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(per_group))
        .build();
    let file = std::fs::File::create(path).expect("create the parquet file");
    let mut writer = ArrowWriter::try_new(file, schema, Some(props)).expect("writer");
    writer.write(&batch(&first)).expect("write");
    loop {
        let chunk: Vec<Row> = rows.by_ref().take(per_group).collect();
        if chunk.is_empty() {
            break;
        }
        writer.write(&batch(&chunk)).expect("write");
    }
    writer.close().expect("close");
}

fn t(i: &str, o: &str) -> (String, String) {
    (i.to_string(), o.to_string())
}

/// The sample: every case the loader must tell apart.
pub fn sample_rows() -> Vec<Row> {
    let double = Row {
        name: "1_A. Double".into(),
        source: 2,
        public: vec![t("3\n", "6\n")],
        private: vec![t("0\n", "0\n"), t("-4\n", "-8\n")],
        generated: vec![t("1000000\n", "2000000\n")],
        solutions: vec![
            (PYTHON3, "print(2 * int(input()))\n".into()),
            (CPP, "int main() { return 0; }\n".into()),
            (PYTHON2, "print 2 * input()\n".into()),
            // Accepted by the official checker: 6.0000000 for 6, upper case, extra spaces.
            (
                PYTHON3,
                "n = int(input())\nprint('%.7f' % (n + n))\n".into(),
            ),
            (JAVA, "class Main {}\n".into()),
        ],
        incorrect: vec![
            (PYTHON3, "print(int(input()) + 2)\n".into()),
            (CPP, "int main() { return 1; }\n".into()),
            (
                PYTHON3,
                "n = int(input())\nprint('%.3f' % (2 * n + 0.01))\n".into(),
            ),
        ],
        time_limit: Some((2, 0)),
        ..Row::default()
    };
    vec![
        double.clone(),
        // The same name from another source is another problem.
        Row {
            source: 1,
            solutions: vec![(PYTHON3, "x = int(input())\nprint(x * 2)\n".into())],
            incorrect: vec![],
            time_limit: Some((1, 500_000_000)),
            ..double.clone()
        },
        Row {
            name: "2_B. Yes or no".into(),
            source: 2,
            public: vec![t("1\n", "YES\n")],
            private: vec![t("0\n", "NO\n")],
            solutions: vec![(PYTHON3, "print('yes' if int(input()) else 'no')\n".into())],
            time_limit: None,
            ..Row::default()
        },
        Row {
            name: "3_C. Reads a file".into(),
            source: 2,
            public: vec![t("", "1\n")],
            solutions: vec![(PYTHON3, "print(open('input.txt').read())\n".into())],
            input_file: "input.txt".into(),
            output_file: "output.txt".into(),
            ..Row::default()
        },
        Row {
            name: "4_D. No tests".into(),
            source: 2,
            solutions: vec![(PYTHON3, "print(1)\n".into())],
            ..Row::default()
        },
        Row {
            name: "5_E. Only C++".into(),
            source: 6,
            public: vec![t("1\n", "1\n")],
            solutions: vec![(CPP, "int main() {}\n".into())],
            ..Row::default()
        },
        // The same name and source again: a second identity.
        Row {
            solutions: vec![(PYTHON3, "print(int(input()) * 2)\n".into())],
            incorrect: vec![],
            ..double
        },
    ]
}

/// `problems` synthetic problems with `per_problem` Python 3 solutions each (plus one C++,
/// one Python 2 and two incorrect solutions), about the sizes of real ones: every solution
/// differs (names, constants, comments), 35 tests per problem with inputs of a few hundred
/// bytes, so the file does not compress to nothing.
pub fn synthetic_rows(problems: usize, per_problem: usize) -> impl Iterator<Item = Row> {
    // A small deterministic generator (SplitMix64), so the file is the same on every run.
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    (0..problems).map(move |p| {
        let body = |k: usize| {
            let h = mix((p as u64) << 20 | k as u64);
            let name = |i: u64| format!("v{:x}", mix(h ^ i) % 0xfffff);
            let (total, xs, n, i, x) = (name(1), name(2), name(3), name(4), name(5));
            format!(
                "# solution {h:016x}\nimport sys\n\n\ndef solve({n}, {xs}):\n    {total} = 0\n    \
                 for {i}, {x} in enumerate({xs}):\n        if ({i} + {k}) % 2 == 0:\n            \
                 {total} += {x} * {}\n        else:\n            {total} -= {x} % {}\n    \
                 return {total}\n\n\ndef main():\n    data = sys.stdin.read().split()\n    \
                 {n} = int(data[0])\n    {xs} = list(map(int, data[1:1 + {n}]))\n    \
                 print(solve({n}, {xs}))\n\n\nmain()\n",
                p + 1,
                h % 97 + 1
            )
        };
        let input = |k: u64| {
            let len = 20 + mix(k) % 60;
            let xs: Vec<String> = (0..len)
                .map(|i| (mix(k ^ i) % 1_000_000).to_string())
                .collect();
            format!("{len}\n{}\n", xs.join(" "))
        };
        let seed = (p as u64) << 32;
        let mut solutions: Vec<(i64, String)> =
            (0..per_problem).map(|k| (PYTHON3, body(k))).collect();
        solutions.push((CPP, "#include <cstdio>\nint main() { return 0; }\n".into()));
        solutions.push((PYTHON2, "print sum(map(int, raw_input().split()))\n".into()));
        Row {
            name: format!(
                "{}_{}. Synthetic {p}",
                1000 + p / 5,
                ["A", "B", "C", "D", "E"][p % 5]
            ),
            source: 2,
            public: vec![t(&input(seed), "0\n")],
            private: (1..5)
                .map(|k| t(&input(seed + k), &format!("{}\n", mix(seed + k) % 1000)))
                .collect(),
            generated: (5..35)
                .map(|k| t(&input(seed + k), &format!("{}\n", mix(seed + k) % 1000)))
                .collect(),
            solutions,
            incorrect: vec![
                (PYTHON3, body(per_problem + 1).replace("-=", "+=")),
                (CPP, "int main(){}".into()),
            ],
            time_limit: Some((2, 0)),
            ..Row::default()
        }
    })
}

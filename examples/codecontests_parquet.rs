//! Writes CodeContests-shaped parquet files with the Hugging Face copy's columns and types.
//!
//! ```text
//! cargo run --release --example codecontests_parquet -- sample OUT.parquet
//! cargo run --release --example codecontests_parquet -- synthetic OUT.parquet PROBLEMS PER_PROBLEM
//! ```
//! `sample` is `fixtures/formats/codecontests/sample.parquet`: one problem per case the loader
//! tells apart. `synthetic` makes PROBLEMS problems with PER_PROBLEM Python 3 solutions each.

#[path = "../tests/support/codecontests_parquet.rs"]
mod codecontests_parquet;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| args.get(i).and_then(|s| s.parse::<usize>().ok());
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("sample"), Some(out)) => {
            codecontests_parquet::write(
                &PathBuf::from(out),
                codecontests_parquet::sample_rows(),
                4,
            );
        }
        (Some("synthetic"), Some(out)) => {
            let (Some(problems), Some(per)) = (number(2), number(3)) else {
                eprintln!("synthetic needs PROBLEMS and PER_PROBLEM");
                return ExitCode::from(2);
            };
            codecontests_parquet::write(
                &PathBuf::from(out),
                codecontests_parquet::synthetic_rows(problems, per),
                64,
            );
        }
        _ => {
            eprintln!(
                "usage: codecontests_parquet sample OUT | synthetic OUT PROBLEMS PER_PROBLEM"
            );
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

//! Classic detectors read each program with its own grammar (issue 38): Java is not read as
//! Python, comments are never tokens, and reformatting a Java method keeps its NiCad lines.

use equimorph::detector::{self, classic, CloneType, Detector};
use equimorph::program::Language;

/// A 7-line Java class.
const JAVA: &str = "public class Main {
    public static void main(String[] args) {
        int a = 3;
        int b = 4;
        System.out.println(a * b + 1);
    }
}
";

/// [`JAVA`] with one integer literal changed.
const JAVA_LITERAL: &str = "public class Main {
    public static void main(String[] args) {
        int a = 5;
        int b = 4;
        System.out.println(a * b + 1);
    }
}
";

/// [`JAVA`] with a line comment, a block comment and a Javadoc comment.
const JAVA_COMMENTED: &str = "/** The program. */
public class Main {
    public static void main(String[] args) {
        // the first factor
        int a = 3; /* block */
        int b = 4; // the second
        /* a block
           over two lines */
        System.out.println(a * b + 1);
    }
}
";

const PYTHON: &str = "a = 3\nb = 4\nc = a * b\nprint(c + 1)\n";
const PYTHON_LITERAL: &str = "a = 5\nb = 4\nc = a * b\nprint(c + 1)\n";
const PYTHON_COMMENTED: &str =
    "# the program\na = 3  # first\nb = 4\n# the product\nc = a * b\nprint(c + 1)  # done\n";

fn nicad() -> Box<dyn Detector> {
    detector::open("nicad", Default::default()).expect("nicad opens")
}

/// M(a, b) by each classic detector through the `Detector` trait.
fn all_scores(a: &str, b: &str) -> Vec<(&'static str, f32)> {
    ["jaccard", "sourcerercc", "nicad"]
        .into_iter()
        .map(|name| {
            let d = detector::open(name, Default::default()).expect("a classic detector opens");
            let m = d.similarities(a, &[b]).expect("classic detectors score")[0];
            (name, m)
        })
        .collect()
}

#[test]
fn java_literal_edit_keeps_nicad_high() {
    let m = nicad().similarities(JAVA, &[JAVA_LITERAL]).unwrap()[0];
    // 7 statement lines, one changed: LCS 6 / 7.
    assert!(m >= 0.8, "nicad M = {m}");
    assert!((m - 6.0 / 7.0).abs() < 1e-6, "nicad M = {m}");
    assert_eq!(CloneType::of(JAVA, JAVA_LITERAL), CloneType::Type12);
    assert_eq!(
        CloneType::of_as(Language::Java, JAVA, JAVA_LITERAL),
        CloneType::Type12
    );
}

#[test]
fn python_literal_edit_keeps_nicad_high() {
    let m = nicad().similarities(PYTHON, &[PYTHON_LITERAL]).unwrap()[0];
    assert!(m >= 0.7, "nicad M = {m}");
}

#[test]
fn java_comments_change_nothing() {
    for (name, m) in all_scores(JAVA, JAVA_COMMENTED) {
        assert_eq!(m, 1.0, "{name}: a comment changed M");
    }
    // Scored against an edited program, the commented text scores as the plain one.
    assert_eq!(
        all_scores(JAVA_COMMENTED, JAVA_LITERAL),
        all_scores(JAVA, JAVA_LITERAL)
    );
    assert_eq!(
        classic::token_count(JAVA_COMMENTED),
        classic::token_count(JAVA)
    );
    assert_eq!(
        detector::tokens_of(nicad().as_ref(), JAVA_COMMENTED).unwrap(),
        classic::token_count_as(Language::Java, JAVA)
    );
}

#[test]
fn python_comments_change_nothing() {
    for (name, m) in all_scores(PYTHON, PYTHON_COMMENTED) {
        assert_eq!(m, 1.0, "{name}: a comment changed M");
    }
    assert_eq!(
        all_scores(PYTHON_COMMENTED, PYTHON_LITERAL),
        all_scores(PYTHON, PYTHON_LITERAL)
    );
}

#[test]
fn reformatting_a_java_method_keeps_its_lines() {
    let one_line = "public class Main { public static void main(String[] args) { int[] xs = {1, 2, 3}; int s = 0; for (int i = 0; i < xs.length; i++) { s += xs[i]; } if (s > 3) { System.out.println(s); } else { System.out.println(-s); } } }";
    let spread = "public class Main
{
    public static void main(String[] args)
    {
        int[] xs = {
            1, 2, 3
        };
        int s =
            0;
        for (int i = 0;
             i < xs.length;
             i++)
        {
            s += xs[i];
        }
        if (s > 3) {
            System.out.println(s);
        }
        else
        {
            System.out.println(-s);
        }
    }
}
";
    assert_eq!(nicad().similarities(one_line, &[spread]).unwrap(), [1.0]);
    assert_eq!(classic::nicad_lines(one_line), classic::nicad_lines(spread));
    assert_eq!(CloneType::of(one_line, spread), CloneType::Type12);
    assert_eq!(CloneType::of(spread, one_line), CloneType::Type12);
    // The for header stays one line; an array initialiser is not a block.
    let lines = classic::nicad_lines(spread);
    assert!(
        lines.contains(&"for ( int x = 0 ; x < x . x ; x ++ ) {".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"int [ ] x = { 1 , 2 , 3 } ;".to_string()),
        "{lines:?}"
    );
}

#[test]
fn language_is_detected_from_the_text() {
    assert_eq!(Language::detect(JAVA), Language::Java);
    assert_eq!(Language::detect(JAVA_COMMENTED), Language::Java);
    assert_eq!(Language::detect(PYTHON), Language::Python);
    assert_eq!(Language::detect(PYTHON_COMMENTED), Language::Python);
    assert_eq!(Language::detect(""), Language::Python);
    assert_eq!(
        classic::Prepared::new(JAVA).language(),
        Language::Java,
        "Prepared::new detects"
    );
    assert_eq!(
        classic::Prepared::new_as(Language::Python, JAVA).language(),
        Language::Python
    );
}

#[test]
fn classic_enum_scores_like_open() {
    let by_enum = detector::Classic::Nicad
        .similarities(JAVA, &[JAVA_LITERAL, JAVA_COMMENTED])
        .unwrap();
    let by_open = nicad()
        .similarities(JAVA, &[JAVA_LITERAL, JAVA_COMMENTED])
        .unwrap();
    assert_eq!(by_enum, by_open);
    assert_eq!(by_enum[1], 1.0);
}

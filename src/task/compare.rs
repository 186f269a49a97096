//! Judge-style output comparison.

/// Normalises output: trailing whitespace of every line and trailing blank lines are ignored.
pub fn normalize(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').map(|l| l.trim_end()).collect();
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    lines[..end].join("\n")
}

/// Whether two outputs are equal after normalisation; with `tolerance`, whitespace-separated
/// tokens that both parse as floats may differ by `tolerance` (absolute or relative).
pub fn outputs_equal(a: &str, b: &str, tolerance: Option<f64>) -> bool {
    let (na, nb) = (normalize(a), normalize(b));
    if na == nb {
        return true;
    }
    let Some(tol) = tolerance else { return false };
    let la: Vec<&str> = na.split('\n').collect();
    let lb: Vec<&str> = nb.split('\n').collect();
    if la.len() != lb.len() {
        return false;
    }
    la.iter().zip(&lb).all(|(x, y)| {
        let tx: Vec<&str> = x.split_whitespace().collect();
        let ty: Vec<&str> = y.split_whitespace().collect();
        tx.len() == ty.len()
            && tx.iter().zip(&ty).all(|(p, q)| {
                p == q
                    || match (p.parse::<f64>(), q.parse::<f64>()) {
                        (Ok(u), Ok(v)) => (u - v).abs() <= tol * 1f64.max(u.abs().max(v.abs())),
                        _ => false,
                    }
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_normalisation() {
        assert!(outputs_equal("1 2  \n3\n\n\n", "1 2\n3", None));
        assert!(!outputs_equal("1 2\n3", "1  2\n3", None));
        assert!(!outputs_equal("a\n\nb", "a\nb", None));
        assert!(!outputs_equal("x", " x", None));
    }

    #[test]
    fn float_tolerance_is_opt_in() {
        assert!(!outputs_equal("0.3333333", "0.3333334", None));
        assert!(outputs_equal("0.3333333 ok", "0.3333334 ok", Some(1e-6)));
        assert!(!outputs_equal("0.33 ok", "0.34 ok", Some(1e-6)));
        assert!(!outputs_equal("1.0 a", "1.0 b", Some(1.0)));
    }
}

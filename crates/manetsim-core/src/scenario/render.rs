//! `show-config`: a scenario rendered back to TOML.

use toml_edit::visit_mut::{visit_value_mut, VisitMut};
use toml_edit::{DocumentMut, Value};

use super::error::one_line;
use super::schema::Scenario;

/// The scenario as TOML, every key written out (the fully resolved scenario
/// when `s` came from [`super::load_str`]). Loading the text again gives an
/// equal `Scenario`. Floats are written in the shortest form that reads back
/// exactly, with an exponent when very small or large (`3.652e-10`).
///
/// A scenario that TOML cannot hold (an integer above `i64::MAX`, which
/// [`super::validate`] refuses) renders as a one-line `#` comment saying so.
pub fn to_toml_string(s: &Scenario) -> String {
    let text = match toml::to_string(s) {
        Ok(text) => text,
        Err(e) => {
            return format!(
                "# cannot render this scenario as TOML: {}\n",
                one_line(&e.to_string())
            )
        }
    };
    let mut out = match text.parse::<DocumentMut>() {
        Ok(mut doc) => {
            FloatStyle.visit_document_mut(&mut doc);
            doc.to_string()
        }
        Err(_) => text,
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Rewrites every float in the shape of [`fmt_float`].
struct FloatStyle;

impl VisitMut for FloatStyle {
    fn visit_value_mut(&mut self, node: &mut Value) {
        if let Value::Float(f) = node {
            if let Ok(mut v) = fmt_float(*f.value()).parse::<Value>() {
                *v.decor_mut() = f.decor().clone();
                *node = v;
            }
            return;
        }
        visit_value_mut(self, node);
    }
}

/// A float as TOML writes it: shortest round-trip digits, always with a `.`
/// or an exponent; `nan`, `inf`, `-inf` for the non-finite values.
pub(crate) fn fmt_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let a = x.abs();
    if a == 0.0 || (1e-4..1e15).contains(&a) {
        let s = format!("{x}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_short_and_exact() {
        assert_eq!(fmt_float(3.652e-10), "3.652e-10");
        assert_eq!(fmt_float(914.0e6), "914000000.0");
        assert_eq!(fmt_float(0.28183815), "0.28183815");
        assert_eq!(fmt_float(100.0), "100.0");
        assert_eq!(fmt_float(-0.0), "-0.0");
        assert_eq!(fmt_float(1e300), "1e300");
        assert_eq!(fmt_float(f64::NAN), "nan");
        assert_eq!(fmt_float(f64::NEG_INFINITY), "-inf");
        for x in [
            3.652e-10,
            1.559e-11,
            0.1 + 0.2,
            1.0 / 3.0,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            1e15,
            9.999999999999999e14,
            -2.5e-7,
        ] {
            let text = format!("v = {}", fmt_float(x));
            let t: toml::Table = text.parse().expect("valid TOML float");
            assert_eq!(t["v"].as_float(), Some(x), "{text}");
        }
    }

    #[test]
    fn unrenderable_scenario_gives_a_comment_not_a_panic() {
        let s = Scenario {
            seed: u64::MAX,
            ..toml::from_str("").expect("empty scenario deserializes")
        };
        let out = to_toml_string(&s);
        assert!(out.starts_with("# cannot render"), "{out}");
        assert_eq!(out.lines().count(), 1);
    }
}

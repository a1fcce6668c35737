//! Reading the files a report shows, and the number formats it uses.
//! Files that a library of this workspace writes are read as its types;
//! the rest (a training run's config, games and evaluation logs) as JSON
//! values or CSV records by column name, so that a field added later (or
//! missing from an older run) changes nothing but what is shown. A file
//! that is not what its name says is bad input naming the file.

use std::fs;
use std::path::Path;

use crate::Result;
use serde_json::Value;

use crate::bad_input;

/// A JSON file, parsed; `None` when it does not exist.
///
/// # Errors
/// Bad input naming the file when it cannot be read or is not JSON.
pub fn json_file(path: &Path) -> Result<Option<Value>> {
    if !path.is_file() {
        return Ok(None);
    }
    let text = fs::read_to_string(path)
        .map_err(|e| bad_input(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| bad_input(format!("{} is not valid JSON: {e}", path.display())))
}

/// A CSV file as a header and records of text, by column name.
pub struct CsvTable {
    header: Vec<String>,
    /// The records, each as long as the header (short ones padded).
    pub records: Vec<Vec<String>>,
}

impl CsvTable {
    /// Reads `path`.
    ///
    /// # Errors
    /// Bad input naming the file and row when it cannot be read as CSV.
    pub fn read(path: &Path) -> Result<CsvTable> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(path)
            .map_err(|e| bad_input(format!("cannot read {}: {e}", path.display())))?;
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| bad_input(format!("{}: {e}", path.display())))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut records = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let record =
                record.map_err(|e| bad_input(format!("{}, row {}: {e}", path.display(), i + 1)))?;
            let mut row: Vec<String> = record.iter().map(str::to_string).collect();
            row.resize(header.len(), String::new());
            records.push(row);
        }
        Ok(CsvTable { header, records })
    }

    /// Whether the CSV file at `path` has every one of `names` as a column,
    /// reading only its first line (a game log may be huge).
    pub fn file_has_columns(path: &Path, names: &[&str]) -> bool {
        let Ok(mut reader) = csv::ReaderBuilder::new().flexible(true).from_path(path) else {
            return false;
        };
        reader
            .headers()
            .is_ok_and(|h| names.iter().all(|n| h.iter().any(|c| c == *n)))
    }

    /// The index of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// A number of a JSON value: a number, or the strings `"inf"`, `"-inf"`
/// (how the arena writes infinities); `None` for anything else.
pub fn float(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "inf" | "+inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            other => other.parse().ok(),
        },
        _ => None,
    }
}

/// A whole number of a JSON value, 0 when absent.
pub fn count(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}

/// A string of a JSON value, empty when absent.
pub fn string(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// A number with `digits` decimals and its sign; `+inf`/`-inf`; `-` for
/// no value.
pub fn signed(x: Option<f64>, digits: usize) -> String {
    match x {
        None => "-".into(),
        Some(x) if x.is_nan() => "-".into(),
        Some(x) if x == f64::INFINITY => "+inf".into(),
        Some(x) if x == f64::NEG_INFINITY => "-inf".into(),
        // No "-0.0": a value that rounds to zero is written unsigned.
        Some(x)
            if format!("{:.digits$}", x.abs())
                .trim_matches(['0', '.'])
                .is_empty() =>
        {
            format!("{:.digits$}", 0.0)
        }
        Some(x) => format!("{x:+.digits$}"),
    }
}

/// A number with `digits` decimals; `-` for no value.
pub fn plain(x: Option<f64>, digits: usize) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        Some(x) if x.is_nan() => "-".into(),
        Some(x) if x > 0.0 => "inf".into(),
        Some(_) => "-inf".into(),
        None => "-".into(),
    }
}

/// A fraction as a percentage with one decimal; `-` for no value.
pub fn pct(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{:.1}%", 100.0 * x),
        _ => "-".into(),
    }
}

/// `value [lo, hi]` with `f` for each number; just `value` without an
/// interval.
pub fn with_interval(
    value: Option<f64>,
    interval: Option<(f64, f64)>,
    f: impl Fn(Option<f64>) -> String,
) -> String {
    match (value, interval) {
        (None, _) => "-".into(),
        (Some(v), Some((lo, hi))) => format!("{} [{}, {}]", f(Some(v)), f(Some(lo)), f(Some(hi))),
        (Some(v), None) => f(Some(v)),
    }
}

/// Seconds in words: `85 ms`, `42.1 s`, `12.5 min`, `3.2 h`.
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        "-".into()
    } else if seconds < 1.0 {
        format!("{:.0} ms", seconds * 1000.0)
    } else if seconds < 120.0 {
        format!("{seconds:.1} s")
    } else if seconds < 7200.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// `text` as a TOML basic string.
pub fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML value for a JSON scalar or array of scalars; `None` for null,
/// objects and mixed arrays (which a flat config does not hold).
pub fn toml_value(v: &Value) -> Option<String> {
    match v {
        Value::Null | Value::Object(_) => None,
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(toml_string(s)),
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items
                .iter()
                .map(|i| match i {
                    Value::Array(_) | Value::Object(_) => None,
                    other => toml_value(other),
                })
                .collect();
            Some(format!("[{}]", parts?.join(", ")))
        }
    }
}

/// A slug for ids and file names: lowercase letters, digits and `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_read_leniently_and_print_plainly() {
        assert_eq!(float(Some(&json!("inf"))), Some(f64::INFINITY));
        assert_eq!(float(Some(&json!(-2.5))), Some(-2.5));
        assert_eq!(float(Some(&json!(null))), None);
        assert_eq!(signed(Some(-0.01), 1), "0.0");
        assert_eq!(signed(Some(12.34), 1), "+12.3");
        assert_eq!(signed(Some(f64::INFINITY), 1), "+inf");
        assert_eq!(pct(Some(0.625)), "62.5%");
        assert_eq!(
            with_interval(Some(1.0), Some((0.0, 2.0)), |x| signed(x, 0)),
            "+1 [0, +2]"
        );
        assert_eq!(duration(30.0), "30.0 s");
        assert_eq!(duration(0.0123), "12 ms");
        assert_eq!(duration(1835.1), "30.6 min");
        assert_eq!(toml_string("a\"b\\"), "\"a\\\"b\\\\\"");
        assert_eq!(
            toml_value(&json!(["random", 2])).as_deref(),
            Some("[\"random\", 2]")
        );
        assert_eq!(slug("Kalah: p=4, s=3!"), "kalah-p-4-s-3");
    }
}

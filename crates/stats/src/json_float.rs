//! How statistics that may be infinite are written to JSON.
//!
//! JSON has no infinity and no NaN, and `serde_json` silently writes both as
//! `null`, which loses the sign of an unbounded interval end and cannot be
//! told apart from "no value". Every statistic that can be infinite is
//! therefore serialised through this module, with one convention throughout
//! `summary.json`:
//!
//! - a finite value is a JSON number;
//! - `+inf` is the string `"inf"` and `-inf` the string `"-inf"` (an Elo
//!   bound of a perfect record, an interval end the data do not bound);
//! - NaN, an undefined value, is `null`, as is a missing value (`None`).
//!
//! The strings parse back as floats with Rust's `str::parse::<f64>`,
//! Python's `float()` and pandas. `ratings.csv` uses the same `inf`/`-inf`
//! spellings (see [`csv_field`]) and an empty field for a missing value.
//!
//! Use the functions with `#[serde(serialize_with = "...")]` (and
//! [`read_number`], [`read_interval`] with `deserialize_with` where the
//! field is read back), and the [`optional`] and [`optional_pair`] modules
//! with `#[serde(with = "...")]`.

use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The JSON (and CSV) spelling of `+inf`.
pub const INF: &str = "inf";
/// The JSON (and CSV) spelling of `-inf`.
pub const NEG_INF: &str = "-inf";

/// A float that serialises by the module's convention.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JsonFloat(pub f64);

impl Serialize for JsonFloat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = self.0;
        if value.is_finite() {
            serializer.serialize_f64(value)
        } else if value.is_nan() {
            serializer.serialize_none()
        } else if value > 0.0 {
            serializer.serialize_str(INF)
        } else {
            serializer.serialize_str(NEG_INF)
        }
    }
}

/// Serialises one `f64` by the module's convention.
pub fn number<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    JsonFloat(*value).serialize(serializer)
}

/// Serialises an optional `(lo, hi)` interval as `[lo, hi]` (each end by
/// the module's convention), or `null` for `None`.
pub fn interval<S: Serializer>(
    value: &Option<(f64, f64)>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some((lo, hi)) => [JsonFloat(*lo), JsonFloat(*hi)].serialize(serializer),
        None => serializer.serialize_none(),
    }
}

/// Serialises a list of optional intervals, each as [`interval`] does.
pub fn intervals<S: Serializer>(
    values: &[Option<(f64, f64)>],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(values.len()))?;
    for value in values {
        seq.serialize_element(&value.map(|(lo, hi)| [JsonFloat(lo), JsonFloat(hi)]))?;
    }
    seq.end()
}

/// The value as a [`serde_json::Value`] by the module's convention, for
/// output built with `serde_json::json!` (which would write `null`).
pub fn to_value(value: f64) -> serde_json::Value {
    serde_json::to_value(JsonFloat(value)).expect("a float serialises")
}

/// A float read back by the module's convention: a number, `"inf"` (or
/// `"+inf"`), `"-inf"`, any string Rust parses as a float; `null` is `None`.
fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Number(f64),
        Text(String),
    }
    match Option::<Written>::deserialize(deserializer)? {
        None => Ok(None),
        Some(Written::Number(x)) => Ok(Some(x)),
        Some(Written::Text(t)) => match t.as_str() {
            INF | "+inf" => Ok(Some(f64::INFINITY)),
            NEG_INF => Ok(Some(f64::NEG_INFINITY)),
            other => other
                .parse()
                .map(Some)
                .map_err(|_| serde::de::Error::custom(format!("'{other}' is not a number"))),
        },
    }
}

/// Reads an `f64` written by [`number`]: `null` (how NaN is written) is NaN.
///
/// # Errors
/// For anything but a number, `null` or a float's spelling.
pub fn read_number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(read(deserializer)?.unwrap_or(f64::NAN))
}

/// Reads an interval written by [`interval`]: `[lo, hi]` or `null`.
///
/// # Errors
/// For anything but `null` or a list of two numbers (or float spellings).
pub fn read_interval<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<(f64, f64)>, D::Error> {
    #[derive(Deserialize)]
    struct End(#[serde(deserialize_with = "read_number")] f64);
    Ok(Option::<[End; 2]>::deserialize(deserializer)?.map(|[lo, hi]| (lo.0, hi.0)))
}

/// An `Option<f64>` field written and read by the module's convention
/// (`None` and NaN are `null`).
pub mod optional {
    use super::{read, JsonFloat};
    use serde::{Deserializer, Serialize, Serializer};

    /// Writes `value`.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
        value.map(JsonFloat).serialize(serializer)
    }

    /// Reads a value written by [`serialize`].
    ///
    /// # Errors
    /// For anything but a number, `null` or a float's spelling.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<f64>, D::Error> {
        read(deserializer)
    }
}

/// A `[lo, hi]` field of two optional floats (`[null, null]` when unknown),
/// written and read by the module's convention.
pub mod optional_pair {
    use super::{read, JsonFloat};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `value` as a two-element list.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(
        value: &[Option<f64>; 2],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        [value[0].map(JsonFloat), value[1].map(JsonFloat)].serialize(serializer)
    }

    /// Reads a value written by [`serialize`].
    ///
    /// # Errors
    /// For anything but a list of two numbers, `null`s or float spellings.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<[Option<f64>; 2], D::Error> {
        #[derive(Deserialize)]
        struct End(#[serde(deserialize_with = "read")] Option<f64>);
        let [lo, hi] = <[End; 2]>::deserialize(deserializer)?;
        Ok([lo.0, hi.0])
    }
}

/// A CSV field: `value` with `digits` decimals, `inf`/`-inf` for an
/// infinite value, empty for `None` or NaN.
pub fn csv_field(value: Option<f64>, digits: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.digits$}"),
        Some(v) if v == f64::INFINITY => INF.to_string(),
        Some(v) if v == f64::NEG_INFINITY => NEG_INF.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Example {
        #[serde(serialize_with = "number")]
        value: f64,
        #[serde(serialize_with = "interval")]
        bounds: Option<(f64, f64)>,
    }

    fn json(value: f64, bounds: Option<(f64, f64)>) -> String {
        serde_json::to_string(&Example { value, bounds }).unwrap()
    }

    #[test]
    fn convention() {
        assert_eq!(
            json(1.5, Some((-2.0, 3.25))),
            r#"{"value":1.5,"bounds":[-2.0,3.25]}"#
        );
        assert_eq!(
            json(f64::INFINITY, Some((f64::NEG_INFINITY, f64::INFINITY))),
            r#"{"value":"inf","bounds":["-inf","inf"]}"#
        );
        assert_eq!(json(f64::NAN, None), r#"{"value":null,"bounds":null}"#);
        assert_eq!(to_value(f64::NEG_INFINITY), serde_json::json!("-inf"));
        assert_eq!(to_value(2.0), serde_json::json!(2.0));
        // The spellings parse back.
        assert_eq!(INF.parse::<f64>(), Ok(f64::INFINITY));
        assert_eq!(NEG_INF.parse::<f64>(), Ok(f64::NEG_INFINITY));
    }

    #[test]
    fn optional_fields_read_back_what_was_written() {
        #[derive(Serialize, Deserialize, Debug, PartialEq)]
        struct Fields {
            #[serde(with = "optional")]
            one: Option<f64>,
            #[serde(with = "optional_pair")]
            two: [Option<f64>; 2],
        }
        for (one, two, text) in [
            (
                Some(1.5),
                [None, Some(2.0)],
                r#"{"one":1.5,"two":[null,2.0]}"#,
            ),
            (
                Some(f64::NEG_INFINITY),
                [Some(f64::INFINITY), Some(-3.0)],
                r#"{"one":"-inf","two":["inf",-3.0]}"#,
            ),
            (None, [None, None], r#"{"one":null,"two":[null,null]}"#),
        ] {
            let fields = Fields { one, two };
            assert_eq!(serde_json::to_string(&fields).unwrap(), text);
            assert_eq!(serde_json::from_str::<Fields>(text).unwrap(), fields);
        }
        // NaN is written as null, and read back as no value.
        let nan = Fields {
            one: Some(f64::NAN),
            two: [None, None],
        };
        let text = serde_json::to_string(&nan).unwrap();
        assert_eq!(serde_json::from_str::<Fields>(&text).unwrap().one, None);
        assert!(serde_json::from_str::<Fields>(r#"{"one":"x","two":[1,2]}"#).is_err());
        assert!(serde_json::from_str::<Fields>(r#"{"one":1,"two":[1]}"#).is_err());
    }

    #[test]
    fn numbers_and_intervals_read_back_what_was_written() {
        #[derive(Serialize, Deserialize, Debug)]
        struct Fields {
            #[serde(serialize_with = "number", deserialize_with = "read_number")]
            value: f64,
            #[serde(serialize_with = "interval", deserialize_with = "read_interval")]
            bounds: Option<(f64, f64)>,
        }
        for (value, bounds) in [
            (1.5, Some((-2.0, 3.25))),
            (f64::INFINITY, Some((f64::NEG_INFINITY, f64::INFINITY))),
            (-0.5, None),
        ] {
            let text = serde_json::to_string(&Fields { value, bounds }).unwrap();
            let back: Fields = serde_json::from_str(&text).unwrap();
            assert_eq!((back.value, back.bounds), (value, bounds), "{text}");
        }
        let nan: Fields = serde_json::from_str(r#"{"value":null,"bounds":null}"#).unwrap();
        assert!(nan.value.is_nan());
        for bad in [
            r#"{"value":"x","bounds":null}"#,
            r#"{"value":1,"bounds":[1]}"#,
            r#"{"value":1,"bounds":[1,"y"]}"#,
        ] {
            assert!(serde_json::from_str::<Fields>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn list_and_csv() {
        #[derive(Serialize)]
        struct List(#[serde(serialize_with = "intervals")] Vec<Option<(f64, f64)>>);
        let list = List(vec![None, Some((1.0, f64::INFINITY))]);
        assert_eq!(
            serde_json::to_string(&list).unwrap(),
            r#"[null,[1.0,"inf"]]"#
        );
        assert_eq!(csv_field(Some(1.26), 1), "1.3");
        assert_eq!(csv_field(Some(f64::INFINITY), 1), "inf");
        assert_eq!(csv_field(Some(f64::NEG_INFINITY), 1), "-inf");
        assert_eq!(csv_field(Some(f64::NAN), 1), "");
        assert_eq!(csv_field(None, 1), "");
    }
}

//! Reading a report's element values back, shared by the tests that compare reports.

use serde_json::Value;

/// A `values` list as floats: "inf", "-inf" (and JSON5's "Infinity") as infinities, any other
/// string ("nan") as NaN, booleans as 0 and 1.
pub fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| match x {
                    Value::String(s) => match s.as_str() {
                        "inf" | "Infinity" => f64::INFINITY,
                        "-inf" | "-Infinity" => f64::NEG_INFINITY,
                        _ => f64::NAN,
                    },
                    Value::Bool(b) => f64::from(u8::from(*b)),
                    x => x.as_f64().unwrap_or(f64::NAN),
                })
                .collect()
        })
        .unwrap_or_default()
}

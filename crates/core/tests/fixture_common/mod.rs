//! The recorded fixtures' traces, for tests that run every one of them another way.

use std::path::PathBuf;

use serde_json::Value;

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `(name, source)` of every case in `tests/fixtures/<file>` (empty when it is absent).
pub fn fixture_sources(file: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo().join("tests/fixtures").join(file)).unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    v["cases"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| (c["name"].as_str().unwrap_or("").to_string(), c["source"].as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

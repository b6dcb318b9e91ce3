//! The cross-check of recordings: every public snippet the trace language runs was recorded
//! under real PyTorch by the Python recorder (`tools/fixtures/gen_recordings.py` writes
//! `tests/fixtures/recordings.json.gz`). Each recording is read back by the report layer, each
//! snippet is run by the product, and the two reports are compared field for field on the
//! PyTorch side: the error's line and message, and for every named tensor its shape, dtype,
//! values, strides, storage offset, storage sharing, version counter, view flag, layout flags
//! and autograd state. Runs without torch.
//!
//! A difference is a defect in the recorder or in the product. The recorder's are fixed; the
//! product's are listed in [`EXPECTED_DIFFERENCES`] with the reason, and the test fails when
//! a listed difference disappears (the entry is then stale) as when a new one appears.

// A malformed fixture file should stop the suite loudly, not be skipped.
#![allow(clippy::expect_used)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use stridelab_core::trace::report::recording::Recording;
use stridelab_core::trace::report::{run_json, ReportOptions};

#[path = "json_values.rs"]
mod json_values;
use json_values::floats;

/// Differences between the product's run and PyTorch's recording that are the product's:
/// `(case, field, reason)`. A field is `error.line`, `error.message`, `tensors`, or
/// `NAME.FIELD` (`x.values`, `x.torch.version`, `x.autograd.grad_fn`, `storage sharing`).
const EXPECTED_DIFFERENCES: &[(&str, &str, &str)] = &[
    ("mixed/index_012", "error.message", "index_fill_ with a list index: PyTorch lists the overloads ('received an invalid combination of arguments'); the product names the argument's type"),
    ("autograd/grad/moved_rot90", "g.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/grad/moved_diag_embed", "g.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/grad/matmul_vec_batched", "gb.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/grad/bce_with_logits", "g.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/grad/view_of_nonleaf", "g.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/version/copyslices_twice", "g.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/loss/bce_logits_sum_grads", "ga.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/higher/pow_tensor", "h.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/higher/transpose_matmul", "h.torch.strides", "PyTorch's double backward of matmul gives h row-major (strides [3, 1]); the product's h has the transposed layout [1, 2]"),
    ("autograd/higher/transpose_matmul", "h.torch.version", "a gradient autograd made: PyTorch's counter has steps of this backward formula (its own in-place kernels, or the view of the incoming gradient it returns and AccumulateGrad then copies or steals) that crates/core/src/engine/grad_version.rs does not model for this op"),
    ("autograd/higher/transpose_matmul", "h.torch.is_contiguous", "follows from h's strides: the product's transposed layout of the double-backward result"),
    ("autograd/higher/transpose_matmul", "h.torch.memory_format", "follows from h's strides: the product's transposed layout of the double-backward result"),
    ("train/optim/step_breaks_saved_weight", "error.message", "the saved-tensor version error names a different producing node (or none) than PyTorch's"),
    ("autograd/higher/reciprocal_div", "h.torch.version", "the double backward's graph differs: the product's recorded first-order formula sends x two gradients whose sum it counts as the input buffer's in-place add; PyTorch's makes one fresh gradient (version 0)"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Values within the acceptance tolerance (1e-4 relative, at least absolute), NaN equal to NaN.
fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-4 * y.abs().max(1.0))
}

fn numel(t: &Value) -> u64 {
    t["shape"].as_array().map_or(1, |s| s.iter().filter_map(Value::as_u64).product())
}

/// Every field where the product's report (`run`) differs from the recording's (`rec`).
fn differences(run: &Value, rec: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut diff = |field: String, got: &Value, want: &Value| {
        out.push((field, format!("product {got}, PyTorch {want}")));
    };
    let (ge, re) = (&run["error"], &rec["error"]);
    if ge["line"] != re["line"] {
        let at = |e: &Value| Value::String(format!("{} {}", e["line"], e["message"]));
        diff("error.line".into(), &at(ge), &at(re));
    } else if !re.is_null() {
        // PyTorch's message, first line (the product reports one line).
        let want = re["message"].as_str().unwrap_or("").lines().next().unwrap_or("").trim_end();
        let got = ge["message"].as_str().unwrap_or("").trim_end();
        if got != want {
            diff("error.message".into(), &ge["message"], &Value::String(want.into()));
        }
    }
    let empty = serde_json::Map::new();
    let (gt, rt) = (run["tensors"].as_object().unwrap_or(&empty), rec["tensors"].as_object().unwrap_or(&empty));
    let gnames: Vec<&String> = gt.keys().collect();
    let rnames: Vec<&String> = rt.keys().collect();
    if gnames != rnames {
        let mut g = gnames.clone();
        let mut r = rnames.clone();
        g.sort();
        r.sort();
        if g != r {
            diff(
                "tensors".into(),
                &Value::from(g.iter().map(|s| s.as_str()).collect::<Vec<_>>()),
                &Value::from(r.iter().map(|s| s.as_str()).collect::<Vec<_>>()),
            );
        }
    }
    let mut classes: BTreeMap<(u64, u64), Vec<&str>> = BTreeMap::new();
    let mut by_run: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    let mut by_rec: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for (name, r) in rt {
        let Some(g) = gt.get(name) else { continue };
        for key in ["shape", "dtype"] {
            if g[key] != r[key] {
                diff(format!("{name}.{key}"), &g[key], &r[key]);
            }
        }
        if !close(&floats(&g["values"]), &floats(&r["values"])) {
            diff(format!("{name}.values"), &g["values"], &r["values"]);
        }
        let (gt, rt) = (&g["torch"], &r["torch"]);
        for key in ["strides", "is_view", "version", "is_contiguous", "memory_format", "channels_last"] {
            if gt[key] != rt[key] {
                diff(format!("{name}.torch.{key}"), &gt[key], &rt[key]);
            }
        }
        if numel(r) > 0 && gt["storage_offset"] != rt["storage_offset"] {
            diff(format!("{name}.torch.storage_offset"), &gt["storage_offset"], &rt["storage_offset"]);
        }
        if let (Some(a), Some(b)) = (gt["storage"].as_u64(), rt["storage"].as_u64()) {
            classes.entry((a, b)).or_default().push(name);
            by_run.entry(a).or_default().push(name);
            by_rec.entry(b).or_default().push(name);
        }
        let (ga, ra) = (&g["autograd"], &r["autograd"]);
        let mut keys = vec!["requires_grad", "grad_shape"];
        if ra["grad_fn_error"].is_null() {
            keys.extend(["is_leaf", "grad_fn"]);
        } else if ga["grad_fn_error"].is_null() {
            diff(format!("{name}.autograd.grad_fn_error"), &ga["grad_fn_error"], &ra["grad_fn_error"]);
        }
        for key in keys {
            if ga[key] != ra[key] {
                diff(format!("{name}.autograd.{key}"), &ga[key], &ra[key]);
            }
        }
        if ga["grad"].is_null() != ra["grad"].is_null() || !close(&floats(&ga["grad"]), &floats(&ra["grad"])) {
            diff(format!("{name}.autograd.grad"), &ga["grad"], &ra["grad"]);
        }
    }
    // The same grouping into storages: each storage of one report is one storage of the other.
    let mut groups_run: Vec<Vec<&str>> = by_run.into_values().collect();
    let mut groups_rec: Vec<Vec<&str>> = by_rec.into_values().collect();
    for g in groups_run.iter_mut().chain(groups_rec.iter_mut()) {
        g.sort_unstable();
    }
    groups_run.sort();
    groups_rec.sort();
    if groups_run != groups_rec {
        diff("storage sharing".into(), &Value::from(groups_run.clone()), &Value::from(groups_rec.clone()));
    }
    out
}

#[test]
fn recordings_match_the_product() {
    let path = root().join("tests/fixtures/recordings.json.gz");
    let file = std::fs::File::open(&path).expect("tests/fixtures/recordings.json.gz");
    let data: Value = serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("recordings.json.gz parses");
    let cases = data["cases"].as_array().expect("cases");
    assert!(cases.len() > 1000, "{} recordings", cases.len());
    let mut found: Vec<(String, String, String)> = Vec::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let bytes = serde_json::to_vec(&case["recording"]).expect("a value serializes");
        let rec = Recording::from_json(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let rec_report = serde_json::to_value(rec.report(ReportOptions::default())).expect("report serializes");
        let run_report = run_json(case["source"].as_str().expect("source"), ReportOptions::default());
        for (field, what) in differences(&run_report, &rec_report) {
            found.push((name.to_string(), field, what));
        }
    }
    let listed = |c: &str, f: &str| EXPECTED_DIFFERENCES.iter().any(|(lc, lf, _)| *lc == c && *lf == f);
    let new: Vec<String> =
        found.iter().filter(|(c, f, _)| !listed(c, f)).map(|(c, f, w)| format!("{c}: {f}: {w}")).collect();
    let stale: Vec<String> = EXPECTED_DIFFERENCES
        .iter()
        .filter(|(c, f, _)| !found.iter().any(|(fc, ff, _)| fc == c && ff == f))
        .map(|(c, f, _)| format!("{c}: {f}"))
        .collect();
    println!("{} recordings, {} known differences", cases.len(), found.len() - new.len());
    // `RECORDINGS_SHOW=1` prints every difference found, listed or not, with both values.
    if std::env::var_os("RECORDINGS_SHOW").is_some() {
        for (c, f, w) in &found {
            println!("{c}: {f}: {w}");
        }
    }
    assert!(
        new.is_empty() && stale.is_empty(),
        "\n{} new differences:\n{}\n{} listed differences no longer found:\n{}",
        new.len(),
        new.join("\n"),
        stale.len(),
        stale.join("\n")
    );
}

/// A malformed recording is a `decode` error that says what is wrong.
#[test]
fn malformed_recordings_are_decode_errors() {
    let ok = r#"{"version": 1, "recorded": {"recorder": "0.1.0", "torch": "2.15.0"}, "error": null,
        "tensors": {"x": {"shape": [2], "dtype": "float32", "values": [1.0, "nan"],
        "torch": {"strides": [1], "storage_offset": 0, "storage": 0, "is_view": false, "version": 0,
        "is_contiguous": true, "memory_format": "contiguous", "channels_last": null}}}, "steps": []}"#;
    let rec = Recording::from_json(ok.as_bytes()).expect("a well-formed recording reads");
    let rep = serde_json::to_value(rec.report(ReportOptions::default())).expect("serializes");
    assert_eq!(rep["tensors"]["x"]["index"], "i0");
    assert_eq!(rep["tensors"]["x"]["predicted"], true);
    assert_eq!(rep["tensors"]["x"]["values"][1], "nan");
    for (bad, says) in [
        (ok.replace(r#""values": [1.0, "nan"]"#, r#""values": [1.0]"#), "1 values for shape [2]"),
        (ok.replace(r#""strides": [1]"#, r#""strides": [1, 1]"#), "2 strides for shape [2]"),
        (ok.replace(r#""version": 1"#, r#""version": 7"#), "report version 7"),
        (ok.replace(r#""storage_offset": 0"#, r#""storage_offset": -1"#), "negative storage_offset"),
        (ok.replace(r#""dtype": "float32", "#, ""), "missing field `dtype`"),
        (ok[..40].to_string(), "EOF"),
    ] {
        let e = Recording::from_json(bad.as_bytes()).expect_err(says);
        assert_eq!(e.kind(), "decode", "{says}");
        assert!(e.message().contains(says), "{} does not say {says}", e.message());
    }
}

//! `stridelab run` of a recording written by `python -m stridelab_record`: the same report as
//! a run, tinygrad's views predicted, and a malformed recording a `decode` error.

// A test that cannot write its temporary file should stop loudly.
#![allow(clippy::expect_used)]

mod common;

use common::stridelab;

/// A small recording as the recorder writes it: `x = torch.arange(6.).view(2, 3)`, `y = x.t()`,
/// then `y.view(6)` failing.
const RECORDING: &str = r#"{"version":1,"recorded":{"recorder":"0.1.0","torch":"2.15.0","script":"t.py",
"limits":{"steps":10000,"bytes":67108864,"values":4096},"cut":null,"steps_recorded":2},
"error":{"line":3,"column":5,"kind":"view","message":"view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.","exception":"RuntimeError"},
"tensors":{
"x":{"shape":[2,3],"dtype":"float32","values":[0.0,1.0,2.0,3.0,4.0,5.0],"torch":{"strides":[3,1],"storage_offset":0,"storage":0,"is_view":true,"version":0,"is_contiguous":true,"memory_format":"contiguous","channels_last":null},"autograd":{"requires_grad":false,"is_leaf":true,"grad_fn":null,"grad":null,"grad_shape":null}},
"y":{"shape":[3,2],"dtype":"float32","values":[0.0,3.0,1.0,4.0,2.0,5.0],"torch":{"strides":[1,3],"storage_offset":0,"storage":0,"is_view":true,"version":0,"is_contiguous":false,"memory_format":null,"channels_last":null},"autograd":{"requires_grad":false,"is_leaf":true,"grad_fn":null,"grad":null,"grad_shape":null}}},
"steps":[{"line":1,"source":"x = torch.arange(6.).view(2, 3)","defines":["x"],"writes":null,"tensors_changed":[],"tensors":{}},
{"line":2,"source":"y = x.t()","defines":["y"],"writes":null,"tensors_changed":[],"tensors":{}}]}"#;

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("stridelab-recording-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("a temporary file");
    path
}

#[test]
fn a_recording_reports_as_a_run_with_predicted_views() {
    let path = write("run.json", RECORDING);
    let path = path.to_str().expect("a UTF-8 path");
    let (code, out, err) = stridelab(&["run", "--json", "--steps", path], "");
    assert_eq!(code, Some(0), "{err}");
    let rep: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(rep["error"]["line"], 3);
    assert_eq!(rep["error"]["kind"], "view");
    let y = &rep["tensors"]["y"];
    assert_eq!(y["torch"]["strides"], serde_json::json!([1, 3]));
    assert_eq!(y["index"], "i0+(i1*3)");
    assert_eq!(y["views"][0]["strides"], serde_json::json!([1, 3]));
    assert_eq!(y["predicted"], true);
    assert!(y["bridge"].is_null());
    assert_eq!(rep["steps"].as_array().map(Vec::len), Some(2));
    assert_eq!(rep["recorded"]["torch"], "2.15.0");
    // Without --steps, as for a run, no steps.
    let (_, out, _) = stridelab(&["run", "--json", path], "");
    let rep: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(rep.get("steps").is_none());
    let (code, text, _) = stridelab(&["run", path], "");
    assert_eq!(code, Some(0));
    assert!(text.contains("recording of t.py") && text.contains("views predicted"), "{text}");
    assert!(text.contains("error at line 3:5 (view)"), "{text}");
}

#[test]
fn a_malformed_recording_is_a_decode_error() {
    for (name, text) in [
        ("short.json", RECORDING.replace("[0.0,3.0,1.0,4.0,2.0,5.0]", "[0.0]")),
        ("cut.json", RECORDING[..200].to_string()),
        ("other.json", r#"{"version": 1}"#.to_string()),
    ] {
        let path = write(name, &text);
        let (code, out, _) = stridelab(&["run", "--json", path.to_str().expect("a UTF-8 path")], "");
        assert_eq!(code, Some(2), "{name}");
        let rep: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(rep["error"]["kind"], "decode", "{name}: {out}");
    }
}

/// `stridelab url run.json` makes a recording link (`#r1.`) that `stridelab run` reads back as the
/// same report, and that is never read as a trace.
#[test]
fn a_recording_travels_in_a_link() {
    let path = write("link.json", RECORDING);
    let path = path.to_str().expect("a UTF-8 path");
    let (code, link, err) = stridelab(&["url", "--step", "2", "--tensor", "y", path], "");
    assert_eq!(code, Some(0), "{err}");
    let link = link.trim();
    assert!(link.starts_with("http://127.0.0.1:8080/#r1."), "{link}");
    let (code, out, err) = stridelab(&["run", "--json", link], "");
    assert_eq!(code, Some(0), "{err}");
    let (_, direct, _) = stridelab(&["run", "--json", path], "");
    assert_eq!(out, direct);
    let (code, _, err) = stridelab(&["kernels", link], "");
    assert_ne!(code, Some(0));
    assert!(err.contains("holds a recording"), "{err}");
}

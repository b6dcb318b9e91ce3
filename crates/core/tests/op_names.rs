//! The op reference and "did you mean" list only what the trace language runs: every name the
//! op tables give reaches a handler as a method, a function or an attribute.

use serde_json::Value;
use stridelab_core::trace::binding::suggest::known_names;
use stridelab_core::trace::report::{run_json, ReportOptions};

fn refused(src: &str, name: &str) -> bool {
    let out: Value = run_json(src, ReportOptions::default());
    let msg = out["error"]["message"].as_str().unwrap_or("");
    // The refusals of a name no table has (`Error::UnknownOp`), not an op's own refusal of
    // its arguments.
    let prefixes = [
        format!("Tensor.{name}() is"),
        format!("Tensor.{name} is"),
        format!("torch.{name} is"),
        format!("{name}() is"),
        format!("F.{name} is"),
    ];
    out["error"]["kind"] == "unsupported" && prefixes.iter().any(|p| msg.starts_with(&format!("{p} not supported")))
}

#[test]
fn every_listed_name_is_handled() {
    let names = known_names();
    assert!(names.len() > 300, "{}", names.len());
    let mut missing = Vec::new();
    for name in &names {
        let forms = [
            format!("import torch.nn.functional as F\na = arange(6.).reshape(2, 3)\nb = a.{name}()\n"),
            format!("a = arange(6.).reshape(2, 3)\nb = torch.{name}(a)\n"),
            format!("import torch.nn.functional as F\na = arange(6.).reshape(2, 3)\nb = F.{name}(a)\n"),
            format!("a = arange(6.).reshape(2, 3)\nb = a.{name}\n"),
        ];
        if forms.iter().all(|src| refused(src, name)) {
            missing.push(name.clone());
        }
    }
    assert!(missing.is_empty(), "listed but not handled: {missing:?}");
}

#[test]
fn typos_get_a_suggestion() {
    for (src, want) in [
        // Names PyTorch does not have: Python's AttributeError, as its traceback prints it.
        ("a = arange(6.)\nb = a.veiw(3, 2)\n", "'Tensor' object has no attribute 'veiw'. Did you mean: 'view'?"),
        ("a = torch.aranj(3)\n", "module 'torch' has no attribute 'aranj'. Did you mean: 'arange'?"),
        ("a = arange(6.)\na.unsqeeze_(0)\n", "Did you mean: 'unsqueeze_'?"),
        ("m = torch.nn.Lienar(2, 2)\n", "module 'torch.nn' has no attribute 'Lienar'. Did you mean: 'Linear'?"),
    ] {
        let out = run_json(src, ReportOptions::default());
        assert!(out["error"]["message"].as_str().unwrap_or("").ends_with(want), "{src}: {}", out["error"]);
        assert_eq!(out["error"]["kind"], "type", "{src}");
    }
    // A typo is an AttributeError to `except` clauses, as in Python.
    let src = "try:\n    torch.tranpose\nexcept AttributeError as e:\n    msg = str(e)\nx = torch.ones(1)\n";
    let out = run_json(src, ReportOptions::default());
    assert!(out["error"].is_null(), "{}", out["error"]);
}

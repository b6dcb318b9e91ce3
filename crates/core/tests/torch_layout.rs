//! Replays `tests/fixtures/torch_layout.json`, which real PyTorch wrote (see
//! `tools/fixtures/gen_layout.py`): every view op case must give PyTorch's sizes, strides,
//! offset, copy decision, contiguity, internal-overlap verdict and element order, or PyTorch's
//! error kind and message; every in-place write case must be accepted or refused as PyTorch did.

// A malformed fixture is a failed test, so panicking on it is the point.
#![allow(clippy::expect_used)]

use serde_json::Value;
use stridelab_core::torch::layout::{IndexItem, Layout};
use stridelab_core::torch::overlap::{
    check_write, has_internal_overlap, overlap_status, repeated_elements, shared_elements, MemOverlap, MemOverlapStatus,
};
use stridelab_core::{Error, Result};

fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/torch_layout.json");
    let text = std::fs::read_to_string(path).expect("fixture file readable");
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().expect("int list").iter().map(|x| x.as_i64().expect("int")).collect()
}

fn int(v: &Value) -> i64 {
    v.as_i64().expect("int")
}

fn opt_int(v: &Value) -> Option<i64> {
    v.as_i64()
}

fn layout_of(v: &Value) -> Layout {
    let sizes: Vec<usize> = ints(&v[0]).into_iter().map(|s| s as usize).collect();
    Layout::new(&sizes, &ints(&v[1]), int(&v[2]))
}

fn index_items(v: &Value) -> Vec<IndexItem> {
    let items = v.as_array().expect("index list");
    items
        .iter()
        .map(|it| match it {
            Value::String(s) if s == "none" => IndexItem::NewAxis,
            Value::String(s) if s == "ellipsis" => IndexItem::Ellipsis,
            _ if it.get("int").is_some() => IndexItem::Int(int(&it["int"])),
            _ => {
                let s = &it["slice"];
                IndexItem::Slice { start: opt_int(&s[0]), stop: opt_int(&s[1]), step: opt_int(&s[2]) }
            }
        })
        .collect()
}

/// Runs one op; `Ok(None)` means PyTorch would copy.
fn run_op(l: &Layout, op: &str, a: &[Value]) -> Result<Option<Layout>> {
    let some = |r: Result<Layout>| r.map(Some);
    match op {
        "view" => some(l.view(&ints(&a[0]))),
        "reshape" => l.reshape(&ints(&a[0])),
        "flatten" => l.flatten(int(&a[0]), int(&a[1])),
        "unflatten" => l.unflatten(int(&a[0]), &ints(&a[1])),
        "permute" => some(l.permute(&ints(&a[0]))),
        "transpose" => some(l.transpose(int(&a[0]), int(&a[1]))),
        "t" => some(l.t()),
        "big_t" => some(l.big_t()),
        "movedim" => some(l.movedim(&ints(&a[0]), &ints(&a[1]))),
        "expand" => some(l.expand(&ints(&a[0]))),
        "squeeze" => {
            let dims = (!a[0].is_null()).then(|| ints(&a[0]));
            some(l.squeeze(dims.as_deref()))
        }
        "unsqueeze" => some(l.unsqueeze(int(&a[0]))),
        "narrow" => some(l.narrow(int(&a[0]), int(&a[1]), int(&a[2]))),
        "select" => some(l.select(int(&a[0]), int(&a[1]))),
        "slice" => some(l.slice(int(&a[0]), opt_int(&a[1]), opt_int(&a[2]), int(&a[3]))),
        "index" => some(l.index(&index_items(&a[0]))),
        "diagonal" => some(l.diagonal(int(&a[0]), int(&a[1]), int(&a[2]))),
        "unfold" => some(l.unfold(int(&a[0]), int(&a[1]), int(&a[2]))),
        "as_strided" => some(l.as_strided(&ints(&a[0]), &ints(&a[1]), opt_int(&a[2]))),
        other => panic!("fixture names an unknown op {other}"),
    }
}

fn overlap_name(m: MemOverlap) -> &'static str {
    match m {
        MemOverlap::No => "no",
        MemOverlap::Yes => "yes",
        MemOverlap::TooHard => "too_hard",
    }
}

/// Compares one case with PyTorch's record; returns a description of every mismatch.
fn check_layout_case(inputs: &Value, case: &Value) -> Vec<String> {
    let input = layout_of(&inputs[case["input"].as_str().expect("input name")]);
    let op = case["op"].as_str().expect("op");
    let args = case["args"].as_array().expect("args");
    let got = run_op(&input, op, args);
    let mut bad = Vec::new();
    match (&case.get("ok"), got) {
        (Some(want), Ok(result)) => {
            let copied = result.is_none();
            if want["copy"].as_bool() != Some(copied) {
                bad.push(format!("copy: want {} got {copied}", want["copy"]));
            }
            let want_sizes: Vec<usize> = ints(&want["sizes"]).into_iter().map(|s| s as usize).collect();
            // A copy is a fresh contiguous tensor of the result shape, filled in input order.
            let out = result.unwrap_or_else(|| Layout::contiguous(&want_sizes));
            let got_triple = (out.sizes().to_vec(), out.strides().to_vec(), out.offset());
            let want_triple = (want_sizes, ints(&want["strides"]), int(&want["offset"]));
            if got_triple != want_triple {
                bad.push(format!("layout: want {want_triple:?} got {got_triple:?}"));
            }
            if want["contiguous"].as_bool() != Some(out.is_contiguous()) {
                bad.push(format!("is_contiguous: want {}", want["contiguous"]));
            }
            let overlap = overlap_name(has_internal_overlap(&out));
            if want["internal_overlap"].as_str() != Some(overlap) {
                bad.push(format!("internal overlap: want {} got {overlap}", want["internal_overlap"]));
            }
            if want["internal_overlap"].as_str().map(|s| s == "no") != Some(out.is_non_overlapping_and_dense()) {
                bad.push("is_non_overlapping_and_dense disagrees with torch's internal overlap".into());
            }
            if !want["indices"].is_null() {
                let want_idx = ints(&want["indices"]);
                let got_idx = if copied { input.storage_indices() } else { out.storage_indices() };
                if got_idx != want_idx {
                    bad.push(format!("indices: want {want_idx:?} got {got_idx:?}"));
                }
                let span = want_idx.iter().min().zip(want_idx.iter().max()).map(|(a, b)| (*a, *b));
                if !copied && out.storage_span() != span {
                    bad.push(format!("storage_span: want {span:?} got {:?}", out.storage_span()));
                }
                if out.numel() != want_idx.len() {
                    bad.push(format!("numel: want {} got {}", want_idx.len(), out.numel()));
                }
            }
        }
        (None, Err(e)) => {
            let want = &case["error"];
            if want["kind"].as_str() != Some(e.kind()) || want["message"].as_str() != Some(e.message()) {
                bad.push(format!(
                    "error: want {} {:?}, got {} {:?}",
                    want["kind"],
                    want["message"],
                    e.kind(),
                    e.message()
                ));
            }
        }
        (Some(want), Err(e)) => bad.push(format!("want ok {want}, got error {e}")),
        (None, Ok(r)) => bad.push(format!("want error {}, got {r:?}", case["error"])),
    }
    bad
}

#[test]
fn view_ops_match_pytorch() {
    let data = fixture();
    let inputs = data["inputs"].clone();
    let cases = data["layout"].as_array().expect("layout cases");
    assert!(cases.len() > 1000, "fixture has the full table");
    let mut failures = Vec::new();
    for case in cases {
        let bad = check_layout_case(&inputs, case);
        if !bad.is_empty() {
            failures.push(format!("{} {} {}: {}", case["input"], case["op"], case["args"], bad.join("; ")));
        }
    }
    let shown: Vec<&String> = failures.iter().take(40).collect();
    assert!(failures.is_empty(), "{} of {} cases differ from torch:\n{shown:#?}", failures.len(), cases.len());
}

/// One in-place write case: overlap verdicts, painted elements and the add_/copy_ outcome.
fn check_write_case(case: &Value) -> Vec<String> {
    let target = layout_of(&case["target"]);
    let input = if case["input"].is_null() { target.clone() } else { layout_of(&case["input"]) };
    let mut bad = Vec::new();
    let internal = overlap_name(has_internal_overlap(&target));
    if case["internal_overlap"].as_str() != Some(internal) {
        bad.push(format!("internal overlap: want {} got {internal}", case["internal_overlap"]));
    }
    if shared_elements(&target, &input) != ints(&case["shared"]) {
        bad.push(format!("shared: want {} got {:?}", case["shared"], shared_elements(&target, &input)));
    }
    if repeated_elements(&target) != ints(&case["repeated"]) {
        bad.push(format!("repeated: want {} got {:?}", case["repeated"], repeated_elements(&target)));
    }
    if case["input"].is_null() && overlap_status(&target, &input) != MemOverlapStatus::Full {
        bad.push("a tensor against itself must be a full overlap".into());
    }
    let Some(ops) = case["ops"].as_object() else {
        return bad;
    };
    for (op, want) in ops {
        // copy_ between equal layouts of one storage returns before PyTorch checks anything.
        let got = if op == "copy_" && target == input { Ok(()) } else { check_write(&target, &[&input]) };
        let got_message = got.as_ref().err().map(Error::message);
        if want.as_str() != got_message {
            bad.push(format!("{op}: want {want} got {got_message:?}"));
        }
        if let Err(Error::Overlap { elements, .. }) = &got {
            if elements.is_empty() {
                bad.push(format!("{op}: a refusal must name the elements to paint"));
            }
        }
    }
    bad
}

#[test]
fn write_overlap_matches_pytorch() {
    let data = fixture();
    let cases = data["writes"].as_array().expect("write cases");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let bad = check_write_case(case);
            (!bad.is_empty()).then(|| format!("{} <- {}: {}", case["target"], case["input"], bad.join("; ")))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn storage_bounds_match_pytorch() {
    let data = fixture();
    let cases = data["bounds"].as_array().expect("bounds cases");
    for case in cases {
        let l = layout_of(&case["layout"]);
        let storage = case["storage"].as_u64().expect("storage length") as usize;
        let got = l.check_storage_bounds(storage, 4);
        let got_message = got.as_ref().err().map(Error::message);
        assert_eq!(case["error"].as_str(), got_message, "{case}");
    }
}

//! Replays tinygrad 0.10.3's own answers (tests/fixtures/tinygrad_views.json, produced by
//! tools/fixtures/gen_tinygrad.py) through the Rust port: every chain must leave the same view
//! stack, simplify to the same stack, and gather the same values; every pair of views must
//! merge (or refuse to) exactly as tinygrad's `View.__add__` does.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed expectation is the report

mod shape_common;

use serde::Deserialize;
use serde_json::Value;
use shape_common::{apply, check_index, Op};
use stridelab_core::shape::tracker::ShapeTracker;
use stridelab_core::shape::view::View;

#[derive(Deserialize, Debug, PartialEq)]
struct ViewJson {
    shape: Vec<usize>,
    strides: Vec<i64>,
    offset: i64,
    mask: Option<Vec<(usize, usize)>>,
    contiguous: bool,
}

#[derive(Deserialize)]
struct OpJson {
    op: String,
    arg: Value,
}

#[derive(Deserialize)]
struct Chain {
    name: String,
    numel: usize,
    ops: Vec<OpJson>,
    views: Vec<ViewJson>,
    /// The simplified stack, or "loops" where tinygrad's simplify recurses without end.
    simplified: Value,
    values: Vec<i64>,
}

#[derive(Deserialize)]
struct Compose {
    inner: ViewJson,
    outer: ViewJson,
    /// The merged view, null when tinygrad cannot merge, "loops" when it recurses without end.
    result: Value,
}

#[derive(Deserialize)]
struct Fixture {
    chains: Vec<Chain>,
    composes: Vec<Compose>,
}

fn load() -> Fixture {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/tinygrad_views.json");
    let text = std::fs::read_to_string(path).expect("fixture file is readable");
    serde_json::from_str(&text).expect("fixture file parses")
}

fn to_op(o: &OpJson) -> Op {
    let arg = o.arg.clone();
    let pairs = || -> Vec<(usize, usize)> { serde_json::from_value(arg.clone()).expect("pairs") };
    let list = || -> Vec<usize> { serde_json::from_value(arg.clone()).expect("list") };
    match o.op.as_str() {
        "reshape" => Op::Reshape(list()),
        "permute" => Op::Permute(list()),
        "expand" => Op::Expand(list()),
        "pad" => Op::Pad(pairs()),
        "shrink" => Op::Shrink(pairs()),
        "flip" => Op::Flip(serde_json::from_value(arg.clone()).expect("flags")),
        other => panic!("unknown op {other}"),
    }
}

/// The port's view, read back through its serde form (so serialization is checked too).
fn json_of(v: &View) -> ViewJson {
    serde_json::from_value(serde_json::to_value(v).expect("view serializes")).expect("same fields")
}

fn view_of(v: &ViewJson) -> View {
    let view = View::new(&v.shape, Some(&v.strides), v.offset, v.mask.as_deref());
    assert_eq!(json_of(&view), *v, "fixture view is not canonical");
    view
}

fn check_chain(c: &Chain) {
    let mut st = ShapeTracker::from_shape(&[c.numel]);
    for op in &c.ops {
        st = apply(&st, &to_op(op)).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    }
    let got: Vec<ViewJson> = st.views().iter().map(json_of).collect();
    assert_eq!(got, c.views, "{}: view stack", c.name);

    let simplified = st.simplify();
    match &c.simplified {
        Value::String(s) if s == "loops" => {
            assert_eq!(simplified.views().len(), st.views().len(), "{}: a looping merge must not merge", c.name)
        }
        other => {
            let want: Vec<ViewJson> = serde_json::from_value(other.clone()).expect("views");
            let got: Vec<ViewJson> = simplified.views().iter().map(json_of).collect();
            assert_eq!(got, want, "{}: simplified stack", c.name);
        }
    }

    // The buffer is arange(1, numel + 1); padding reads 0.
    let values: Vec<i64> = st.offsets().iter().map(|o| o.map_or(0, |o| o + 1)).collect();
    assert_eq!(values, c.values, "{}: gathered values", c.name);
    let values: Vec<i64> = simplified.offsets().iter().map(|o| o.map_or(0, |o| o + 1)).collect();
    assert_eq!(values, c.values, "{}: gathered values after simplify", c.name);
    check_index(&st, &c.name);
    check_index(&simplified, &c.name);
}

fn check_compose(i: usize, c: &Compose) {
    let (inner, outer) = (view_of(&c.inner), view_of(&c.outer));
    let got = outer.compose(&inner).map(|v| json_of(&v));
    let want: Option<ViewJson> = match &c.result {
        Value::String(s) if s == "loops" => None,
        other => serde_json::from_value(other.clone()).expect("view or null"),
    };
    assert_eq!(got, want, "compose #{i}: {:?} on top of {:?}", c.outer, c.inner);
}

#[test]
fn chains_match_tinygrad() {
    let f = load();
    assert!(f.chains.len() >= 300, "fixture has {} chains", f.chains.len());
    assert!(f.chains.iter().filter(|c| c.views.len() > 1).count() >= 100, "too few multi-view chains");
    f.chains.iter().for_each(check_chain);
}

#[test]
fn composes_match_tinygrad() {
    let f = load();
    assert!(!f.composes.is_empty());
    f.composes.iter().enumerate().for_each(|(i, c)| check_compose(i, c));
}

//! The JSON a run reports: one schema for the CLI, the tests and the web page.
//!
//! `version` is bumped when a field changes meaning; new fields may be added freely.

use super::runner::{Run, Step};
use crate::error::{Error, Result};
use crate::tensor::{Engine, StorageRef, Tensor};
use crate::uop::data::Data;
use serde_json::{json, Map, Value as Json};

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, Default)]
pub struct ReportOptions {
    /// Add the per-statement history (`steps`).
    pub steps: bool,
    /// Add the UOp graph as a node table (`graph`).
    pub graph: bool,
}

/// Runs `src` and reports it.
pub fn run_json(src: &str, opts: ReportOptions) -> Json {
    let mut run = Run::run_source(src);
    report(&mut run, opts)
}

pub fn report(run: &mut Run, opts: ReportOptions) -> Json {
    let error = run.error.as_ref().map(|e| {
        let mut o = json!({
            "line": e.line,
            "column": e.column,
            "kind": e.error.kind(),
            "message": e.error.message(),
        });
        if let Error::Overlap { elements, .. } = &e.error {
            o["elements"] = json!(elements);
        }
        o
    });
    let named: Vec<(String, Tensor)> = run.tensors().into_iter().map(|(n, t)| (n.to_string(), t.clone())).collect();
    let mut tensors = Map::new();
    for (name, t) in named {
        let entry = tensor_json(&mut run.engine, &t).unwrap_or_else(|e| json!({"error": e.to_string()}));
        tensors.insert(name, entry);
    }
    let mut out = json!({
        "version": SCHEMA_VERSION,
        "error": error,
        "tensors": tensors,
    });
    if opts.steps {
        out["steps"] = Json::Array(run.steps.iter().map(step_json).collect());
    }
    if opts.graph {
        out["graph"] = serde_json::to_value(run.engine.graph()).unwrap_or(Json::Null);
    }
    out
}

fn step_json(s: &Step) -> Json {
    let writes = match s.writes.as_slice() {
        [] => Json::Null,
        [w] => json!({"storage": w.storage, "elements": w.elements}),
        // Several storages in one statement: the first as the spec's object, all in `all`.
        ws => json!({
            "storage": ws[0].storage,
            "elements": ws[0].elements,
            "all": ws.iter().map(|w| json!({"storage": w.storage, "elements": w.elements})).collect::<Vec<_>>(),
        }),
    };
    json!({
        "line": s.line,
        "source": s.source,
        "defines": s.defines,
        "writes": writes,
        "tensors_changed": s.tensors_changed,
    })
}

/// A float as the shortest decimal that round-trips its f32, so 0.1f32 prints as 0.1; NaN and
/// infinities as strings, which JSON cannot carry as numbers.
fn number(x: f64, dtype_is_float: bool) -> Json {
    if !x.is_finite() {
        return Json::String(if x.is_nan() { "nan".into() } else if x > 0.0 { "inf".into() } else { "-inf".into() });
    }
    if !dtype_is_float {
        return json!(x as i64);
    }
    let short: f64 = format!("{}", x as f32).parse().unwrap_or(x);
    json!(short)
}

pub fn values_json(d: &Data) -> Json {
    let is_float = d.dtype().is_float();
    Json::Array(d.to_f64_vec().into_iter().map(|x| number(x, is_float)).collect())
}

fn tensor_json(engine: &mut Engine, t: &Tensor) -> Result<Json> {
    let values = engine.values(t)?;
    let storage = match t.storage() {
        StorageRef::Realized(s) => s,
        StorageRef::Pending(_) => engine.storage_id(t)?,
    };
    // What tinygrad needs: its tracker with the last views merged where one view can say it.
    let tg = t.tinygrad().simplify();
    let views: Vec<Json> = tg
        .views()
        .iter()
        .map(|v| {
            json!({
                "shape": v.shape(),
                "strides": v.strides(),
                "offset": v.offset(),
                "mask": v.mask().map(|m| m.iter().map(|&(a, b)| json!([a, b])).collect::<Vec<_>>()),
            })
        })
        .collect();
    let (index, valid) = tg.index_text();
    let b = t.bridge();
    let l = t.layout();
    let strides_match = l.sizes().iter().zip(l.strides().iter().zip(&b.strides)).all(|(&n, (&s, &bs))| n <= 1 || s == bs);
    let matches = b.shape == l.sizes() && strides_match && (l.numel() == 0 || b.offset == l.offset());
    Ok(json!({
        "shape": t.shape(),
        "dtype": t.dtype().name(),
        "values": values_json(&values),
        "torch": {
            "strides": l.strides(),
            "storage_offset": l.offset(),
            "storage": storage,
            "is_view": t.is_view(),
            "version": engine.storage(storage).version,
        },
        "views": views,
        "index": index,
        "valid": valid,
        "bridge": {
            "shape": b.shape,
            "strides": b.strides,
            "storage_offset": b.offset,
            "matches_torch": matches,
        },
    }))
}

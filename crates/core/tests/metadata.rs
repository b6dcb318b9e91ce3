//! In-place metadata ops change a Python object, and every name bound to it sees the change;
//! version counters belong to tensors (shared by views, fresh for `.data`); memory-format
//! arguments. The recorded PyTorch cases are in `tests/fixtures/torch_surface.json`; these
//! cover what the recorder's cases do not.

#![allow(clippy::expect_used)]

use serde_json::{json, Value};
use stridelab_core::trace::report::{run_json, ReportOptions};

fn run(src: &str) -> Value {
    let out = run_json(src, ReportOptions::default());
    assert!(out["error"].is_null(), "{src}: {}", out["error"]);
    out
}

fn torch(out: &Value, name: &str, field: &str) -> Value {
    out["tensors"][name]["torch"][field].clone()
}

#[test]
fn every_name_bound_to_the_object_sees_a_metadata_op() {
    let out = run("x = arange(6.).reshape(2, 3)\ny = x\nx.t_()\nl = [x]\nz = y + 0\n");
    assert_eq!(out["tensors"]["y"]["shape"], json!([3, 2]));
    assert_eq!(torch(&out, "y", "strides"), json!([1, 3]));
    assert_eq!(torch(&out, "y", "version"), json!(1));
    assert_eq!(out["tensors"]["z"]["values"], json!([0.0, 3.0, 1.0, 4.0, 2.0, 5.0]));
}

#[test]
fn a_grown_storage_is_read_whole_by_every_alias() {
    let out = run("x = arange(4.)\nd = x.data\nx.resize_(6)\nx[4:] = 9\ne = d + 1\nf = x * 1\n");
    assert_eq!(out["tensors"]["e"]["values"], json!([1.0, 2.0, 3.0, 4.0]));
    assert_eq!(out["tensors"]["f"]["values"], json!([0.0, 1.0, 2.0, 3.0, 9.0, 9.0]));
    // `.data` has a counter of its own: resize_ and the write bumped x's.
    assert_eq!(torch(&out, "d", "version"), json!(0));
    assert_eq!(torch(&out, "x", "version"), json!(2));
    assert_eq!(torch(&out, "d", "is_view"), json!(false));
}

#[test]
fn memory_format_arguments() {
    let out = run("x = arange(48.).reshape(2, 3, 2, 4)\ncl = x.to(memory_format=torch.channels_last)\n\
         same = cl.to(memory_format=torch.channels_last)\nk = torch.tensor(cl.is_contiguous(torch.channels_last))\n\
         e = torch.empty_like(x, memory_format=torch.channels_last)\n");
    assert_eq!(torch(&out, "cl", "memory_format"), json!("channels_last"));
    assert_eq!(torch(&out, "cl", "channels_last"), json!(true));
    assert_eq!(torch(&out, "cl", "is_contiguous"), json!(false));
    // to() returns the tensor itself when its suggested format is already the one asked for.
    assert_eq!(torch(&out, "same", "storage"), torch(&out, "cl", "storage"));
    assert_eq!(out["tensors"]["k"]["values"], json!([1]));
    assert_eq!(torch(&out, "e", "strides"), json!([24, 1, 12, 3]));
    let non_dense = run("x = arange(12.).reshape(3, 4)[:, ::2]\n");
    assert_eq!(torch(&non_dense, "x", "memory_format"), Value::Null);
    assert_eq!(torch(&non_dense, "x", "channels_last"), Value::Null);
}

#[test]
fn metadata_op_errors() {
    for (src, kind) in [
        ("x = arange(4.)\nx.set_(torch.zeros(2, dtype=torch.int32))\n", "dtype"),
        ("x = arange(4.)\ny = x.contiguous(torch.channels_last)\n", "shape"),
        ("x = arange(4.)\nx.resize_(-1)\n", "shape"),
    ] {
        let out = run_json(src, ReportOptions::default());
        assert_eq!(out["error"]["kind"], json!(kind), "{src}: {}", out["error"]);
    }
}

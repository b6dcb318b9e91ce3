//! The report's fields that the recorded fixtures do not cover: tinygrad's index expressions,
//! the bridge's view, steps, version counters, limits and error positions.
//!
//! Every case is a trace and a list of (JSON pointer, expected value) pairs, checked by one helper.

use serde_json::{json, Value};
use stridelab_core::trace::report::{run_json, ReportOptions};

fn check(src: &str, expect: &[(&str, Value)]) {
    let got = run_json(src, ReportOptions { steps: true, ..ReportOptions::default() });
    for (pointer, want) in expect {
        let g = got.pointer(pointer).unwrap_or(&Value::Null);
        assert_eq!(g, want, "{pointer} of\n{src}\nin {}", serde_json::to_string_pretty(&got).unwrap_or_default());
    }
}

#[test]
fn index_expressions_and_views() {
    check(
        "a = arange(24.).reshape(2, 3, 4)\nb = a[1:]\nc = a.permute(2, 0, 1)\nd = arange(6.).pad(((1, 2),))",
        &[
            ("/tensors/a/index", json!("(i0*12)+(i1*4)+i2")),
            ("/tensors/a/valid", json!("true")),
            ("/tensors/b/index", json!("(i1*4)+i2+12")),
            ("/tensors/c/index", json!("i0+(i1*12)+(i2*4)")),
            ("/tensors/d/views/0/mask", json!([[1, 7]])),
            ("/tensors/d/views/0/offset", json!(-1)),
            ("/tensors/d/valid", json!("(i0>=1)&&(i0<7)")),
            // tinygrad keeps pad as a view; PyTorch copies.
            ("/tensors/d/torch/is_view", json!(false)),
        ],
    );
}

#[test]
fn bridge_report() {
    check(
        "a = arange(12.).reshape(3, 4)\nb = a.permute(1, 0)[1:]\nc = a[1:]\nd = empty_strided((2, 3), (1, 2))\ne = arange(24.).reshape(2, 3, 4).logsumexp((0, 2))\nf = a.flip(0)[1:]",
        &[
            // Slices: the bridge multiplies starts by the contiguous strides of the source.
            ("/tensors/c/bridge/storage_offset", json!(4)),
            ("/tensors/c/torch/storage_offset", json!(4)),
            ("/tensors/c/bridge/matches_torch", json!(true)),
            // Through a permute the bridge's strides and offset are wrong.
            ("/tensors/b/torch/strides", json!([1, 4])),
            ("/tensors/b/torch/storage_offset", json!(1)),
            ("/tensors/b/bridge/strides", json!([3, 1])),
            ("/tensors/b/bridge/storage_offset", json!(3)),
            ("/tensors/b/bridge/matches_torch", json!(false)),
            // empty_strided: PyTorch honours the strides, the bridge ignores them.
            ("/tensors/d/torch/strides", json!([1, 2])),
            ("/tensors/d/bridge/strides", json!([3, 1])),
            ("/tensors/d/bridge/matches_torch", json!(false)),
            // logsumexp over two dims: the bridge reduces only the first.
            ("/tensors/e/shape", json!([3])),
            ("/tensors/e/bridge/shape", json!([3, 4])),
            ("/tensors/e/bridge/matches_torch", json!(false)),
            // flip is a copy in PyTorch: the slice of the copy starts at 4.
            ("/tensors/f/torch/storage_offset", json!(4)),
        ],
    );
}

#[test]
fn steps_writes_and_versions() {
    check(
        "a = zeros(2, 3)\nb = a[:, 1]\nc = a.clone()\nb += 1\na[0, 0] = 5",
        &[
            ("/steps/1/defines", json!(["b"])),
            ("/steps/1/writes", Value::Null),
            ("/steps/3/writes/storage", json!(0)),
            ("/steps/3/writes/elements", json!([1, 4])),
            ("/steps/3/tensors_changed", json!(["a", "b"])),
            ("/steps/4/writes/elements", json!([0])),
            ("/steps/4/tensors_changed", json!(["a"])),
            ("/tensors/a/torch/version", json!(2)),
            ("/tensors/c/torch/version", json!(0)),
            ("/tensors/c/values", json!([0.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
            ("/tensors/a/values", json!([5.0, 1.0, 0.0, 0.0, 1.0, 0.0])),
        ],
    );
}

#[test]
fn errors_carry_position_kind_and_elements() {
    check(
        "a = arange(4.)\nb = a.view(5)",
        &[("/error/line", json!(2)), ("/error/kind", json!("shape")), ("/tensors/b", Value::Null)],
    );
    check(
        "a = arange(3.)\nb = a.expand(2, 3)\nb.add_(1)",
        &[("/error/kind", json!("overlap")), ("/error/elements", json!([0, 1, 2]))],
    );
    check(
        "a = arange(6.)\na[1:].add_(a[:-1])",
        &[("/error/kind", json!("overlap")), ("/error/elements", json!([1, 2, 3, 4]))],
    );
    check(
        "a = zeros(3)\nb = a +",
        &[("/error/line", json!(2)), ("/error/kind", json!("parse")), ("/tensors", json!({}))],
    );
    check("a = zeros(3)\nb = c + 1", &[("/error/kind", json!("name")), ("/tensors/a/shape", json!([3]))]);
    // A method PyTorch has that the product does not is unsupported; one PyTorch lacks too is
    // Python's AttributeError (kind `type`).
    check("a = zeros(3)\nb = a.q_scale()", &[("/error/kind", json!("unsupported")), ("/error/column", json!(5))]);
    check("a = zeros(3)\nb = a.frobnicate()", &[("/error/kind", json!("type")), ("/error/column", json!(5))]);
}

#[test]
fn limits_refuse_instead_of_allocating() {
    check("a = zeros(8192, 8193)", &[("/error/kind", json!("limit"))]);
    check("a = arange(1e9)", &[("/error/kind", json!("limit"))]);
    // Even a view that allocates nothing is refused past the limit: its values would be listed.
    check(
        "a = ones(1, 4096)\nb = a.expand(32768, 4096)",
        &[("/error/kind", json!("limit")), ("/error/line", json!(2))],
    );
    let long = "a = 1\n".repeat(10_001);
    check(&long, &[("/error/kind", json!("limit"))]);
}

#[test]
fn type_promotion() {
    check(
        "a = arange(4)\nb = a / 2\nc = a * 1.5\nd = a > 1\ne = a + True\nf = a.sum()\ng = (a > 1).sum()",
        &[
            ("/tensors/a/dtype", json!("int64")),
            ("/tensors/b/dtype", json!("float32")),
            ("/tensors/c/dtype", json!("float32")),
            ("/tensors/d/dtype", json!("bool")),
            ("/tensors/d/values", json!([0, 0, 1, 1])),
            ("/tensors/e/dtype", json!("int64")),
            ("/tensors/f/values", json!([6])),
            ("/tensors/g/dtype", json!("int64")),
        ],
    );
}

/// Edge values that once panicked or lost precision: a 0-d flip, integer division at the
/// bottom of int64, an int64 arange past 2^53, Python ints past 2^53.
#[test]
fn edge_values_compute_exactly() {
    check(
        "a = tensor(1.).flip(0)\nb = tensor([-9223372036854775807]) - 1\nc = b // -1\nd = b % -1\ne = torch.arange(2**60, 2**60 + 3)\nf = torch.tensor([2**62 + 1]) * 2",
        &[
            ("/error", Value::Null),
            ("/tensors/a/values", json!([1.0])),
            ("/tensors/c/values", json!([i64::MIN])),
            ("/tensors/d/values", json!([0])),
            ("/tensors/e/values", json!([1i64 << 60, (1i64 << 60) + 1, (1i64 << 60) + 2])),
            ("/tensors/f/values", json!([(1i64 << 63).wrapping_add(2)])),
        ],
    );
}

/// `torch.result_type`, `promote_types` and `can_cast` answer as PyTorch does (the dtypes are
/// read back through tensors made with them).
#[test]
fn result_type_promote_types_can_cast() {
    check(
        "a = torch.arange(3, dtype=torch.int8)\nx = torch.zeros(1, dtype=torch.result_type(a, torch.tensor([1], dtype=torch.uint8)))\ny = torch.zeros(1, dtype=torch.promote_types(torch.float16, torch.bfloat16))\nz = torch.zeros(1, dtype=torch.result_type(a, 1.5))\nw = torch.zeros(1, dtype=torch.result_type(a, torch.tensor(7)))\nc = torch.tensor(torch.can_cast(torch.float32, torch.int64))",
        &[
            ("/error", Value::Null),
            ("/tensors/x/dtype", json!("int16")),
            ("/tensors/y/dtype", json!("float32")),
            ("/tensors/z/dtype", json!("float32")),
            ("/tensors/w/dtype", json!("int8")),
            ("/tensors/c/values", json!([0])),
        ],
    );
}

/// `ValueList::First(n)` lists a tensor's first `n` values in row-major order with the count
/// beside; shorter tensors and `Whole` list everything with no count.
#[test]
fn value_lists_cut_to_their_first_elements() {
    use stridelab_core::trace::report::ValueList;
    let src = "a = arange(10.).reshape(2, 5)\nb = a.t()\nc = arange(3)\n";
    let cut = run_json(src, ReportOptions { values: ValueList::First(4), ..ReportOptions::default() });
    assert_eq!(cut["tensors"]["a"]["values"], json!([0.0, 1.0, 2.0, 3.0]));
    assert_eq!(cut["tensors"]["a"]["values_total"], json!(10));
    // The transpose's values in its own row-major order: a[0, 0], a[1, 0], a[0, 1], a[1, 1].
    assert_eq!(cut["tensors"]["b"]["values"], json!([0.0, 5.0, 1.0, 6.0]));
    assert_eq!(cut["tensors"]["c"]["values"], json!([0, 1, 2]));
    assert!(cut["tensors"]["c"].get("values_total").is_none());
    let whole = run_json(src, ReportOptions::default());
    assert_eq!(whole["tensors"]["a"]["values"].as_array().map(Vec::len), Some(10));
    assert!(whole["tensors"]["a"].get("values_total").is_none());
}

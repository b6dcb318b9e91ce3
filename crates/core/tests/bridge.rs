//! tinygrad's PyTorch bridge as its own execution (`engine::bridge`): hand cases from its
//! source, and the records of the real bridge (`tests/fixtures/bridge.json`, made by
//! `tools/fixtures/gen_bridge.py` at tinygrad a9069c1) replayed without the bridge installed.

use serde_json::{json, Value};
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::trace::report::{report_value, run_json, BridgeValues, ReportOptions};

fn bridge_of(src: &str) -> Value {
    run_json(src, ReportOptions::default())
}

fn values(v: &Value, pointer: &str) -> Vec<f64> {
    v.pointer(pointer)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

#[test]
fn reshape_of_a_transpose_writes_through_the_bridge() {
    let r = bridge_of("a = arange(12.).reshape(3, 4)\nb = a.t().reshape(12)\nb += 100");
    let want: Vec<f64> = (100..112).map(f64::from).collect();
    assert_eq!(values(&r, "/bridge/tensors/a/values"), want);
    // PyTorch copies: a is unchanged, and the per-tensor flags say the values diverge.
    assert_eq!(values(&r, "/tensors/a/values"), (0..12).map(f64::from).collect::<Vec<_>>());
    assert_eq!(r.pointer("/tensors/a/bridge/values_match_torch"), Some(&json!(false)));
    assert_eq!(r.pointer("/tensors/a/bridge/matches_torch"), Some(&json!(true)));
    assert_eq!(r.pointer("/tensors/b/bridge/diverges"), Some(&json!(false)));
}

#[test]
fn a_differing_report_keeps_only_the_values_that_differ() {
    let src = "a = arange(12.).reshape(3, 4)\nb = a.t().reshape(12)\nb += 100\nc = a + 1";
    let mut run = Run::new().run_text(src);
    let r =
        report_value(&mut run, ReportOptions { bridge_values: BridgeValues::Differing, ..ReportOptions::default() });
    // a and c diverge (the bridge wrote through b into a); b is the same in both runs.
    assert_eq!(values(&r, "/bridge/tensors/a/values"), (100..112).map(f64::from).collect::<Vec<_>>());
    assert_eq!(values(&r, "/bridge/tensors/c/values"), (101..113).map(f64::from).collect::<Vec<_>>());
    assert_eq!(r.pointer("/bridge/tensors/b/values"), None);
    assert_eq!(r.pointer("/bridge/tensors/b/strides"), Some(&json!([1])));
    assert_eq!(r.pointer("/tensors/b/bridge/values_match_torch"), Some(&json!(true)));
    assert_eq!(r.pointer("/tensors/c/bridge/diverges"), Some(&json!(true)));
}

#[test]
fn each_step_carries_the_bridge_write_plan_and_who_sees_it() {
    let src =
        "a = arange(12.).reshape(3, 4)\nb = a.t().reshape(12)\nd = a.t().reshape(12)\nc = a[2]\nb[0:2] = -1\nc += 1";
    let r = run_json(src, ReportOptions { steps: true, ..ReportOptions::default() });
    let step = |line: usize| {
        r["steps"].as_array().into_iter().flatten().find(|s| s["line"] == line).cloned().unwrap_or_default()
    };
    let names = |v: &Value| {
        let mut n: Vec<String> =
            v.as_array().into_iter().flatten().filter_map(|x| x.as_str().map(String::from)).collect();
        n.sort();
        n
    };
    // b's first two elements are a[0, 0] and a[1, 0]: the bridge scatters them into a, and
    // refreshes d (the same positions) but not c = a[2].
    let b = &step(5)["bridge"];
    assert_eq!(b["write"]["positions"], json!([0, 4]), "{b}");
    assert_eq!((&b["write"]["path"], &b["write"]["through_mirror"]), (&json!("scatter"), &json!(true)));
    assert_eq!(names(&b["tensors_changed"]), ["a", "b", "d"], "{b}");
    assert_eq!(names(&b["extra"]), ["a", "d"]);
    assert_eq!(b["diverges"], true);
    // c += 1 writes a's last row in both runs; in the bridge b and d see it too (their
    // positions 2, 5, 8, 11), in PyTorch they are copies.
    let c = &step(6)["bridge"];
    assert_eq!(names(&c["tensors_changed"]), ["a", "b", "c", "d"], "{c}");
    assert_eq!(names(&step(6)["tensors_changed"]), ["a", "c"]);
    assert_eq!((&c["write"]["path"], &c["write"]["positions"]), (&json!("scatter"), &Value::Null), "{c}");
    // Where PyTorch raises, the step says the bridge ran it.
    let r =
        run_json("a = zeros(3)\nb = a.expand(2, 3)\nb += 1", ReportOptions { steps: true, ..ReportOptions::default() });
    let last = &r["steps"][2]["bridge"];
    assert_eq!(
        (&last["error"], &last["diverges"], &last["write"]["count"]),
        (&Value::Null, &json!(true), &json!(6)),
        "{last}"
    );
}

#[test]
fn copy_of_a_broadcast_source_fails_only_on_the_reshape_path() {
    // a is a reshape of arange's result: the fast path reshapes the unbroadcast (1,) value to
    // the base's 12 elements and fails where PyTorch broadcasts.
    let r = bridge_of("a = arange(12.).reshape(6, 2)\na.copy_(ones(1))");
    assert_eq!(r.pointer("/error"), Some(&Value::Null));
    assert_eq!(r.pointer("/bridge/error_line"), Some(&json!(2)));
    assert_eq!(r.pointer("/bridge/error"), Some(&json!("size mismatch, can't reshape ((1,)) -> ((12,))")));
    // The base itself assigns with broadcasting; a slice takes the general path, which does too.
    let r = bridge_of("b = zeros(6, 2)\nb.copy_(ones(1))\nc = arange(12.).reshape(3, 4)[1:]\nc.copy_(ones(1))");
    assert_eq!(r.pointer("/bridge/error_line"), Some(&Value::Null));
    assert_eq!(values(&r, "/bridge/tensors/b/values"), vec![1.0; 12]);
    assert_eq!(values(&r, "/bridge/tensors/c/values"), vec![1.0; 8]);
}

#[test]
fn writes_through_unfold_do_not_reach_the_base() {
    let r = bridge_of("a = arange(10.)\nb = a.unfold(0, 4, 2)\nb.zero_()");
    assert_eq!(values(&r, "/bridge/tensors/a/values"), (0..10).map(f64::from).collect::<Vec<_>>());
    assert_eq!(values(&r, "/tensors/a/values"), vec![0.0; 10]);
    assert_eq!(values(&r, "/bridge/tensors/b/values"), vec![0.0; 16]);
}

#[test]
fn overlapping_writes_run_in_the_bridge_where_pytorch_raises() {
    let r = bridge_of("a = arange(9.).reshape(3, 3)\na += a.t()");
    assert_eq!(r.pointer("/error/line"), Some(&json!(2)));
    assert_eq!(r.pointer("/bridge/error_line"), Some(&Value::Null));
    assert_eq!(values(&r, "/bridge/tensors/a/values"), vec![0.0, 4.0, 8.0, 4.0, 8.0, 12.0, 8.0, 12.0, 16.0]);
    let r = bridge_of("a = arange(6.)\na[1:] = a[:-1]");
    assert_eq!(values(&r, "/bridge/tensors/a/values"), vec![0.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
    // A write into an expanded view: the last duplicate position wins.
    let r = bridge_of("a = zeros(3)\nb = a.expand(2, 3)\nb += arange(6.).reshape(2, 3)");
    assert_eq!(values(&r, "/bridge/tensors/a/values"), vec![3.0, 4.0, 5.0]);
}

#[test]
fn view_never_refuses_and_contiguous_is_the_tensor_itself() {
    let r = bridge_of("a = arange(12.).reshape(3, 4)\nb = a.t().view(12)\nb[0] = -1");
    assert_eq!(r.pointer("/error/line"), Some(&json!(2)));
    assert_eq!(values(&r, "/bridge/tensors/a/values")[0], -1.0);
    let r = bridge_of("a = arange(6.).reshape(2, 3).t()\nb = a.contiguous()\nb += 1");
    assert_eq!(values(&r, "/bridge/tensors/a/values"), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    assert_eq!(r.pointer("/bridge/tensors/a/strides"), Some(&json!([2, 1])));
}

#[test]
fn out_casts_and_inplace_checks_follow_the_bridge_op_table() {
    // `add.out` is the bridge's own: it casts. `div_` reaches PyTorch's structured check.
    let r = bridge_of("a = arange(4)\nadd(a, 0.5, out=a)");
    assert_eq!(r.pointer("/bridge/error_line"), Some(&Value::Null));
    let r = bridge_of("a = arange(6)\na.div_(2)");
    assert_eq!(r.pointer("/bridge/error_line"), Some(&json!(2)));
}

/// Every recorded case (but those the bridge crashed on or could not read back) ends with the
/// real bridge's failing line and every tensor's strides, offset and values.
#[test]
fn recorded_bridge_runs_match() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/bridge.json");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let records: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let cases = records["cases"].as_array().cloned().unwrap_or_default();
    assert!(cases.len() > 300, "{path} holds the recorded cases");
    let (mut checked, mut failed) = (0, Vec::new());
    for c in &cases {
        let b = &c["bridge"];
        let tensors = b["tensors"].as_object().cloned().unwrap_or_default();
        if b.get("crash").is_some() || tensors.values().any(|t| t.get("error").is_some()) {
            continue;
        }
        let name = c["name"].as_str().unwrap_or("");
        let got = bridge_of(c["source"].as_str().unwrap_or(""));
        let mut ok = got.pointer("/bridge/error_line") == Some(&b["error_line"]);
        for (k, want) in &tensors {
            let g = got.pointer(&format!("/bridge/tensors/{k}")).cloned().unwrap_or(Value::Null);
            let numel: u64 = want["shape"].as_array().map_or(1, |s| s.iter().filter_map(Value::as_u64).product());
            let gv = values(&g, "/values");
            let wv = values(want, "/values");
            ok &= g["strides"] == want["strides"]
                && (numel == 0 || g["storage_offset"] == want["storage_offset"])
                && gv.len() == wv.len()
                && gv
                    .iter()
                    .zip(&wv)
                    .all(|(x, y)| (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-4 * y.abs().max(1.0));
        }
        checked += 1;
        if !ok {
            failed.push(name.to_string());
        }
    }
    assert!(checked > 300, "only {checked} recorded cases were checkable");
    assert!(failed.is_empty(), "cases that differ from the real bridge: {failed:?}");
}

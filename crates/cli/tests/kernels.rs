//! The CLI's kernel reporting: `run --backend ... --json` adds kernels per step and in total,
//! `kernels` prints the table and the WGSL, `--trace-out` writes Chrome trace-event JSON.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::Value;

const TRACE: &str = "a = arange(4096.)\nb = ((a * 2 + 1).exp()).sum()\nc = arange(12.).reshape(3, 4) @ arange(8.).reshape(4, 2)\nd = (c + arange(2.)).relu()\nd[0] = 1.5\n";

/// Fields every kernel record carries (values may be null where they do not apply).
const FIELDS: &[&str] = &[
    "name",
    "kind",
    "wgsl",
    "global_size",
    "workgroups",
    "workgroup_size",
    "bytes_read",
    "bytes_written",
    "flops",
    "time_ns",
    "below_resolution",
    "source",
    "resolution_ns",
    "gbps",
    "gflops",
    "repeats",
    "reason",
];

mod common;

fn stridelab(args: &[&str]) -> (bool, String, String) {
    let (code, out, err) = common::stridelab(args, "");
    (code == Some(0), out, err)
}

/// Runs TRACE on `backend`; `None` when the backend has no device on this machine.
fn check(backend: &str, dir: &std::path::Path) -> Option<()> {
    let file = dir.join("t.trace");
    std::fs::write(&file, TRACE).unwrap();
    let trace_out = dir.join(format!("{backend}.json"));
    let (ok, stdout, stderr) = stridelab(&[
        "run",
        file.to_str().unwrap(),
        "--backend",
        backend,
        "--json",
        "--steps",
        "--repeats",
        "2",
        "--trace-out",
        trace_out.to_str().unwrap(),
    ]);
    if !ok && stderr.contains("no GPU adapter") {
        eprintln!("skipped {backend}: {stderr}");
        return None;
    }
    assert!(ok, "{backend}: {stderr}");
    let rep: Value = serde_json::from_str(&stdout).expect("json report");
    assert_eq!(rep["version"], 1);
    let per_step: Vec<usize> =
        rep["steps"].as_array().unwrap().iter().map(|s| s["kernels"].as_array().map_or(usize::MAX, Vec::len)).collect();
    // arange makes no kernel; the fused exp-sum, the matmul, bias+relu and the store one each.
    assert_eq!(per_step, vec![0, 1, 1, 1, 1], "{backend}");
    let total = rep["kernels"].as_array().unwrap();
    assert_eq!(total.len(), 4);
    let kinds: Vec<&str> = total.iter().map(|k| k["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["reduce", "matmul", "elementwise", "store"], "{backend}");
    for k in total {
        for f in FIELDS {
            assert!(k.get(*f).is_some(), "{backend}: kernel lacks {f}: {k}");
        }
        assert!(k["wgsl"].as_str().unwrap().contains("@compute"));
        assert_eq!(k["repeats"], 2);
        assert!(k["time_ns"].is_number() || k["below_resolution"] == true, "{backend}: {k}");
    }
    assert_eq!(rep["tensors"]["d"]["values"][0], 1.5);
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(&trace_out).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    assert_eq!(events.iter().filter(|e| e["ph"] == "X").count(), 4, "{backend}");
    Some(())
}

#[test]
fn run_reports_kernels_on_each_backend() {
    let dir = std::env::temp_dir().join(format!("stridelab-cli-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ran: Vec<&str> = ["cpu", "wgpu"].into_iter().filter(|b| check(b, &dir).is_some()).collect();
    assert!(ran.contains(&"cpu"), "the CPU backend always runs");
    let file = dir.join("t.trace");
    let (ok, stdout, stderr) = stridelab(&["kernels", file.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    for want in ["r_4096", "mm_3_2_4", "realize point", "store/assign", "var<workgroup> ta"] {
        assert!(stdout.contains(want), "kernels output lacks {want}:\n{stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

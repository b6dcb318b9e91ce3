//! The kernel panel's runner on the CPU fallback: a step's real kernels, verified and timed.

/// (trace, statements run, kernels expected at least, line): the CPU fallback of the kernel panel
/// runs the step's real kernels, verifies them and times them.
fn check_cpu_kernels(trace: &str, at: usize, min_kernels: usize, line: Option<usize>) {
    let out = pollster::block_on(crate::kernels::step_kernels(trace, at, None, "no device")).expect(trace);
    let ks = out["kernels"].as_array().expect("kernels list");
    assert!(ks.len() >= min_kernels, "{trace} @{at}: {out}");
    assert_eq!(out["line"].as_u64().map(|l| l as usize), line, "{trace} @{at}");
    for k in ks {
        // A kernel over int64 (and other dtypes WGSL lacks) has no WGSL, and its note says why.
        let no_wgsl = k["note"].as_str().is_some_and(|n| n.contains("WGSL has no"));
        assert!(no_wgsl || k["wgsl"].as_str().is_some_and(|w| w.contains("@compute")), "{k}");
        assert!(k["time_ns"].as_f64().is_some_and(|t| t > 0.0) || k["below_resolution"] == true, "{k}");
        assert_eq!(k["source"], "cpu", "{k}");
    }
    let trace_json: serde_json::Value =
        serde_json::from_str(out["trace"].as_str().expect("trace")).expect("trace JSON");
    assert!(trace_json["traceEvents"].as_array().is_some_and(|e| e.len() > ks.len()), "{trace_json}");
}

#[test]
fn cpu_kernels() {
    let cases: &[(&str, usize, usize, Option<usize>)] = &[
        ("a = arange(12).reshape(3, 4)\nb = a.t() + 1\n", 2, 1, Some(2)),
        ("a = arange(12, dtype=torch.int32).reshape(3, 4)\nb = a.t() + 1\n", 2, 1, Some(2)),
        ("a = arange(6.0)\nb = a.sum()\n", 2, 1, Some(2)),
        ("a = arange(6.0)\n", 0, 0, None),
        ("raw = dataset(\"mnist-t10k-labels-1k\")\ns = raw[8:].float().sum()\n", 2, 1, Some(2)),
    ];
    for &(trace, at, n, line) in cases {
        check_cpu_kernels(trace, at, n, line);
    }
}

/// The whole trace's kernels: one entry per statement in stepper order, each kernel saying what
/// fused into it and why it ends, timed on the CPU with a spread.
#[test]
fn whole_trace_kernels() {
    let src = "a = arange(64.).reshape(8, 8)\nb = (a.t() * 2 + 1).exp().sum(0)\nc = b[::2]\nc += 1\n";
    let out = pollster::block_on(crate::kernels::trace_kernels(src, None, "no device")).expect(src);
    let steps = out["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 4, "{out}");
    assert_eq!(steps[1]["step"], 2);
    assert_eq!(steps[1]["line"], 2);
    let k = &steps[1]["kernels"][0];
    assert_eq!(k["fused"], "fused: mul, add, exp → sum over 8 elements; reads 1 buffer", "{k}");
    assert!(k["reason"].as_str().is_some_and(|r| r.starts_with("realize point")), "{k}");
    assert!(k["spread_ns"].is_object(), "{k}");
    // A view makes no kernel; the write through it is one.
    assert_eq!(steps[2]["kernels"].as_array().map(Vec::len), Some(0));
    assert!(steps[3]["kernels"].as_array().is_some_and(|ks| ks.iter().any(|k| k["kind"] == "store")), "{}", steps[3]);
    let trace: serde_json::Value = serde_json::from_str(out["trace"].as_str().expect("trace")).expect("JSON");
    assert!(trace["traceEvents"].as_array().is_some_and(|e| e.len() >= 2));
}

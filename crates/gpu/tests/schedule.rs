//! Scheduled kernels from real traces run on the machine's adapter (lavapipe in CI) and must
//! agree with the interpreter as the product checks them (`step::compare_summing`: integers
//! exactly, floats within a few ulps plus, for sums, a bound that grows with their length).
//! With no adapter at all, the test says why and returns.
#![allow(clippy::expect_used)]

use pollster::block_on;
use serde_json::Value;
use std::path::PathBuf;
use stridelab_core::codegen::wgsl;
use stridelab_core::schedule::ScheduleOptions;
use stridelab_core::trace::interp::kernels::trace_kernels;
use stridelab_gpu::step::{compare_summing, summed_terms, Comparison};
use stridelab_gpu::{acquire, AcquireOptions, Error, Gpu, RunOptions};

fn gpu() -> Option<Gpu> {
    match block_on(acquire(&AcquireOptions::new())) {
        Ok(g) => Some(g),
        Err(Error::NoAdapter(why)) => {
            eprintln!("skipped: no GPU adapter on this machine ({why})");
            None
        }
        Err(e) => panic!("an adapter exists but no device: {e}"),
    }
}

/// Runs every statement's kernels on the GPU; `None` when all agree.
fn check(gpu: &Gpu, src: &str) -> Option<String> {
    let (_, steps) = match trace_kernels(src, ScheduleOptions::default()) {
        Ok(s) => s,
        Err(e) => return Some(format!("schedule: {e}")),
    };
    // A statement over a dtype WGSL lacks (int64, float64, ...) runs on the CPU kernel
    // executor, which the core's kernel tests check against the interpreter.
    for step in steps.into_iter().filter(|s| !s.schedule.kernels.iter().any(|k| wgsl::unsupported_dtype(k).is_some())) {
        let out = match block_on(gpu.run_schedule(&step.schedule, &step.inputs, &RunOptions::new())) {
            Ok(o) => o,
            Err(e) => return Some(format!("line {}: {e}", step.line)),
        };
        if out.timings.len() != step.schedule.kernels.len() {
            return Some(format!(
                "line {}: {} timings for {} kernels",
                step.line,
                out.timings.len(),
                step.schedule.kernels.len()
            ));
        }
        for (id, want) in &step.expected {
            let summed = summed_terms(&step);
            match out.outputs.get(id) {
                Some(got) if matches!(compare_summing(got, want, summed), Comparison::Same) => {}
                got => {
                    return Some(format!(
                        "line {} `{}`: storage {id}\n got {got:?}\nwant {want:?}",
                        step.line, step.source
                    ))
                }
            }
        }
    }
    None
}

fn fixture(file: &str) -> Vec<(String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(file);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json");
    v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| (c["name"].as_str().unwrap_or("").to_string(), c["source"].as_str().unwrap_or("").to_string()))
        .collect()
}

#[test]
fn gpu_agrees_with_interpreter() {
    let Some(gpu) = gpu() else { return };
    let mut cases: Vec<(String, String)> = [
        ("acceptance: fused exp-sum", "a = arange(4096.)\nb = ((a * 2 + 1).exp()).sum()"),
        (
            "matmul with bias and relu",
            "a = arange(12.).reshape(3, 4)\nb = arange(8.).reshape(4, 2)\nc = arange(2.)\nd = ((a @ b) + c).relu()",
        ),
        (
            "matmul over several tiles",
            "a = (arange(1530.) / 100).reshape(34, 45)\nb = (arange(900.) / 50 - 3).reshape(45, 20)\nc = a @ b",
        ),
        ("batched matmul", "a = arange(24.).reshape(2, 3, 4)\nb = arange(40.).reshape(2, 4, 5)\nc = a @ b"),
        (
            "a realistic matmul summed in another order, and what it feeds",
            "torch.manual_seed(0)\nx = torch.randn(64, 128)\nw = torch.randn(128, 64)\ny = x @ w\nz = F.gelu(x @ w)",
        ),
        (
            "int matmul over two tiles",
            "a = arange(2400, dtype=torch.int32).reshape(40, 60) % 7\nb = arange(2100, dtype=torch.int32).reshape(60, 35) % 5\nc = a @ b",
        ),
        ("two-stage sum", "a = arange(65536.) / 1000\nb = (a * 0.5).sum()"),
        ("two-stage max with a partial chunk, then a mean", "a = arange(140001.)\nb = a.max()\nc = (a / 1000).mean()"),
        (
            "two-stage reduce broadcast back",
            "a = (arange(70000.) / 1000).reshape(1, 70000)\nb = (a - a.amax(1, keepdim=True)).exp()",
        ),
        ("uint8 store through a view", "a = arange(10, dtype=uint8)\na[1:7] = 200\nb = a * 3"),
        ("bool outputs", "a = arange(6.)\nb = a > 2\nc = where(b, a, -a)"),
        ("reduce boundary", "a = arange(6.).reshape(2, 3)\nb = (a - a.amax(1, keepdim=True)).exp()"),
        ("store hazard", "a = arange(6.)\nb = a.view(2, 3)\nb[0] = b[1]"),
        ("large elementwise", "a = arange(300000.)\nb = a * 0.5 + 1"),
        // int32 kernels (int64, the default, has no WGSL type and runs on the CPU).
        (
            "int32 arithmetic",
            "a = arange(-12, 12, dtype=torch.int32)\nb = (a // 5) + (a % 3) - a * 2\nc = a.pow(2) + a.abs()\nd = where(a > 0, a, -a)",
        ),
        ("int32 reductions", "a = arange(24, dtype=torch.int32).reshape(4, 6) - 9\nb = a.amax(1)\nc = a.amin(0)\nd = a.float().sum()"),
        ("int32 store through a view", "a = arange(12, dtype=torch.int32).reshape(3, 4)\na[1:, ::2] = 7\nb = a.t() + 1"),
    ]
    .iter()
    .map(|(n, s)| (n.to_string(), s.to_string()))
    .collect();
    cases.extend(fixture("torch_ops.json"));
    cases.extend(fixture("torch_inplace.json"));
    cases.extend(fixture("torch_elementwise.json"));
    cases.extend(fixture("torch_surface.json"));
    cases.extend(fixture("torch_indexing.json"));
    cases.extend(fixture("torch_random.json"));
    let failures: Vec<String> = cases.iter().filter_map(|(n, s)| check(&gpu, s).map(|e| format!("{n}: {e}"))).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree:\n{}",
        failures.len(),
        cases.len(),
        failures.iter().take(10).cloned().collect::<Vec<_>>().join("\n\n")
    );
}

#[test]
fn int64_statements_run_on_the_cpu_and_say_so() {
    let Some(gpu) = gpu() else { return };
    let (_, steps) = trace_kernels("a = arange(6)\nb = a * 3 + 1", ScheduleOptions::default()).expect("schedules");
    let step = steps.last().expect("a step");
    let ran = block_on(stridelab_gpu::step::run_step_gpu(&gpu, step, 1)).expect("runs");
    assert!(!ran.is_empty());
    for r in &ran {
        let note = r.note.as_deref().unwrap_or("");
        assert!(note.contains("int64") && note.contains("CPU"), "{note}");
        assert_eq!(r.report().wgsl, "");
    }
}

//! The kernel panel's data: the scheduler's kernels for one statement, run on WebGPU when the page
//! has a device and on the CPU IR executor otherwise, checked against the interpreter, with the
//! timings, the device and the clock stated plainly and a Chrome trace for download.

use serde_json::{json, Value as Json};
use stridelab_core::schedule::StepKernels;
use stridelab_core::trace::interp::kernels::trace_kernels_in;
use stridelab_gpu::step::{run_step_cpu, run_step_gpu, schedule_options, Ran};
use stridelab_gpu::{chrome_trace, Gpu, KernelTiming};

/// CPU repeats start from the same inputs each time, so several are safe and give a spread; GPU
/// repeats rerun in place (not idempotent for `+=`), so the GPU runs each kernel once.
const CPU_REPEATS: u32 = 5;

/// Runs the kernels of the statement a session stands after (`at` statements run; `at == 0` runs
/// none) on `gpu`, or on the CPU when it is `None` (`no_gpu` says why). `Err` on a failed run or
/// a kernel result that differs from the interpreter's.
pub async fn step_kernels(src: &str, at: usize, gpu: Option<&Gpu>, no_gpu: &str) -> Result<Json, String> {
    let steps = statements(src, gpu)?;
    let Some(step) = at.checked_sub(1).and_then(|i| steps.get(i)) else {
        let trace = trace_json("stridelab", &[])?;
        return Ok(json!({"line": null, "kernels": [], "backend": backend_name(gpu), "trace": trace}));
    };
    let ran = run_step(step, gpu).await?;
    let timings: Vec<_> = ran.iter().map(|r| r.timing.clone()).collect();
    let resolution = timings.first().map(|t| t.resolution_ns());
    let trace = trace_json(&format!("stridelab line {} ({})", step.line, backend_name(gpu)), &timings)?;
    Ok(json!({
        "backend": backend_name(gpu),
        "adapter": adapter(gpu, no_gpu),
        "line": step.line,
        "source": step.source,
        "verified": true,
        "resolution_ns": resolution,
        "kernels": ran.iter().map(|r| r.report()).collect::<Vec<_>>(),
        "note": step.note,
        "trace": trace,
    }))
}

/// Every statement's kernels, run one statement after another as the trace runs them (each
/// checked against the interpreter): the Kernels tab's timeline of the whole trace. `steps[i]` is
/// statement `i + 1` as the stepper counts, with its line, source and kernels; `trace` is the
/// Chrome trace of them all, one after another.
pub async fn trace_kernels(src: &str, gpu: Option<&Gpu>, no_gpu: &str) -> Result<Json, String> {
    let steps = statements(src, gpu)?;
    let mut out = Vec::with_capacity(steps.len());
    let mut timings = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let ran = run_step(step, gpu).await?;
        timings.extend(ran.iter().map(|r| r.timing.clone()));
        out.push(json!({
            "step": i + 1,
            "line": step.line,
            "source": step.source,
            "note": step.note,
            "kernels": ran.iter().map(|r| r.report()).collect::<Vec<_>>(),
        }));
    }
    Ok(json!({
        "backend": backend_name(gpu),
        "adapter": adapter(gpu, no_gpu),
        "verified": true,
        "resolution_ns": timings.first().map(|t| t.resolution_ns()),
        "steps": out,
        "trace": trace_json(&format!("stridelab trace ({})", backend_name(gpu)), &timings)?,
    }))
}

/// Every statement's kernels as the scheduler makes them for `gpu` (or the CPU executor), with
/// the inputs and expected outputs each is checked against.
fn statements(src: &str, gpu: Option<&Gpu>) -> Result<Vec<StepKernels>, String> {
    let (_, steps) =
        trace_kernels_in(crate::files::page_run(), src, schedule_options(gpu)).map_err(|e| e.to_string())?;
    Ok(steps)
}

/// Runs one statement's kernels on `gpu`, or on the CPU executor, checked against the interpreter.
async fn run_step(step: &StepKernels, gpu: Option<&Gpu>) -> Result<Vec<Ran>, String> {
    match gpu {
        Some(g) => run_step_gpu(g, step, 1).await.map_err(|e| e.to_string()),
        None => run_step_cpu(step, CPU_REPEATS, &mut 0.0).map_err(|e| e.to_string()),
    }
}

/// The device the kernels ran on, or the CPU executor and why there was no device.
fn adapter(gpu: Option<&Gpu>, no_gpu: &str) -> Json {
    match gpu {
        Some(g) => json!(g.describe()),
        None => json!({"name": "CPU IR executor (wasm)", "why": no_gpu}),
    }
}

/// The Chrome trace of `timings`, as the JSON text the page offers for download.
fn trace_json(process_name: &str, timings: &[KernelTiming]) -> Result<String, String> {
    serde_json::to_string(&chrome_trace(process_name, timings)).map_err(|e| e.to_string())
}

fn backend_name(gpu: Option<&Gpu>) -> &'static str {
    if gpu.is_some() {
        "WebGPU"
    } else {
        "CPU"
    }
}

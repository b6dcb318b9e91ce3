//! Kernels for the CLI: schedules every statement, runs the kernels on the chosen backend,
//! checks the results against the interpreter's, and reports each kernel with its timing.

use serde_json::{json, Value};
use stridelab_core::codegen::cpu;
use stridelab_core::codegen::ir::{Kernel, KernelKind};
use stridelab_core::schedule::{ScheduleOptions, StepKernels};
use stridelab_core::uop::data::Data;
use stridelab_gpu::exec::kernel_spec;
use stridelab_gpu::{Gpu, KernelTiming, RunOptions, TimingSource};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    Cpu,
    Wgpu,
}

/// One executed kernel: the IR and how long it took.
pub struct Ran {
    pub kernel: Kernel,
    pub timing: KernelTiming,
}

fn same(a: &Data, b: &Data) -> bool {
    a.dtype() == b.dtype()
        && a.len() == b.len()
        && a.to_f64_vec().iter().zip(b.to_f64_vec()).all(|(x, y)| {
            (x.is_nan() && y.is_nan()) || *x == y || (a.dtype().is_float() && (x - y).abs() <= 1e-5 * y.abs().max(1e-6))
        })
}

/// The GPU for `backend`, when it needs one.
pub fn device(backend: Backend) -> Result<Option<Gpu>, String> {
    match backend {
        Backend::Wgpu => {
            pollster::block_on(stridelab_gpu::acquire(&Default::default())).map(Some).map_err(|e| format!("wgpu: {e}"))
        }
        Backend::Cpu => Ok(None),
    }
}

/// The schedule's limits: the adapter's storage buffers per stage when running on one.
pub fn schedule_options(gpu: Option<&Gpu>) -> ScheduleOptions {
    match gpu {
        Some(g) => ScheduleOptions { max_buffers: g.limits().max_storage_buffers_per_shader_stage as usize },
        None => ScheduleOptions::default(),
    }
}

/// Runs every step's kernels; `Err` on a backend failure or a result that differs from the
/// interpreter's.
pub fn run_steps(steps: &[StepKernels], gpu: Option<&Gpu>, repeats: u32) -> Result<Vec<Vec<Ran>>, String> {
    let mut clock = 0.0;
    steps
        .iter()
        .map(|step| match gpu {
            Some(g) => run_gpu(g, step, repeats),
            None => run_cpu(step, repeats, &mut clock),
        })
        .collect()
}

fn run_gpu(gpu: &Gpu, step: &StepKernels, repeats: u32) -> Result<Vec<Ran>, String> {
    let opts = RunOptions::new().with_repeats(repeats.max(1));
    let out = pollster::block_on(gpu.run_schedule(&step.schedule, &step.inputs, &opts))
        .map_err(|e| format!("line {}: wgpu: {e}", step.line))?;
    for (id, want) in &step.expected {
        match out.outputs.get(id) {
            Some(got) if same(got, want) => {}
            _ => {
                return Err(format!(
                    "line {}: the wgpu result in storage {id} differs from the CPU interpreter's",
                    step.line
                ))
            }
        }
    }
    Ok(step.schedule.kernels.iter().cloned().zip(out.timings).map(|(kernel, timing)| Ran { kernel, timing }).collect())
}

fn run_cpu(step: &StepKernels, repeats: u32, clock: &mut f64) -> Result<Vec<Ran>, String> {
    let s = &step.schedule;
    let resolution = stridelab_gpu::run::clock_step_ns();
    let mut samples = vec![Vec::new(); s.kernels.len()];
    let mut starts = vec![0.0; s.kernels.len()];
    let mut result = None;
    // Every repeat starts from the inputs: in-place kernels are not idempotent.
    for rep in 0..repeats.max(1) {
        let mut storages = step.inputs.clone();
        let mut bufs =
            cpu::Buffers { storages: &mut storages, temps: s.temps.iter().map(|&(d, n)| Data::zeros(d, n)).collect() };
        for (i, k) in s.kernels.iter().enumerate() {
            let t = std::time::Instant::now();
            cpu::execute(k, &mut bufs).map_err(|e| format!("line {}: {}: {e}", step.line, k.name))?;
            let ns = t.elapsed().as_nanos() as f64;
            if rep == 0 {
                starts[i] = *clock;
            }
            *clock += ns;
            samples[i].push(ns);
        }
        if rep == 0 {
            result = Some(storages);
        }
    }
    let storages = result.unwrap_or_default();
    for (id, want) in &step.expected {
        if !storages.get(*id).is_some_and(|got| same(got, want)) {
            return Err(format!(
                "line {}: the CPU kernel result in storage {id} differs from the interpreter's",
                step.line
            ));
        }
    }
    s.kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let spec = kernel_spec(k, &|_| 0).map_err(|e| e.to_string())?;
            let span: f64 = samples[i].iter().sum();
            let timing = KernelTiming::measured(&spec, TimingSource::Cpu, resolution, &samples[i], starts[i], span);
            Ok(Ran { kernel: k.clone(), timing })
        })
        .collect()
}

/// The report's record of one kernel.
pub fn kernel_json(r: &Ran) -> Value {
    let t = &r.timing;
    let kind = match r.kernel.kind {
        KernelKind::Elementwise => "elementwise",
        KernelKind::Reduce => "reduce",
        KernelKind::Matmul => "matmul",
        KernelKind::Store => "store",
    };
    json!({
        "name": t.name(),
        "kind": kind,
        "wgsl": t.wgsl(),
        "global_size": r.kernel.dims,
        "reduce_size": r.kernel.reduce_len(),
        "workgroups": t.workgroups(),
        "workgroup_size": t.workgroup_size(),
        "bytes_read": t.bytes_read(),
        "bytes_written": t.bytes_written(),
        "flops": t.flops(),
        "time_ns": t.time_ns(),
        "below_resolution": t.below_resolution(),
        "estimated": t.estimated(),
        "source": t.source(),
        "resolution_ns": t.resolution_ns(),
        "gbps": t.gbps(),
        "gflops": t.gflops(),
        "repeats": t.repeats(),
        "spread_ns": t.spread_ns(),
        "reason": r.kernel.reason,
    })
}

/// A plain-text table of the kernels, then each kernel's WGSL.
pub fn table(steps: &[StepKernels], ran: &[Vec<Ran>]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<5} {:<18} {:<12} {:<16} {:>10} {:>10} {:>12} {:>12}  reason",
        "line", "kernel", "kind", "global", "read B", "write B", "flops", "time"
    );
    for (step, rs) in steps.iter().zip(ran) {
        for r in rs {
            let k = &r.kernel;
            let t = &r.timing;
            let (read, written) = k.bytes();
            let time = match t.time_ns() {
                Some(ns) => format!("{:.1} us", ns / 1e3),
                None => format!("<{:.1} us", 4.0 * t.resolution_ns() / 1e3),
            };
            let kind = format!("{:?}", k.kind).to_lowercase();
            let _ = writeln!(
                out,
                "{:<5} {:<18} {:<12} {:<16} {:>10} {:>10} {:>12} {:>12}  {}",
                step.line,
                k.name,
                kind,
                format!("{:?}", k.dims),
                read,
                written,
                k.flops(),
                time,
                k.reason
            );
        }
    }
    for rs in ran {
        for r in rs {
            let _ = writeln!(out, "\n{}", r.timing.wgsl());
        }
    }
    out
}

//! Kernels for the CLI: schedules every statement, runs the kernels on the chosen backend,
//! checks the results against the interpreter's, and reports each kernel with its timing.

use crate::error::{Error, Result};
use serde_json::Value;
use stridelab_core::schedule::StepKernels;
pub use stridelab_gpu::step::{schedule_options, Ran};
use stridelab_gpu::{step, Gpu};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    Cpu,
    Wgpu,
}

/// The GPU for `backend`, when it needs one.
pub fn device(backend: Backend) -> Result<Option<Gpu>> {
    match backend {
        Backend::Wgpu => Ok(Some(pollster::block_on(stridelab_gpu::acquire(&Default::default()))?)),
        Backend::Cpu => Ok(None),
    }
}

/// The report's record of one kernel.
pub fn kernel_json(r: &Ran) -> Value {
    serde_json::json!(r.report())
}

/// Runs every step's kernels; `Err` on a backend failure or a result that differs from the
/// interpreter's.
pub fn run_steps(steps: &[StepKernels], gpu: Option<&Gpu>, repeats: u32) -> Result<Vec<Vec<Ran>>> {
    let mut clock = 0.0;
    steps
        .iter()
        .map(|step| match gpu {
            Some(g) => pollster::block_on(step::run_step_gpu(g, step, repeats)),
            None => step::run_step_cpu(step, repeats, &mut clock),
        })
        .collect::<Result<_, _>>()
        .map_err(Error::from)
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

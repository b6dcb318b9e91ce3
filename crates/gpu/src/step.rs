//! One statement's kernels, run and checked: the scheduler's kernels for a step go to a GPU or to
//! the CPU IR executor, what they wrote is compared with the interpreter's result, and each kernel
//! is described by a typed record ([`KernelReport`]) that the CLI and the page serialize. Both
//! report kernels through this module, so they check and describe them the same way.

use serde::Serialize;
use stridelab_core::codegen::ir::{Kernel, KernelKind};
use stridelab_core::codegen::{cpu, wgsl};
use stridelab_core::schedule::{ScheduleOptions, StepKernels};
use stridelab_core::uop::buffer::Data;
use web_time::Instant;

use crate::exec::kernel_spec;
use crate::{Error, Gpu, KernelSpec, KernelTiming, Result, RunOptions, Spread, TimingSource};

/// One executed kernel: the IR and how long it took.
pub struct Ran {
    pub kernel: Kernel,
    pub timing: KernelTiming,
    /// Why the kernel ran where it did, when that is not where it was asked to run.
    pub note: Option<String>,
}

/// Equal up to float rounding of an elementwise computation (see [`compare_summing`]).
pub fn same(a: &Data, b: &Data) -> bool {
    matches!(compare(a, b), Comparison::Same)
}

/// How a backend's result compares with the interpreter's.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    /// Every element equal up to float rounding (NaN to NaN, an infinity to itself).
    Same,
    /// Equal wherever the interpreter's value is finite; `count` elements where the interpreter
    /// has NaN or an infinity hold something else. WGSL lets a shader assume no NaN or infinity
    /// occurs, so what a GPU computes there is unspecified.
    NonFinite { count: usize },
    /// Different dtypes or lengths.
    Mismatch,
    /// The first element that differs where the interpreter's value is finite, and the bound
    /// it was held to.
    Differs { index: usize, got: f64, want: f64, bound: f64 },
}

/// Relative difference allowed of every float element: a few float32 ulps of a transcendental
/// function computed another way (the GPU's `exp`, `tanh`, ...), compounded over a fused chain.
pub const ELEMENT_RTOL: f64 = 1e-5;

/// Roundings allowed per summed term, in units of float32's unit roundoff, on top of
/// [`ELEMENT_RTOL`]: a sum of `k` terms in another order differs by at most `k` roundings of
/// its partial sums (Higham's bound), which the largest magnitude of the result stands for.
pub const SUM_ROUNDINGS: f64 = 4.0;

/// [`compare_summing`] of a result no kernel summed.
pub fn compare(got: &Data, want: &Data) -> Comparison {
    compare_summing(got, want, 0)
}

/// Compares `got` (a backend's result) with `want` (the interpreter's), element by element:
/// integers and booleans exactly, floats within [`ELEMENT_RTOL`] of the interpreter's value
/// plus, when kernels summed up to `summed` terms into them, `summed` roundings of the
/// result's largest magnitude ([`SUM_ROUNDINGS`] float32 unit roundoffs each), so a matmul
/// summed in another order passes and a wrong value still fails, named by its element.
pub fn compare_summing(got: &Data, want: &Data, summed: usize) -> Comparison {
    if got.dtype() != want.dtype() || got.len() != want.len() {
        return Comparison::Mismatch;
    }
    let float = want.dtype().is_float();
    let want = want.to_f64_vec();
    let largest = want.iter().filter(|y| y.is_finite()).fold(0f64, |m, y| m.max(y.abs()));
    let unit = f64::from(f32::EPSILON) / 2.0;
    let absolute = summed as f64 * SUM_ROUNDINGS * unit * largest;
    let mut non_finite = 0;
    for (index, (x, y)) in got.to_f64_vec().into_iter().zip(want).enumerate() {
        let bound = ELEMENT_RTOL * y.abs().max(1e-6) + absolute;
        let equal =
            (x.is_nan() && y.is_nan()) || x == y || (float && x.is_finite() && y.is_finite() && (x - y).abs() <= bound);
        if equal {
            continue;
        }
        if !y.is_finite() {
            non_finite += 1;
            continue;
        }
        return Comparison::Differs { index, got: x, want: y, bound };
    }
    if non_finite > 0 {
        Comparison::NonFinite { count: non_finite }
    } else {
        Comparison::Same
    }
}

/// The most terms a chain of the step's kernels sums into one element: every reduce loop of
/// the step, in turn (a two-stage reduce sums its chunks, then their partial sums).
pub fn summed_terms(step: &StepKernels) -> usize {
    step.schedule.kernels.iter().map(Kernel::reduce_len).filter(|&k| k > 1).sum()
}

/// Checks a step's written storages; `Ok(Some(note))` when they agree only up to values WGSL
/// leaves unspecified (NaN, infinities), `Err` with the storage and element that differ.
fn check_step<'a>(
    step: &StepKernels,
    backend: &str,
    got: impl Fn(usize) -> Option<&'a Data>,
) -> Result<Option<String>> {
    let mut unspecified = 0;
    for (id, want) in &step.expected {
        let line = step.line;
        match got(*id).map(|g| compare_summing(g, want, summed_terms(step))) {
            Some(Comparison::Same) => {}
            Some(Comparison::NonFinite { count }) => unspecified += count,
            Some(Comparison::Differs { index, got, want, bound }) => {
                return Err(Error::Differs(format!(
                    "line {line}: the {backend} result in storage {id} differs from the interpreter's \
                     at element {index}: {got} instead of {want} (allowed: {bound:.3e})"
                )))
            }
            Some(Comparison::Mismatch) | None => {
                return Err(Error::Differs(format!(
                    "line {line}: the {backend} result in storage {id} differs from the interpreter's"
                )))
            }
        }
    }
    Ok((unspecified > 0).then(|| {
        format!(
            "{unspecified} {} NaN or infinite in the interpreter's result and {} other values on \
             {backend} (WGSL leaves them unspecified); the report shows the interpreter's values",
            if unspecified == 1 { "element is" } else { "elements are" },
            if unspecified == 1 { "holds" } else { "hold" },
        )
    }))
}

/// The schedule's limits: the adapter's storage buffers per stage when running on one.
pub fn schedule_options(gpu: Option<&Gpu>) -> ScheduleOptions {
    match gpu {
        Some(g) => ScheduleOptions { max_buffers: g.limits().max_storage_buffers_per_shader_stage as usize },
        None => ScheduleOptions::default(),
    }
}

/// Runs the step's kernels on `gpu` (each `repeats` times) and checks every written storage
/// against the interpreter; `Err` says which line and storage differ or why the GPU failed.
pub async fn run_step_gpu(gpu: &Gpu, step: &StepKernels, repeats: u32) -> Result<Vec<Ran>> {
    // WGSL has no 64-bit or 16-bit-float types: such a statement runs whole on the CPU kernel
    // executor, and every kernel says so, rather than computing in a narrower type.
    if let Some(d) = step.schedule.kernels.iter().find_map(wgsl::unsupported_dtype) {
        let mut clock = 0.0;
        let mut ran = run_step_cpu(step, repeats, &mut clock)?;
        let note = format!("WGSL has no {d} type: this statement's kernels ran on the CPU kernel executor");
        for r in &mut ran {
            r.note = Some(note.clone());
        }
        return Ok(ran);
    }
    let opts = RunOptions::new().with_repeats(repeats.max(1));
    let out = gpu
        .run_schedule(&step.schedule, &step.inputs, &opts)
        .await
        .map_err(|e| Error::AtLine { line: step.line, error: Box::new(e) })?;
    let note = check_step(step, "wgpu", |id| out.outputs.get(&id))?;
    Ok(step
        .schedule
        .kernels
        .iter()
        .cloned()
        .zip(out.timings)
        .map(|(kernel, timing)| Ran { kernel, timing, note: note.clone() })
        .collect())
}

/// Runs the step's kernels on the CPU IR executor with host-clock timing, `repeats` times from the
/// same inputs, and checks the first run's storages against the interpreter. `clock` is the running
/// start time (ns) across steps, for the trace's timeline.
pub fn run_step_cpu(step: &StepKernels, repeats: u32, clock: &mut f64) -> Result<Vec<Ran>> {
    let s = &step.schedule;
    let resolution = crate::run::clock_step_ns();
    let mut samples = vec![Vec::new(); s.kernels.len()];
    let mut starts = vec![0.0; s.kernels.len()];
    let mut result = None;
    // Every repeat starts from the inputs: in-place kernels are not idempotent.
    for rep in 0..repeats.max(1) {
        let mut storages = step.inputs.clone();
        let mut bufs =
            cpu::Buffers { storages: &mut storages, temps: s.temps.iter().map(|&(d, n)| Data::zeros(d, n)).collect() };
        for (i, k) in s.kernels.iter().enumerate() {
            let t = Instant::now();
            cpu::execute(k, &mut bufs).map_err(|e| Error::AtLine {
                line: step.line,
                error: Box::new(Error::kernel(&k.name, e.to_string())),
            })?;
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
    let checked = check_step(step, "CPU kernel", |id| storages.get(&id))?;
    s.kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let unsupported = wgsl::unsupported_dtype(k);
            let spec = match unsupported {
                // No WGSL to show: the kernel's name and cost are what its timing needs.
                Some(_) => {
                    let (read, written) = k.bytes();
                    KernelSpec::new(&k.name, String::new(), "main").with_cost(read, written, k.flops())
                }
                None => kernel_spec(k, &|_| 0)?,
            };
            let span: f64 = samples[i].iter().sum();
            let timing = KernelTiming::new(&spec, TimingSource::Cpu, resolution, &samples[i], starts[i], span);
            let note = unsupported
                .map(|d| format!("WGSL has no {d} type: this kernel runs on the CPU kernel executor"))
                .or_else(|| checked.clone());
            Ok(Ran { kernel: k.clone(), timing, note })
        })
        .collect()
}

/// The report's record of one kernel. The fields serialize, in this order, to the keys the CLI
/// and the page print.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelReport<'a> {
    pub name: &'a str,
    /// `elementwise`, `reduce`, `matmul` or `store`.
    pub kind: &'static str,
    pub wgsl: &'a str,
    pub global_size: &'a [usize],
    pub reduce_size: usize,
    pub workgroups: [u32; 3],
    pub workgroup_size: [u32; 3],
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub flops: u64,
    pub time_ns: Option<f64>,
    pub below_resolution: bool,
    pub estimated: bool,
    pub source: TimingSource,
    pub resolution_ns: f64,
    pub gbps: Option<f64>,
    pub gflops: Option<f64>,
    pub repeats: u32,
    pub spread_ns: Option<Spread>,
    pub reason: &'a str,
    /// What fused into the kernel, in words ([`stridelab_core::codegen::ir::Kernel::fused_summary`]).
    pub fused: String,
    /// Why the kernel ran where it did (a statement with int64 or float64 runs on the CPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'a str>,
}

impl Ran {
    /// The report's record of this kernel.
    pub fn report(&self) -> KernelReport<'_> {
        let t = &self.timing;
        let kind = match self.kernel.kind {
            KernelKind::Elementwise => "elementwise",
            KernelKind::Reduce => "reduce",
            KernelKind::Matmul => "matmul",
            KernelKind::Store => "store",
        };
        KernelReport {
            name: t.name(),
            kind,
            wgsl: t.wgsl(),
            global_size: &self.kernel.dims,
            reduce_size: self.kernel.reduce_len(),
            workgroups: t.workgroups(),
            workgroup_size: t.workgroup_size(),
            bytes_read: t.bytes_read(),
            bytes_written: t.bytes_written(),
            flops: t.flops(),
            time_ns: t.time_ns(),
            below_resolution: t.below_resolution(),
            estimated: t.estimated(),
            source: t.source(),
            resolution_ns: t.resolution_ns(),
            gbps: t.gbps(),
            gflops: t.gflops(),
            repeats: t.repeats(),
            spread_ns: t.spread_ns(),
            reason: &self.kernel.reason,
            fused: self.kernel.fused_summary(),
            note: self.note.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{compare_summing, Comparison};
    use stridelab_core::uop::buffer::Data;

    /// A 64x128 @ 128x64 product's element summed in another order (the difference a GPU
    /// showed: 2e-5 relative) passes; a wrong value, or any integer difference, does not.
    #[test]
    fn sums_get_a_bound_that_grows_with_their_length_and_wrong_values_still_fail() {
        let want = Data::F32(vec![0.049_224_49, 11.5, -9.25]);
        let reordered = Data::F32(vec![0.049_225_43, 11.5, -9.25]);
        assert_eq!(compare_summing(&reordered, &want, 128), Comparison::Same);
        // Elementwise results are held to a few ulps: the same difference fails there.
        assert!(matches!(compare_summing(&reordered, &want, 0), Comparison::Differs { index: 0, .. }));
        let wrong = Data::F32(vec![0.049_224_49, 11.5, -9.0]);
        assert!(matches!(compare_summing(&wrong, &want, 128), Comparison::Differs { index: 2, .. }));
        let ints = (Data::I32(vec![1, 2, 3]), Data::I32(vec![1, 2, 4]));
        assert!(matches!(compare_summing(&ints.0, &ints.1, 1 << 20), Comparison::Differs { index: 2, .. }));
    }
}

//! One run prints the kernel figures side by side (numpy's side: tools/bench/numpy_baseline.py):
//!
//! - add over 2^24 float32, as the scheduler emits it for `c = a + b`: the kernel's own time from
//!   GPU timestamp queries (the fair comparison with numpy's in-memory add) and the host time of
//!   submit-and-wait around the same prepared kernel (what a caller waits for);
//! - a full sum over 2^24 float32 (two kernels: partial sums, then their sum);
//! - float32 matmul 256 and 1024 on the GPU (both clocks) and on the CPU IR executor;
//! - one tiny kernel, submit and wait, prepared (pipeline and bind group built once) and through
//!   a full `run` (which also looks up the pipeline and builds the bind group); and the host time
//!   per dispatch when a timed run puts 100 of them in one submission (a schedule's case).
//!
//! The matmul kernels are built directly in the IR the scheduler emits for `a @ b` (a reduce of a
//! product, recognised as a tile), so the 1024 case does not need the tracer's lazy broadcast
//! product of 2^30 elements. Every GPU result is checked against the CPU IR executor first.
//! Figures are medians over repeats (min and max beside them). A word after `--` (`add`, `sum`,
//! `matmul`, `tiny`) runs only the figures whose name contains it.
//!
//! numpy's side runs in the same process tree, before the GPU work: the bench spawns
//! tools/bench/numpy_baseline.py with `$STRIDELAB_BENCH_PYTHON` (else `python3`) when that python
//! has numpy, and ends with one table of both, as ratios (`cargo xtask bench` sets all this up).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pollster::block_on;
use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;
use stridelab_core::codegen::cpu::{self, StorageTable};
use stridelab_core::codegen::ir::{BufRef, Inst, Kernel, KernelKind, Slot, Tile};
use stridelab_core::schedule::{Schedule, ScheduleOptions};
use stridelab_core::shape::symbolic::Expr;
use stridelab_core::trace::interp::kernels::trace_kernels;
use stridelab_core::uop::buffer::Data;
use stridelab_core::uop::{BinaryOp, ReduceOp};
use stridelab_core::DType;
use stridelab_gpu::exec::{byte_len, decode, encode, schedule_specs};
use stridelab_gpu::{acquire, AcquireOptions, Gpu, GpuBuffer, KernelSpec, RunOptions, Spread};

/// A schedule's kernels with their buffers uploaded.
struct Uploaded {
    specs: Vec<KernelSpec>,
    buffers: Vec<GpuBuffer>,
    table: Vec<BufRef>,
}

fn upload(gpu: &Gpu, s: &Schedule, storages: &dyn StorageTable) -> Uploaded {
    let (specs, table) = schedule_specs(s).unwrap();
    let buffers = table
        .iter()
        .map(|b| match *b {
            BufRef::Storage(id) => {
                block_on(gpu.upload("bench", &encode(storages.storage(id).unwrap()).unwrap())).unwrap()
            }
            BufRef::Temp(t) => {
                let (d, n) = s.temps[t];
                block_on(gpu.create_buffer("temp", byte_len(d, n).max(4) as u64)).unwrap()
            }
        })
        .collect();
    Uploaded { specs, buffers, table }
}

/// `c[i, j] = sum_k a[i, k] * b[k, j]` over n x n row-major float32 storages 1 (a), 2 (b) into 0.
fn matmul_kernel(n: usize) -> Kernel {
    let (i, j, k) = (Expr::var(0, n), Expr::var(1, n), Expr::var(2, n));
    let slot = |s| Slot { buf: BufRef::Storage(s), dtype: DType::Float32, len: n * n };
    let f = DType::Float32;
    Kernel {
        name: format!("mm_{n}_{n}_{n}"),
        kind: KernelKind::Matmul,
        dims: vec![n, n],
        slots: vec![slot(0), slot(1), slot(2)],
        insts: vec![
            Inst::BeginReduce { vars: vec![(2, n)] },
            Inst::Load { slot: 1, index: i.clone() * n as i64 + k.clone(), valid: Expr::Bool(true), dtype: f },
            Inst::Load { slot: 2, index: k * n as i64 + j.clone(), valid: Expr::Bool(true), dtype: f },
            Inst::Binary { op: BinaryOp::Mul, a: 1, b: 2, dtype: f },
            Inst::EndReduce { op: ReduceOp::Sum, value: 3, dtype: f },
            Inst::Store { index: i * n as i64 + j, valid: Expr::Bool(true), value: 4, dtype: f },
        ],
        tile: Some(Tile { m: (0, n), n: (1, n), k: (2, n), a: 1, b: 2 }),
        serial: false,
        order: Vec::new(),
        reason: "bench: a @ b".into(),
    }
}

fn ms(ns: f64) -> String {
    format!("{:9.3} ms", ns / 1e6)
}

fn show(label: &str, s: Option<Spread>, extra: &str) {
    match s {
        Some(s) => println!(
            "{label:<44} {}  (min {}, max {}){extra}",
            ms(s.median_ns()),
            ms(s.min_ns()).trim(),
            ms(s.max_ns()).trim()
        ),
        None => println!("{label:<44} below the clock's resolution"),
    }
}

/// numpy's medians (seconds) by figure name, or why there are none.
fn numpy_medians() -> std::result::Result<BTreeMap<String, f64>, String> {
    let python = std::env::var("STRIDELAB_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tools/bench/numpy_baseline.py");
    let out = Command::new(&python).args([script, "--json"]).output().map_err(|e| format!("{python}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{python} could not run it: {}", err.lines().last().unwrap_or_default()));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("unreadable numpy figures: {e}"))
}

/// The closing table: each figure beside numpy's, in one run.
#[derive(Default)]
struct Summary {
    /// (figure, its median in ns, numpy's figure name)
    rows: Vec<(String, f64, &'static str)>,
}

impl Summary {
    fn add(&mut self, figure: &str, s: Option<Spread>, numpy: &'static str) {
        if let Some(s) = s {
            self.rows.push((figure.to_string(), s.median_ns(), numpy));
        }
    }

    fn print(&self, numpy: &std::result::Result<BTreeMap<String, f64>, String>) {
        println!();
        match numpy {
            Ok(_) => println!("summary: medians; ratio = numpy time / this time (>= 1: faster than numpy)"),
            Err(e) => println!("summary: medians (numpy baseline unavailable: {e})"),
        }
        println!("{:<44} {:>12}   {:<24} {:>12} {:>8}", "figure", "time", "numpy", "time", "ratio");
        for (figure, ns, np_name) in &self.rows {
            let theirs = numpy.as_ref().ok().and_then(|m| m.get(*np_name)).map(|s| s * 1e9);
            let (t, ratio) = match theirs {
                Some(t) => (ms(t), format!("{:.2}x", t / ns)),
                None => ("-".into(), "-".into()),
            };
            println!("{figure:<44} {}   {np_name:<24} {t:>12} {ratio:>8}", ms(*ns));
        }
    }
}

/// Kernel time (timestamps) and host submit-and-wait time of `u`'s kernels, `reps` each: the
/// medians, when measured.
fn time_gpu(
    gpu: &Gpu,
    u: &Uploaded,
    reps: u32,
    what: &str,
    bytes_or_flops: (&str, f64),
) -> (Option<Spread>, Option<Spread>) {
    let refs: Vec<&GpuBuffer> = u.buffers.iter().collect();
    let p = block_on(gpu.prepare(&u.specs, &refs)).unwrap();
    // Warm up: the first dispatch pays for page faults in fresh buffers.
    block_on(gpu.run_prepared(&p, &RunOptions::new().with_wallclock(true))).unwrap();
    let rate = |s: Option<Spread>| {
        s.map(|s| format!("  {:.2} {}", bytes_or_flops.1 / s.median_ns(), bytes_or_flops.0)).unwrap_or_default()
    };
    let mut kernel = None;
    if gpu.timestamp_period_ns().is_some() {
        // A schedule of several kernels reports the sum of their medians (and of their extremes).
        let t = block_on(gpu.run_prepared(&p, &RunOptions::new().with_repeats(reps))).unwrap();
        let spreads: Option<Vec<Spread>> = t.iter().map(|k| k.spread_ns()).collect();
        let s = spreads.and_then(|v| {
            let sum = |f: fn(&Spread) -> f64| v.iter().map(f).sum::<f64>();
            let (lo, mid, hi) = (sum(Spread::min_ns), sum(Spread::median_ns), sum(Spread::max_ns));
            Spread::of(&[lo, mid, hi])
        });
        let label = if t.len() == 1 { "kernel".to_string() } else { format!("{} kernels", t.len()) };
        show(&format!("wgpu {what}: {label} (timestamps)"), s, &rate(s));
        kernel = s;
    } else {
        println!("wgpu {what}: kernel (timestamps)   the adapter has no timestamp queries");
    }
    let mut host = Vec::new();
    for _ in 0..reps {
        let t0 = Instant::now();
        block_on(gpu.run_prepared(&p, &RunOptions::new().with_wallclock(true))).unwrap();
        host.push(t0.elapsed().as_secs_f64() * 1e9);
    }
    let s = Spread::of(&host);
    show(&format!("wgpu {what}: host submit-and-wait"), s, &rate(s));
    (kernel, s)
}

fn time_cpu(reps: usize, f: &mut dyn FnMut()) -> Option<Spread> {
    let samples: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64() * 1e9
        })
        .collect();
    Spread::of(&samples)
}

fn run_cpu(kernels: &[Kernel], storages: &mut dyn StorageTable) {
    let mut bufs = cpu::Buffers { storages, temps: Vec::new() };
    for k in kernels {
        cpu::execute(k, &mut bufs).unwrap();
    }
}

/// Reads back storage `id` of `u` and checks it against `want` (relative 1e-4).
fn check(gpu: &Gpu, u: &Uploaded, id: usize, want: &Data, what: &str) {
    let i = u.table.iter().position(|&b| b == BufRef::Storage(id)).unwrap();
    let got = decode(&block_on(gpu.read(&u.buffers[i])).unwrap(), want.dtype(), want.len()).unwrap();
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    let bad = g.iter().zip(&w).filter(|(a, b)| (*a - *b).abs() > 1e-4 * b.abs().max(1.0)).count();
    assert_eq!(bad, 0, "{what}: {bad} elements differ from the CPU IR executor");
}

fn main() {
    let gpu = match block_on(acquire(&AcquireOptions::new())) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let info = gpu.adapter_info();
    println!("adapter: {} ({:?}, {})", info.name, info.backend, info.driver_info);
    // Before any GPU work, so neither side competes with the other for the cores.
    let numpy = numpy_medians();
    let mut summary = Summary::default();
    // cargo passes `--bench` itself; the first other word filters.
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wants = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));

    if wants("add") {
        bench_add(&gpu, &mut summary);
    }
    if wants("sum") {
        bench_sum(&gpu, &mut summary);
    }
    for m in [256usize, 1024] {
        if wants(&format!("matmul {m}")) {
            bench_matmul(&gpu, m, &mut summary);
        }
    }
    if wants("tiny") {
        bench_tiny(&gpu, &mut summary);
    }
    summary.print(&numpy);
}

fn bench_add(gpu: &Gpu, summary: &mut Summary) {
    let n = 1usize << 24;
    let (_, mut steps) =
        trace_kernels(&format!("a = arange({n}.)\nb = arange({n}.) * 0.5\nc = a + b"), ScheduleOptions::default())
            .unwrap();
    let add = steps.pop().unwrap();
    let u = upload(gpu, &add.schedule, &add.inputs);
    let (&out, want) = add.expected.iter().next().unwrap();
    block_on(gpu.run(&u.specs, &u.buffers.iter().collect::<Vec<_>>(), &RunOptions::new())).unwrap();
    check(gpu, &u, out, want, "add");
    let (kernel, host) = time_gpu(gpu, &u, 10, "add 2^24 f32", ("GB/s", (3 * 4 * n) as f64));
    summary.add("wgpu add 2^24 f32: kernel", kernel, "add 2^24 f32 (into c)");
    summary.add("wgpu add 2^24 f32: submit-and-wait", host, "add 2^24 f32 (into c)");
    let mut storages = add.inputs.clone();
    let s = time_cpu(5, &mut || run_cpu(&add.schedule.kernels, &mut storages));
    show("cpu ir add 2^24 f32", s, "");
    summary.add("cpu ir add 2^24 f32", s, "add 2^24 f32 (into c)");
}

fn bench_sum(gpu: &Gpu, summary: &mut Summary) {
    let n = 1usize << 24;
    // A full sum: the scheduler splits it into partial sums and a combining kernel.
    let (_, mut steps) =
        trace_kernels(&format!("a = arange({n}.) / {n}\nb = a.sum()"), ScheduleOptions::default()).unwrap();
    let sum = steps.pop().unwrap();
    let u = upload(gpu, &sum.schedule, &sum.inputs);
    let (&out, want) = sum.expected.iter().next().unwrap();
    block_on(gpu.run(&u.specs, &u.buffers.iter().collect::<Vec<_>>(), &RunOptions::new())).unwrap();
    check(gpu, &u, out, want, "sum");
    let (kernel, _) = time_gpu(gpu, &u, 10, "sum 2^24 f32", ("GB/s", (4 * n) as f64));
    summary.add("wgpu sum 2^24 f32: kernels", kernel, "sum 2^24 f32");
}

fn bench_matmul(gpu: &Gpu, m: usize, summary: &mut Summary) {
    let k = matmul_kernel(m);
    let a = Data::F32((0..m * m).map(|x| ((x % 97) as f32) / 97.0 - 0.5).collect());
    let b = Data::F32((0..m * m).map(|x| ((x % 89) as f32) / 89.0 - 0.5).collect());
    let inputs = vec![Data::F32(vec![0.0; m * m]), a, b];
    let schedule = Schedule { kernels: vec![k], temps: Vec::new() };
    let u = upload(gpu, &schedule, &inputs);
    block_on(gpu.run(&u.specs, &u.buffers.iter().collect::<Vec<_>>(), &RunOptions::new())).unwrap();
    let mut storages = inputs.clone();
    let t0 = Instant::now();
    run_cpu(&schedule.kernels, &mut storages);
    let first = t0.elapsed().as_secs_f64() * 1e9;
    check(gpu, &u, 0, &storages[0], "matmul");
    let flops = (2 * m * m * m) as f64;
    let (kernel, host) =
        time_gpu(gpu, &u, if m > 512 { 3 } else { 10 }, &format!("matmul {m} f32"), ("GFLOP/s", flops));
    let np_name = if m > 512 { "matmul 1024 f32" } else { "matmul 256 f32" };
    summary.add(&format!("wgpu matmul {m} f32: kernel"), kernel, np_name);
    summary.add(&format!("wgpu matmul {m} f32: submit-and-wait"), host, np_name);
    // The CPU executor at 1024 takes seconds: its first (checked) run is the figure.
    let s = if m > 512 { Spread::of(&[first]) } else { time_cpu(5, &mut || run_cpu(&schedule.kernels, &mut storages)) };
    let rate = s.map(|s| format!("  {:.2} GFLOP/s", flops / s.median_ns())).unwrap_or_default();
    show(&format!("cpu ir matmul {m} f32"), s, &rate);
    summary.add(&format!("cpu ir matmul {m} f32"), s, np_name);
}

fn bench_tiny(gpu: &Gpu, summary: &mut Summary) {
    let (_, mut steps) = trace_kernels("a = arange(4.)\nb = a + 1", ScheduleOptions::default()).unwrap();
    let tiny = steps.pop().unwrap();
    let u = upload(gpu, &tiny.schedule, &tiny.inputs);
    let refs: Vec<&GpuBuffer> = u.buffers.iter().collect();
    let p = block_on(gpu.prepare(&u.specs, &refs)).unwrap();
    let wall = RunOptions::new().with_wallclock(true);
    for _ in 0..50 {
        block_on(gpu.run_prepared(&p, &wall)).unwrap();
    }
    let s = time_cpu(1000, &mut || {
        block_on(gpu.run_prepared(&p, &wall)).unwrap();
    });
    show("wgpu tiny kernel: submit-and-wait, prepared", s, "");
    summary.add("wgpu tiny kernel: submit-and-wait, prepared", s, "");
    // The same submissions as repeats of one run: the difference to the figure above is what
    // each `run_prepared` call adds around its submit and wait.
    let t = block_on(gpu.run_prepared(&p, &wall.with_repeats(1000))).unwrap();
    let s = t.first().and_then(|k| k.spread_ns());
    show("wgpu tiny kernel: submit-and-wait, one run's repeats", s, "");
    let s = time_cpu(1000, &mut || {
        block_on(gpu.run(&u.specs, &refs, &wall)).unwrap();
    });
    show("wgpu tiny kernel: run() (bind group + submit-and-wait)", s, "");
    // A timed run records every dispatch into one submission, as a schedule of many kernels
    // runs: the host time of the whole run over its dispatches is what one more kernel costs.
    if gpu.timestamp_period_ns().is_none() {
        println!("wgpu tiny kernel: per dispatch in one submission   the adapter has no timestamp queries");
        return;
    }
    const BATCH: u32 = 100;
    let timed = RunOptions::new().with_repeats(BATCH);
    let runs = time_cpu(50, &mut || {
        block_on(gpu.run_prepared(&p, &timed)).unwrap();
    });
    let per = |ns: f64| ns / f64::from(BATCH);
    let s = runs.and_then(|r| Spread::of(&[per(r.min_ns()), per(r.median_ns()), per(r.max_ns())]));
    show("wgpu tiny kernel: per dispatch, 100 in one submission", s, "");
    summary.add("wgpu tiny kernel: per dispatch, 100 in one submission", s, "");
}

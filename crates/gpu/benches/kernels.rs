//! Scheduled kernels on the machine's adapter: elementwise add over 2^24 float32, a 256x256
//! float32 matmul (tiled, workgroup memory) beside the CPU interpreter and IR executor, and the
//! cost of dispatching one tiny kernel. Each measurement is host time around submit-and-wait.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pollster::block_on;
use stridelab_core::codegen::cpu;
use stridelab_core::codegen::ir::BufRef;
use stridelab_core::schedule::{trace_kernels, ScheduleOptions, StepKernels};
use stridelab_core::tensor::Event;
use stridelab_core::uop::data::Data;
use stridelab_core::uop::interp;
use stridelab_gpu::exec::{byte_len, encode, schedule_specs};
use stridelab_gpu::{acquire, AcquireOptions, Gpu, GpuBuffer, KernelSpec, RunOptions};

/// The last statement's kernels, uploaded once.
struct Prepared {
    specs: Vec<KernelSpec>,
    buffers: Vec<GpuBuffer>,
}

fn prepare(gpu: &Gpu, step: &StepKernels) -> Prepared {
    let (specs, table) = schedule_specs(&step.schedule).unwrap();
    let buffers = table
        .iter()
        .map(|b| match *b {
            BufRef::Storage(id) => block_on(gpu.upload("bench", &encode(&step.inputs[id]))).unwrap(),
            BufRef::Temp(t) => {
                let (d, n) = step.schedule.temps[t];
                block_on(gpu.create_buffer("temp", byte_len(d, n).max(4) as u64)).unwrap()
            }
        })
        .collect();
    Prepared { specs, buffers }
}

fn last_step(src: &str) -> (stridelab_core::trace::runner::Run, StepKernels) {
    let (run, mut steps) = trace_kernels(src, ScheduleOptions::default()).unwrap();
    (run, steps.pop().unwrap())
}

fn gpu_kernels(c: &mut Criterion) {
    let gpu = match block_on(acquire(&AcquireOptions::new())) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let run = |p: &Prepared| {
        let refs: Vec<&GpuBuffer> = p.buffers.iter().collect();
        block_on(gpu.run(&p.specs, &refs, &RunOptions::new().with_wallclock(true))).unwrap()
    };

    let n = 1usize << 24;
    let (_, add) = last_step(&format!("a = arange({n}.)\nb = arange({n}.) * 0.5\nc = a + b"));
    let p = prepare(&gpu, &add);
    let mut g = c.benchmark_group("wgpu");
    g.sample_size(10);
    g.throughput(Throughput::Bytes((3 * 4 * n) as u64));
    g.bench_function("add 2^24 f32", |b| b.iter(|| run(&p)));

    let m = 256usize;
    let src = format!(
        "a = (arange({}.) / {m}).reshape({m}, {m})\nb = (arange({}.) / {m}).reshape({m}, {m})\nc = a @ b",
        m * m,
        m * m
    );
    let (mrun, mm) = last_step(&src);
    let p = prepare(&gpu, &mm);
    g.throughput(Throughput::Elements((2 * m * m * m) as u64));
    g.bench_function(BenchmarkId::new("matmul", m), |b| b.iter(|| run(&p)));
    let node = mrun.engine.events().iter().rev().find_map(|e| match e {
        Event::Realize { node, .. } => Some(*node),
        _ => None,
    });
    let node = node.unwrap();
    g.bench_function(BenchmarkId::new("matmul cpu interpreter", m), |b| {
        b.iter(|| interp::realize(mrun.engine.graph(), &mm.inputs, node).unwrap())
    });
    g.bench_function(BenchmarkId::new("matmul cpu ir", m), |b| {
        b.iter(|| {
            let mut storages: Vec<Data> = mm.inputs.clone();
            let mut bufs = cpu::Buffers { storages: &mut storages, temps: Vec::new() };
            for k in &mm.schedule.kernels {
                cpu::execute(k, &mut bufs).unwrap();
            }
        })
    });

    let (_, tiny) = last_step("a = arange(4.)\nb = a + 1");
    let p = prepare(&gpu, &tiny);
    g.throughput(Throughput::Elements(1));
    g.bench_function("dispatch one tiny kernel", |b| b.iter(|| run(&p)));
    g.finish();
}

criterion_group!(benches, gpu_kernels);
criterion_main!(benches);

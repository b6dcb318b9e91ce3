//! Kernel pipeline costs: scheduling plus WGSL rendering per trace, and the CPU IR executor
//! against the reference interpreter on elementwise add and a full sum over 2^22 float32.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stridelab_core::codegen::{cpu, wgsl};
use stridelab_core::schedule::{schedule_events, ScheduleOptions};
use stridelab_core::tensor::Event;
use stridelab_core::trace::interp::kernels::trace_kernels;
use stridelab_core::uop::buffer::Data;
use stridelab_core::uop::interp;

const TRACES: &[&str] = &[
    "a = arange(4096.)\nb = ((a * 2 + 1).exp()).sum()",
    "a = arange(12.).reshape(3, 4)\nb = arange(8.).reshape(4, 2)\nc = arange(2.)\nd = ((a @ b) + c).relu()",
    "a = arange(6.).reshape(2, 3)\nb = (a - a.amax(1, keepdim=True)).exp()",
    "a = arange(8, dtype=uint8)\na[1:5] = 7",
    "a = arange(-6, 6)\nb = (a // 4) + (a % 3)",
];

fn codegen(c: &mut Criterion) {
    let runs: Vec<_> = TRACES.iter().map(|t| trace_kernels(t, ScheduleOptions::default()).unwrap().0).collect();
    let kernels: usize = runs
        .iter()
        .flat_map(|r| {
            r.steps.iter().map(move |s| {
                schedule_events(&r.engine, s.events.clone(), ScheduleOptions::default()).unwrap().kernels.len()
            })
        })
        .sum();
    let mut g = c.benchmark_group("codegen");
    g.throughput(Throughput::Elements(kernels as u64));
    g.bench_function("schedule+render", |b| {
        b.iter(|| {
            for r in &runs {
                for s in &r.steps {
                    let sched = schedule_events(&r.engine, s.events.clone(), ScheduleOptions::default()).unwrap();
                    for k in &sched.kernels {
                        std::hint::black_box(wgsl::render(k).unwrap());
                    }
                }
            }
        })
    });
    g.finish();
}

fn executor(c: &mut Criterion) {
    let n = 1usize << 22;
    let mut g = c.benchmark_group("executor");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    for (name, expr) in [("add", "c = a + b"), ("sum", "c = a.sum()")] {
        let src = format!("a = arange({n}.)\nb = arange({n}.) * 0.5\n{expr}");
        let (run, steps) = trace_kernels(&src, ScheduleOptions::default()).unwrap();
        let step = steps.last().unwrap();
        let node = run.engine.events().iter().rev().find_map(|e| match e {
            Event::Realize { node, .. } => Some(*node),
            _ => None,
        });
        let node = node.unwrap();
        // Every storage, dense, as the interpreter indexes them: the step's inputs where it has them.
        let inputs: Vec<Data> = (0..run.engine.storage_count())
            .map(|i| step.inputs.get(&i).cloned().unwrap_or_else(|| run.engine.storage(i).data.clone()))
            .collect();
        g.bench_function(BenchmarkId::new("interpreter", name), |b| {
            b.iter(|| interp::realize(run.engine.graph(), &inputs, node).unwrap())
        });
        g.bench_function(BenchmarkId::new("ir", name), |b| {
            b.iter(|| {
                let mut storages: Vec<Data> = inputs.clone();
                // A two-stage reduce passes its partial results through temporaries.
                let temps = step.schedule.temps.iter().map(|&(d, n)| Data::zeros(d, n)).collect();
                let mut bufs = cpu::Buffers { storages: &mut storages, temps };
                for k in &step.schedule.kernels {
                    cpu::execute(k, &mut bufs).unwrap();
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, codegen, executor);
criterion_main!(benches);

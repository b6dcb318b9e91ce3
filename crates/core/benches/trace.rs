//! Replay and interpreter throughput: the figures the README quotes.
//!
//! Traces are generated here, deterministically, so the benchmark needs no files.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::trace::report::{report, ReportOptions};
use stridelab_core::uop::buffer::Data;
use stridelab_core::uop::{interp, BinaryOp, Graph, Op, ReduceOp};
use stridelab_core::DType;

const VIEWS: &[&str] = &[
    "b = a.permute(2, 0, 1)",
    "c = b[1:, ::2]",
    "d = a.view(256, 16)",
    "e = d.t()",
    "f = a.expand(2, 16, 16, 16)",
    "g = a[3]",
    "h = a.unsqueeze(0).flatten(0, 1)",
    "i = a.transpose(0, 2).narrow(1, 2, 5)",
    "j = a.diagonal(0, 1, 2)",
    "k = a.unfold(2, 4, 4)",
];

const WRITES: &[&str] = &[
    "a += 1",
    "b.add_(2)",
    "c.mul_(0.5)",
    "d[3:5] = 7",
    "e.zero_()",
    "a[0] = a[1].clone()",
    "g.fill_(3)",
    "k.clamp_(0, 100)",
];

/// A 1,000-statement trace over a 4,096-element tensor: the view ops, then `n - 11` statements
/// cycling through `pool`.
fn trace(pool: &[&str]) -> String {
    let mut lines = vec!["a = arange(4096.).reshape(16, 16, 16)".to_string()];
    lines.extend(VIEWS.iter().map(|s| s.to_string()));
    lines.extend((0..989).map(|i| pool[(i * 7 + i / 3) % pool.len()].to_string()));
    lines.join("\n")
}

fn replay(c: &mut Criterion) {
    let views = trace(VIEWS);
    let mixed_pool: Vec<&str> = VIEWS.iter().chain(WRITES).copied().collect();
    let mixed = trace(&mixed_pool);
    // What `stridelab run --json [--steps]` does, minus writing to stdout.
    let replay = |src: &str, steps: bool| {
        let mut run = Run::run_source(src);
        let rep = report(&mut run, ReportOptions { steps, ..ReportOptions::default() });
        serde_json::to_string(&rep).map(|s| s.len()).unwrap_or(0)
    };
    c.bench_function("replay 1000 view statements", |b| b.iter(|| replay(black_box(&views), false)));
    c.bench_function("replay 1000 mixed statements with steps", |b| b.iter(|| replay(black_box(&mixed), true)));
}

fn interpreter(c: &mut Criterion) {
    let n = 1 << 22;
    let storages =
        vec![Data::F32((0..n).map(|i| i as f32 * 0.5).collect()), Data::F32((0..n).map(|i| 1.0 - i as f32).collect())];
    let mut g = Graph::new();
    let a = g.push(Op::Buffer(0), DType::Float32, vec![n], vec![]);
    let b = g.push(Op::Buffer(1), DType::Float32, vec![n], vec![]);
    let add = g.push(Op::Binary(BinaryOp::Add), DType::Float32, vec![n], vec![a, b]);
    let sum = g.push(Op::Reduce(ReduceOp::Sum, vec![0]), DType::Float32, vec![1], vec![a]);
    c.bench_function("interpreter add 2^22 f32", |bch| bch.iter(|| interp::realize(&g, &storages, black_box(add))));
    c.bench_function("interpreter sum 2^22 f32", |bch| bch.iter(|| interp::realize(&g, &storages, black_box(sum))));
}

criterion_group!(benches, replay, interpreter);
criterion_main!(benches);

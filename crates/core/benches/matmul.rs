//! `a @ b` of two 1024x1024 float32 matrices on the reference interpreter: the engine's graph
//! (broadcast to (M, K, N), multiply, sum K) realized as a whole, its 2^30-element product
//! contracted as a loop rather than stored.
//!
//! Side by side with numpy on the same machine (same shapes, same dtype):
//! `python -m timeit -s "import numpy as np; a = np.random.rand(1024, 1024).astype(np.float32); b = a.copy()" "a @ b"`

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use stridelab_core::uop::buffer::Data;
use stridelab_core::uop::{interp, BinaryOp, Graph, Op, ReduceOp};
use stridelab_core::DType;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul_f32_interpreter");
    group.sample_size(10);
    for n in [256usize, 1024] {
        let (m, k) = (n, n);
        let storages = vec![
            Data::F32((0..m * k).map(|i| (i % 17) as f32 * 0.125).collect()),
            Data::F32((0..k * n).map(|i| (i % 13) as f32 - 6.0).collect()),
        ];
        let mut g = Graph::new();
        let f = DType::Float32;
        let a = g.push(Op::Buffer(0), f, vec![m * k], vec![]);
        let b = g.push(Op::Buffer(1), f, vec![k * n], vec![]);
        let a = g.push(Op::Reshape(vec![m, k, 1]), f, vec![m, k, 1], vec![a]);
        let a = g.push(Op::Expand(vec![m, k, n]), f, vec![m, k, n], vec![a]);
        let b = g.push(Op::Reshape(vec![1, k, n]), f, vec![1, k, n], vec![b]);
        let b = g.push(Op::Expand(vec![m, k, n]), f, vec![m, k, n], vec![b]);
        let prod = g.push(Op::Binary(BinaryOp::Mul), f, vec![m, k, n], vec![a, b]);
        let out = g.push(Op::Reduce(ReduceOp::Sum, vec![1]), f, vec![m, 1, n], vec![prod]);
        group.bench_function(format!("{n}x{n}x{n}"), |bch| {
            bch.iter(|| interp::realize(&g, &storages, black_box(out)).map(|d| d.len()).unwrap_or(0))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

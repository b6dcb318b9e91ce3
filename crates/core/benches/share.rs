//! How long a share link takes to make and read back, for a trace of a realistic length: the
//! playground re-encodes the link as the user types, so this must stay well under a frame.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use stridelab_core::share::{decode, encode, SharedTrace, Shown};

/// A 100-line trace in the style of the hand-written examples: views, slices and in-place ops.
fn hundred_line_trace() -> SharedTrace {
    let trace = (0..100)
        .map(|i| match i % 4 {
            0 => format!("a{i} = arange({}).view(4, {})", 16 + i, 4 + i / 4),
            1 => format!("b{i} = a{}[1:, ::2].transpose(0, 1)", i - 1),
            2 => format!("b{}.mul_({i})", i - 1),
            _ => format!("c{i} = a{}.expand(2, 4, {}).contiguous()", i - 3, 4 + i / 4),
        })
        .collect::<Vec<_>>()
        .join("\n");
    SharedTrace {
        trace,
        step: Some(57),
        tensor: Some("b57".to_string()),
        backend: Some("tinygrad".to_string()),
        view: Some("kernels".to_string()),
        shown: Shown::WithTinygrad,
    }
}

fn share(c: &mut Criterion) {
    let state = hundred_line_trace();
    c.bench_function("share/encode+decode 100 lines", |b| b.iter(|| decode(&encode(black_box(&state)))));
    let fragment = encode(&state);
    c.bench_function("share/encode 100 lines", |b| b.iter(|| encode(black_box(&state))));
    c.bench_function("share/decode 100 lines", |b| b.iter(|| decode(black_box(&fragment))));
}

criterion_group!(benches, share);
criterion_main!(benches);

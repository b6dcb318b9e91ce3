//! Throughput of one movement op applied to a view, canonicalization included: the playground
//! re-derives every view of a trace on each keystroke, so this is the cost that must stay small.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use stridelab_core::shape::tracker::ShapeTracker;
use stridelab_core::shape::view::View;
use stridelab_core::Result;

/// Ops per iteration in `chain`, for the throughput figure.
const CHAIN_OPS: u64 = 8;

/// A realistic mix on a 4-d view: every op produces a new canonical view from the last.
/// `None` if a reshape needed a second view, which would make the figure meaningless.
fn chain(v: &View) -> Result<Option<View>> {
    let v = v.permute(&[0, 2, 1, 3])?;
    let v = v.pad(&[(0, 0), (1, 1), (0, 0), (2, 0)])?;
    let v = v.shrink(&[(0, 2), (1, 4), (0, 3), (1, 6)])?;
    let v = v.flip(&[false, true, false, true])?;
    let Some(v) = v.reshape(&[2, 3, 3, 5])? else {
        return Ok(None);
    };
    let Some(v) = v.reshape(&[2, 3, 1, 3, 5])? else {
        return Ok(None);
    };
    let v = v.expand(&[2, 3, 4, 3, 5])?;
    Ok(Some(v.permute(&[4, 3, 2, 1, 0])?))
}

fn tracker_chain(st: &ShapeTracker) -> Result<ShapeTracker> {
    st.permute(&[0, 2, 1, 3])?
        .pad(&[(0, 0), (1, 1), (0, 0), (2, 0)])?
        .shrink(&[(0, 2), (1, 4), (0, 3), (1, 6)])?
        .flip(&[false, true, false, true])?
        .reshape(&[2, 3, 3, 5])?
        .reshape(&[2, 3, 1, 3, 5])?
        .expand(&[2, 3, 4, 3, 5])?
        .permute(&[4, 3, 2, 1, 0])
}

fn views(c: &mut Criterion) {
    let start = View::contiguous(&[2, 4, 3, 5]);
    assert!(matches!(chain(&start), Ok(Some(_))), "the benchmark chain must stay one view");
    let mut g = c.benchmark_group("views");
    g.throughput(Throughput::Elements(CHAIN_OPS));
    g.bench_function("view_movement_chain", |b| b.iter(|| chain(black_box(&start))));
    let st = ShapeTracker::from_shape(&[2, 4, 3, 5]);
    assert!(matches!(tracker_chain(&st), Ok(t) if t.views().len() == 1));
    g.bench_function("tracker_movement_chain", |b| b.iter(|| tracker_chain(black_box(&st))));
    g.finish();

    // The interpreter's gather: 2^22 offsets of a transposed, padded, flipped view, and of a
    // two-view stack (the lower view is walked per element).
    let one = ShapeTracker::from_shape(&[1 << 20, 4])
        .and_then_chain(|s| s.permute(&[1, 0]))
        .and_then_chain(|s| s.pad(&[(0, 0), (1, 1)]))
        .and_then_chain(|s| s.flip(&[true, false]));
    let two = ShapeTracker::from_shape(&[1 << 11, 1 << 11])
        .and_then_chain(|s| s.permute(&[1, 0]))
        .and_then_chain(|s| s.reshape(&[1 << 22]));
    assert_eq!(two.views().len(), 2);
    let mut g = c.benchmark_group("offsets");
    g.sample_size(10);
    for (name, st) in [("single_view_4m", one), ("two_views_4m", two)] {
        g.throughput(Throughput::Elements(st.numel() as u64));
        g.bench_function(name, |b| b.iter(|| black_box(&st).offsets()));
    }
    g.finish();
}

/// Builds the benchmark inputs, which are valid by construction.
trait Chain {
    fn and_then_chain(self, f: impl FnOnce(&ShapeTracker) -> Result<ShapeTracker>) -> ShapeTracker;
}

impl Chain for ShapeTracker {
    fn and_then_chain(self, f: impl FnOnce(&ShapeTracker) -> Result<ShapeTracker>) -> ShapeTracker {
        match f(&self) {
            Ok(st) => st,
            Err(e) => panic!("benchmark input: {e}"),
        }
    }
}

criterion_group!(benches, views);
criterion_main!(benches);

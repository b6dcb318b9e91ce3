//! MNIST CNN inference latency on the reference interpreter, batch 1 and batch 64: the sample
//! model read once, then per iteration its graph built for the batch and realized, which is
//! what `stridelab model run` does for each call; and the same model captured at each batch and
//! replayed kernel by kernel on the interpreter, and on the CPU plan's direct f32 kernels,
//! which is what the page's CPU backend does for each run.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use stridelab_core::capture::{capture_model, Capture, CpuKernels};
use stridelab_core::model::{build, idx_images};
use stridelab_core::onnx::read_model;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

fn bench(c: &mut Criterion) {
    let read = |rel: &str| std::fs::read(format!("{DATA}/{rel}")).unwrap_or_default();
    let Ok(model) = read_model("mnist_cnn.onnx", &read("models/mnist_cnn.onnx")) else {
        eprintln!("the sample model did not read; nothing to measure");
        return;
    };
    let images = read("mnist/t10k-images-1k-idx3-ubyte.gz");
    let mut group = c.benchmark_group("mnist_cnn_cpu_interpreter");
    group.sample_size(10);
    for batch in [1usize, 64] {
        let Ok(x) = idx_images("images", &images, Some(batch)) else {
            eprintln!("the sample images did not read; nothing to measure");
            return;
        };
        group.bench_function(format!("batch_{batch}"), |b| {
            b.iter(|| {
                let outputs = build(&model, &[("input", x.clone())]).and_then(|mut e| e.outputs());
                black_box(outputs.map(|o| o.len()).unwrap_or(0))
            })
        });
        let captured = capture_model(&model, "", &[("input", x.clone())]).and_then(|(m, w)| {
            let text = serde_json::to_vec(&m).map_err(|e| stridelab_core::Error::Decode(e.to_string()))?;
            Capture::load(&text, &w)
        });
        let Ok(cap) = captured else {
            eprintln!("the sample model did not capture; no replay to measure");
            return;
        };
        group.bench_function(format!("capture_replay_batch_{batch}"), |b| {
            b.iter(|| {
                let r = cap.replay(&[("input", x.clone())], &mut || 0.0);
                black_box(r.map(|r| r.outputs.len()).unwrap_or(0))
            })
        });
        let Ok(mut plan) = cap.cpu_plan(CpuKernels::Fast) else {
            eprintln!("the capture did not plan; no direct kernels to measure");
            return;
        };
        group.bench_function(format!("direct_f32_batch_{batch}"), |b| {
            b.iter(|| {
                let r = plan.run(&[("input", x.clone())], &mut || 0.0);
                black_box(r.map(|r| r.outputs.len()).unwrap_or(0))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

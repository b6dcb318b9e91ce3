//! The sample MNIST capture prepared on whatever adapter the machine has (lavapipe in CI) and
//! replayed: its outputs must agree with the CPU replay of the same capture and with
//! onnxruntime's recorded outputs, runs must repeat exactly, and a device with too few storage
//! bindings must refuse the capture at preparation. With no adapter, each test says why and
//! returns.
// A failed expectation here is the test failing, with its message.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::PathBuf;

use pollster::block_on;
use stridelab_core::capture::Capture;
use stridelab_core::model::{idx_images, HostTensor};
use stridelab_gpu::model::capture_onnx;
use stridelab_gpu::{wgpu, Gpu, GpuModel, TimingSource};

fn data(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

mod common;
use common::device;

/// The same device reporting tighter `limits`, as a page with a lower-limit device would.
fn device_with(gpu: &Gpu, limits: wgpu::Limits) -> Gpu {
    Gpu::from_device(gpu.adapter_info().clone(), gpu.device().clone(), gpu.queue().clone(), gpu.features(), limits)
}

/// Where a case's capture comes from.
enum Source {
    /// The committed capture (batch 1).
    Committed,
    /// The ONNX file captured in memory at this batch size.
    Onnx(usize),
}

enum Expect {
    /// Runs, and the first `images` outputs match the CPU replay and onnxruntime within 1e-4.
    Agrees { images: usize },
    /// Preparation fails with this error kind and a message containing every fragment.
    Refused { kind: &'static str, fragments: &'static [&'static str] },
}

struct Case {
    name: &'static str,
    source: Source,
    /// Storage buffers per shader stage the device reports (`None`: the adapter's own).
    max_storage_buffers: Option<u32>,
    expect: Expect,
}

fn load(source: &Source) -> Capture {
    match source {
        Source::Committed => Capture::load(
            &data("models/mnist_cnn.capture/manifest.json"),
            &data("models/mnist_cnn.capture/weights.safetensors"),
        )
        .expect("the committed capture loads"),
        Source::Onnx(batch) => {
            let (m, w) = capture_onnx("mnist_cnn.onnx", &data("models/mnist_cnn.onnx"), &Default::default(), *batch)
                .expect("capture");
            Capture::load(&serde_json::to_vec(&m).unwrap(), &w).expect("the fresh capture loads")
        }
    }
}

fn ort_logits() -> Vec<f64> {
    let r: serde_json::Value = serde_json::from_slice(&data("models/mnist_cnn_ort64.json")).unwrap();
    r["output"]["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()
}

fn close(name: &str, what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{name}: {what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= 1e-4, "{name}: {what}: value {i} is {g}, expected {w}");
    }
}

fn check(gpu: &Gpu, cases: Vec<Case>) {
    let ort = ort_logits();
    for case in cases {
        let name = case.name;
        let cap = load(&case.source);
        let limited;
        let dev = match case.max_storage_buffers {
            Some(n) => {
                limited =
                    device_with(gpu, wgpu::Limits { max_storage_buffers_per_shader_stage: n, ..gpu.limits().clone() });
                &limited
            }
            None => gpu,
        };
        let prepared = block_on(GpuModel::prepare(dev, &cap));
        match case.expect {
            Expect::Refused { kind, fragments } => {
                let e = prepared.err().unwrap_or_else(|| panic!("{name}: preparation should fail"));
                assert_eq!(e.kind(), kind, "{name}: {e}");
                for f in fragments {
                    assert!(e.to_string().contains(f), "{name}: {e:?} lacks {f:?}");
                }
            }
            Expect::Agrees { images } => {
                let model = prepared.unwrap_or_else(|e| panic!("{name}: {e}"));
                let input = &cap.manifest().buffers[cap.manifest().inputs[0]];
                assert_eq!(input.shape[0], images, "{name}: the capture's batch");
                let x = idx_images(
                    "t10k-images-1k-idx3-ubyte.gz",
                    &data("mnist/t10k-images-1k-idx3-ubyte.gz"),
                    Some(images),
                )
                .unwrap();
                let cpu = cap.replay(&[(&input.name, x.clone())], &mut || 0.0).unwrap();
                let want_cpu = cpu.outputs[0].1.data().to_f64_vec();
                let runs: Vec<_> = (0..2).map(|_| block_on(model.run(dev, &[x.data().clone()])).unwrap()).collect();
                for (r, run) in runs.iter().enumerate() {
                    let (out, t): &(String, HostTensor) = &run.outputs[0];
                    assert_eq!(out, "logits", "{name}");
                    assert_eq!(t.shape(), [images, 10], "{name}");
                    let got = t.data().to_f64_vec();
                    close(name, &format!("run {r} vs the CPU replay"), &got, &want_cpu);
                    close(name, &format!("run {r} vs onnxruntime"), &got, &ort[..images * 10]);
                    assert_eq!(run.timings.len(), model.kernels().len(), "{name}: one timing per dispatch");
                    let want_source = if model.timed() { TimingSource::Timestamp } else { TimingSource::Wallclock };
                    assert!(run.timings.iter().all(|t| t.source() == want_source), "{name}: timing sources");
                    assert!(run.wall_ns > 0.0, "{name}: wall time");
                    if let Some(ns) = run.gpu_ns {
                        assert!(model.timed() && ns > 0.0, "{name}: gpu time {ns}");
                    }
                }
                assert_eq!(
                    runs[0].outputs[0].1.data().to_f64_vec(),
                    runs[1].outputs[0].1.data().to_f64_vec(),
                    "{name}: a second run on the same buffers gives the same values"
                );
            }
        }
    }
}

#[test]
fn mnist_capture_on_wgpu() {
    let Some(gpu) = device() else { return };
    check(
        &gpu,
        vec![
            Case {
                name: "committed capture, batch 1",
                source: Source::Committed,
                max_storage_buffers: None,
                expect: Expect::Agrees { images: 1 },
            },
            Case {
                name: "captured in memory, batch 64",
                source: Source::Onnx(64),
                max_storage_buffers: None,
                expect: Expect::Agrees { images: 64 },
            },
            Case {
                name: "conv needs 4 storage bindings, the device allows 3",
                source: Source::Committed,
                max_storage_buffers: Some(3),
                expect: Expect::Refused {
                    kind: "limit",
                    fragments: &["k4_conv", "max_storage_buffers_per_shader_stage = 4", "allows 3"],
                },
            },
        ],
    );
}

/// A capture whose ops lack their GPU kernels used to load (the CPU replay did not need them)
/// and then be refused only by the GPU model: now the load regenerates every kernel and refuses
/// it, so the CPU and GPU paths accept the same captures.
#[test]
fn stripped_captures_are_refused_at_load() {
    for k in [2, 9] {
        let mut m: serde_json::Value = serde_json::from_slice(&data("models/mnist_cnn.capture/manifest.json")).unwrap();
        m["kernels"][k]["gpu"] = serde_json::json!([]);
        let err =
            Capture::load(&serde_json::to_vec(&m).unwrap(), &data("models/mnist_cnn.capture/weights.safetensors"))
                .err()
                .unwrap_or_else(|| panic!("kernel {k} stripped: loaded"));
        assert!(err.message().contains("number of GPU kernels differs"), "{err}");
    }
}

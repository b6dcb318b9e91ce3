//! ONNX execution on the engine against references: every committed ONNX backend node test
//! (its own inputs and expected outputs), and the sample MNIST model against outputs that
//! onnxruntime computed for the first 64 test images (tools/models/make_ort_reference.py).

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stridelab_core::capture::{capture_model, Capture, CpuKernels};
use stridelab_core::model::{execute, HostTensor};
use stridelab_core::onnx::{read_model, read_tensor};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{DATA}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Agreement within 1e-4 absolute plus 1e-4 relative; integer outputs must match exactly.
fn assert_close(what: &str, got: &HostTensor, want: &HostTensor) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (got.data().to_f64_vec(), want.data().to_f64_vec());
    let exact = !want.dtype().is_float();
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if exact { a == b } else { (a - b).abs() <= 1e-4 + 1e-4 * b.abs() || (a.is_nan() && b.is_nan()) };
        assert!(ok, "{what}: element {i}: got {a}, want {b}");
    }
}

/// The node tests whose kernels stay on the interpreter in the CPU plan: 1-D and 3-D windows,
/// MaxPool's argmax output, training-mode BatchNormalization and MatMul with 1-D or broadcast
/// batch operands. Every other test runs entirely on the direct f32 kernels.
const INTERPRETED: [&str; 13] = [
    "test_averagepool_1d_default",
    "test_averagepool_3d_dilations_small",
    "test_batchnorm_epsilon_training_mode",
    "test_batchnorm_example_training_mode",
    "test_matmul_1d_1d",
    "test_matmul_1d_3d",
    "test_matmul_4d_1d",
    "test_matmul_bcast",
    "test_maxpool_1d_default",
    "test_maxpool_3d_dilations",
    "test_maxpool_3d_dilations_use_ref_impl",
    "test_maxpool_with_argmax_2d_precomputed_pads",
    "test_maxpool_with_argmax_2d_precomputed_strides",
];

/// Runs one node-test directory: the model on `input_N.pb`, compared with `output_N.pb`.
fn run_node_test(dir: &str) {
    let model = read_model(dir, &read(&format!("onnx_node/{dir}/model.onnx"))).unwrap_or_else(|e| panic!("{dir}: {e}"));
    let set = format!("onnx_node/{dir}/test_data_set_0");
    let inputs: Vec<(&str, HostTensor)> = model
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let t = read_tensor(dir, &read(&format!("{set}/input_{i}.pb"))).unwrap();
            (v.name(), HostTensor::from_onnx(&t).unwrap())
        })
        .collect();
    let outputs = execute(&model, &inputs).unwrap_or_else(|e| panic!("{dir}: {e}"));
    // The same model captured and replayed by the CPU plan's direct f32 kernels.
    let (manifest, weights) = capture_model(&model, "", &inputs).unwrap_or_else(|e| panic!("{dir}: capture: {e}"));
    let cap = Capture::load(&serde_json::to_vec(&manifest).unwrap(), &weights).unwrap();
    let mut plan = cap.cpu_plan(CpuKernels::Fast).unwrap();
    let all_fast = plan.steps().all(|(_, direct)| direct);
    assert_eq!(all_fast, !INTERPRETED.contains(&dir), "{dir}: {:?}", plan.steps().collect::<Vec<_>>());
    let replayed = plan.run(&inputs, &mut || 0.0).unwrap_or_else(|e| panic!("{dir}: plan: {e}")).outputs;
    assert_eq!(outputs.len(), model.outputs().len());
    assert_eq!(replayed.len(), outputs.len());
    for (i, ((name, got), (_, fast))) in outputs.iter().zip(&replayed).enumerate() {
        let want = HostTensor::from_onnx(&read_tensor(dir, &read(&format!("{set}/output_{i}.pb"))).unwrap()).unwrap();
        assert_close(&format!("{dir} output {name}"), got, &want);
        assert_close(&format!("{dir} output {name}, direct kernels"), fast, &want);
    }
}

#[test]
fn onnx_node_tests() {
    let mut dirs: Vec<String> = std::fs::read_dir(format!("{DATA}/onnx_node"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 128, "the committed subset");
    for dir in &dirs {
        run_node_test(dir);
    }
}

fn reference() -> serde_json::Value {
    serde_json::from_slice(&read("models/mnist_cnn_ort64.json")).unwrap()
}

/// The sample model on the first 64 test images agrees with onnxruntime, whether the images
/// are run as one batch or in smaller batches, and its predictions match the labels it was
/// measured on.
#[test]
fn mnist_model_matches_onnxruntime() {
    let bytes = read("models/mnist_cnn.onnx");
    let reference = reference();
    assert_eq!(reference["model_sha256"], stridelab_core::data::sha256_hex(&bytes));
    let model = read_model("mnist_cnn.onnx", &bytes).unwrap();
    let images = read("mnist/t10k-images-1k-idx3-ubyte.gz");
    let want: Vec<f64> =
        reference["output"]["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let labels = stridelab_core::data::read_idx("labels", &read("mnist/t10k-labels-1k-idx1-ubyte.gz"), None).unwrap();
    // (first image, count) batches covering the 64 reference images.
    for (start, count) in [(0usize, 64usize), (0, 1), (5, 3)] {
        let all = stridelab_core::model::idx_images("images", &images, Some(start + count)).unwrap();
        let data = all.data().to_f64_vec()[start * 784..].iter().map(|&v| v as f32).collect();
        let x = HostTensor::new(vec![count, 1, 28, 28], stridelab_core::uop::buffer::Data::F32(data)).unwrap();
        let out = execute(&model, &[("input", x.clone())]).unwrap();
        let [(name, logits)] = out.as_slice() else { panic!("one output") };
        // The capture on the CPU plan, every kernel a direct f32 one, run twice on its buffers.
        let (manifest, weights) = capture_model(&model, "", &[("input", x.clone())]).unwrap();
        let cap = Capture::load(&serde_json::to_vec(&manifest).unwrap(), &weights).unwrap();
        let mut plan = cap.cpu_plan(CpuKernels::Fast).unwrap();
        let steps: Vec<(&str, bool)> = plan.steps().collect();
        let fused: Vec<&str> = steps.iter().filter(|(n, _)| n.contains('+')).map(|(n, _)| *n).collect();
        assert_eq!(fused, ["k4_conv+k5_relu+k6_maxpool", "k7_conv+k8_relu+k9_maxpool"]);
        assert!(steps.iter().all(|&(_, direct)| direct), "{steps:?}");
        let mut fast = Vec::new();
        for _ in 0..2 {
            fast = plan.run(&[("input", x.clone())], &mut || 0.0).unwrap().outputs;
        }
        assert_eq!(name, "logits");
        let want = HostTensor::new(
            vec![count, 10],
            stridelab_core::uop::buffer::Data::F32(
                want[start * 10..(start + count) * 10].iter().map(|&v| v as f32).collect(),
            ),
        )
        .unwrap();
        assert_close(&format!("mnist batch {start}+{count}"), logits, &want);
        assert_close(&format!("mnist batch {start}+{count}, direct kernels"), &fast[0].1, &want);
        if count == 64 {
            let got = logits.data().to_f64_vec();
            let correct = (0..count)
                .filter(|&i| {
                    let row = &got[i * 10..(i + 1) * 10];
                    let best = (0..10).fold(0, |b, k| if row[k] > row[b] { k } else { b });
                    best == usize::from(labels.data()[i])
                })
                .count();
            // The model is 98.6% accurate on the full test set; all of the first 64 are right.
            assert_eq!(correct, 64);
        }
    }
}

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

/// How many node tests the committed subset holds.
const NODE_TESTS: usize = 941;

/// The ops the CPU plan has direct f32 kernels for: a node test of only these ops, on float32
/// values, runs entirely on them (except [`INTERPRETED`]).
const DIRECT: [&str; 33] = [
    "Conv",
    "Relu",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "Flatten",
    "Reshape",
    "Gemm",
    "MatMul",
    "Add",
    "Mul",
    "Sub",
    "Div",
    "Softmax",
    "BatchNormalization",
    "Clip",
    "Transpose",
    "Concat",
    "Constant",
    "Abs",
    "Neg",
    "Sqrt",
    "Reciprocal",
    "Exp",
    "Log",
    "Tanh",
    "Sigmoid",
    "Erf",
    "Pow",
    "LayerNormalization",
    "Split",
    "Squeeze",
    "Identity",
];

/// The node tests of supported ops that use what the front end refuses, each with (part of)
/// the message it is refused with: cubic and antialiased Resize, crop-and-resize, aspect-ratio
/// policies, an einsum ellipsis, GatherND's batch dims, ScatterND's mul/max/min, training-mode
/// Dropout.
const REFUSED: [(&str, &str); 32] = [
    ("test_einsum_batch_diagonal", "ellipsis"),
    ("test_gathernd_example_int32_batch_dim1", "batch_dims"),
    ("test_resize_downsample_scales_cubic", "mode \"cubic\""),
    ("test_resize_downsample_scales_cubic_A_n0p5_exclude_outside", "mode \"cubic\""),
    ("test_resize_downsample_scales_cubic_align_corners", "mode \"cubic\""),
    ("test_resize_downsample_scales_cubic_antialias", "mode \"cubic\""),
    ("test_resize_downsample_scales_linear_antialias", "antialias"),
    ("test_resize_downsample_sizes_cubic", "mode \"cubic\""),
    ("test_resize_downsample_sizes_cubic_antialias", "mode \"cubic\""),
    ("test_resize_downsample_sizes_linear_antialias", "antialias"),
    ("test_resize_downsample_sizes_nearest_not_larger", "keep_aspect_ratio_policy"),
    ("test_resize_downsample_sizes_nearest_not_smaller", "keep_aspect_ratio_policy"),
    ("test_resize_tf_crop_and_resize", "tf_crop_and_resize"),
    ("test_resize_tf_crop_and_resize_axes_2_3", "tf_crop_and_resize"),
    ("test_resize_tf_crop_and_resize_axes_3_2", "tf_crop_and_resize"),
    ("test_resize_tf_crop_and_resize_extrapolation_value", "tf_crop_and_resize"),
    ("test_resize_upsample_scales_cubic", "mode \"cubic\""),
    ("test_resize_upsample_scales_cubic_A_n0p5_exclude_outside", "mode \"cubic\""),
    ("test_resize_upsample_scales_cubic_align_corners", "mode \"cubic\""),
    ("test_resize_upsample_scales_cubic_asymmetric", "mode \"cubic\""),
    ("test_resize_upsample_sizes_cubic", "mode \"cubic\""),
    ("test_resize_upsample_sizes_nearest_not_larger", "keep_aspect_ratio_policy"),
    ("test_resize_upsample_sizes_nearest_not_smaller", "keep_aspect_ratio_policy"),
    ("test_scatternd_max", "reduction \"max\""),
    ("test_scatternd_min", "reduction \"min\""),
    ("test_scatternd_multiply", "reduction \"mul\""),
    ("test_training_dropout", "training mode"),
    ("test_training_dropout_default", "training mode"),
    ("test_training_dropout_default_mask", "training mode"),
    ("test_training_dropout_mask", "training mode"),
    ("test_training_dropout_zero_ratio", "training mode"),
    ("test_training_dropout_zero_ratio_mask", "training mode"),
];

/// Runs one node-test directory: the model on `input_N.pb`, compared with `output_N.pb`, by
/// the interpreter and by a capture's CPU plan.
fn run_node_test(dir: &str) -> Result<(), String> {
    let model = read_model(dir, &read(&format!("onnx_node/{dir}/model.onnx"))).map_err(|e| format!("{dir}: {e}"))?;
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
    let outputs = execute(&model, &inputs).map_err(|e| format!("{dir}: {e}"))?;
    if outputs.len() != model.outputs().len() {
        return Err(format!("{dir}: {} outputs", outputs.len()));
    }
    for (i, (name, got)) in outputs.iter().enumerate() {
        let want = HostTensor::from_onnx(&read_tensor(dir, &read(&format!("{set}/output_{i}.pb"))).unwrap()).unwrap();
        close(&format!("{dir} output {name}"), got, &want)?;
    }
    // The same model captured and replayed by the CPU plan (direct f32 kernels where written),
    // for float32 models: captures also carry each kernel's WGSL, which has no 8-, 16- or
    // 64-bit types.
    let float32 = |t: &HostTensor| t.dtype() == stridelab_core::DType::Float32;
    if !inputs.iter().all(|(_, t)| float32(t)) || !outputs.iter().all(|(_, t)| float32(t)) {
        return Ok(());
    }
    let (manifest, weights) = match capture_model(&model, "", &inputs) {
        Ok(c) => c,
        // A node test that feeds Resize its scales as an input: a capture's inputs are data,
        // and it says so.
        Err(e) if e.message().contains("as a value (a shape, bound or scale)") => return Ok(()),
        Err(e) => return Err(format!("{dir}: capture: {e}")),
    };
    let cap = Capture::load(&serde_json::to_vec(&manifest).unwrap(), &weights)
        .map_err(|e| format!("{dir}: capture load: {e}"))?;
    let mut plan = cap.cpu_plan(CpuKernels::Fast).unwrap();
    let direct_case = model.nodes().iter().all(|n| DIRECT.contains(&n.op_type()))
        && inputs.iter().all(|(_, t)| t.dtype() == stridelab_core::DType::Float32);
    if direct_case {
        let all_fast = plan.steps().all(|(_, direct)| direct);
        assert_eq!(all_fast, !INTERPRETED.contains(&dir), "{dir}: {:?}", plan.steps().collect::<Vec<_>>());
    }
    let replayed = plan.run(&inputs, &mut || 0.0).map_err(|e| format!("{dir}: plan: {e}"))?.outputs;
    for ((name, fast), (_, got)) in replayed.iter().zip(&outputs) {
        close(&format!("{dir} output {name}, CPU plan"), fast, got)?;
    }
    Ok(())
}

/// Agreement within 1e-4 absolute plus 1e-4 relative; integer outputs must match exactly.
fn close(what: &str, got: &HostTensor, want: &HostTensor) -> Result<(), String> {
    if got.shape() != want.shape() {
        return Err(format!("{what}: shape {:?}, want {:?}", got.shape(), want.shape()));
    }
    if got.dtype().is_float() != want.dtype().is_float() {
        return Err(format!("{what}: dtype {}, want {}", got.dtype(), want.dtype()));
    }
    let (g, w) = (got.data().to_f64_vec(), want.data().to_f64_vec());
    let exact = !want.dtype().is_float();
    // float16 holds 11 bits: a result computed in another order may differ in its last one.
    let rel = if want.dtype() == stridelab_core::DType::Float16 { 2e-3 } else { 1e-4 };
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = a == b || (!exact && ((a - b).abs() <= 1e-4 + rel * b.abs() || (a.is_nan() && b.is_nan())));
        if !ok {
            return Err(format!("{what}: element {i}: got {a}, want {b}"));
        }
    }
    Ok(())
}

#[test]
fn onnx_node_tests() {
    let mut dirs: Vec<String> = std::fs::read_dir(format!("{DATA}/onnx_node"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), NODE_TESTS, "the committed subset");
    let mut failures = Vec::new();
    for d in &dirs {
        let refused = REFUSED.iter().find(|(name, _)| name == d);
        match (run_node_test(d), refused) {
            (Ok(()), None) => {}
            (Err(e), Some((_, why))) if e.contains(why) => {}
            (Err(e), _) => failures.push(e),
            (Ok(()), Some(_)) => failures.push(format!("{d}: runs, but is listed as refused")),
        }
    }
    assert!(failures.is_empty(), "{} of {} node tests fail:\n{}", failures.len(), dirs.len(), failures.join("\n"));
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
        close(&format!("mnist batch {start}+{count}"), logits, &want).unwrap();
        close(&format!("mnist batch {start}+{count}, direct kernels"), &fast[0].1, &want).unwrap();
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

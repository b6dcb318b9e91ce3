//! `stridelab model ...` and `stridelab run --file` end to end: each case is a command line over
//! the committed samples (or a broken copy of one) and what it must print or refuse with.

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

fn data(rel: &str) -> String {
    format!("{DATA}/{rel}")
}

/// A scratch directory for broken copies, unique to this test process.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stridelab-model-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

fn gunzip(rel: &str) -> Vec<u8> {
    stridelab_core::data::gunzip(rel, &std::fs::read(data(rel)).unwrap(), 64 << 20).unwrap()
}

enum Want {
    /// Exit 0 and stdout contains every part.
    Ok(Vec<String>),
    /// Exit 0 and stdout is JSON whose `logits` agree with these values within 1e-4.
    Logits(Vec<f64>),
    /// Exit 2 and stderr contains the part.
    Fails(String),
}

mod common;

fn check(args: &[String], stdin: Option<&str>, want: Want) {
    let (code, stdout, stderr) = common::stridelab(args, stdin.unwrap_or(""));
    match want {
        Want::Ok(parts) => {
            assert_eq!(code, Some(0), "{args:?}: {stderr}");
            for p in parts {
                assert!(stdout.contains(&p), "{args:?}: {p:?} not in {stdout}");
            }
        }
        Want::Logits(want) => {
            assert_eq!(code, Some(0), "{args:?}: {stderr}");
            let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            let got: Vec<f64> =
                v["outputs"]["logits"]["values"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            assert_eq!(got.len(), want.len(), "{args:?}");
            for (a, b) in got.iter().zip(&want) {
                assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{args:?}: {a} vs {b}");
            }
            // The kernels of the CPU plan that ran: each names the graph nodes it covers and is
            // either a direct routine or a scheduled kernel with its WGSL; each node lists its kernels.
            let ks = v["kernels"].as_array().unwrap();
            assert!(!ks.is_empty(), "{args:?}");
            for k in ks {
                let direct = k["direct"].as_bool() == Some(true);
                let wgsl = k["wgsl"].as_str().is_some_and(|w| w.contains("@compute"));
                assert!(direct || wgsl, "{args:?}: {k}");
                let nodes = k["nodes"].as_array().unwrap();
                assert!(!nodes.is_empty(), "{args:?}: {k}");
                for n in nodes {
                    let node = v["nodes"].as_array().unwrap().iter().find(|m| m["name"] == *n).unwrap();
                    assert!(node["kernels"].as_array().unwrap().contains(&k["name"]), "{args:?}: {node}");
                }
            }
            assert!(v["prepare_ms"].as_f64().is_some() && v["ms"].as_f64().is_some(), "{args:?}");
        }
        Want::Fails(part) => {
            assert_eq!(code, Some(2), "{args:?}: {stdout} {stderr}");
            assert!(stderr.contains(&part), "{args:?}: {part:?} not in {stderr}");
        }
    }
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn model_commands() {
    let dir = scratch();
    let model = data("models/mnist_cnn.onnx");
    let images = data("mnist/t10k-images-1k-idx3-ubyte.gz");
    let raw = gunzip("mnist/t10k-images-1k-idx3-ubyte.gz");
    let truncated = write(&dir, "truncated.idx", &raw[..raw.len() - 100]);
    let mut magic = raw.clone();
    magic[0] = 1;
    let magic = write(&dir, "magic.idx", &magic);
    let mut count = raw.clone();
    count[4..8].copy_from_slice(&2000u32.to_be_bytes());
    let count = write(&dir, "count.idx", &count);
    let cifar = std::fs::read(data("cifar/sample_batch.bin")).unwrap();
    let cifar_short = write(&dir, "short.bin", &cifar[..cifar.len() - 1]);
    let mut label = cifar.clone();
    label[3073] = 10;
    let cifar_label = write(&dir, "label.bin", &label);
    let onnx = std::fs::read(&model).unwrap();
    let half = write(&dir, "half.onnx", &onnx[..onnx.len() / 2]);
    let cap = dir.join("cap");
    let cap_s = cap.to_string_lossy().into_owned();
    let reference: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data("models/mnist_cnn_ort64.json")).unwrap()).unwrap();
    let first_rows: Vec<f64> =
        reference["output"]["values"].as_array().unwrap()[..20].iter().map(|x| x.as_f64().unwrap()).collect();

    let run = |extra: &[&str]| -> Vec<String> { [s(&["model", "run", &model]), s(extra)].concat() };
    let gpt = data("models/export/gpt_dynamo_random/model.onnx");
    let gpt_classic = data("models/export/gpt_classic_random/model.onnx");
    let gpt_ids = data("models/export/gpt_dynamo_random/input_0.npy");
    let vit_pixels = data("models/export/vit_classic_random/input_0.npy");
    #[rustfmt::skip]
    let cases: Vec<(Vec<String>, Want)> = vec![
        (run(&["--mnist", &images, "--first", "2"]), Want::Ok(s(&["logits: shape [2, 10]", "0: class 7", "1: class 2"]))),
        (run(&["--mnist", &images, "--first", "2", "--json"]), Want::Logits(first_rows)),
        (run(&["--mnist", &truncated]), Want::Fails("truncated.idx: truncated: dimensions 1000 x 28 x 28 declare 784000 data bytes but only 783900 are present".into())),
        (run(&["--mnist", &magic]), Want::Fails("magic.idx: bad IDX magic".into())),
        (run(&["--mnist", &count]), Want::Fails("count.idx: truncated: dimensions 2000 x 28 x 28".into())),
        (run(&["--mnist", &images, "--first", "1001"]), Want::Fails("asked for the first 1001 images, the file has 1000".into())),
        (run(&["--cifar", &cifar_short]), Want::Fails("not a whole number of 3073-byte records".into())),
        (run(&["--cifar", &cifar_label]), Want::Fails("record 1 has label 10".into())),
        (run(&["--cifar", &data("cifar/sample_batch.bin"), "--first", "1"]), Want::Fails("was given float32 [1, 3, 32, 32]".into())),
        (run(&["--mnist", &images, "--first", "1", "--backend", "tpu"]), Want::Fails("invalid value 'tpu'".into())),
        (run(&["--mnist", &images, "--first", "2", "--backend", "cpu"]), Want::Ok(s(&["1: class 2", "kernel k4_conv+k5_relu+k6_maxpool Conv+Relu+MaxPool", "6 kernels"]))),
        (run(&["--mnist", &images, "--first", "2", "--backend", "wgpu"]), Want::Ok(s(&["1: class 2", "kernel mm_2_10_784 matmul", "5 kernels"]))),
        (s(&["model", "run", &half, "--mnist", &images]), Want::Fails("half.onnx: not an ONNX model".into())),
        (s(&["model", "capture", &model, &cap_s, "--batch", "2"]), Want::Ok(vec![])),
        (s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "2", "--json"]), Want::Ok(s(&["\"shape\":[2,10]", "\"name\":\"k4_conv+k5_relu+k6_maxpool\",\"op\":\"Conv+Relu+MaxPool\"", "\"direct\":true", "\"ms\":"]))),
        (s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "2", "--reference", "--json"]), Want::Ok(s(&["\"shape\":[2,10]", "\"name\":\"k4_conv\",\"op\":\"Conv\"", "\"direct\":false"]))),
        (s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "2", "--reference", "--backend", "wgpu"]), Want::Fails("--reference runs the interpreter, which is the cpu backend".into())),
        (s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "2", "--backend", "wgpu"]), Want::Ok(s(&["0: class 7", "1: class 2", "kernel k4_conv.r_2_8_28_28_1_3_3 Conv", "9 kernels"]))),
        (s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "2", "--backend", "wgpu", "--json"]), Want::Ok(s(&["\"shape\":[2,10]", "\"name\":\"k11_gemm.", "\"op\":\"Gemm\""]))),
        (s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "3", "--backend", "wgpu"]), Want::Fails("input \"input\" (float32 [2, 1, 28, 28]) was given float32 [3, 1, 28, 28]".into())),
        (s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "3"]), Want::Fails("input \"input\" (float32 [2, 1, 28, 28]) was given float32 [3, 1, 28, 28]".into())),
        (s(&["model", "replay", &data("models/mnist_cnn.capture"), "--mnist", &images, "--first", "1"]), Want::Ok(s(&["0: class 7", "kernel k11_gemm Gemm"]))),
        // Any input by name: token ids from .npy into a model whose weights sit in model.onnx.data,
        // seeded random inputs, and what a model takes when it is not fed.
        (s(&["model", "run", &gpt, "--input", &format!("idx={gpt_ids}"), "--json"]), Want::Ok(s(&["\"logits\":{\"shape\":[1,12,64],\"dtype\":\"float32\",\"values\":[-0.1998", "\"runs\":1"]))),
        (s(&["model", "run", &gpt_classic, "--input", "idx=random:7:64", "--runs", "2", "--json"]), Want::Ok(s(&["\"runs\":2", "\"ms\":", "\"/h.0/attn/Split_output_1\":{\"role\":\"computed\",\"node\":7,\"shape\":[1,12,32],\"dtype\":\"float32\",\"strides\":[1152,96,1],\"storage_offset\":32,\"is_view\":true,\"storage_of\":\"/h.0/attn/c_attn/Add_output_0\",\"view_chain\":[\"/h.0/attn/c_attn/Add_output_0\"]}", "{\"name\":\"/h.0/attn/Split\",\"op\":\"Split\",\"inputs\":[\"/h.0/attn/c_attn/Add_output_0\",\"/h.0/attn/Constant_output_0\"]"]))),
        (s(&["model", "run", &gpt]), Want::Fails("takes \"idx\" (int32 [1, 12]); give --input NAME=FILE.npy".into())),
        (s(&["model", "run", &gpt, "--input", "idx=random:x"]), Want::Fails("expected random:SEED[:HIGH]".into())),
        (s(&["model", "run", &gpt, "--input", "ids=random:1"]), Want::Fails("has no input \"ids\"; it takes \"idx\"".into())),
        (s(&["model", "run", &gpt, "--input", &format!("idx={vit_pixels}")]), Want::Fails("holds float32, the model takes int32".into())),
        (s(&["model", "run", &gpt, "--input", "idx=random:1:64", "--runs", "0"]), Want::Fails("--runs must be at least 1".into())),
    ];
    for (args, want) in cases {
        check(&args, None, want);
    }
    // A capture whose weights no longer match their pins.
    let wpath = cap.join("weights.safetensors");
    let mut w = std::fs::read(&wpath).unwrap();
    let n = w.len();
    w[n - 1] ^= 1;
    std::fs::write(&wpath, &w).unwrap();
    check(
        &s(&["model", "replay", &cap_s, "--mnist", &images, "--first", "2"]),
        None,
        Want::Fails("weights.safetensors: sha256 mismatch".into()),
    );

    // Traces read the registered samples and `--file` additions by name.
    let trace = "raw = dataset(\"mnist-t10k-images-1k\")\nimages = raw[0x10:].reshape(-1, 1, 28, 28)\nmine = dataset(\"mine\")[8:]\n";
    let labels = data("mnist/t10k-labels-1k-idx1-ubyte.gz");
    let file_arg = format!("mine={labels}");
    check(
        &s(&["run", "-", "--json", "--file", &file_arg]),
        Some(trace),
        Want::Ok(s(&["\"images\"", "\"storage_offset\":16", "\"storage_offset\":8"])),
    );
    check(&s(&["run", "-", "--file", "nonsense"]), Some(trace), Want::Fails("expected NAME=PATH".into()));
    std::fs::remove_dir_all(&dir).unwrap();
}

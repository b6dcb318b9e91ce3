//! Models as `torch.onnx.export` writes them (tools/models/make_export_models.py): seven small
//! architectures, each under the classic exporter (opset 17) and the default one (opset 18,
//! weights in `model.onnx.data`), with default-initialised and random weights, run on their
//! seeded inputs (by the interpreter and by a capture's CPU plan) and compared with
//! onnxruntime's outputs.

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stridelab_core::capture::{capture_model, Capture, CpuKernels};
use stridelab_core::model::{execute, read_npy, HostTensor};
use stridelab_core::onnx::{external_locations, read_model_with, ExternalFiles};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/models/export");

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Within 1e-4 relative (plus 1e-5 absolute for values near zero); integers exactly.
fn close(what: &str, got: &HostTensor, want: &HostTensor) -> Result<(), String> {
    if got.shape() != want.shape() {
        return Err(format!("{what}: shape {:?}, want {:?}", got.shape(), want.shape()));
    }
    let (g, w) = (got.data().to_f64_vec(), want.data().to_f64_vec());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        if (a - b).abs() > 1e-5 + 1e-4 * b.abs() {
            return Err(format!("{what}: element {i}: got {a}, want {b}"));
        }
    }
    Ok(())
}

fn run_variant(name: &str) -> Result<(), String> {
    let bytes = read(&format!("{name}/model.onnx"));
    let mut files = ExternalFiles::new();
    for loc in external_locations(name, &bytes).map_err(|e| e.to_string())? {
        files.insert(loc.clone(), read(&format!("{name}/{loc}")));
    }
    let model = read_model_with(name, &bytes, &files).map_err(|e| format!("{name}: {e}"))?;
    let inputs: Vec<(&str, HostTensor)> = model
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let t = read_npy(name, &read(&format!("{name}/input_{i}.npy"))).unwrap();
            (v.name(), t.for_model(v.name()).unwrap())
        })
        .collect();
    let outputs = execute(&model, &inputs).map_err(|e| format!("{name}: {e}"))?;
    // The same model captured, loaded and replayed on the CPU plan.
    let (manifest, weights) = capture_model(&model, "", &inputs).map_err(|e| format!("{name}: capture: {e}"))?;
    let cap = Capture::load(&serde_json::to_vec(&manifest).unwrap(), &weights)
        .map_err(|e| format!("{name}: capture load: {e}"))?;
    let mut plan = cap.cpu_plan(CpuKernels::Fast).map_err(|e| format!("{name}: CPU plan: {e}"))?;
    let replayed = plan.run(&inputs, &mut || 0.0).map_err(|e| format!("{name}: CPU plan: {e}"))?.outputs;
    // A capture serves any input of its shapes: the plan fed the input reversed agrees with
    // the interpreter on that input (token ids select other rows through the same kernels).
    let reversed: Vec<(&str, HostTensor)> = inputs
        .iter()
        .map(|(n, t)| {
            let mut v = t.data().to_f64_vec();
            v.reverse();
            let data = stridelab_core::uop::buffer::Data::F64(v).cast(t.dtype());
            (*n, HostTensor::new(t.shape().to_vec(), data).unwrap())
        })
        .collect();
    let again = plan.run(&reversed, &mut || 0.0).map_err(|e| format!("{name}: CPU plan, reversed input: {e}"))?.outputs;
    let fresh = execute(&model, &reversed).map_err(|e| format!("{name}: reversed input: {e}"))?;
    for ((out, a), (_, b)) in again.iter().zip(&fresh) {
        close(&format!("{name} output {out}, reversed input"), a, b)?;
    }
    for (i, ((out, got), (_, fast))) in outputs.iter().zip(&replayed).enumerate() {
        let want = read_npy(name, &read(&format!("{name}/output_{i}.npy"))).unwrap();
        close(&format!("{name} output {out}"), got, &want)?;
        close(&format!("{name} output {out}, CPU plan"), fast, &want)?;
    }
    Ok(())
}

#[test]
fn exported_models_match_onnxruntime() {
    let listing: serde_json::Value = serde_json::from_slice(&read("models.json")).unwrap();
    let names: Vec<&str> = listing["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 28, "seven models, two exporters, two initialisations");
    let failures: Vec<String> = names.iter().filter_map(|n| run_variant(n).err()).collect();
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), names.len(), failures.join("\n"));
}

/// Every value of the GPT-style decoder as PyTorch holds it: the qkv split's pieces are views of
/// the projection at offsets 0, 32 and 64; the heads' reshape and transpose stay views of the same
/// storage (their chain names each step); the transpose-then-reshape that merges the heads is a
/// copy that owns its storage.
#[test]
fn exported_values_have_pytorch_layouts() {
    let name = "gpt_classic_random";
    let model = read_model_with(name, &read(&format!("{name}/model.onnx")), &ExternalFiles::new()).unwrap();
    let ids = read_npy(name, &read(&format!("{name}/input_0.npy"))).unwrap().for_model("idx").unwrap();
    let exec = stridelab_core::model::build(&model, &[("idx", ids)]).unwrap();
    let layouts = exec.layouts();
    let get = |n: &str| layouts.iter().find(|v| v.name == n).unwrap_or_else(|| panic!("{n}"));
    let qkv = "/h.0/attn/c_attn/Add_output_0";
    for (i, offset) in [0, 32, 64].into_iter().enumerate() {
        let piece = get(&format!("/h.0/attn/Split_output_{i}"));
        assert!(piece.is_view, "{piece:?}");
        assert_eq!((piece.strides.as_slice(), piece.storage_offset), (&[1152, 96, 1][..], offset));
        assert_eq!(piece.storage_of.as_deref(), Some(qkv));
        assert_eq!(piece.view_chain, [qkv]);
    }
    let t = get("/h.0/attn/Transpose_output_0");
    assert_eq!((t.shape.as_slice(), t.strides.as_slice()), (&[1, 4, 12, 8][..], &[1152, 8, 96, 1][..]));
    assert_eq!(t.view_chain, ["/h.0/attn/Reshape_1_output_0", "/h.0/attn/Split_output_0", qkv]);
    let merged = get("/h.0/attn/Reshape_3_output_0");
    assert!(!merged.is_view);
    assert_eq!(merged.strides, [384, 32, 1]);
    assert_eq!(merged.storage_of.as_deref(), Some("/h.0/attn/Reshape_3_output_0"));
    assert_eq!(exec.nodes().len(), model.nodes().len());
}

/// Single layers and functions as both exporters write them (tools/models/make_export_layers.py):
/// activations, norms, recurrent layers, attention, index ops, resizes, pads, reductions. Each
/// runs on its seeded input and matches onnxruntime.
#[test]
fn exported_layers_match_onnxruntime() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/models/layers");
    let file = |rel: &str| std::fs::read(format!("{dir}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let listing: serde_json::Value = serde_json::from_slice(&file("layers.json")).unwrap();
    let cases: Vec<&str> = listing["cases"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(cases.len(), 130);
    let mut failures = Vec::new();
    for case in &cases {
        let run = || -> Result<(), String> {
            let bytes = file(&format!("{case}/model.onnx"));
            let mut files = ExternalFiles::new();
            for loc in external_locations(case, &bytes).map_err(|e| e.to_string())? {
                files.insert(loc.clone(), file(&format!("{case}/{loc}")));
            }
            let model = read_model_with(case, &bytes, &files).map_err(|e| e.to_string())?;
            let x = read_npy(case, &file(&format!("{case}/x.npy"))).unwrap().for_model("x").unwrap();
            let out = execute(&model, &[("x", x)]).map_err(|e| e.to_string())?;
            let want = read_npy(case, &file(&format!("{case}/y.npy"))).unwrap();
            let got = &out[0].1;
            // Integer outputs compare as values (the engine computes int64 as int32).
            close(case, got, &want)
        };
        if let Err(e) = run() {
            failures.push(format!("{case}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

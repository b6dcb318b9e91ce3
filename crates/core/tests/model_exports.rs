//! Models as `torch.onnx.export` writes them (tools/models/make_export_models.py): seven small
//! architectures, each under the classic exporter (opset 17) and the default one (opset 18,
//! weights in `model.onnx.data`), with default-initialised and random weights, run on their
//! seeded inputs and compared with onnxruntime's outputs.

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
    for (i, (out, got)) in outputs.iter().enumerate() {
        let want = read_npy(name, &read(&format!("{name}/output_{i}.npy"))).unwrap();
        close(&format!("{name} output {out}"), got, &want)?;
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

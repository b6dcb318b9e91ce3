//! `stridelab model ...`: runs ONNX models on dataset images and writes captures, and the
//! dataset files a trace's `dataset(name)` can read (the committed samples plus `--file`).
//! File reading and argument handling only; the work is in `stridelab_core::{model, capture}`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use serde_json::{json, Map, Value};
use stridelab_core::model::{self, HostTensor};
use stridelab_core::onnx;

/// The sample datasets shipped with the project, registered for every trace under these names.
const SAMPLES: [(&str, &[u8]); 3] = [
    (
        "mnist-t10k-images-1k",
        include_bytes!("../../../tests/data/mnist/t10k-images-1k-idx3-ubyte.gz"),
    ),
    (
        "mnist-t10k-labels-1k",
        include_bytes!("../../../tests/data/mnist/t10k-labels-1k-idx1-ubyte.gz"),
    ),
    (
        "cifar-sample",
        include_bytes!("../../../tests/data/cifar/sample_batch.bin"),
    ),
];

/// The samples plus each `NAME=PATH` given with `--file` (a later name replaces a sample's).
pub fn dataset_files(specs: &[String]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut files: BTreeMap<String, Vec<u8>> = SAMPLES
        .iter()
        .map(|(n, b)| (n.to_string(), b.to_vec()))
        .collect();
    for spec in specs {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(format!("--file {spec:?}: expected NAME=PATH"));
        };
        if name.is_empty() {
            return Err(format!("--file {spec:?}: the name is empty"));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        files.insert(name.to_string(), bytes);
    }
    Ok(files)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference interpreter.
    Cpu,
    /// WebGPU through wgpu.
    Wgpu,
}

#[derive(Subcommand)]
pub enum ModelCommand {
    /// Run an ONNX model on dataset images (float32 pixels / 255, NCHW) and print its outputs.
    Run {
        /// The ONNX model file.
        model: String,
        /// An MNIST-style IDX image file (raw or gzip).
        #[arg(long, conflicts_with = "cifar", required_unless_present = "cifar")]
        mnist: Option<String>,
        /// A CIFAR-10 binary batch (raw or gzip).
        #[arg(long)]
        cifar: Option<String>,
        /// Use only the first N images.
        #[arg(long)]
        first: Option<usize>,
        #[arg(long, value_enum, default_value = "cpu")]
        backend: Backend,
        /// Print JSON: {"outputs": {name: {shape, values}}, "kernels": [...]}.
        #[arg(long)]
        json: bool,
    },
}

pub fn main(cmd: ModelCommand) -> ExitCode {
    let result = match cmd {
        ModelCommand::Run {
            model,
            mnist,
            cifar,
            first,
            backend,
            json,
        } => run(
            &model,
            mnist.as_deref(),
            cifar.as_deref(),
            first,
            backend,
            json,
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stridelab: {e}");
            ExitCode::from(2)
        }
    }
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

fn file_name(path: &str) -> &str {
    std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

fn run(
    model_path: &str,
    mnist: Option<&str>,
    cifar: Option<&str>,
    first: Option<usize>,
    backend: Backend,
    json: bool,
) -> Result<(), String> {
    if backend == Backend::Wgpu {
        return Err("the wgpu backend is not available in this build; use --backend cpu".into());
    }
    let m =
        onnx::read_model(file_name(model_path), &read(model_path)?).map_err(|e| e.to_string())?;
    let images = match (mnist, cifar) {
        (Some(p), _) => model::idx_images(file_name(p), &read(p)?, first),
        (None, Some(p)) => model::cifar_images(file_name(p), &read(p)?, first),
        (None, None) => return Err("give --mnist IMAGES or --cifar FILE".into()),
    }
    .map_err(|e| e.to_string())?;
    let [input] = m.inputs() else {
        return Err(format!(
            "{model_path}: the model takes {} inputs; image runs feed exactly one",
            m.inputs().len()
        ));
    };
    let outputs = model::execute(&m, &[(input.name(), images)]).map_err(|e| e.to_string())?;
    if json {
        println!("{}", outputs_json(&outputs, Vec::new()));
    } else {
        print!("{}", outputs_text(&outputs));
    }
    Ok(())
}

/// The run's JSON report: every output's shape and row-major values, and the kernels run.
pub fn outputs_json(outputs: &[(String, HostTensor)], kernels: Vec<Value>) -> Value {
    let mut map = Map::new();
    for (name, t) in outputs {
        map.insert(
            name.clone(),
            json!({ "shape": t.shape(), "values": t.data().to_f64_vec() }),
        );
    }
    json!({ "outputs": map, "kernels": kernels })
}

/// One line per image: the class with the highest output, for every rank-2 output.
fn outputs_text(outputs: &[(String, HostTensor)]) -> String {
    let mut s = String::new();
    for (name, t) in outputs {
        s.push_str(&format!("{name}: shape {:?}\n", t.shape()));
        if let &[n, k] = t.shape() {
            let v = t.data().to_f64_vec();
            for i in 0..n {
                let row = &v[i * k..(i + 1) * k];
                let best = (0..k).fold(0, |b, j| if row[j] > row[b] { j } else { b });
                s.push_str(&format!("  {i}: class {best} ({:.4})\n", row[best]));
            }
        }
    }
    s
}

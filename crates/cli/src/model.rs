//! `stridelab model ...`: runs ONNX models on dataset images and writes captures, and the
//! dataset files a trace's `dataset(name)` can read (the committed samples plus `--file`).
//! File reading and argument handling only; the work is in `stridelab_core::{model, capture}`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use crate::error::{read_file, write_stdout, Error, Result};
use crate::kernels::{self, Backend};
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use stridelab_core::capture;
use stridelab_core::model::{self, HostTensor};
use stridelab_core::onnx;
use stridelab_gpu::model::capture_onnx;
use stridelab_gpu::GpuModel;

/// The sample datasets shipped with the project, registered for every trace under these names.
const SAMPLES: [(&str, &[u8]); 3] = [
    ("mnist-t10k-images-1k", include_bytes!("../../../tests/data/mnist/t10k-images-1k-idx3-ubyte.gz")),
    ("mnist-t10k-labels-1k", include_bytes!("../../../tests/data/mnist/t10k-labels-1k-idx1-ubyte.gz")),
    ("cifar-sample", include_bytes!("../../../tests/data/cifar/sample_batch.bin")),
];

/// The largest dataset file read (`--file`, `--mnist`, `--cifar`): the readers refuse more
/// decoded bytes than this, so a larger file cannot be one they take.
const MAX_DATA_BYTES: usize = stridelab_core::data::MAX_DECODED_LEN;
/// The largest ONNX model or capture weights file read.
const MAX_MODEL_BYTES: usize = 1 << 30;
/// The largest capture manifest read.
const MAX_MANIFEST_BYTES: usize = 64 << 20;

/// The samples plus each `NAME=PATH` given with `--file` (a later name replaces a sample's).
pub fn dataset_files(specs: &[String]) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut files: BTreeMap<String, Vec<u8>> = SAMPLES.iter().map(|(n, b)| (n.to_string(), b.to_vec())).collect();
    for spec in specs {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(Error::usage(format!("--file {spec:?}: expected NAME=PATH")));
        };
        if name.is_empty() {
            return Err(Error::usage(format!("--file {spec:?}: the name is empty")));
        }
        let bytes = read_file(path, MAX_DATA_BYTES)?;
        files.insert(name.to_string(), bytes);
    }
    Ok(files)
}

/// The images a model runs on: one dataset file, optionally cut to its first N images.
#[derive(Args)]
pub struct Images {
    /// An MNIST-style IDX image file (raw or gzip).
    #[arg(long, conflicts_with = "cifar", required_unless_present = "cifar")]
    mnist: Option<String>,
    /// A CIFAR-10 binary batch (raw or gzip).
    #[arg(long)]
    cifar: Option<String>,
    /// Use only the first N images.
    #[arg(long)]
    first: Option<usize>,
}

#[derive(Subcommand)]
pub enum ModelCommand {
    /// Run an ONNX model on dataset images (float32 pixels / 255, NCHW) and print its outputs.
    Run {
        /// The ONNX model file.
        model: String,
        #[command(flatten)]
        images: Images,
        #[arg(long, value_enum, default_value = "cpu")]
        backend: Backend,
        /// Print JSON: {"outputs": {name: {shape, values}}, "kernels": [...]}.
        #[arg(long)]
        json: bool,
    },
    /// Capture a run of an ONNX model at a fixed batch size: OUT/manifest.json plus
    /// OUT/weights.safetensors.
    Capture {
        /// The ONNX model file.
        model: String,
        /// The directory to write (created if missing).
        out: String,
        /// The batch size the capture is made for (the model's symbolic dims take it).
        #[arg(long, default_value_t = 1)]
        batch: usize,
    },
    /// Replay a capture on dataset images (as many as its batch size) and print its outputs and
    /// per-kernel timings.
    Replay {
        /// The capture directory (manifest.json and its weights file).
        capture: String,
        #[command(flatten)]
        images: Images,
        /// `cpu` runs the capture's CPU plan (direct f32 kernels where the op has one, the
        /// interpreter elsewhere); `wgpu` prepares the capture on the GPU once and times each
        /// dispatch with GPU timestamps where the adapter has them.
        #[arg(long, value_enum, default_value = "cpu")]
        backend: Backend,
        /// With `--backend cpu`: every kernel on the reference interpreter (f64 sums).
        #[arg(long)]
        reference: bool,
        #[arg(long)]
        json: bool,
    },
}

pub fn main(cmd: ModelCommand) -> ExitCode {
    let json = match &cmd {
        ModelCommand::Run { json, .. } | ModelCommand::Replay { json, .. } => *json,
        ModelCommand::Capture { .. } => false,
    };
    let result = match cmd {
        ModelCommand::Run { model, images, backend, json } => run(&model, &images, backend, json),
        ModelCommand::Capture { model, out, batch } => capture(&model, &out, batch),
        ModelCommand::Replay { capture, images, backend, reference, json } => {
            replay(&capture, &images, backend, reference, json)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(json),
    }
}

fn file_name(path: &str) -> &str {
    std::path::Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path)
}

fn images(images: &Images) -> Result<HostTensor> {
    let first = images.first;
    Ok(match (images.mnist.as_deref(), images.cifar.as_deref()) {
        (Some(p), _) => model::idx_images(file_name(p), &read_file(p, MAX_DATA_BYTES)?, first)?,
        (None, Some(p)) => model::cifar_images(file_name(p), &read_file(p, MAX_DATA_BYTES)?, first)?,
        (None, None) => return Err(Error::usage("give --mnist IMAGES or --cifar FILE")),
    })
}

fn capture(model_path: &str, out: &str, batch: usize) -> Result<()> {
    let bytes = read_file(model_path, MAX_MODEL_BYTES)?;
    let (manifest, weights) = capture_onnx(file_name(model_path), &bytes, batch)?;
    write_capture(out, &manifest, &weights)
}

/// Writes `out/manifest.json` and the weights file beside it (creating `out`).
pub fn write_capture(out: &str, manifest: &capture::Manifest, weights: &[u8]) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, &e))?;
    let text = serde_json::to_string_pretty(manifest).map_err(|e| Error::new("io", e.to_string()))?;
    let dir = std::path::Path::new(out);
    std::fs::write(dir.join("manifest.json"), text + "\n")
        .map_err(|e| Error::io(&format!("{out}/manifest.json"), &e))?;
    std::fs::write(dir.join(&manifest.weights.file), weights)
        .map_err(|e| Error::io(&format!("{out}/{}", manifest.weights.file), &e))?;
    eprintln!(
        "stridelab: wrote {out}/manifest.json ({} kernels, {} buffers) and {out}/{}",
        manifest.kernels.len(),
        manifest.buffers.len(),
        manifest.weights.file
    );
    Ok(())
}

fn replay(dir: &str, images_from: &Images, backend: Backend, reference: bool, json: bool) -> Result<()> {
    if reference && backend != Backend::Cpu {
        return Err(Error::usage("--reference runs the interpreter, which is the cpu backend"));
    }
    let path = std::path::Path::new(dir);
    let text = read_file(&path.join("manifest.json").to_string_lossy(), MAX_MANIFEST_BYTES)?;
    let head: Value =
        serde_json::from_slice(&text).map_err(|e| Error::new("decode", format!("{dir}/manifest.json: {e}")))?;
    let weights_file = head["weights"]["file"].as_str().unwrap_or(capture::WEIGHTS_FILE);
    if weights_file.contains('/') || weights_file.contains('\\') || weights_file.starts_with('.') {
        return Err(Error::new(
            "decode",
            format!("{dir}/manifest.json: weights file {weights_file:?} must be a plain name in the capture directory"),
        ));
    }
    let weights = read_file(&path.join(weights_file).to_string_lossy(), MAX_MODEL_BYTES)?;
    let cap = capture::Capture::load(&text, &weights)?;
    let x = images(images_from)?;
    let [input] = cap.manifest().inputs.as_slice() else {
        return Err(Error::usage(format!(
            "{dir}: the capture takes {} inputs; image runs feed exactly one",
            cap.manifest().inputs.len()
        )));
    };
    let input = &cap.manifest().buffers[*input];
    let (outputs, kernels) = match kernels::device(backend)? {
        Some(gpu) => {
            if x.shape() != input.shape.as_slice() {
                return Err(Error::usage(format!(
                    "capture input {:?} was captured as {} {:?}, got {} {:?}",
                    input.name,
                    input.dtype,
                    input.shape,
                    x.dtype(),
                    x.shape()
                )));
            }
            let model = pollster::block_on(GpuModel::prepare(&gpu, &cap))?;
            let r = pollster::block_on(model.run(&gpu, &[x.into_data()]))?;
            let kernels = r
                .timings
                .iter()
                .zip(model.kernels())
                .map(|(t, (spec, op))| {
                    json!({ "name": t.name(), "op": op, "ms": t.time_ns().map(|ns| ns / 1e6), "source": t.source(),
                            "dispatch": spec.workgroups(), "flops": spec.flops() })
                })
                .collect();
            (r.outputs, kernels)
        }
        None => {
            let which = if reference { capture::CpuKernels::Reference } else { capture::CpuKernels::Fast };
            let mut plan = cap.cpu_plan(which)?;
            let start = std::time::Instant::now();
            let mut clock = || start.elapsed().as_secs_f64() * 1e3;
            let r = plan.run(&[(&input.name, x)], &mut clock)?;
            let kernels = r
                .timings
                .iter()
                .zip(plan.steps())
                .map(|(t, (_, direct))| {
                    // A step may run several capture kernels (a Relu inside its convolution).
                    let parts: Vec<&capture::OpKernel> =
                        t.name.split('+').filter_map(|n| cap.manifest().kernels.iter().find(|k| k.name == n)).collect();
                    let op = parts.iter().map(|k| k.op.as_str()).collect::<Vec<_>>().join("+");
                    let flops: u64 = parts.iter().map(|k| k.cost.flops).sum();
                    json!({ "name": t.name, "op": op, "ms": t.elapsed, "source": "cpu", "direct": direct, "flops": flops })
                })
                .collect();
            (r.outputs, kernels)
        }
    };
    if json {
        write_stdout(&format!("{}\n", outputs_json(&outputs, kernels)))
    } else {
        write_stdout(&format!("{}{}", outputs_text(&outputs), kernels_text(&kernels)))
    }
}

/// One line per kernel with its time (or why there is none), then the total.
fn kernels_text(kernels: &[Value]) -> String {
    let mut s = String::new();
    let mut total = 0.0;
    for k in kernels {
        let time = match k["ms"].as_f64() {
            Some(ms) => {
                total += ms;
                format!("{ms:.3} ms")
            }
            None => "below the clock's resolution".to_string(),
        };
        let (name, op, source) =
            (k["name"].as_str().unwrap_or(""), k["op"].as_str().unwrap_or(""), k["source"].as_str().unwrap_or(""));
        s.push_str(&format!("kernel {name} {op}: {time} ({source})\n"));
    }
    s.push_str(&format!("{} kernels, {total:.3} ms in all\n", kernels.len()));
    s
}

fn run(model_path: &str, images_from: &Images, backend: Backend, json: bool) -> Result<()> {
    let m = onnx::read_model(file_name(model_path), &read_file(model_path, MAX_MODEL_BYTES)?)?;
    let images = images(images_from)?;
    let [input] = m.inputs() else {
        return Err(Error::usage(format!(
            "{model_path}: the model takes {} inputs; image runs feed exactly one",
            m.inputs().len()
        )));
    };
    let mut exec = model::build(&m, &[(input.name(), images)])?;
    // The interpreter defines the outputs; the backend runs the scheduled kernels and must
    // agree with it (run_steps checks every written storage).
    let gpu = kernels::device(backend)?;
    let (outputs, step) = exec.scheduled(kernels::schedule_options(gpu.as_ref()))?;
    let ran = kernels::run_steps(std::slice::from_ref(&step), gpu.as_ref(), 1)?;
    let ran: Vec<&kernels::Ran> = ran.iter().flatten().collect();
    if json {
        let ks = ran.iter().map(|r| kernels::kernel_json(r)).collect();
        write_stdout(&format!("{}\n", outputs_json(&outputs, ks)))
    } else {
        let ks: Vec<Value> = ran
            .iter()
            .map(|r| {
                let t = &r.timing;
                json!({ "name": t.name(), "op": format!("{:?}", r.kernel.kind).to_lowercase(),
                        "ms": t.time_ns().map(|ns| ns / 1e6), "source": t.source() })
            })
            .collect();
        write_stdout(&format!("{}{}", outputs_text(&outputs), kernels_text(&ks)))
    }
}

/// The run's JSON report: every output's shape and row-major values, and the kernels run.
pub fn outputs_json(outputs: &[(String, HostTensor)], kernels: Vec<Value>) -> Value {
    let mut map = Map::new();
    for (name, t) in outputs {
        map.insert(name.clone(), json!({ "shape": t.shape(), "values": t.data().to_f64_vec() }));
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

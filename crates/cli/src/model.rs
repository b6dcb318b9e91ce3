//! `stridelab model ...`: runs ONNX models on dataset images and writes captures, and the
//! dataset files a trace's `dataset(name)` can read (the committed samples plus `--file`).
//! File reading and argument handling only; the work is in `stridelab_core::{model, capture}`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use crate::error::{read_file, write_stdout, Error, Result};
use crate::kernels::{self, Backend};
use crate::model_feed::{read_onnx, Feed, Port, MAX_MODEL_BYTES};
use clap::Subcommand;
use serde_json::{json, Map, Value};
use stridelab_core::capture;
use stridelab_core::model::{self, HostTensor};
use stridelab_core::uop::buffer::Data;
use stridelab_gpu::model::capture_onnx;
use stridelab_gpu::GpuModel;

/// The sample datasets shipped with the project, registered for every trace under these names.
const SAMPLES: [(&str, &[u8]); 3] = [
    ("mnist-t10k-images-1k", include_bytes!("../../../tests/data/mnist/t10k-images-1k-idx3-ubyte.gz")),
    ("mnist-t10k-labels-1k", include_bytes!("../../../tests/data/mnist/t10k-labels-1k-idx1-ubyte.gz")),
    ("cifar-sample", include_bytes!("../../../tests/data/cifar/sample_batch.bin")),
];

/// The largest dataset file read (`--file`): the readers refuse more decoded bytes than this,
/// so a larger file cannot be one they take.
const MAX_DATA_BYTES: usize = stridelab_core::data::MAX_DECODED_LEN;
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

#[derive(Subcommand)]
pub enum ModelCommand {
    /// Run an ONNX model (weights beside it in external files are read too) on the inputs given
    /// and print its outputs.
    Run {
        /// The ONNX model file.
        model: String,
        #[command(flatten)]
        feed: Feed,
        #[arg(long, value_enum, default_value = "cpu")]
        backend: Backend,
        /// Run N times and report the median time.
        #[arg(long, default_value_t = 1)]
        runs: usize,
        /// Print JSON: {"outputs": {name: {shape, dtype, values}}, "kernels": [...], "ms", "runs"}.
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
    /// Replay a capture on the inputs given (dataset images: as many as its batch size) and print
    /// its outputs and per-kernel timings.
    Replay {
        /// The capture directory (manifest.json and its weights file).
        capture: String,
        #[command(flatten)]
        feed: Feed,
        /// Run N times and report each kernel's median time.
        #[arg(long, default_value_t = 1)]
        runs: usize,
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
        ModelCommand::Run { model, feed, backend, runs, json } => run(&model, &feed, backend, runs, json),
        ModelCommand::Capture { model, out, batch } => capture(&model, &out, batch),
        ModelCommand::Replay { capture, feed, runs, backend, reference, json } => {
            replay(&capture, &feed, runs, backend, reference, json)
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

fn capture(model_path: &str, out: &str, batch: usize) -> Result<()> {
    let (_, bytes, external) = read_onnx(model_path)?;
    let (manifest, weights) = capture_onnx(file_name(model_path), &bytes, &external, batch)?;
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

fn replay(dir: &str, feed: &Feed, runs: usize, backend: Backend, reference: bool, json: bool) -> Result<()> {
    if reference && backend != Backend::Cpu {
        return Err(Error::usage("--reference runs the interpreter, which is the cpu backend"));
    }
    if runs == 0 {
        return Err(Error::usage("--runs must be at least 1"));
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
    let m = cap.manifest();
    let ports: Vec<Port> = m
        .inputs
        .iter()
        .map(|&i| {
            let b = &m.buffers[i];
            Port { name: b.name.clone(), dtype: b.dtype, dims: Some(b.shape.iter().map(|&n| Some(n)).collect()) }
        })
        .collect();
    let fed = feed.resolve(&ports, &format!("capture {dir}"))?;
    let named: Vec<(&str, HostTensor)> = fed.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let (outputs, kernels, total) = match kernels::device(backend)? {
        Some(gpu) => {
            let model = pollster::block_on(GpuModel::prepare(&gpu, &cap))?;
            let data: Vec<Data> = fed.iter().map(|(_, t)| t.data().clone()).collect();
            let mut all = Vec::with_capacity(runs);
            for _ in 0..runs {
                all.push(pollster::block_on(model.run(&gpu, &data))?);
            }
            let times =
                |k: usize| median(all.iter().filter_map(|r| r.timings.get(k).and_then(|t| t.time_ns())).collect());
            let kernels: Vec<Value> = model
                .kernels()
                .into_iter()
                .enumerate()
                .map(|(k, (spec, op))| {
                    let t = &all[0].timings[k];
                    json!({ "name": t.name(), "op": op, "ms": times(k).map(|ns| ns / 1e6), "source": t.source(),
                            "dispatch": spec.workgroups(), "flops": spec.flops() })
                })
                .collect();
            let total = kernels.iter().filter_map(|k| k["ms"].as_f64()).sum::<f64>();
            let Some(r) = all.pop() else { return Err(Error::usage("--runs must be at least 1")) };
            (r.outputs, kernels, total)
        }
        None => {
            let which = if reference { capture::CpuKernels::Reference } else { capture::CpuKernels::Fast };
            let mut plan = cap.cpu_plan(which)?;
            let ran = run_plan(&mut plan, &named, runs)?;
            let kernels = ran
                .steps
                .iter()
                .map(|(name, ms, direct)| {
                    // A step may run several capture kernels (a Relu inside its convolution).
                    let parts: Vec<&capture::OpKernel> =
                        name.split('+').filter_map(|n| cap.manifest().kernels.iter().find(|k| k.name == n)).collect();
                    let op = parts.iter().map(|k| k.op.as_str()).collect::<Vec<_>>().join("+");
                    let flops: u64 = parts.iter().map(|k| k.cost.flops).sum();
                    json!({ "name": name, "op": op, "ms": ms, "source": "cpu", "direct": direct, "flops": flops })
                })
                .collect();
            (ran.outputs, kernels, ran.total.unwrap_or(0.0))
        }
    };
    if json {
        let mut report = outputs_json(&outputs, kernels);
        report["ms"] = json!(total);
        report["runs"] = json!(runs);
        write_stdout(&format!("{report}\n"))
    } else {
        write_stdout(&format!("{}{}", outputs_text(&outputs), kernels_text(&kernels)))
    }
}

/// The median of some times (any unit; the mean of the middle two for an even count); `None`
/// for none.
fn median(v: Vec<f64>) -> Option<f64> {
    stridelab_gpu::Spread::of(&v).map(|s| s.median_ns())
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

/// What [`run_plan`] measured: the last run's outputs, each step's name, median time (ms) and
/// whether it ran a direct kernel, and the median total.
struct PlanRuns {
    outputs: Vec<(String, HostTensor)>,
    steps: Vec<(String, Option<f64>, bool)>,
    total: Option<f64>,
}

/// Runs a CPU plan `runs` times on `named`, timing each step.
fn run_plan(plan: &mut capture::CpuPlan, named: &[(&str, HostTensor)], runs: usize) -> Result<PlanRuns> {
    let start = std::time::Instant::now();
    let mut clock = || start.elapsed().as_secs_f64() * 1e3;
    let mut all = Vec::with_capacity(runs);
    for _ in 0..runs {
        all.push(plan.run(named, &mut clock)?);
    }
    let total = median(all.iter().map(|r| r.timings.iter().map(|t| t.elapsed).sum::<f64>()).collect());
    let times = |k: usize| median(all.iter().filter_map(|r| r.timings.get(k).map(|t| t.elapsed)).collect());
    let steps = plan.steps().enumerate().map(|(k, (name, direct))| (name.to_string(), times(k), direct)).collect();
    let Some(last) = all.pop() else { return Err(Error::usage("--runs must be at least 1")) };
    Ok(PlanRuns { outputs: last.outputs, steps, total })
}

fn run(model_path: &str, feed: &Feed, backend: Backend, runs: usize, json: bool) -> Result<()> {
    if runs == 0 {
        return Err(Error::usage("--runs must be at least 1"));
    }
    let (m, _, _) = read_onnx(model_path)?;
    let fed = feed.resolve(&Port::of_model(&m), model_path)?;
    let named: Vec<(&str, HostTensor)> = fed.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    if backend == Backend::Cpu {
        return run_cpu(&m, &named, runs, json);
    }
    let gpu = kernels::device(backend)?;
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let mut exec = model::build(&m, &named)?;
        // The interpreter defines the outputs; the backend runs the scheduled kernels and must
        // agree with it (run_steps checks every written storage).
        let (outputs, step) = exec.scheduled(kernels::schedule_options(gpu.as_ref()))?;
        let ran = kernels::run_steps(std::slice::from_ref(&step), gpu.as_ref(), 1)?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        last = Some((outputs, ran, exec));
    }
    let Some((outputs, ran, exec)) = last else { return Err(Error::usage("--runs must be at least 1")) };
    let ran: Vec<&kernels::Ran> = ran.iter().flatten().collect();
    if json {
        let ks = ran.iter().map(|r| kernels::kernel_json(r)).collect();
        let mut report = outputs_json(&outputs, ks);
        report["ms"] = json!(median(times));
        report["runs"] = json!(runs);
        let (tensors, nodes) = values_json(&exec, &[]);
        report["tensors"] = tensors;
        report["nodes"] = nodes;
        write_stdout(&format!("{report}\n"))
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

/// `model run` on the CPU: the model's graph lowered once (shapes, layouts), its CPU plan
/// built from that (what a capture's replay runs), then the plan run `runs` times. `ms` is
/// the median run; `prepare_ms` the lowering and planning, once.
fn run_cpu(m: &stridelab_core::onnx::Model, named: &[(&str, HostTensor)], runs: usize, json: bool) -> Result<()> {
    let start = std::time::Instant::now();
    let exec = model::build(m, named)?;
    let mut plan = capture::model_plan(m, &exec, capture::CpuKernels::Fast)?;
    let prepare_ms = start.elapsed().as_secs_f64() * 1e3;
    let ran = run_plan(&mut plan, named, runs)?;
    let kernels: Vec<Value> = ran
        .steps
        .iter()
        .map(|(name, ms, direct)| {
            let nodes: Vec<&stridelab_core::onnx::Node> =
                name.split('+').filter_map(capture::kernel_node).filter_map(|k| m.nodes().get(k)).collect();
            let op = nodes.iter().map(|n| n.op_type()).collect::<Vec<_>>().join("+");
            let names: Vec<&str> = nodes.iter().map(|n| n.name()).collect();
            json!({ "name": name, "op": op, "nodes": names, "ms": ms, "source": "cpu", "direct": direct })
        })
        .collect();
    if json {
        let mut report = outputs_json(&ran.outputs, kernels);
        report["ms"] = json!(ran.total);
        report["prepare_ms"] = json!(prepare_ms);
        report["runs"] = json!(runs);
        let steps: Vec<&str> = ran.steps.iter().map(|(n, _, _)| n.as_str()).collect();
        let (tensors, nodes) = values_json(&exec, &steps);
        report["tensors"] = tensors;
        report["nodes"] = nodes;
        write_stdout(&format!("{report}\n"))
    } else {
        write_stdout(&format!("{}{}", outputs_text(&ran.outputs), kernels_text(&kernels)))
    }
}

/// The run's JSON report: every output's shape and row-major values, and the kernels run.
pub fn outputs_json(outputs: &[(String, HostTensor)], kernels: Vec<Value>) -> Value {
    let mut map = Map::new();
    for (name, t) in outputs {
        map.insert(name.clone(), json!({ "shape": t.shape(), "dtype": t.dtype(), "values": t.data().to_f64_vec() }));
    }
    json!({ "outputs": map, "kernels": kernels })
}

/// Every named value of the model as PyTorch would hold it (shape, dtype, strides, storage
/// offset, whether it is a view, which value's storage it reads and its view chain), keyed by
/// the ONNX value name, and the nodes with their inputs, outputs and the plan steps (of
/// `steps`, named by kernel) that computed them; a node folded into a constant when the plan
/// was built, or run without a plan, has none.
fn values_json(exec: &model::Execution, steps: &[&str]) -> (Value, Value) {
    let mut tensors = Map::new();
    for v in exec.layouts() {
        let (role, node) = match v.role {
            model::ValueRole::Input => ("input", Value::Null),
            model::ValueRole::Weight => ("weight", Value::Null),
            model::ValueRole::Computed { node, .. } => ("computed", json!(node)),
        };
        tensors.insert(
            v.name.clone(),
            json!({ "role": role, "node": node, "shape": v.shape, "dtype": v.dtype, "strides": v.strides,
                    "storage_offset": v.storage_offset, "is_view": v.is_view, "storage_of": v.storage_of,
                    "view_chain": v.view_chain }),
        );
    }
    let nodes = exec
        .nodes()
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let kernels: Vec<&str> =
                steps.iter().copied().filter(|s| s.split('+').any(|p| capture::kernel_node(p) == Some(k))).collect();
            json!({ "name": n.name, "op": n.op, "inputs": n.inputs, "outputs": n.outputs, "kernels": kernels })
        })
        .collect();
    (Value::Object(tensors), Value::Array(nodes))
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

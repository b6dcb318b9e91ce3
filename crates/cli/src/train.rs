//! `stridelab train`: trains the sample MNIST CNN on the CPU as PyTorch would train it (same
//! initialisation, batch order, loss and optimizer; `tools/bench/train_torch.py` is the PyTorch
//! side), with a JSON log per step, a test evaluation per epoch and the trained model exported
//! as ONNX or as a capture. File handling and printing only; the work is `stridelab_core::train`.

use std::path::Path;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use stridelab_core::train::{Architecture, Evaluation, LabelledImages, Optimizer, StepReport, TrainConfig, Trainer};

use crate::error::{read_file, write_stdout, Error, Result};
use crate::kernels::{self, Backend};
use stridelab_gpu::train::GpuTrainer;
use stridelab_gpu::Gpu;

/// The largest MNIST file read (the decoded training images are 47 MB).
const MAX_FILE_BYTES: usize = stridelab_core::data::MAX_DECODED_LEN;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OptimizerKind {
    Sgd,
    Adam,
    Adamw,
}

#[derive(Args)]
pub struct TrainArgs {
    /// The directory holding MNIST's train-images-idx3-ubyte(.gz), train-labels-idx1-ubyte(.gz)
    /// and the t10k-* test files.
    #[arg(long, value_name = "DIR")]
    mnist: String,
    /// Epochs over the 60,000 training images.
    #[arg(long, default_value_t = 1)]
    epochs: usize,
    /// Stop after this many steps (before the epochs end).
    #[arg(long)]
    steps: Option<u64>,
    #[arg(long, default_value_t = 64)]
    batch: usize,
    /// The seed of `torch.manual_seed` (initialisation) and of the batch order's generator.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long, value_enum, default_value = "adam")]
    optimizer: OptimizerKind,
    /// Learning rate (default: 1e-3 for Adam and AdamW, 1e-2 for SGD).
    #[arg(long)]
    lr: Option<f64>,
    /// SGD's momentum [default: 0].
    #[arg(long)]
    momentum: Option<f64>,
    /// SGD's Nesterov momentum.
    #[arg(long)]
    nesterov: bool,
    /// Weight decay (default: 0, or AdamW's 1e-2).
    #[arg(long)]
    weight_decay: Option<f64>,
    /// Adam's and AdamW's AMSGrad variant.
    #[arg(long)]
    amsgrad: bool,
    /// Evaluate on the test images every this many steps as well as after each epoch.
    #[arg(long)]
    eval_every: Option<u64>,
    /// Evaluate on the first N test images only.
    #[arg(long)]
    test_limit: Option<usize>,
    /// Write one JSON object per step (step, epoch, loss, batch accuracy, time, kernels) here.
    #[arg(long, value_name = "FILE")]
    log: Option<String>,
    /// Write the trained model as ONNX.
    #[arg(long, value_name = "FILE")]
    export_onnx: Option<String>,
    /// Write the trained model as a capture (batch 1) for `stridelab model replay` and the page.
    #[arg(long, value_name = "DIR")]
    capture: Option<String>,
    /// `cpu` runs the training plan's direct f32 kernels; `wgpu` runs every kernel of a step
    /// in WGSL on the GPU (evaluation and export read the parameters back to the CPU).
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

impl TrainArgs {
    pub fn json(&self) -> bool {
        self.json
    }

    /// The optimizer the flags ask for; a flag of another optimizer than the chosen one is
    /// refused, not ignored.
    fn optimizer(&self) -> Result<Optimizer> {
        let sgd_only = [("--momentum", self.momentum.is_some()), ("--nesterov", self.nesterov)];
        let adam_only = [("--amsgrad", self.amsgrad)];
        let (foreign, owner) = match self.optimizer {
            OptimizerKind::Sgd => (&adam_only[..], "adam or adamw"),
            OptimizerKind::Adam | OptimizerKind::Adamw => (&sgd_only[..], "sgd"),
        };
        if let Some((flag, _)) = foreign.iter().find(|(_, set)| *set) {
            return Err(Error::new("usage", format!("{flag} applies to --optimizer {owner} only")));
        }
        let betas = (0.9, 0.999);
        Ok(match self.optimizer {
            OptimizerKind::Sgd => Optimizer::Sgd {
                lr: self.lr.unwrap_or(1e-2),
                momentum: self.momentum.unwrap_or(0.0),
                dampening: 0.0,
                nesterov: self.nesterov,
                weight_decay: self.weight_decay.unwrap_or(0.0),
            },
            OptimizerKind::Adam => Optimizer::Adam {
                lr: self.lr.unwrap_or(1e-3),
                betas,
                eps: 1e-8,
                weight_decay: self.weight_decay.unwrap_or(0.0),
                amsgrad: self.amsgrad,
            },
            OptimizerKind::Adamw => Optimizer::AdamW {
                lr: self.lr.unwrap_or(1e-3),
                betas,
                eps: 1e-8,
                weight_decay: self.weight_decay.unwrap_or(1e-2),
                amsgrad: self.amsgrad,
            },
        })
    }
}

/// `DIR/NAME` or `DIR/NAME.gz`, whichever is there.
fn mnist_file(dir: &str, name: &str) -> Result<(String, Vec<u8>)> {
    for candidate in [format!("{name}.gz"), name.to_string()] {
        let path = Path::new(dir).join(&candidate);
        if path.exists() {
            let p = path.to_string_lossy().to_string();
            return Ok((candidate, read_file(&p, MAX_FILE_BYTES)?));
        }
    }
    Err(Error::new("io", format!("{dir}: no {name} or {name}.gz")))
}

fn mnist(dir: &str, part: &str) -> Result<LabelledImages> {
    let (xn, x) = mnist_file(dir, &format!("{part}-images-idx3-ubyte"))?;
    let (yn, y) = mnist_file(dir, &format!("{part}-labels-idx1-ubyte"))?;
    Ok(LabelledImages::read_idx((&xn, &x), (&yn, &y))?)
}

fn evaluation_json(e: &Evaluation) -> Value {
    json!({ "accuracy": e.accuracy(), "correct": e.correct, "total": e.total, "loss": e.loss })
}

/// The median, 10th and 90th percentile of `ms`.
fn spread(ms: &mut [f64]) -> Value {
    if ms.is_empty() {
        return Value::Null;
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: usize| ms[(ms.len() - 1) * q / 100];
    json!({ "median": at(50), "p10": at(10), "p90": at(90), "n": ms.len() })
}

/// Where the steps run: the CPU trainer, or the GPU trainer (which keeps a CPU trainer for
/// its batch order, and for evaluation and export once its parameters are read back).
enum Engine {
    Cpu(Box<Trainer>),
    Gpu(Box<GpuTrainer>, Box<Gpu>),
}

impl Engine {
    /// The CPU trainer with the current parameters (read back from the GPU first).
    fn synced(&mut self) -> Result<&mut Trainer> {
        Ok(match self {
            Engine::Cpu(t) => t,
            Engine::Gpu(t, gpu) => {
                pollster::block_on(t.sync(gpu))?;
                t.trainer_mut()
            }
        })
    }
}

pub fn main(args: &TrainArgs) -> Result<()> {
    let optimizer = args.optimizer()?;
    optimizer.check()?;
    let train = mnist(&args.mnist, "train")?;
    let test = mnist(&args.mnist, "t10k")?;
    let config = TrainConfig { architecture: Architecture::mnist_cnn(), seed: args.seed, batch: args.batch, optimizer };
    let mut run = match kernels::device(args.backend)? {
        Some(gpu) => Engine::Gpu(Box::new(pollster::block_on(GpuTrainer::new(&gpu, config.clone()))?), Box::new(gpu)),
        None => Engine::Cpu(Box::new(Trainer::new(config.clone())?)),
    };
    let mut log = match &args.log {
        Some(path) => Some(std::fs::File::create(path).map_err(|e| Error::io(path, &e))?),
        None => None,
    };
    let per_epoch = train.labels.len().div_ceil(args.batch) as u64;
    let total = args.steps.unwrap_or(per_epoch * args.epochs as u64).min(per_epoch * args.epochs as u64);
    let origin = Instant::now();
    let mut clock = || origin.elapsed().as_secs_f64() * 1e3;
    let (mut step_ms, mut evaluations, mut last): (Vec<f64>, Vec<Value>, Option<StepReport>) = (vec![], vec![], None);
    let mut kernel_ms: Vec<(String, Vec<f64>)> = Vec::new();
    let mut done = 0;
    while done < total {
        let t0 = clock();
        let r = match &mut run {
            Engine::Gpu(t, gpu) => pollster::block_on(t.step(gpu, &train.dataset()))?,
            Engine::Cpu(t) => t.step(&train.dataset(), &mut clock)?,
        };
        done = r.step;
        // Wall time of the whole step (on the GPU: upload, dispatches, readback of the losses).
        let ms = clock() - t0;
        step_ms.push(ms);
        for (i, k) in r.kernels.iter().enumerate() {
            match kernel_ms.get_mut(i) {
                Some((_, v)) => v.push(k.ms),
                None => kernel_ms.push((format!("{:?}:{}", k.phase, k.name).to_lowercase(), vec![k.ms])),
            }
        }
        if let Some(f) = log.as_mut() {
            use std::io::Write;
            let line = json!({ "step": r.step, "epoch": r.epoch, "loss": r.loss, "correct": r.correct, "size": r.size, "ms": ms });
            writeln!(f, "{line}").map_err(|e| Error::io("the log", &e))?;
        }
        let epoch_end = r.step % per_epoch == 0;
        let due = args.eval_every.is_some_and(|n| n > 0 && r.step % n == 0);
        if r.step % 100 == 0 || r.step == total {
            eprintln!("step {:>6}  epoch {}  loss {:.4}  {:.2} ms/step", r.step, r.epoch, r.loss, ms);
        }
        if epoch_end || due || r.step == total {
            let e = run.synced()?.evaluate(&test.dataset(), 0..args.test_limit.unwrap_or(usize::MAX))?;
            eprintln!("step {:>6}  test accuracy {:.2}%  loss {:.4}", r.step, 100.0 * e.accuracy(), e.loss);
            let mut v = evaluation_json(&e);
            v["step"] = json!(r.step);
            evaluations.push(v);
        }
        last = Some(r);
    }
    let seconds = origin.elapsed().as_secs_f64();
    if args.export_onnx.is_some() || args.capture.is_some() {
        let onnx = run.synced()?.to_onnx();
        if let Some(path) = &args.export_onnx {
            std::fs::write(path, &onnx).map_err(|e| Error::io(path, &e))?;
            eprintln!("stridelab: wrote {path}");
        }
        if let Some(dir) = &args.capture {
            let (manifest, weights) =
                stridelab_gpu::model::capture_onnx("trained.onnx", &onnx, &Default::default(), 1)?;
            crate::model::write_capture(dir, &manifest, &weights)?;
        }
    }
    let kernels: Vec<Value> =
        kernel_ms.iter_mut().map(|(name, ms)| json!({ "kernel": name, "ms": spread(ms) })).collect();
    let summary = json!({
        "config": config,
        "architecture": config.architecture.describe(),
        "backend": match run {
            Engine::Gpu(..) => "wgpu",
            Engine::Cpu(_) => "cpu",
        },
        "steps": done,
        "epochs": last.as_ref().map_or(0, |r| r.epoch),
        "seconds": seconds,
        "step_ms": spread(&mut step_ms),
        "final_loss": last.as_ref().map(|r| r.loss),
        "test": evaluations.last().cloned(),
        "evaluations": evaluations,
        "kernels": kernels,
    });
    if args.json {
        write_stdout(&format!("{summary}\n"))
    } else {
        let test = summary["test"]["accuracy"].as_f64().map_or("-".into(), |a| format!("{:.2}%", 100.0 * a));
        write_stdout(&format!(
            "{done} steps ({} epochs) in {seconds:.1} s, median {:.2} ms per step; test accuracy {test}\n",
            summary["epochs"],
            summary["step_ms"]["median"].as_f64().unwrap_or(0.0),
        ))
    }
}

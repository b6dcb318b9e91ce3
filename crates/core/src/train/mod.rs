//! The training plan: a small image classifier trained as PyTorch trains it, on the CPU in
//! float32, natively and in wasm.
//!
//! An [`Architecture`] is a list of layers (normalize, `Conv2d` with stride 1, ReLU, max
//! pooling, flatten, `Linear`); [`Trainer::new`] initialises its parameters exactly as
//! `torch.manual_seed(seed)` followed by the modules' constructors does (each weight
//! `kaiming_uniform_(a=√5)` then its bias, through the same generator draws), and
//! [`Trainer::step`] runs one step of `loss = F.cross_entropy(model(x), y); opt.zero_grad();
//! loss.backward(); opt.step()` with the batch order of `torch.randperm(n, generator=g)` per
//! epoch, `g = torch.Generator().manual_seed(seed)`. So a PyTorch script of ten lines
//! (`tools/bench/train_torch.py`) reproduces any run, and the tests hold the two to it.
//!
//! The trace language's `nn` and `torch.optim` show the same computation statement by
//! statement, with every alias and version counter; this plan is its fast form for whole
//! epochs: direct kernels (`kernels`), buffers allocated once, and per-kernel timings from a
//! clock the caller supplies (the core has none, so the same code runs in wasm).

mod kernels;
mod optim;

pub use optim::{adam_corrections, update, Optimizer, ParamState};

use serde::{Deserialize, Serialize};

use crate::error::{bail, Result};
use crate::onnx::{AttrValue, DimSpec, GraphBuilder};
use crate::random::{self, default_init_bounds, randperm, Distribution, Generator};
use crate::uop::buffer::Data;
use kernels::ConvGeometry;

/// The sample MNIST model's input normalisation (`(x - 0.1307) / 0.3081` on pixels / 255).
pub const MNIST_MEAN: f32 = 0.1307;
pub const MNIST_STD: f32 = 0.3081;

/// One layer of an [`Architecture`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Layer {
    /// `(x - mean) / std`, no parameters.
    Normalize {
        mean: f32,
        std: f32,
    },
    /// `nn.Conv2d(in, out, kernel, padding=padding)`: square kernel, stride 1.
    Conv2d {
        in_channels: usize,
        out_channels: usize,
        kernel: usize,
        padding: usize,
    },
    Relu,
    /// `F.max_pool2d(x, kernel)`: window and stride `kernel`, no padding.
    MaxPool2d {
        kernel: usize,
    },
    /// `torch.flatten(x, 1)`.
    Flatten,
    /// `nn.Linear(in, out)`.
    Linear {
        in_features: usize,
        out_features: usize,
    },
}

/// A classifier: its input (channels, height, width of one image), its named layers in order,
/// and the number of classes its last layer gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Architecture {
    pub name: String,
    pub input: [usize; 3],
    pub layers: Vec<(String, Layer)>,
}

impl Architecture {
    /// The sample MNIST CNN (`tests/data/models/mnist_cnn.onnx`): normalize, conv(1→8, 3×3,
    /// pad 1), ReLU, max pool 2, conv(8→16, 3×3, pad 1), ReLU, max pool 2, flatten,
    /// linear(784→10), its modules named as `tools/models/train_mnist.py` names them.
    pub fn mnist_cnn() -> Architecture {
        let conv = |i, o| Layer::Conv2d { in_channels: i, out_channels: o, kernel: 3, padding: 1 };
        let layers = vec![
            ("normalize", Layer::Normalize { mean: MNIST_MEAN, std: MNIST_STD }),
            ("conv1", conv(1, 8)),
            ("relu1", Layer::Relu),
            ("pool1", Layer::MaxPool2d { kernel: 2 }),
            ("conv2", conv(8, 16)),
            ("relu2", Layer::Relu),
            ("pool2", Layer::MaxPool2d { kernel: 2 }),
            ("flatten", Layer::Flatten),
            ("fc", Layer::Linear { in_features: 16 * 7 * 7, out_features: 10 }),
        ];
        Architecture {
            name: "mnist_cnn".into(),
            input: [1, 28, 28],
            layers: layers.into_iter().map(|(n, l)| (n.to_string(), l)).collect(),
        }
    }

    /// The activation shape (channels, height, width of one image) before each layer and after
    /// the last, refusing a layer that does not fit its input and a model that does not end
    /// with flatten and a `Linear` layer.
    pub fn shapes(&self) -> Result<Vec<[usize; 3]>> {
        let [mut c, mut h, mut w] = self.input;
        let (mut shapes, mut flat) = (vec![self.input], false);
        for (name, layer) in &self.layers {
            match *layer {
                Layer::Normalize { .. } | Layer::Relu => {}
                Layer::Conv2d { in_channels, out_channels, kernel, padding } => {
                    if flat || in_channels != c || kernel == 0 || h + 2 * padding < kernel || w + 2 * padding < kernel {
                        bail!(Shape, "{name}: Conv2d({in_channels}, {out_channels}, {kernel}) does not fit an input of {c}×{h}×{w}");
                    }
                    (c, h, w) = (out_channels, h + 2 * padding + 1 - kernel, w + 2 * padding + 1 - kernel);
                }
                Layer::MaxPool2d { kernel } => {
                    if flat || kernel == 0 || h < kernel || w < kernel {
                        bail!(Shape, "{name}: max_pool2d({kernel}) does not fit an input of {c}×{h}×{w}");
                    }
                    (h, w) = (h / kernel, w / kernel);
                }
                Layer::Flatten => {
                    flat = true;
                    (c, h, w) = (c * h * w, 1, 1);
                }
                Layer::Linear { in_features, out_features } => {
                    if !flat || in_features != c {
                        bail!(Shape, "{name}: Linear({in_features}, {out_features}) does not fit {c} flattened inputs");
                    }
                    c = out_features;
                }
            }
            shapes.push([c, h, w]);
        }
        if !matches!(self.layers.last(), Some((_, Layer::Linear { .. }))) {
            bail!(Shape, "a classifier ends with flatten and a Linear layer");
        }
        Ok(shapes)
    }

    /// One line: `normalize - conv(1->8,3x3,pad1) - relu - ...`.
    pub fn describe(&self) -> String {
        let part = |l: &Layer| match l {
            Layer::Normalize { .. } => "normalize".to_string(),
            Layer::Conv2d { in_channels, out_channels, kernel, padding } => {
                format!("conv({in_channels}->{out_channels},{kernel}x{kernel},pad{padding})")
            }
            Layer::Relu => "relu".into(),
            Layer::MaxPool2d { kernel } => format!("maxpool{kernel}"),
            Layer::Flatten => "flatten".into(),
            Layer::Linear { in_features, out_features } => format!("linear({in_features}->{out_features})"),
        };
        self.layers.iter().map(|(_, l)| part(l)).collect::<Vec<_>>().join(" - ")
    }
}

/// What a training run is: the model, the seed of its initialisation and of its batch
/// order, the batch size and the optimizer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    pub architecture: Architecture,
    pub seed: u64,
    pub batch: usize,
    pub optimizer: Optimizer,
}

/// A labelled image set: `len` images of the architecture's input size, one byte per pixel
/// (scaled to `[0, 1]` as `pixels / 255` in float32), and one class byte each.
#[derive(Clone, Copy, Debug)]
pub struct Dataset<'a> {
    pub images: &'a [u8],
    pub labels: &'a [u8],
}

impl Dataset<'_> {
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// An image file and its labels read into memory (IDX, gzipped or not): what a [`Dataset`]
/// borrows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelledImages {
    pub images: Vec<u8>,
    pub labels: Vec<u8>,
    /// One image's height and width.
    pub size: (usize, usize),
}

impl LabelledImages {
    /// Reads an IDX image file (`N×H×W` bytes) and its label file (`N` bytes), refusing files
    /// whose counts differ.
    pub fn read_idx(images: (&str, &[u8]), labels: (&str, &[u8])) -> Result<LabelledImages> {
        let open = |(name, bytes): (&str, &[u8])| -> Result<crate::data::Idx> {
            let bytes = if crate::data::is_gzip(bytes) {
                std::borrow::Cow::Owned(crate::data::gunzip(name, bytes, crate::data::MAX_DECODED_LEN)?)
            } else {
                std::borrow::Cow::Borrowed(bytes)
            };
            crate::data::read_idx(name, &bytes, None)
        };
        let (x, y) = (open(images)?, open(labels)?);
        let (&[n, h, w], &[m]) = (x.dims(), y.dims()) else {
            bail!(Shape, "{} is not N×H×W images or {} is not N labels", images.0, labels.0);
        };
        if n != m {
            bail!(Shape, "{} has {n} images but {} has {m} labels", images.0, labels.0);
        }
        Ok(LabelledImages { images: x.into_data(), labels: y.into_data(), size: (h, w) })
    }

    pub fn dataset(&self) -> Dataset<'_> {
        Dataset { images: &self.images, labels: &self.labels }
    }
}

/// A parameter: its PyTorch name (`conv1.weight`), shape and values.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// Which part of a step a kernel belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Forward,
    Backward,
    Optimizer,
}

/// One kernel of a step and the time it took by the caller's clock (milliseconds).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelTime {
    pub phase: Phase,
    pub name: String,
    pub ms: f64,
}

/// What one step did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepReport {
    /// Steps taken so far, this one included (`opt.state[p]["step"]`).
    pub step: u64,
    /// The epoch this batch belongs to, from 1.
    pub epoch: usize,
    /// The batch's mean cross-entropy before the update.
    pub loss: f32,
    /// Images in the batch the model classified right before the update.
    pub correct: usize,
    pub size: usize,
    pub kernels: Vec<KernelTime>,
}

/// The model's accuracy and mean loss over a dataset.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Evaluation {
    pub correct: usize,
    pub total: usize,
    pub loss: f64,
}

impl Evaluation {
    pub fn accuracy(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.correct as f64 / self.total as f64
        }
    }
}

/// A layer ready to run: its geometry, its parameters' indices and what it keeps from the
/// forward pass for the backward one.
#[derive(Clone, Debug)]
enum Stage {
    Normalize { mean: f32, std: f32 },
    Conv { g: ConvGeometry, weight: usize, cols: Vec<f32> },
    Relu,
    MaxPool { kernel: usize, planes: usize, plane: (usize, usize), argmax: Vec<u32> },
    Flatten,
    Linear { inputs: usize, outputs: usize, weight: usize },
}

/// The batch order: a fresh `randperm(n, generator=g)` at the start of every epoch.
#[derive(Clone, Debug)]
struct Sampler {
    generator: Generator,
    order: Vec<usize>,
    next: usize,
    epoch: usize,
}

impl Sampler {
    fn next_batch(&mut self, n: usize, batch: usize) -> Vec<usize> {
        if self.next >= self.order.len() {
            self.order = randperm(&mut self.generator, n).into_iter().map(|i| i as usize).collect();
            self.next = 0;
            self.epoch += 1;
        }
        let end = (self.next + batch).min(self.order.len());
        let idx = self.order[self.next..end].to_vec();
        self.next = end;
        idx
    }
}

/// A model being trained: parameters, gradients, optimizer state, batch order and the
/// buffers of one step.
#[derive(Clone, Debug)]
pub struct Trainer {
    config: TrainConfig,
    classes: usize,
    stages: Vec<(String, Stage)>,
    /// Elements of one image's activation before each stage, and after the last.
    widths: Vec<usize>,
    params: Vec<Param>,
    grads: Vec<Vec<f32>>,
    state: Vec<ParamState>,
    sampler: Sampler,
    steps: u64,
    acts: Vec<Vec<f32>>,
    dacts: Vec<Vec<f32>>,
    scratch: Vec<f32>,
}

fn uniform(g: &mut Generator, n: usize, bound: f64) -> Result<Vec<f32>> {
    match random::sample(g, Distribution::Uniform { from: -bound, to: bound }, crate::DType::Float32, n, true)? {
        Data::F32(v) => Ok(v),
        other => bail!(DType, "uniform_ drew {} values instead of float32", other.dtype().torch_name()),
    }
}

impl Trainer {
    /// The model initialised from `config.seed` as PyTorch initialises it, and the optimizer
    /// with no state yet.
    pub fn new(config: TrainConfig) -> Result<Trainer> {
        if config.batch == 0 {
            bail!(Value, "batch size should be a positive integer value, but got batch_size=0");
        }
        let shapes = config.architecture.shapes()?;
        let mut init = Generator::new(config.seed);
        let (mut stages, mut params) = (Vec::new(), Vec::new());
        for ((name, layer), &[c, h, w]) in config.architecture.layers.iter().zip(&shapes) {
            let mut parameter = |params: &mut Vec<Param>, what: &str, shape: Vec<usize>, bound: f64| -> Result<()> {
                let data = uniform(&mut init, shape.iter().product(), bound)?;
                params.push(Param { name: format!("{name}.{what}"), shape, data });
                Ok(())
            };
            let stage = match *layer {
                Layer::Normalize { mean, std } => Stage::Normalize { mean, std },
                Layer::Conv2d { in_channels, out_channels, kernel, padding } => {
                    let g = ConvGeometry { in_channels, out_channels, kernel, padding, height: h, width: w };
                    let (wb, bb) = default_init_bounds(g.taps());
                    let weight = params.len();
                    parameter(&mut params, "weight", vec![out_channels, in_channels, kernel, kernel], wb)?;
                    parameter(&mut params, "bias", vec![out_channels], bb)?;
                    Stage::Conv { g, weight, cols: Vec::new() }
                }
                Layer::Relu => Stage::Relu,
                Layer::MaxPool2d { kernel } => Stage::MaxPool { kernel, planes: c, plane: (h, w), argmax: Vec::new() },
                Layer::Flatten => Stage::Flatten,
                Layer::Linear { in_features, out_features } => {
                    let (wb, bb) = default_init_bounds(in_features);
                    let weight = params.len();
                    parameter(&mut params, "weight", vec![out_features, in_features], wb)?;
                    parameter(&mut params, "bias", vec![out_features], bb)?;
                    Stage::Linear { inputs: in_features, outputs: out_features, weight }
                }
            };
            stages.push((name.clone(), stage));
        }
        let widths: Vec<usize> = shapes.iter().map(|s| s.iter().product()).collect();
        let c = widths[widths.len() - 1];
        let grads = params.iter().map(|p| vec![0.0; p.data.len()]).collect();
        let state = vec![ParamState::default(); params.len()];
        let sampler = Sampler { generator: Generator::new(config.seed), order: Vec::new(), next: 0, epoch: 0 };
        Ok(Trainer {
            classes: c,
            config,
            stages,
            widths,
            params,
            grads,
            state,
            sampler,
            steps: 0,
            acts: Vec::new(),
            dacts: Vec::new(),
            scratch: Vec::new(),
        })
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The gradients of the last step, in [`Trainer::params`]' order.
    pub fn grads(&self) -> &[Vec<f32>] {
        &self.grads
    }

    /// Each parameter's optimizer state (`opt.state[p]`), in [`Trainer::params`]' order.
    pub fn optimizer_state(&self) -> &[ParamState] {
        &self.state
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The epoch of the last batch drawn (0 before the first step).
    pub fn epoch(&self) -> usize {
        self.sampler.epoch
    }

    fn image_len(&self) -> usize {
        self.widths[0]
    }

    fn check(&self, data: &Dataset) -> Result<()> {
        if data.images.len() != data.len() * self.image_len() {
            bail!(
                Shape,
                "{} images of {} pixels are {} bytes, not {}",
                data.len(),
                self.image_len(),
                data.len() * self.image_len(),
                data.images.len()
            );
        }
        if let Some(&l) = data.labels.iter().find(|&&l| usize::from(l) >= self.classes) {
            bail!(Index, "Target {l} is out of bounds.");
        }
        Ok(())
    }

    /// The input batch as float32 `pixels / 255`, into the first activation buffer.
    fn load(&mut self, data: &Dataset, idx: &[usize]) {
        self.acts.resize_with(self.stages.len() + 1, Vec::new);
        let mut x = std::mem::take(&mut self.acts[0]);
        self.pixels_into(data, idx, &mut x);
        self.acts[0] = x;
    }

    /// The forward pass over the loaded batch of `n` images, each stage timed by `times`.
    fn forward(&mut self, n: usize, times: &mut Timer) {
        for s in 0..self.stages.len() {
            let (head, tail) = self.acts.split_at_mut(s + 1);
            let (x, y) = (&head[s], &mut tail[0]);
            y.resize(n * self.widths[s + 1], 0.0);
            let (name, stage) = &mut self.stages[s];
            match stage {
                Stage::Normalize { mean, std } => {
                    for (o, &v) in y.iter_mut().zip(x.iter()) {
                        *o = (v - *mean) / *std;
                    }
                }
                Stage::Conv { g, weight, cols } => {
                    cols.resize(n * g.taps() * g.positions(), 0.0);
                    let (w, b) = (&self.params[*weight].data, &self.params[*weight + 1].data);
                    kernels::conv_forward(g, x, w, b, y, cols);
                }
                Stage::Relu => kernels::relu_forward(x, y),
                Stage::MaxPool { kernel, planes, plane, argmax } => {
                    argmax.resize(y.len(), 0);
                    kernels::maxpool_forward(x, n * *planes, *plane, *kernel, y, argmax);
                }
                Stage::Flatten => y.copy_from_slice(x),
                Stage::Linear { inputs, outputs, weight } => {
                    let (w, b) = (&self.params[*weight].data, &self.params[*weight + 1].data);
                    kernels::linear_forward(x, w, b, (*inputs, *outputs), y);
                }
            }
            times.lap(Phase::Forward, name);
        }
    }

    /// The backward pass from `dacts[last]`, filling every parameter's gradient; stages before
    /// the first one with parameters get no input gradient (the input needs none).
    fn backward(&mut self, times: &mut Timer) {
        let first = self.stages.iter().position(|(_, s)| matches!(s, Stage::Conv { .. } | Stage::Linear { .. }));
        let first = first.unwrap_or(self.stages.len());
        self.dacts.resize_with(self.stages.len() + 1, Vec::new);
        for s in (first..self.stages.len()).rev() {
            let (lower, upper) = self.dacts.split_at_mut(s + 1);
            let (dx, dy) = (&mut lower[s], &upper[0]);
            let need_dx = s > first;
            if need_dx {
                dx.resize(self.acts[s].len(), 0.0);
            }
            let dx = need_dx.then_some(dx.as_mut_slice());
            let (x, y) = (&self.acts[s], &self.acts[s + 1]);
            let (name, stage) = &mut self.stages[s];
            match stage {
                Stage::Normalize { std, .. } => {
                    if let Some(dx) = dx {
                        for (d, &g) in dx.iter_mut().zip(dy) {
                            *d = g / *std;
                        }
                    }
                }
                Stage::Conv { g, weight, cols } => {
                    let (dw, db) = two_mut(&mut self.grads, *weight);
                    kernels::conv_backward(g, dy, cols, &self.params[*weight].data, dw, db, dx, &mut self.scratch);
                }
                Stage::Relu => {
                    if let Some(dx) = dx {
                        kernels::relu_backward(y, dy, dx);
                    }
                }
                Stage::MaxPool { argmax, .. } => {
                    if let Some(dx) = dx {
                        kernels::maxpool_backward(dy, argmax, dx);
                    }
                }
                Stage::Flatten => {
                    if let Some(dx) = dx {
                        dx.copy_from_slice(dy);
                    }
                }
                Stage::Linear { inputs, outputs, weight } => {
                    let (dw, db) = two_mut(&mut self.grads, *weight);
                    kernels::linear_backward(x, &self.params[*weight].data, dy, (*inputs, *outputs), dw, db, dx);
                }
            }
            times.lap(Phase::Backward, name);
        }
    }

    /// The indices of the next batch of `data` in this run's order (a new epoch's permutation
    /// when the last one is used up). [`Trainer::step`] takes its batches from here; a trainer
    /// on another device (the GPU's) does too, so both see the same order.
    pub fn next_batch(&mut self, data: &Dataset) -> Result<Vec<usize>> {
        self.check(data)?;
        if data.is_empty() {
            bail!(Value, "the training set is empty");
        }
        Ok(self.sampler.next_batch(data.len(), self.config.batch))
    }

    /// Replaces parameter `index`'s values (a trainer on another device hands its trained
    /// parameters back for export).
    pub fn set_param(&mut self, index: usize, values: &[f32]) -> Result<()> {
        match self.params.get_mut(index) {
            Some(p) if p.data.len() == values.len() => {
                p.data.copy_from_slice(values);
                Ok(())
            }
            Some(p) => bail!(Shape, "{} has {} values, not {}", p.name, p.data.len(), values.len()),
            None => bail!(Index, "no parameter {index}"),
        }
    }

    /// The batch `idx` of `data` as float32 `pixels / 255`, image after image.
    pub fn pixels(&self, data: &Dataset, idx: &[usize]) -> Vec<f32> {
        let mut out = Vec::new();
        self.pixels_into(data, idx, &mut out);
        out
    }

    /// [`Trainer::pixels`] into `out`, reusing its allocation.
    fn pixels_into(&self, data: &Dataset, idx: &[usize], out: &mut Vec<f32>) {
        let len = self.image_len();
        out.clear();
        for &i in idx {
            out.extend(data.images[i * len..][..len].iter().map(|&p| f32::from(p) / 255.0));
        }
    }

    /// One training step on the next batch of `data` in this run's order.
    pub fn step(&mut self, data: &Dataset, clock: &mut dyn FnMut() -> f64) -> Result<StepReport> {
        let idx = self.next_batch(data)?;
        let labels: Vec<u8> = idx.iter().map(|&i| data.labels[i]).collect();
        let mut times = Timer::new(clock);
        self.load(data, &idx);
        times.lap(Phase::Forward, "load");
        self.forward(idx.len(), &mut times);
        let last = self.stages.len();
        self.dacts.resize_with(last + 1, Vec::new);
        self.dacts[last].resize(self.acts[last].len(), 0.0);
        let (loss, correct) = kernels::cross_entropy(&self.acts[last], &labels, self.classes, &mut self.dacts[last]);
        times.lap(Phase::Forward, "cross_entropy");
        self.backward(&mut times);
        for (i, p) in self.params.iter_mut().enumerate() {
            update(&self.config.optimizer, &mut p.data, &self.grads[i], &mut self.state[i]);
            times.lap(Phase::Optimizer, &p.name);
        }
        self.steps += 1;
        Ok(StepReport {
            step: self.steps,
            epoch: self.sampler.epoch,
            loss,
            correct,
            size: idx.len(),
            kernels: times.kernels,
        })
    }

    /// The logits of `data`'s images (eval mode; nothing is kept for a backward pass).
    pub fn predict(&mut self, data: &Dataset) -> Result<Vec<f32>> {
        self.check(data)?;
        let mut out = Vec::with_capacity(data.len() * self.classes);
        for start in (0..data.len()).step_by(EVAL_CHUNK) {
            let idx: Vec<usize> = (start..(start + EVAL_CHUNK).min(data.len())).collect();
            self.load(data, &idx);
            self.forward(idx.len(), &mut Timer::off());
            out.extend_from_slice(&self.acts[self.stages.len()]);
        }
        Ok(out)
    }

    /// Accuracy and mean cross-entropy over the images `range` of `data` (clamped to it), so
    /// a caller can evaluate a large set in parts (the page does, between frames).
    pub fn evaluate(&mut self, data: &Dataset, range: std::ops::Range<usize>) -> Result<Evaluation> {
        self.check(data)?;
        let (start, end) = (range.start.min(data.len()), range.end.min(data.len()));
        let (start, n) = (start, end.saturating_sub(start));
        let len = self.image_len();
        let labels = &data.labels[start..start + n];
        let part = Dataset { images: &data.images[start * len..(start + n) * len], labels };
        let logits = self.predict(&part)?;
        let mut grad = vec![0.0; logits.len()];
        let (mut correct, mut loss) = (0, 0.0);
        for (rows, labels) in logits.chunks(EVAL_CHUNK * self.classes).zip(labels.chunks(EVAL_CHUNK)) {
            let (l, c) = kernels::cross_entropy(rows, labels, self.classes, &mut grad[..rows.len()]);
            correct += c;
            loss += f64::from(l) * labels.len() as f64;
        }
        Ok(Evaluation { correct, total: n, loss: if n == 0 { 0.0 } else { loss / n as f64 } })
    }

    /// The model as ONNX (opset 13): one graph input `input` of `[batch, c, h, w]` pixels /
    /// 255 and one output `logits`, the layers as the sample model's exporter writes them
    /// (Sub, Div, Conv, Relu, MaxPool, Flatten, Gemm), the parameters as initializers.
    pub fn to_onnx(&self) -> Vec<u8> {
        let [c, h, w] = self.config.architecture.input;
        let mut g = GraphBuilder::new(&self.config.architecture.name);
        g.input("input", &[DimSpec::Named("batch"), DimSpec::Fixed(c), DimSpec::Fixed(h), DimSpec::Fixed(w)]);
        let mut x = "input".to_string();
        for (s, (name, stage)) in self.stages.iter().enumerate() {
            let y = if s + 1 == self.stages.len() { "logits".to_string() } else { format!("{name}_out") };
            match stage {
                Stage::Normalize { mean, std } => {
                    g.initializer(&format!("{name}.mean"), &[], &[*mean]);
                    g.initializer(&format!("{name}.std"), &[], &[*std]);
                    let centred = format!("{name}_centred");
                    g.node("Sub", &[&x, &format!("{name}.mean")], &centred, vec![]);
                    g.node("Div", &[&centred, &format!("{name}.std")], &y, vec![]);
                }
                Stage::Conv { g: geo, weight, .. } => {
                    let (k, p) = (geo.kernel as i64, geo.padding as i64);
                    for p in &self.params[*weight..*weight + 2] {
                        g.initializer(&p.name, &p.shape, &p.data);
                    }
                    let (wn, bn) = (&self.params[*weight].name, &self.params[*weight + 1].name);
                    let attrs = vec![
                        ("kernel_shape", AttrValue::Ints(vec![k, k])),
                        ("pads", AttrValue::Ints(vec![p; 4])),
                        ("strides", AttrValue::Ints(vec![1, 1])),
                        ("dilations", AttrValue::Ints(vec![1, 1])),
                        ("group", AttrValue::Int(1)),
                    ];
                    g.node("Conv", &[&x, wn, bn], &y, attrs);
                }
                Stage::Relu => g.node("Relu", &[&x], &y, vec![]),
                Stage::MaxPool { kernel, .. } => {
                    let k = *kernel as i64;
                    let attrs = vec![
                        ("kernel_shape", AttrValue::Ints(vec![k, k])),
                        ("strides", AttrValue::Ints(vec![k, k])),
                        ("pads", AttrValue::Ints(vec![0; 4])),
                    ];
                    g.node("MaxPool", &[&x], &y, attrs);
                }
                Stage::Flatten => g.node("Flatten", &[&x], &y, vec![("axis", AttrValue::Int(1))]),
                Stage::Linear { weight, .. } => {
                    for p in &self.params[*weight..*weight + 2] {
                        g.initializer(&p.name, &p.shape, &p.data);
                    }
                    let (wn, bn) = (&self.params[*weight].name, &self.params[*weight + 1].name);
                    let attrs = vec![
                        ("alpha", AttrValue::Float(1.0)),
                        ("beta", AttrValue::Float(1.0)),
                        ("transB", AttrValue::Int(1)),
                    ];
                    g.node("Gemm", &[&x, wn, bn], &y, attrs);
                }
            }
            x = y;
        }
        g.output("logits", &[DimSpec::Named("batch"), DimSpec::Fixed(self.classes)]);
        g.encode("stridelab", 13)
    }
}

/// Images per forward pass in [`Trainer::predict`].
const EVAL_CHUNK: usize = 1000;

/// `(grads[i], grads[i + 1])`, a layer's weight and bias gradients.
fn two_mut(v: &mut [Vec<f32>], i: usize) -> (&mut [f32], &mut [f32]) {
    let (a, b) = v[i..].split_at_mut(1);
    (&mut a[0], &mut b[0])
}

/// Laps of the caller's clock, one per kernel, or none when nothing is timed.
struct Timer<'c> {
    clock: Option<&'c mut dyn FnMut() -> f64>,
    last: f64,
    kernels: Vec<KernelTime>,
}

impl<'c> Timer<'c> {
    fn new(clock: &'c mut dyn FnMut() -> f64) -> Timer<'c> {
        let last = clock();
        Timer { clock: Some(clock), last, kernels: Vec::new() }
    }

    fn off() -> Timer<'static> {
        Timer { clock: None, last: 0.0, kernels: Vec::new() }
    }

    fn lap(&mut self, phase: Phase, name: &str) {
        if let Some(clock) = self.clock.as_mut() {
            let now = clock();
            self.kernels.push(KernelTime { phase, name: name.to_string(), ms: now - self.last });
            self.last = now;
        }
    }
}

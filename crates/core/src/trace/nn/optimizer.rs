//! What a `torch.optim` optimizer is, as a trace value holds it (its behaviour is `optim.rs`;
//! this file imports nothing of the trace, so values can hold optimizers: the value type is a
//! parameter, `V`).

use crate::tensor::Tensor;
use std::cell::RefCell;

/// One optimizer: its algorithm, hyper-parameters, parameters and per-parameter state.
#[derive(Debug)]
pub struct Optimizer<V> {
    pub kind: OptimKind,
    pub hyper: Hyper,
    /// The options as the constructor took them (or PyTorch's defaults), sorted by name:
    /// `opt.defaults`.
    pub group: Vec<(&'static str, V)>,
    /// `opt.param_groups[0]`: a dict of `params` and the options, shared with the trace, so a
    /// change to it (`g['lr'] = 0.01`, a learning-rate schedule) is what the next step uses.
    pub param_group: V,
    /// `opt.param_groups`: the list that holds `param_group` (one object, as PyTorch's).
    pub param_groups: V,
    pub params: Vec<Tensor>,
    /// One entry per parameter, created at the parameter's first step (as PyTorch's lazy
    /// `state[p]`).
    pub state: RefCell<Vec<Option<ParamState>>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimKind {
    Sgd,
    Adam,
    /// Adam with decoupled weight decay.
    AdamW,
}

impl OptimKind {
    /// The class's name, as PyTorch prints it.
    pub fn title(self) -> &'static str {
        match self {
            OptimKind::Sgd => "SGD",
            OptimKind::Adam => "Adam",
            OptimKind::AdamW => "AdamW",
        }
    }
}

/// Every hyper-parameter of the supported optimizers (each algorithm reads its own).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hyper {
    pub lr: f64,
    pub momentum: f64,
    pub dampening: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
    pub maximize: bool,
    pub betas: (f64, f64),
    pub eps: f64,
    pub amsgrad: bool,
}

/// A parameter's state tensors, by PyTorch's names.
#[derive(Clone, Debug, Default)]
pub struct ParamState {
    pub momentum_buffer: Option<Tensor>,
    /// Adam's step count: a float32 0-dim tensor.
    pub step: Option<Tensor>,
    pub exp_avg: Option<Tensor>,
    pub exp_avg_sq: Option<Tensor>,
    pub max_exp_avg_sq: Option<Tensor>,
}

impl ParamState {
    /// The state's tensors with their names, in PyTorch's order of `state[p]`'s keys.
    pub fn named(&self) -> Vec<(&'static str, Tensor)> {
        [
            ("momentum_buffer", &self.momentum_buffer),
            ("step", &self.step),
            ("exp_avg", &self.exp_avg),
            ("exp_avg_sq", &self.exp_avg_sq),
            ("max_exp_avg_sq", &self.max_exp_avg_sq),
        ]
        .into_iter()
        .filter_map(|(n, t)| t.clone().map(|t| (n, t)))
        .collect()
    }
}

impl<V> Optimizer<V> {
    /// Every state tensor, named `state[i].name` by the parameter's position.
    pub fn named_state(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for (i, s) in self.state.borrow().iter().enumerate() {
            if let Some(s) = s {
                for (n, t) in s.named() {
                    out.push((format!("state[{i}].{n}"), t));
                }
            }
        }
        out
    }
}

/// The schedules.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    Step { step_size: i64, gamma: f64 },
    MultiStep { milestones: Vec<i64>, gamma: f64 },
    Exponential { gamma: f64 },
    Cosine { t_max: i64, eta_min: f64 },
}

/// A `torch.optim.lr_scheduler` scheduler: its schedule and the optimizer group it drives
/// (its behaviour is `scheduler.rs`).
#[derive(Debug)]
pub struct Scheduler<V> {
    pub schedule: Schedule,
    pub group: V,
    pub base_lr: f64,
    pub last_epoch: std::cell::Cell<i64>,
    pub step_count: std::cell::Cell<i64>,
    pub last_lr: std::cell::Cell<f64>,
}

impl<V> Scheduler<V> {
    pub fn title(&self) -> &'static str {
        match self.schedule {
            Schedule::Step { .. } => "StepLR",
            Schedule::MultiStep { .. } => "MultiStepLR",
            Schedule::Exponential { .. } => "ExponentialLR",
            Schedule::Cosine { .. } => "CosineAnnealingLR",
        }
    }
}

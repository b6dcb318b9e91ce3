//! `torch.optim`'s SGD, Adam and AdamW as their single-tensor implementations compute them
//! (`torch/optim/sgd.py` `_single_tensor_sgd`, `adam.py` `_single_tensor_adam`, the one PyTorch
//! uses for CPU tensors), element by element in float32 with the Python-side scalars (bias
//! corrections, step size) computed in float64 and rounded where PyTorch passes them to a
//! kernel. The trace language's `torch.optim` (`trace/nn/optim.rs`) runs the same formulas as
//! recorded tensor ops; this is their direct form for the training plan.

use serde::{Deserialize, Serialize};

/// An optimizer and its hyper-parameters (PyTorch's defaults where a field says so).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Optimizer {
    Sgd { lr: f64, momentum: f64, dampening: f64, nesterov: bool, weight_decay: f64 },
    Adam { lr: f64, betas: (f64, f64), eps: f64, weight_decay: f64, amsgrad: bool },
    AdamW { lr: f64, betas: (f64, f64), eps: f64, weight_decay: f64, amsgrad: bool },
}

impl Optimizer {
    /// `torch.optim.Adam(params, lr)` with PyTorch's other defaults.
    pub fn adam(lr: f64) -> Optimizer {
        Optimizer::Adam { lr, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 0.0, amsgrad: false }
    }

    /// `torch.optim.AdamW(params, lr)` with PyTorch's other defaults (weight decay 0.01).
    pub fn adamw(lr: f64) -> Optimizer {
        Optimizer::AdamW { lr, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 1e-2, amsgrad: false }
    }

    /// `torch.optim.SGD(params, lr, momentum)` with PyTorch's other defaults.
    pub fn sgd(lr: f64, momentum: f64) -> Optimizer {
        Optimizer::Sgd { lr, momentum, dampening: 0.0, nesterov: false, weight_decay: 0.0 }
    }

    /// The constructor's checks, in PyTorch's order and words: SGD's `x < 0.0` (NaN passes),
    /// Adam's and AdamW's `not 0.0 <= x` (NaN fails) and betas in [0, 1).
    pub fn check(&self) -> crate::error::Result<()> {
        use crate::error::bail;
        // Python's `{x}` of a float for the values flags give (`-1.0`, `nan`, `inf`).
        let repr = |x: f64| if x.is_finite() { format!("{x:?}") } else { format!("{x}").to_lowercase() };
        match *self {
            Optimizer::Sgd { lr, momentum, dampening, nesterov, weight_decay } => {
                if lr < 0.0 {
                    bail!(Value, "Invalid learning rate: {}", repr(lr));
                }
                if momentum < 0.0 {
                    bail!(Value, "Invalid momentum value: {}", repr(momentum));
                }
                if weight_decay < 0.0 {
                    bail!(Value, "Invalid weight_decay value: {}", repr(weight_decay));
                }
                if nesterov && (momentum <= 0.0 || dampening != 0.0) {
                    bail!(Value, "Nesterov momentum requires a momentum and zero dampening");
                }
            }
            Optimizer::Adam { lr, betas, eps, weight_decay, .. }
            | Optimizer::AdamW { lr, betas, eps, weight_decay, .. } => {
                let negative = |x: f64| x.is_nan() || x < 0.0;
                if negative(lr) {
                    bail!(Value, "Invalid learning rate: {}", repr(lr));
                }
                if negative(eps) {
                    bail!(Value, "Invalid epsilon value: {}", repr(eps));
                }
                for (i, b) in [betas.0, betas.1].into_iter().enumerate() {
                    if !(0.0..1.0).contains(&b) {
                        bail!(Value, "Invalid beta parameter at index {i}: {}", repr(b));
                    }
                }
                if negative(weight_decay) {
                    bail!(Value, "Invalid weight_decay value: {}", repr(weight_decay));
                }
            }
        }
        Ok(())
    }

    pub fn name(&self) -> &'static str {
        match self {
            Optimizer::Sgd { .. } => "SGD",
            Optimizer::Adam { .. } => "Adam",
            Optimizer::AdamW { .. } => "AdamW",
        }
    }

    pub fn lr(&self) -> f64 {
        match *self {
            Optimizer::Sgd { lr, .. } | Optimizer::Adam { lr, .. } | Optimizer::AdamW { lr, .. } => lr,
        }
    }

    /// The names of the state tensors one parameter gets, as `opt.state[p]` keys them.
    pub fn state_names(&self) -> &'static [&'static str] {
        match self {
            Optimizer::Sgd { momentum, .. } if *momentum != 0.0 => &["momentum_buffer"],
            Optimizer::Sgd { .. } => &[],
            Optimizer::Adam { amsgrad: true, .. } | Optimizer::AdamW { amsgrad: true, .. } => {
                &["exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
            }
            Optimizer::Adam { .. } | Optimizer::AdamW { .. } => &["exp_avg", "exp_avg_sq"],
        }
    }
}

/// One parameter's optimizer state: the tensors [`Optimizer::state_names`] lists, created at
/// the first step as PyTorch creates them, and Adam's step count (`state[p]["step"]`).
#[derive(Clone, Debug, Default)]
pub struct ParamState {
    pub step: u64,
    pub buffers: Vec<Vec<f32>>,
}

/// Adam's Python-side scalars at step `step` (from 1): `step_size = lr / (1 - β1^t)` and
/// `√(1 - β2^t)`, in float64 as PyTorch computes them. The step counter is a float32 tensor
/// whose value PyTorch reads back with `.item()`, so `t` is the step rounded to float32.
pub fn adam_corrections(lr: f64, (b1, b2): (f64, f64), step: u64) -> (f64, f64) {
    let t = f64::from(step as f32);
    (lr / (1.0 - b1.powf(t)), (1.0 - b2.powf(t)).powf(0.5))
}

/// One `opt.step()` for one parameter: `p` updated in place from its gradient `g`.
pub fn update(opt: &Optimizer, p: &mut [f32], g: &[f32], state: &mut ParamState) {
    match *opt {
        Optimizer::Sgd { lr, momentum, dampening, nesterov, weight_decay } => {
            let (wd, m, damp, lr) = (weight_decay as f32, momentum as f32, (1.0 - dampening) as f32, -lr as f32);
            let first = state.buffers.is_empty();
            if momentum != 0.0 && first {
                state.buffers.push(vec![0.0; p.len()]);
            }
            for i in 0..p.len() {
                // grad = grad.add(param, alpha=weight_decay)
                let mut d = if weight_decay != 0.0 { g[i] + wd * p[i] } else { g[i] };
                if let Some(buf) = state.buffers.first_mut() {
                    // The first step clones the gradient; later ones `buf.mul_(m).add_(d, alpha=1-dampening)`.
                    buf[i] = if first { d } else { buf[i] * m + damp * d };
                    d = if nesterov { d + m * buf[i] } else { buf[i] };
                }
                p[i] += lr * d;
            }
        }
        Optimizer::Adam { lr, betas, eps, weight_decay, amsgrad }
        | Optimizer::AdamW { lr, betas, eps, weight_decay, amsgrad } => {
            let decoupled = matches!(opt, Optimizer::AdamW { .. });
            if state.buffers.is_empty() {
                let n = if amsgrad { 3 } else { 2 };
                state.buffers = vec![vec![0.0; p.len()]; n];
            }
            state.step += 1;
            let (b1, b2) = betas;
            let (step_size, bias_correction2_sqrt) = adam_corrections(lr, betas, state.step);
            let bias_correction2_sqrt = bias_correction2_sqrt as f32;
            let (w1, w2, eps, neg_step) = ((1.0 - b1) as f32, (1.0 - b2) as f32, eps as f32, -step_size as f32);
            let (b2f, wd, decay) = (b2 as f32, weight_decay as f32, (1.0 - lr * weight_decay) as f32);
            let [exp_avg, exp_avg_sq, rest @ ..] = state.buffers.as_mut_slice() else { return };
            let mut max_sq = rest.first_mut();
            for i in 0..p.len() {
                let mut d = g[i];
                if weight_decay != 0.0 {
                    if decoupled {
                        p[i] *= decay;
                    } else {
                        d += wd * p[i];
                    }
                }
                // exp_avg.lerp_(grad, 1 - beta1): the small-weight branch of PyTorch's lerp.
                exp_avg[i] += w1 * (d - exp_avg[i]);
                // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                exp_avg_sq[i] = exp_avg_sq[i] * b2f + w2 * d * d;
                let second = match max_sq.as_deref_mut() {
                    Some(m) => {
                        m[i] = m[i].max(exp_avg_sq[i]);
                        m[i]
                    }
                    None => exp_avg_sq[i],
                };
                // denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
                let denom = second.sqrt() / bias_correction2_sqrt + eps;
                // param.addcdiv_(exp_avg, denom, value=-step_size)
                p[i] += neg_step * exp_avg[i] / denom;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adam's first step moves every parameter by about `lr` against its gradient's sign.
    #[test]
    fn adam_first_step_is_lr_times_the_sign() {
        let mut p = vec![1.0, -2.0, 0.5];
        let mut s = ParamState::default();
        update(&Optimizer::adam(0.1), &mut p, &[0.3, -4.0, 0.0], &mut s);
        assert!((p[0] - 0.9).abs() < 1e-6 && (p[1] + 1.9).abs() < 1e-6 && p[2] == 0.5, "{p:?}");
        assert_eq!(s.step, 1);
        assert_eq!(s.buffers.len(), 2);
    }

    /// SGD with momentum: the buffer is the gradient at the first step, then `m·buf + g`.
    #[test]
    fn sgd_momentum_buffer_follows_pytorch() {
        let mut p = vec![1.0];
        let mut s = ParamState::default();
        let opt = Optimizer::sgd(0.5, 0.9);
        update(&opt, &mut p, &[2.0], &mut s);
        assert_eq!((p[0], s.buffers[0][0]), (0.0, 2.0));
        update(&opt, &mut p, &[1.0], &mut s);
        assert!((s.buffers[0][0] - 2.8).abs() < 1e-6 && (p[0] + 1.4).abs() < 1e-6);
    }
}

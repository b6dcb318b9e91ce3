//! `nn.RNN`, `nn.LSTM` and `nn.GRU`: construction with PyTorch's parameters in its order
//! (`weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0`, then `_reverse`, layer by
//! layer), each drawn uniform in ±1/sqrt(hidden_size) from the default generator as
//! `reset_parameters` does; the forward as ATen's CPU layers compute it
//! (`aten/src/ATen/native/RNN.cpp`): the input projection of every step at once, then one cell
//! per step, outputs stacked, directions concatenated, layers stacked with dropout between them
//! in training. Every step is made of recorded engine ops, so autograd differentiates it.
//!
//! PyTorch runs float32 LSTMs on CPU through oneDNN, whose sums are ordered differently: its
//! values agree within float rounding, not bit for bit.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::random::{Distribution, Generators};
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::elementwise::tensor_arg;
use crate::trace::nn::layer::{LayerKind, Recurrent, RecurrentCell};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Module, Value};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

/// `nn.RNN(...)`, `nn.LSTM(...)`, `nn.GRU(...)`, by PyTorch's positional order.
pub fn construct(run: &mut RunContext, name: &str, mut args: Args) -> Result<Module> {
    let input_size = size(&mut args, 0, "input_size")?;
    let hidden_size = size(&mut args, 1, "hidden_size")?;
    let num_layers = args.int_or(2, "num_layers", 1)?;
    // `nn.RNN` takes its nonlinearity fourth; the others have none.
    let rnn = name == "RNN";
    let cell = if rnn {
        match args.opt(3, "nonlinearity") {
            None => RecurrentCell::Tanh,
            Some(Value::Str(s)) if s == "tanh" => RecurrentCell::Tanh,
            Some(Value::Str(s)) if s == "relu" => RecurrentCell::Relu,
            Some(v) => bail!(
                Value,
                "Unknown nonlinearity '{}'. Select from 'tanh' or 'relu'.",
                crate::trace::python::repr_plain(&v).trim_matches('\'')
            ),
        }
    } else if name == "LSTM" {
        RecurrentCell::Lstm
    } else {
        RecurrentCell::Gru
    };
    let at = usize::from(rnn);
    let bias = args.bool_or(3 + at, "bias", true)?;
    let batch_first = args.bool_or(4 + at, "batch_first", false)?;
    let dropout = match args.opt(5 + at, "dropout") {
        None => 0.0,
        Some(Value::Scalar(s @ (Scalar::Int(_) | Scalar::Float(_)))) => s.as_f64(),
        Some(_) => f64::NAN,
    };
    let bidirectional = args.bool_or(6 + at, "bidirectional", false)?;
    if cell == RecurrentCell::Lstm {
        if let Some(p) = args.opt(7, "proj_size") {
            if p.as_int("proj_size")? != 0 {
                bail!(Unsupported, "LSTM(proj_size=...) is not supported");
            }
        }
    }
    args.finish()?;
    if !(0.0..=1.0).contains(&dropout) {
        bail!(
            Value,
            "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
        );
    }
    if hidden_size == 0 {
        bail!(Value, "hidden_size must be greater than zero");
    }
    if num_layers <= 0 {
        bail!(Value, "num_layers must be greater than zero");
    }
    let spec = Recurrent {
        cell,
        input_size,
        hidden_size,
        num_layers: num_layers as usize,
        bias,
        batch_first,
        dropout,
        bidirectional,
    };
    let layer = Module::new(LayerKind::Recurrent(spec));
    // Parameters in PyTorch's order, then `reset_parameters` draws them in that order.
    let gate_rows = cell.gates() * hidden_size;
    let mut shapes = Vec::new();
    for l in 0..spec.num_layers {
        let width = if l == 0 { input_size } else { hidden_size * spec.directions() };
        for suffix in ["", "_reverse"].iter().take(spec.directions()) {
            shapes.push((format!("weight_ih_l{l}{suffix}"), vec![gate_rows, width]));
            shapes.push((format!("weight_hh_l{l}{suffix}"), vec![gate_rows, hidden_size]));
            if bias {
                shapes.push((format!("bias_ih_l{l}{suffix}"), vec![gate_rows]));
                shapes.push((format!("bias_hh_l{l}{suffix}"), vec![gate_rows]));
            }
        }
    }
    let bound = 1.0 / (hidden_size as f64).sqrt();
    for (n, shape) in shapes {
        let t = run.engine.full(&shape, Scalar::Int(0), Some(DType::Float32))?;
        let t = run.engine.realize(&t)?;
        run.engine.random_(&t, Generators::DEFAULT, Distribution::Uniform { from: -bound, to: bound })?;
        let t = run.engine.resolve(&t);
        run.engine.make_parameter(&t)?;
        layer.params.borrow_mut().push((n, t));
    }
    Ok(layer)
}

fn size(args: &mut Args, i: usize, name: &str) -> Result<usize> {
    let n = args.int(i, name)?;
    match usize::try_from(n) {
        Ok(n) => Ok(n),
        Err(_) => bail!(Value, "Trying to create tensor with negative dimension {n}: [{n}, {n}]"),
    }
}

/// PyTorch's `extra_repr`: sizes, then what differs from the defaults.
pub fn extra_repr(r: &Recurrent) -> String {
    let mut s = format!("{}, {}", r.input_size, r.hidden_size);
    if r.num_layers != 1 {
        s.push_str(&format!(", num_layers={}", r.num_layers));
    }
    if !r.bias {
        s.push_str(", bias=False");
    }
    if r.batch_first {
        s.push_str(", batch_first=True");
    }
    if r.dropout != 0.0 {
        s.push_str(&format!(", dropout={}", crate::trace::python::float_repr(r.dropout)));
    }
    if r.bidirectional {
        s.push_str(", bidirectional=True");
    }
    s
}

/// The module's own attributes (`hidden_size`, `batch_first`, ...).
pub fn attr(r: &Recurrent, name: &str) -> Option<Value> {
    let int = |n: usize| Value::Scalar(Scalar::Int(n as i64));
    let boolean = |b: bool| Value::Scalar(Scalar::Bool(b));
    Some(match name {
        "input_size" => int(r.input_size),
        "hidden_size" => int(r.hidden_size),
        "num_layers" => int(r.num_layers),
        "bias" => boolean(r.bias),
        "batch_first" => boolean(r.batch_first),
        "dropout" => Value::Scalar(Scalar::Float(r.dropout)),
        "bidirectional" => boolean(r.bidirectional),
        "proj_size" if r.cell == RecurrentCell::Lstm => int(0),
        "mode" => Value::Str(
            match r.cell {
                RecurrentCell::Tanh => "RNN_TANH",
                RecurrentCell::Relu => "RNN_RELU",
                RecurrentCell::Lstm => "LSTM",
                RecurrentCell::Gru => "GRU",
            }
            .into(),
        ),
        "nonlinearity" if r.cell == RecurrentCell::Tanh => Value::Str("tanh".into()),
        "nonlinearity" if r.cell == RecurrentCell::Relu => Value::Str("relu".into()),
        _ => return None,
    })
}

/// One layer direction's weights.
struct Weights {
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Option<Tensor>,
    b_hh: Option<Tensor>,
}

/// A step's state: the hidden state, and an LSTM's cell state.
#[derive(Clone)]
struct State {
    h: Tensor,
    c: Option<Tensor>,
}

/// `module(input, hx=None)`: `(output, h_n)`, or `(output, (h_n, c_n))` for an LSTM.
pub fn forward(run: &mut RunContext, layer: &Module, r: &Recurrent, mut args: Args) -> Result<Value> {
    let title = r.cell.title();
    let input = tensor_arg(args.req(0, "input")?, "forward(): argument 'input' (position 1)")?;
    let hx = args.opt(1, "hx").filter(|v| !matches!(v, Value::None));
    args.finish()?;
    let rank = input.shape().len();
    if rank != 2 && rank != 3 {
        bail!(Value, "{title}: Expected input to be 2D or 3D, got {rank}D tensor instead");
    }
    let batched = rank == 3;
    let batch_dim: i64 = if r.batch_first { 0 } else { 1 };
    let x_in = if batched { input } else { run.engine.unsqueeze(&input, batch_dim)? };
    let want_rank = if batched { 3 } else { 2 };
    // The states given, each unsqueezed for an unbatched input.
    let given: Option<Vec<Tensor>> = match hx {
        None => None,
        Some(v) => {
            let parts = match (r.cell, v) {
                (RecurrentCell::Lstm, Value::Tuple(items)) if items.len() == 2 => items,
                (RecurrentCell::Lstm, _) => bail!(Type, "LSTM: hx must be a tuple of two tensors (h_0, c_0)"),
                (_, v) => vec![v],
            };
            let mut out = Vec::with_capacity(parts.len());
            for (i, p) in parts.into_iter().enumerate() {
                let t = tensor_arg(p, "hx")?;
                let got = t.shape().len();
                if got != want_rank {
                    let which = if r.cell == RecurrentCell::Lstm { format!("hx[{i}]") } else { "hx".into() };
                    if batched {
                        bail!(Shape, "For batched 3-D input, {which} should also be 3-D but got {got}-D tensor");
                    }
                    bail!(Shape, "For unbatched 2-D input, {which} should also be 2-D but got {got}-D tensor");
                }
                out.push(if batched { t } else { run.engine.unsqueeze(&t, 1)? });
            }
            Some(out)
        }
    };
    if !x_in.dtype().is_float() {
        let d = x_in.dtype().name();
        bail!(
            Value,
            "{title} input dtype (torch.{d}) does not match weight dtype (torch.float32). Convert input: input.to(torch.float32), or convert model: model.to(torch.{d})"
        );
    }
    let feature = x_in.shape()[2];
    if feature != r.input_size {
        bail!(Shape, "input.size(-1) must be equal to input_size. Expected {}, got {feature}", r.input_size);
    }
    let batch = x_in.shape()[batch_dim as usize];
    let layers = r.num_layers * r.directions();
    let expected = [layers, batch, r.hidden_size];
    let states = match given {
        Some(parts) => {
            for (i, t) in parts.iter().enumerate() {
                if t.shape() != expected {
                    let which =
                        if r.cell == RecurrentCell::Lstm { format!("hidden[{i}] size") } else { "hidden size".into() };
                    bail!(
                        Shape,
                        "Expected {which} ({}, {}, {}), got [{}]",
                        expected[0],
                        expected[1],
                        expected[2],
                        t.shape().iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
                    );
                }
            }
            parts
        }
        None => {
            let n = if r.cell == RecurrentCell::Lstm { 2 } else { 1 };
            let mut zeros = Vec::with_capacity(n);
            for _ in 0..n {
                zeros.push(run.engine.full(&expected, Scalar::Int(0), Some(x_in.dtype()))?);
            }
            zeros
        }
    };
    // Time first, as ATen's layers run.
    let mut input = if r.batch_first { run.engine.transpose(&x_in, 0, 1)? } else { x_in };
    let mut finals: Vec<State> = Vec::with_capacity(layers);
    for l in 0..r.num_layers {
        let mut outputs = Vec::with_capacity(r.directions());
        for d in 0..r.directions() {
            let index = (l * r.directions() + d) as i64;
            let suffix = if d == 1 { "_reverse" } else { "" };
            let w = weights(layer, l, suffix)?;
            let h = run.engine.select(&states[0], 0, index)?;
            let c = match states.get(1) {
                Some(c) => Some(run.engine.select(c, 0, index)?),
                None => None,
            };
            let (out, last) = direction(run, r.cell, &input, &w, State { h, c }, d == 1)?;
            outputs.push(out);
            finals.push(last);
        }
        input = if outputs.len() == 2 { run.engine.cat(&outputs, 2)? } else { outputs.swap_remove(0) };
        if r.dropout > 0.0 && layer.training.get() && l + 1 < r.num_layers {
            let kw = vec![("p".to_string(), Value::Scalar(Scalar::Float(r.dropout)))];
            let v = run.function("dropout", Args::new("dropout", vec![Value::Tensor(input)], kw))?;
            input = tensor_arg(v, "dropout")?;
        }
    }
    let hs: Vec<Tensor> = finals.iter().map(|s| s.h.clone()).collect();
    let mut h_n = run.engine.stack(&hs, 0)?;
    let mut c_n = match r.cell {
        RecurrentCell::Lstm => {
            let cs: Vec<Tensor> = finals.iter().filter_map(|s| s.c.clone()).collect();
            Some(run.engine.stack(&cs, 0)?)
        }
        _ => None,
    };
    // ATen's RNN and GRU turn their own output in place (`transpose_`: version 1, no base);
    // oneDNN's LSTM returns a transposed view.
    let mut output = match (r.batch_first, r.cell) {
        (false, _) => input,
        (true, RecurrentCell::Lstm) => run.engine.transpose(&input, 0, 1)?,
        (true, _) => {
            let dims = vec![Value::Scalar(Scalar::Int(0)), Value::Scalar(Scalar::Int(1))];
            let v = run.method(input, "transpose_", Args::new("transpose_", dims, Vec::new()))?;
            tensor_arg(v, "transpose_")?
        }
    };
    if !batched {
        output = run.engine.squeeze(&output, Some(&[batch_dim]))?;
        h_n = run.engine.squeeze(&h_n, Some(&[1]))?;
        if let Some(c) = c_n {
            c_n = Some(run.engine.squeeze(&c, Some(&[1]))?);
        }
    }
    let hidden = match c_n {
        Some(c) => Value::Tuple(vec![Value::Tensor(h_n), Value::Tensor(c)]),
        None => Value::Tensor(h_n),
    };
    Ok(Value::Tuple(vec![Value::Tensor(output), hidden]))
}

fn weights(layer: &Module, l: usize, suffix: &str) -> Result<Weights> {
    let get = |kind: &str| layer.param(&format!("{kind}_l{l}{suffix}"));
    match (get("weight_ih"), get("weight_hh")) {
        (Some(w_ih), Some(w_hh)) => Ok(Weights { w_ih, w_hh, b_ih: get("bias_ih"), b_hh: get("bias_hh") }),
        _ => bail!(Type, "the recurrent module's weights of layer {l} are missing"),
    }
}

/// One direction of one layer over `input` (`[T, B, features]`): the projection of every
/// step's input at once, then the cell step by step (backwards for the reverse direction);
/// the outputs stacked in time order, and the last state.
fn direction(
    run: &mut RunContext,
    cell: RecurrentCell,
    input: &Tensor,
    w: &Weights,
    mut state: State,
    reverse: bool,
) -> Result<(Tensor, State)> {
    let projected = run.engine.linear(input, &w.w_ih, w.b_ih.as_ref())?;
    let steps = projected.shape()[0];
    let mut outputs = Vec::with_capacity(steps);
    for i in 0..steps {
        let t = if reverse { steps - 1 - i } else { i };
        let x = run.engine.select(&projected, 0, t as i64)?;
        state = step(run, cell, &x, w, state)?;
        outputs.push(state.h.clone());
    }
    if reverse {
        outputs.reverse();
    }
    Ok((run.engine.stack(&outputs, 0)?, state))
}

fn add(run: &mut RunContext, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    run.engine.binary(BinaryOp::Add, &Operand::Tensor(a.clone()), &Operand::Tensor(b.clone()))
}

fn mul(run: &mut RunContext, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    run.engine.binary(BinaryOp::Mul, &Operand::Tensor(a.clone()), &Operand::Tensor(b.clone()))
}

/// The gates of a `[B, k * H]` projection, as `unsafe_chunk(k, 1)` splits them.
fn gates(run: &mut RunContext, t: &Tensor, k: usize) -> Result<Vec<Tensor>> {
    let width = (t.shape()[1] / k) as i64;
    (0..k as i64).map(|g| run.engine.narrow(t, 1, g * width, width)).collect()
}

/// One cell step on a projected input `x` (`W_ih x + b_ih`), as ATen's cells order it.
fn step(run: &mut RunContext, cell: RecurrentCell, x: &Tensor, w: &Weights, state: State) -> Result<State> {
    let hh = run.engine.linear(&state.h, &w.w_hh, w.b_hh.as_ref())?;
    Ok(match cell {
        RecurrentCell::Tanh | RecurrentCell::Relu => {
            let pre = add(run, &hh, x)?;
            let h = if cell == RecurrentCell::Tanh {
                run.engine.unary(UnaryOp::Tanh, &pre)?
            } else {
                let v = run.function("relu", Args::new("relu", vec![Value::Tensor(pre)], Vec::new()))?;
                tensor_arg(v, "relu")?
            };
            State { h, c: None }
        }
        RecurrentCell::Lstm => {
            let all = add(run, &hh, x)?;
            let g = gates(run, &all, 4)?;
            let i = run.engine.unary(UnaryOp::Sigmoid, &g[0])?;
            let f = run.engine.unary(UnaryOp::Sigmoid, &g[1])?;
            let n = run.engine.unary(UnaryOp::Tanh, &g[2])?;
            let o = run.engine.unary(UnaryOp::Sigmoid, &g[3])?;
            let Some(c) = state.c else { bail!(Type, "LSTM: the cell state is missing") };
            let kept = mul(run, &f, &c)?;
            let fresh = mul(run, &i, &n)?;
            let c = add(run, &kept, &fresh)?;
            let tc = run.engine.unary(UnaryOp::Tanh, &c)?;
            let h = mul(run, &o, &tc)?;
            State { h, c: Some(c) }
        }
        RecurrentCell::Gru => {
            let ig = gates(run, x, 3)?;
            let hg = gates(run, &hh, 3)?;
            let reset = add(run, &hg[0], &ig[0])?;
            let reset = run.engine.unary(UnaryOp::Sigmoid, &reset)?;
            let update = add(run, &hg[1], &ig[1])?;
            let update = run.engine.unary(UnaryOp::Sigmoid, &update)?;
            let gated = mul(run, &hg[2], &reset)?;
            let new = add(run, &ig[2], &gated)?;
            let new = run.engine.unary(UnaryOp::Tanh, &new)?;
            let diff = run.engine.binary(BinaryOp::Sub, &Operand::Tensor(state.h), &Operand::Tensor(new.clone()))?;
            let scaled = mul(run, &diff, &update)?;
            State { h: add(run, &scaled, &new)?, c: None }
        }
    })
}

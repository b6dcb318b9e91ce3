//! ONNX's recurrent ops (LSTM, GRU, RNN) unrolled over the sequence: the input projection of
//! every step as one matmul, then per step the recurrent matmul and the gates, each a
//! PyTorch op on the engine, forward and (for `bidirectional`) reversed.
//!
//! Gate orders are ONNX's: LSTM `i, o, f, c`; GRU `z, r, h`. The activations are the defaults
//! (sigmoid for gates, tanh otherwise); other activations, `clip`, `input_forget`
//! and per-sample `sequence_lens` shorter than the sequence are refused.

use crate::error::{bail, Result};
use crate::onnx::Node;
use crate::tensor::Tensor;
use crate::torch::layout::IndexItem;
use crate::uop::{BinaryOp, UnaryOp};

use super::ops::{opt, req, Lower};

/// Which recurrent cell a node runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Lstm,
    Gru { linear_before_reset: bool },
    Rnn,
}

impl Cell {
    /// Gate blocks in W, R and each half of B.
    fn gates(self) -> usize {
        match self {
            Cell::Lstm => 4,
            Cell::Gru { .. } => 3,
            Cell::Rnn => 1,
        }
    }

    fn default_activations(self) -> &'static [&'static str] {
        match self {
            Cell::Lstm => &["Sigmoid", "Tanh", "Tanh"],
            Cell::Gru { .. } => &["Sigmoid", "Tanh"],
            Cell::Rnn => &["Tanh"],
        }
    }
}

/// The rows `[k * h, (k + 1) * h)` of the last axis.
fn block(k: usize, h: usize) -> IndexItem {
    IndexItem::Slice { start: Some((k * h) as i64), stop: Some(((k + 1) * h) as i64), step: None }
}

const ALL: IndexItem = IndexItem::Slice { start: None, stop: None, step: None };

impl Lower<'_> {
    pub(super) fn recurrent_op(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        let cell = match node.op_type() {
            "LSTM" => Cell::Lstm,
            "GRU" => Cell::Gru { linear_before_reset: node.int_or("linear_before_reset", 0)? != 0 },
            "RNN" => Cell::Rnn,
            other => bail!(Unsupported, "op {other} is not supported"),
        };
        self.recurrent(node, args, cell)
    }

    fn recurrent(&mut self, node: &Node, args: &[Option<Tensor>], cell: Cell) -> Result<Vec<Tensor>> {
        let (x, w, r) = (req(args, 0, "X")?, req(args, 1, "W")?, req(args, 2, "R")?);
        let g = cell.gates();
        let layout = node.int_or("layout", 0)?;
        if x.shape().len() != 3 || w.shape().len() != 3 || r.shape().len() != 3 {
            bail!(Shape, "X, W and R must be 3-D, got {:?}, {:?}, {:?}", x.shape(), w.shape(), r.shape());
        }
        // Time-major (seq, batch, input) inside.
        let x = if layout == 0 { x } else { self.permute(&x, &[1, 0, 2])? };
        let (seq, batch) = (x.shape()[0], x.shape()[1]);
        let dirs = w.shape()[0];
        let h = r.shape()[2];
        let reverse_only = match node.string("direction")?.unwrap_or("forward") {
            "forward" => false,
            "reverse" => true,
            "bidirectional" => false,
            other => bail!(Value, "direction {other:?} is not one ONNX defines"),
        };
        if node.int("hidden_size")?.is_some_and(|n| n as usize != h) || w.shape()[1] != g * h || r.shape()[1] != g * h {
            bail!(Shape, "W {:?} and R {:?} do not hold {g} gates of hidden size {h}", w.shape(), r.shape());
        }
        if let Some(acts) = node.strings("activations")? {
            let want: Vec<&str> = cell.default_activations().iter().copied().cycle().take(acts.len()).collect();
            if acts.iter().map(String::as_str).ne(want.iter().copied()) {
                bail!(Unsupported, "activations {acts:?} are not supported (only the defaults {want:?})");
            }
        }
        if node.float("clip")?.is_some() || node.int_or("input_forget", 0)? != 0 {
            bail!(Unsupported, "clip and input_forget are not supported");
        }
        if let Some(lens) = opt(args, 4) {
            if self.ints_of(&lens)?.iter().any(|&l| l != seq as i64) {
                bail!(Unsupported, "sequence_lens shorter than the sequence are not supported");
            }
        }
        let (mut ys, mut hs, mut cs) = (Vec::new(), Vec::new(), Vec::new());
        for d in 0..dirs {
            let reverse = reverse_only || d == 1;
            let pick = |l: &mut Self, t: &Option<Tensor>| -> Result<Option<Tensor>> {
                match t {
                    Some(t) => Ok(Some(l.engine.select(t, 0, d as i64)?)),
                    None => Ok(None),
                }
            };
            let wd = self.engine.select(&w, 0, d as i64)?;
            let rd = self.engine.select(&r, 0, d as i64)?;
            let bd = pick(self, &opt(args, 3))?;
            let h0 = pick(self, &opt(args, 5))?;
            let c0 = pick(self, &opt(args, 6))?;
            // LSTM's peepholes (i, o, f), each (h).
            let peep = match pick(self, &opt(args, 7))? {
                Some(p) => Some([
                    self.index(&p, vec![block(0, h)])?,
                    self.index(&p, vec![block(1, h)])?,
                    self.index(&p, vec![block(2, h)])?,
                ]),
                None => None,
            };
            // Every step's input projection at once: (seq * batch, in) @ W^T (+ Wb).
            let flat = self.reshape(&x, &[seq * batch, x.shape()[2]])?;
            let wt = self.permute(&wd, &[1, 0])?;
            let mut xw = self.matmul(&flat, &wt)?;
            let (wb, rb) = match &bd {
                Some(b) => (Some(self.index(b, vec![block(0, g * h)])?), Some(self.index(b, vec![block(1, g * h)])?)),
                None => (None, None),
            };
            if let Some(wb) = &wb {
                xw = self.bin(BinaryOp::Add, &xw, wb)?;
            }
            let xw = self.reshape(&xw, &[seq, batch, g * h])?;
            let rt = self.permute(&rd, &[1, 0])?;
            let zeros = || crate::uop::buffer::Scalar::Float(0.0);
            let mut ht = match h0 {
                Some(t) => t,
                None => self.engine.full(&[batch, h], zeros(), Some(x.dtype()))?,
            };
            let mut ct = match c0 {
                Some(t) => t,
                None => self.engine.full(&[batch, h], zeros(), Some(x.dtype()))?,
            };
            let mut outs: Vec<Tensor> = Vec::with_capacity(seq);
            for step in 0..seq {
                let t = if reverse { seq - 1 - step } else { step };
                let xt = self.engine.select(&xw, 0, t as i64)?;
                let gate = |l: &mut Self, v: &Tensor, k: usize| l.index(v, vec![ALL, block(k, h)]);
                match cell {
                    Cell::Lstm | Cell::Rnn => {
                        let mut hr = self.matmul(&ht, &rt)?;
                        if let Some(rb) = &rb {
                            hr = self.bin(BinaryOp::Add, &hr, rb)?;
                        }
                        let z = self.bin(BinaryOp::Add, &xt, &hr)?;
                        if cell == Cell::Rnn {
                            ht = self.engine.unary(UnaryOp::Tanh, &z)?;
                        } else {
                            // A gate, with its peephole onto the cell state `c` when there is one.
                            let sig = |l: &mut Self, k: usize, c: &Tensor| -> Result<Tensor> {
                                let mut v = gate(l, &z, k)?;
                                if let Some(p) = &peep {
                                    let pc = l.bin(BinaryOp::Mul, &p[k], c)?;
                                    v = l.bin(BinaryOp::Add, &v, &pc)?;
                                }
                                l.engine.unary(UnaryOp::Sigmoid, &v)
                            };
                            let (i, f) = (sig(self, 0, &ct)?, sig(self, 2, &ct)?);
                            let cz = gate(self, &z, 3)?;
                            let cand = self.engine.unary(UnaryOp::Tanh, &cz)?;
                            let keep = self.bin(BinaryOp::Mul, &f, &ct)?;
                            let add = self.bin(BinaryOp::Mul, &i, &cand)?;
                            ct = self.bin(BinaryOp::Add, &keep, &add)?;
                            let o = sig(self, 1, &ct)?;
                            let tc = self.engine.unary(UnaryOp::Tanh, &ct)?;
                            ht = self.bin(BinaryOp::Mul, &o, &tc)?;
                        }
                    }
                    Cell::Gru { linear_before_reset } => {
                        let rb_k = |l: &mut Self, k: usize| -> Result<Option<Tensor>> {
                            match &rb {
                                Some(b) => Ok(Some(l.index(b, vec![block(k, h)])?)),
                                None => Ok(None),
                            }
                        };
                        let rec = |l: &mut Self, hv: &Tensor, k: usize| -> Result<Tensor> {
                            let rk = l.index(&rt, vec![ALL, block(k, h)])?;
                            let mut v = l.matmul(hv, &rk)?;
                            if let Some(b) = rb_k(l, k)? {
                                v = l.bin(BinaryOp::Add, &v, &b)?;
                            }
                            Ok(v)
                        };
                        let mut zr = Vec::with_capacity(2);
                        for k in 0..2 {
                            let xk = gate(self, &xt, k)?;
                            let hk = rec(self, &ht, k)?;
                            let s = self.bin(BinaryOp::Add, &xk, &hk)?;
                            zr.push(self.engine.unary(UnaryOp::Sigmoid, &s)?);
                        }
                        let (z, rg) = (&zr[0], &zr[1]);
                        let hh = if linear_before_reset {
                            let hk = rec(self, &ht, 2)?;
                            self.bin(BinaryOp::Mul, rg, &hk)?
                        } else {
                            let rh = self.bin(BinaryOp::Mul, rg, &ht)?;
                            rec(self, &rh, 2)?
                        };
                        let xk = gate(self, &xt, 2)?;
                        let s = self.bin(BinaryOp::Add, &xk, &hh)?;
                        let cand = self.engine.unary(UnaryOp::Tanh, &s)?;
                        // (1 - z) * cand + z * h  =  cand + z * (h - cand)
                        let diff = self.bin(BinaryOp::Sub, &ht, &cand)?;
                        let zd = self.bin(BinaryOp::Mul, z, &diff)?;
                        ht = self.bin(BinaryOp::Add, &cand, &zd)?;
                    }
                }
                outs.push(ht.clone());
            }
            if reverse {
                outs.reverse();
            }
            ys.push(self.engine.stack(&outs, 0)?);
            hs.push(ht);
            cs.push(ct);
        }
        // Y (seq, dirs, batch, h), Y_h and Y_c (dirs, batch, h); batch first with layout 1.
        let y = self.engine.stack(&ys, 1)?;
        let yh = self.engine.stack(&hs, 0)?;
        let yc = self.engine.stack(&cs, 0)?;
        let mut out = if layout == 0 {
            vec![y, yh]
        } else {
            vec![self.permute(&y, &[2, 0, 1, 3])?, self.permute(&yh, &[1, 0, 2])?]
        };
        if cell == Cell::Lstm {
            out.push(if layout == 0 { yc } else { self.permute(&yc, &[1, 0, 2])? });
        }
        Ok(out)
    }
}

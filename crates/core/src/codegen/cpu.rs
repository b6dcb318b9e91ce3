//! The CPU backend: executes kernel IR directly.
//!
//! Each instruction runs over a block of lanes at once (one lane per output element, or per
//! (output, reduce step) pair inside the loop) and reuses the reference interpreter's typed
//! element functions, so arithmetic, casts and NaN rules are the interpreter's by construction.
//! Sums accumulate in f64 like the interpreter's, so results agree to the last float bit in
//! almost every case and well within 1e-5 in all.

use super::ir::{BufRef, Inst, Kernel};
use crate::dtype::DType;
use crate::error::{bail, Error, Result};
use crate::shape::symbolic::Expr;
use crate::uop::buffer::{with_data, Data, Elem};
use crate::uop::{alu, interp};
use crate::uop::{ReduceOp, StorageId};
use std::collections::BTreeMap;

/// Lanes evaluated together: large enough to amortise dispatch on each instruction, small
/// enough to stay in cache.
const BLOCK: usize = 4096;

/// Storages by id: every storage of an engine (a `Vec`), or only those a schedule touches (a
/// map).
pub trait StorageTable {
    fn storage(&self, id: StorageId) -> Option<&Data>;
    fn storage_mut(&mut self, id: StorageId) -> Option<&mut Data>;
}

impl StorageTable for Vec<Data> {
    fn storage(&self, id: StorageId) -> Option<&Data> {
        self.get(id)
    }
    fn storage_mut(&mut self, id: StorageId) -> Option<&mut Data> {
        self.get_mut(id)
    }
}

impl StorageTable for BTreeMap<StorageId, Data> {
    fn storage(&self, id: StorageId) -> Option<&Data> {
        self.get(&id)
    }
    fn storage_mut(&mut self, id: StorageId) -> Option<&mut Data> {
        self.get_mut(&id)
    }
}

/// The buffers a schedule runs over: trace storages plus its temporaries.
pub struct Buffers<'a> {
    pub storages: &'a mut dyn StorageTable,
    pub temps: Vec<Data>,
}

fn missing(b: BufRef) -> Error {
    Error::Shape(format!("kernel buffer {b:?} is not among the buffers passed in"))
}

impl Buffers<'_> {
    fn get(&self, b: BufRef) -> Result<&Data> {
        match b {
            BufRef::Storage(s) => self.storages.storage(s),
            BufRef::Temp(t) => self.temps.get(t),
        }
        .ok_or_else(|| missing(b))
    }

    fn get_mut(&mut self, b: BufRef) -> Result<&mut Data> {
        match b {
            BufRef::Storage(s) => self.storages.storage_mut(s),
            BufRef::Temp(t) => self.temps.get_mut(t),
        }
        .ok_or_else(|| missing(b))
    }
}

/// Runs one kernel over `bufs`, writing its output slot.
pub fn execute(k: &Kernel, bufs: &mut Buffers<'_>) -> Result<()> {
    let n = k.numel();
    let nv = k.dims.len()
        + k.insts
            .iter()
            .find_map(|i| match i {
                Inst::BeginReduce { vars } => Some(vars.len()),
                _ => None,
            })
            .unwrap_or(0);
    let begin = k.insts.iter().position(|i| matches!(i, Inst::BeginReduce { .. }));
    let end = k.insts.iter().position(|i| matches!(i, Inst::EndReduce { .. }));
    let red = k.reduce_len();
    let co = match begin {
        // A serial kernel's reads see every earlier write: one element per block.
        _ if k.serial => 1,
        Some(_) => (BLOCK / red.max(1)).clamp(1, BLOCK),
        None => BLOCK,
    };
    let mut writes: Vec<(Vec<i64>, Data)> = Vec::new();
    let mut o0 = 0;
    while o0 < n {
        let lanes = co.min(n - o0);
        let mut vars = vec![0i64; lanes * nv];
        for l in 0..lanes {
            let dst = &mut vars[l * nv..l * nv + k.dims.len()];
            if k.order.is_empty() {
                unravel_into(o0 + l, &k.dims, dst);
            } else {
                let mut p = o0 + l;
                for &d in &k.order {
                    let n = k.dims[d].max(1);
                    dst[d] = (p % n) as i64;
                    p /= n;
                }
            }
        }
        let mut vals: Vec<Option<Data>> = vec![None; k.insts.len()];
        let stop = begin.unwrap_or(k.insts.len());
        run_range(k, bufs, 0..stop, &vars, nv, lanes, &mut vals, &mut writes)?;
        if let (Some(b), Some(e)) = (begin, end) {
            let Inst::BeginReduce { vars: rvars } = &k.insts[b] else { unreachable!("position found it") };
            let Inst::EndReduce { op, value, dtype } = &k.insts[e] else { unreachable!("position found it") };
            let acc =
                reduce_block(k, bufs, (b + 1)..e, rvars, (*op, *value, *dtype), &vars, nv, lanes, &vals, &mut writes)?;
            vals[e] = Some(acc);
            run_range(k, bufs, (e + 1)..k.insts.len(), &vars, nv, lanes, &mut vals, &mut writes)?;
        }
        // Writes are applied per block after every read of the block: a fused in-place
        // update reads each element only at the lane that writes it.
        let out = k.slots[0].buf;
        for (idx, data) in writes.drain(..) {
            bufs.get_mut(out)?.scatter(&idx, &data);
        }
        o0 += lanes;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn reduce_block(
    k: &Kernel,
    bufs: &mut Buffers<'_>,
    body: std::ops::Range<usize>,
    rvars: &[(usize, usize)],
    (op, value, dtype): (ReduceOp, usize, DType),
    outer: &[i64],
    nv: usize,
    lanes: usize,
    outside: &[Option<Data>],
    writes: &mut Vec<(Vec<i64>, Data)>,
) -> Result<Data> {
    let red: usize = rvars.iter().map(|v| v.1).product();
    let cr = (BLOCK / lanes).clamp(1, red.max(1));
    let mut sums = vec![0f64; lanes];
    let mut acc: Option<Data> = None;
    let extents: Vec<usize> = rvars.iter().map(|v| v.1).collect();
    let mut r0 = 0;
    while r0 < red {
        let rl = cr.min(red - r0);
        let total = lanes * rl;
        let mut vars = vec![0i64; total * nv];
        let mut rv = vec![0i64; rvars.len()];
        for l in 0..lanes {
            for r in 0..rl {
                let dst = &mut vars[(l * rl + r) * nv..(l * rl + r + 1) * nv];
                dst.copy_from_slice(&outer[l * nv..(l + 1) * nv]);
                unravel_into(r0 + r, &extents, &mut rv);
                for (j, &(id, _)) in rvars.iter().enumerate() {
                    dst[id] = rv[j];
                }
            }
        }
        // Values from before the loop repeat once per reduce step.
        let spread: Vec<Option<i64>> = (0..total).map(|i| Some((i / rl) as i64)).collect();
        let mut vals: Vec<Option<Data>> = outside.iter().map(|v| v.as_ref().map(|d| d.gather(&spread))).collect();
        run_range(k, bufs, body.clone(), &vars, nv, total, &mut vals, writes)?;
        let Some(v) = vals[value].take() else { bail!(Unsupported, "internal: reduce body produced no value") };
        match op {
            // Floats accumulate in f64 as the interpreter does; integers exactly, in their type.
            ReduceOp::Sum if dtype.is_float() => {
                let f = v.to_f64_vec();
                for (l, s) in sums.iter_mut().enumerate() {
                    *s += f[l * rl..(l + 1) * rl].iter().sum::<f64>();
                }
            }
            ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min | ReduceOp::Prod => {
                let part = interp::reduce(op, &v, &[lanes, rl], &[1])?;
                let bop = op.combine();
                acc = Some(match acc {
                    None => part,
                    Some(a) => alu::binary(bop, &a, &part),
                });
            }
        }
        r0 += rl;
    }
    Ok(match (op, acc) {
        (ReduceOp::Sum, _) if dtype.is_float() => from_f64s(&sums, dtype),
        (_, None) => from_f64s(&sums, dtype),
        (_, Some(a)) => a,
    })
}

/// Rounds f64 accumulators to `dtype` the way the interpreter's reduce does.
fn from_f64s(v: &[f64], dtype: DType) -> Data {
    crate::uop::buffer::with_dtype!(dtype, |T| T::wrap(v.iter().map(|&x| T::from_f64(x)).collect()))
}

#[allow(clippy::too_many_arguments)]
fn run_range(
    k: &Kernel,
    bufs: &Buffers<'_>,
    range: std::ops::Range<usize>,
    vars: &[i64],
    nv: usize,
    lanes: usize,
    vals: &mut [Option<Data>],
    writes: &mut Vec<(Vec<i64>, Data)>,
) -> Result<()> {
    let lane = |l: usize| &vars[l * nv..(l + 1) * nv];
    for i in range {
        // Operands are borrowed: values are only written after the instruction is evaluated.
        let get = operand;
        let vals_now: &[Option<Data>] = vals;
        let out = match &k.insts[i] {
            Inst::Const { value, dtype } => Some(Data::full(*dtype, lanes, *value)),
            Inst::Index { expr, dtype } => {
                Some(Data::I32((0..lanes).map(|l| expr.eval(lane(l)) as i32).collect()).cast(*dtype))
            }
            Inst::Load { slot, index, valid, .. } => {
                Some(load(bufs.get(k.slots[*slot].buf)?, index, valid, lanes, &lane))
            }
            Inst::Gather { slot, base, stride, at, extent, valid, .. } => {
                let at = get(vals_now, *at)?;
                let last = (*extent as i64 - 1).max(0);
                let idx: Vec<Option<i64>> = (0..lanes)
                    .map(|l| {
                        let v = lane(l);
                        let p = at.get_scalar(l).as_i64().clamp(0, last);
                        (valid.eval(v) != 0).then(|| base.eval(v) + p * stride)
                    })
                    .collect();
                Some(bufs.get(k.slots[*slot].buf)?.gather(&idx))
            }
            Inst::Unary { op, a, .. } => Some(alu::unary(*op, get(vals_now, *a)?)),
            Inst::Binary { op, a, b, .. } => Some(alu::binary(*op, get(vals_now, *a)?, get(vals_now, *b)?)),
            Inst::Where { c, x, y, .. } => {
                Some(alu::select(get(vals_now, *c)?, get(vals_now, *x)?, get(vals_now, *y)?))
            }
            Inst::Cast { a, to, .. } => Some(get(vals_now, *a)?.cast(*to)),
            Inst::BeginReduce { .. } | Inst::EndReduce { .. } => {
                bail!(Unsupported, "internal: nested reduce in kernel {}", k.name)
            }
            Inst::Store { index, valid, value, .. } => {
                let v = get(vals_now, *value)?.clone();
                let mut idx = Vec::with_capacity(lanes);
                let mut keep = Vec::with_capacity(lanes);
                for l in 0..lanes {
                    if valid.eval(lane(l)) != 0 {
                        idx.push(index.eval(lane(l)));
                        keep.push(Some(l as i64));
                    }
                }
                let v = if keep.len() == lanes { v } else { v.gather(&keep) };
                writes.push((idx, v));
                None
            }
        };
        vals[i] = out;
    }
    Ok(())
}

fn operand(vals: &[Option<Data>], v: usize) -> Result<&Data> {
    match vals.get(v).and_then(Option::as_ref) {
        Some(d) => Ok(d),
        None => bail!(Unsupported, "internal: value %{v} used before it is defined"),
    }
}

/// Reads `src` at each lane's index; a run of consecutive indices is one slice copy.
fn load<'a>(src: &Data, index: &Expr, valid: &Expr, lanes: usize, lane: &dyn Fn(usize) -> &'a [i64]) -> Data {
    if let (Expr::Bool(true), Some((terms, c))) = (valid, affine(index)) {
        let idx: Vec<i64> = (0..lanes)
            .map(|l| {
                let v = lane(l);
                terms.iter().fold(c, |acc, &(id, k)| acc + k * v[id])
            })
            .collect();
        let consecutive = idx.windows(2).all(|w| w[1] == w[0] + 1);
        return with_data!(src, |v: T| {
            if consecutive && !idx.is_empty() {
                let start = idx[0] as usize;
                T::wrap(v[start..start + lanes].to_vec())
            } else {
                T::wrap(idx.iter().map(|&i| v[i as usize]).collect())
            }
        });
    }
    let idx: Vec<Option<i64>> = (0..lanes)
        .map(|l| {
            let v = lane(l);
            (valid.eval(v) != 0).then(|| index.eval(v))
        })
        .collect();
    src.gather(&idx)
}

/// `index` as `sum(k * var) + c`, when it has that form (most views do).
fn affine(e: &Expr) -> Option<(Vec<(usize, i64)>, i64)> {
    fn walk(e: &Expr, scale: i64, terms: &mut Vec<(usize, i64)>, c: &mut i64) -> bool {
        match e {
            Expr::Const(k) => {
                *c += k * scale;
                true
            }
            Expr::Var { id, .. } => {
                terms.push((*id, scale));
                true
            }
            Expr::Mul(a, k) => walk(a, scale * k, terms, c),
            Expr::Add(ts) => ts.iter().all(|t| walk(t, scale, terms, c)),
            _ => false,
        }
    }
    let (mut terms, mut c) = (Vec::new(), 0);
    walk(e, 1, &mut terms, &mut c).then_some((terms, c))
}

fn unravel_into(mut flat: usize, dims: &[usize], out: &mut [i64]) {
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1);
        out[d] = (flat % n) as i64;
        flat /= n;
    }
}

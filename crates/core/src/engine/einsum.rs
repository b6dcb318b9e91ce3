//! `torch.einsum`: each operand's subscripts lined up in one index space (repeated subscripts
//! taken as diagonals first), the operands multiplied with broadcasting, the subscripts the
//! output lacks summed away, and the rest put in the output's order.

use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::uop::BinaryOp;

use super::reduce::KeepDim;
use crate::uop::ReduceOp;

impl Engine {
    pub fn einsum(&mut self, equation: &str, operands: &[Tensor]) -> Result<Tensor> {
        let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
        if eq.contains('.') {
            bail!(Unsupported, "einsum(): ellipsis ('...') in the equation is not supported");
        }
        let (lhs, rhs) = match eq.split_once("->") {
            Some((l, r)) => (l.to_string(), Some(r.to_string())),
            None => (eq.clone(), None),
        };
        let terms: Vec<Vec<char>> = lhs.split(',').map(|s| s.chars().collect()).collect();
        if terms.len() != operands.len() {
            if terms.len() < operands.len() {
                bail!(Shape, "einsum(): more operands were provided than specified in the equation");
            }
            bail!(Shape, "einsum(): fewer operands were provided than specified in the equation");
        }
        for (i, (term, x)) in terms.iter().zip(operands).enumerate() {
            if let Some(c) = term.iter().find(|c| !c.is_ascii_alphabetic()) {
                bail!(Shape, "einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z] ({c})");
            }
            if term.len() != x.shape().len() {
                bail!(
                    Shape,
                    "einsum(): the number of subscripts in the equation ({}) does not match the number of dimensions ({}) for operand {i} and no ellipsis was given",
                    term.len(),
                    x.shape().len()
                );
            }
        }
        let out: Vec<char> = match rhs {
            Some(r) => r.chars().collect(),
            None => {
                let mut once: Vec<char> = ('A'..='Z')
                    .chain('a'..='z')
                    .filter(|c| terms.iter().map(|t| t.iter().filter(|x| *x == c).count()).sum::<usize>() == 1)
                    .collect();
                once.sort_by_key(|c| (c.is_ascii_lowercase(), *c));
                once
            }
        };
        for (i, c) in out.iter().enumerate() {
            if out[..i].contains(c) {
                bail!(Shape, "einsum(): output subscript {c} appears more than once in the output");
            }
            if !terms.iter().any(|t| t.contains(c)) {
                bail!(Shape, "einsum(): output subscript {c} does not appear in the equation for any input operand");
            }
        }
        // Every subscript, output first, then the summed ones in order of appearance.
        let mut space: Vec<char> = out.clone();
        for t in &terms {
            for &c in t {
                if !space.contains(&c) {
                    space.push(c);
                }
            }
        }
        // Each subscript's size: equal within an operand, broadcasting (1) across operands.
        let mut seen: Vec<(char, usize)> = Vec::new();
        for (i, (term, x)) in terms.iter().zip(operands).enumerate() {
            let mut own: Vec<(char, usize)> = Vec::new();
            for (&c, &n) in term.iter().zip(x.shape()) {
                match own.iter().find(|(d, _)| *d == c) {
                    Some(&(_, m)) if m != n => bail!(
                        Shape,
                        "einsum(): subscript {c} is repeated for operand {i} but the sizes don't match, {n} != {m}"
                    ),
                    Some(_) => {}
                    None => own.push((c, n)),
                }
            }
            for (c, n) in own {
                match seen.iter_mut().find(|(d, _)| *d == c) {
                    Some((_, m)) if *m != n && *m != 1 && n != 1 => bail!(
                        Shape,
                        "einsum(): subscript {c} has size {n} for operand {i} which does not broadcast with previously seen size {m}"
                    ),
                    Some((_, m)) => *m = (*m).max(n),
                    None => seen.push((c, n)),
                }
            }
        }
        let mut product: Option<Tensor> = None;
        for (term, x) in terms.iter().zip(operands) {
            let (mut x, mut term) = (x.clone(), term.clone());
            // A repeated subscript within an operand is its diagonal (moved to the end).
            while let Some((p, q)) = repeated(&term) {
                x = self.diagonal(&x, 0, p as i64, q as i64)?;
                let c = term[p];
                term.remove(q);
                term.remove(p);
                term.push(c);
            }
            // Permute to the space's order, then a size-1 dim for every absent subscript.
            let mut order: Vec<usize> = (0..term.len()).collect();
            order.sort_by_key(|&i| space.iter().position(|c| *c == term[i]));
            let perm: Vec<i64> = order.iter().map(|&i| i as i64).collect();
            if perm.iter().enumerate().any(|(i, &p)| i as i64 != p) {
                x = self.permute(&x, &perm)?;
            }
            let mut shape = Vec::with_capacity(space.len());
            let mut k = 0;
            for c in &space {
                if term.contains(c) {
                    shape.push(x.shape()[k] as i64);
                    k += 1;
                } else {
                    shape.push(1);
                }
            }
            if shape.len() != x.shape().len() {
                x = self.reshape(&x, &shape)?;
            }
            product = Some(match product {
                None => x,
                Some(p) => self.binary(BinaryOp::Mul, &Operand::Tensor(p), &Operand::Tensor(x))?,
            });
        }
        let Some(mut r) = product else { bail!(Shape, "einsum(): must provide at least one operand") };
        let summed: Vec<usize> = (out.len()..space.len()).collect();
        if !summed.is_empty() {
            r = self.reduce(ReduceOp::Sum, &r, &summed, KeepDim::Drop)?;
        }
        Ok(r)
    }
}

fn repeated(term: &[char]) -> Option<(usize, usize)> {
    for p in 0..term.len() {
        if let Some(q) = (p + 1..term.len()).find(|&q| term[q] == term[p]) {
            return Some((p, q));
        }
    }
    None
}

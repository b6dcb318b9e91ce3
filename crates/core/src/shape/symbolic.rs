//! A small integer expression language for the index and validity of a view stack.
//!
//! The UI shows `ShapeTracker::index_text()` next to the views, and the WGSL generator renders the
//! same tree as shader code, so expressions are built already simplified: constants folded, sums
//! flat with like terms combined, and divisions and moduli removed when the operand's range (from
//! the loop variables' extents) makes them no-ops. Every rewrite is exact for all variable values
//! in range, so an expression means the same whether or not it is evaluated where it is valid.
//!
//! Division and modulo floor (Python semantics); divisors and moduli are always positive.

use std::fmt;

use super::view::{floor_div, floor_mod};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Const(i64),
    Bool(bool),
    /// Loop variable `i{id}`, ranging over `0..extent`.
    Var {
        id: usize,
        extent: usize,
    },
    /// A flat sum: never nested, at most one constant (last), like terms already combined.
    Add(Vec<Expr>),
    /// Product with a constant other than 0 and 1.
    Mul(Box<Expr>, i64),
    /// Floor division by a constant > 1.
    FloorDiv(Box<Expr>, i64),
    /// Floor modulo by a constant > 1 (result in `0..k`).
    Mod(Box<Expr>, i64),
    /// `a < k` as a boolean.
    Lt(Box<Expr>, i64),
    /// `a >= k` as a boolean.
    Ge(Box<Expr>, i64),
    /// Conjunction of at least two booleans.
    And(Vec<Expr>),
}

impl Expr {
    pub fn var(id: usize, extent: usize) -> Expr {
        if extent == 1 {
            return Expr::Const(0);
        }
        Expr::Var { id, extent }
    }

    pub fn constant(k: i64) -> Expr {
        Expr::Const(k)
    }

    /// Inclusive bounds over all in-range variable values (booleans are 0 or 1).
    pub fn bounds(&self) -> (i64, i64) {
        match self {
            Expr::Const(k) => (*k, *k),
            Expr::Bool(b) => (i64::from(*b), i64::from(*b)),
            // An empty loop never runs; (0, 0) keeps the arithmetic finite.
            Expr::Var { extent, .. } => (0, (*extent as i64 - 1).max(0)),
            Expr::Add(terms) => terms.iter().fold((0, 0), |(lo, hi), t| {
                let (a, b) = t.bounds();
                (lo + a, hi + b)
            }),
            Expr::Mul(a, k) => {
                let (lo, hi) = a.bounds();
                if *k >= 0 {
                    (lo * k, hi * k)
                } else {
                    (hi * k, lo * k)
                }
            }
            Expr::FloorDiv(a, k) => {
                let (lo, hi) = a.bounds();
                (floor_div(lo, *k), floor_div(hi, *k))
            }
            Expr::Mod(a, k) => {
                let (lo, hi) = a.bounds();
                if floor_div(lo, *k) == floor_div(hi, *k) {
                    (floor_mod(lo, *k), floor_mod(hi, *k))
                } else {
                    (0, k - 1)
                }
            }
            Expr::Lt(..) | Expr::Ge(..) | Expr::And(_) => (0, 1),
        }
    }

    /// Value at `vars` (indexed by variable id; panics if an id is past its end).
    pub fn eval(&self, vars: &[i64]) -> i64 {
        match self {
            Expr::Const(k) => *k,
            Expr::Bool(b) => i64::from(*b),
            Expr::Var { id, .. } => vars[*id],
            Expr::Add(terms) => terms.iter().map(|t| t.eval(vars)).sum(),
            Expr::Mul(a, k) => a.eval(vars) * k,
            Expr::FloorDiv(a, k) => floor_div(a.eval(vars), *k),
            Expr::Mod(a, k) => floor_mod(a.eval(vars), *k),
            Expr::Lt(a, k) => i64::from(a.eval(vars) < *k),
            Expr::Ge(a, k) => i64::from(a.eval(vars) >= *k),
            Expr::And(terms) => i64::from(terms.iter().all(|t| t.eval(vars) != 0)),
        }
    }

    /// Splits a sum into (term, coefficient) pairs and a constant.
    fn linear(self) -> (Vec<(Expr, i64)>, i64) {
        let mut out = Vec::new();
        let mut constant = 0;
        self.linear_into(1, &mut out, &mut constant);
        (out, constant)
    }

    fn linear_into(self, scale: i64, out: &mut Vec<(Expr, i64)>, constant: &mut i64) {
        match self {
            Expr::Const(k) => *constant += k * scale,
            Expr::Add(terms) => terms.into_iter().for_each(|t| t.linear_into(scale, out, constant)),
            Expr::Mul(a, k) => a.linear_into(k * scale, out, constant),
            other => match out.iter_mut().find(|(t, _)| *t == other) {
                Some((_, c)) => *c += scale,
                None => out.push((other, scale)),
            },
        }
    }

    fn from_linear(terms: Vec<(Expr, i64)>, constant: i64) -> Expr {
        let mut out: Vec<Expr> = terms
            .into_iter()
            .filter(|&(_, c)| c != 0)
            .map(|(t, c)| if c == 1 { t } else { Expr::Mul(Box::new(t), c) })
            .collect();
        if constant != 0 {
            out.push(Expr::Const(constant));
        }
        match out.len() {
            0 => Expr::Const(0),
            1 => out.pop().unwrap_or(Expr::Const(0)),
            _ => Expr::Add(out),
        }
    }

    /// Floor division by `k > 0` (panics otherwise: divisors come from dim sizes).
    pub fn floordiv(self, k: i64) -> Expr {
        assert!(k > 0, "floordiv by {k}");
        if k == 1 {
            return self;
        }
        let (lo, hi) = self.bounds();
        if floor_div(lo, k) == floor_div(hi, k) {
            return Expr::Const(floor_div(lo, k));
        }
        if let Expr::FloorDiv(a, j) = self {
            return a.floordiv(j * k);
        }
        // (k*q + r) // k == q + r // k for any integers: peel off multiples of k.
        let (terms, constant) = self.linear();
        let (whole, rest): (Vec<_>, Vec<_>) = terms.into_iter().partition(|(_, c)| c % k == 0);
        let quotient = Expr::from_linear(whole.into_iter().map(|(t, c)| (t, c / k)).collect(), floor_div(constant, k));
        let rest = Expr::from_linear(rest, floor_mod(constant, k));
        let (lo, hi) = rest.bounds();
        if floor_div(lo, k) == floor_div(hi, k) {
            return quotient + Expr::Const(floor_div(lo, k));
        }
        quotient + Expr::FloorDiv(Box::new(rest), k)
    }

    /// Floor modulo by `k > 0` (panics otherwise: moduli come from dim sizes).
    pub fn modulo(self, k: i64) -> Expr {
        assert!(k > 0, "modulo by {k}");
        if k == 1 {
            return Expr::Const(0);
        }
        let inner = match self {
            Expr::Mod(a, j) if j % k == 0 => *a,
            other => other,
        };
        let (lo, hi) = inner.bounds();
        if floor_div(lo, k) == floor_div(hi, k) {
            return inner + Expr::Const(-k * floor_div(lo, k));
        }
        // Multiples of k vanish, so every coefficient only matters modulo k.
        let (terms, constant) = inner.linear();
        let reduced =
            Expr::from_linear(terms.into_iter().map(|(t, c)| (t, floor_mod(c, k))).collect(), floor_mod(constant, k));
        let (lo, hi) = reduced.bounds();
        if floor_div(lo, k) == floor_div(hi, k) {
            return reduced + Expr::Const(-k * floor_div(lo, k));
        }
        Expr::Mod(Box::new(reduced), k)
    }

    pub fn lt(self, k: i64) -> Expr {
        match self.bounds() {
            (_, hi) if hi < k => Expr::Bool(true),
            (lo, _) if lo >= k => Expr::Bool(false),
            _ => Expr::Lt(Box::new(self), k),
        }
    }

    pub fn ge(self, k: i64) -> Expr {
        match self.bounds() {
            (lo, _) if lo >= k => Expr::Bool(true),
            (_, hi) if hi < k => Expr::Bool(false),
            _ => Expr::Ge(Box::new(self), k),
        }
    }

    pub fn and(self, other: Expr) -> Expr {
        let mut out = Vec::new();
        for e in [self, other] {
            match e {
                Expr::Bool(true) => {}
                Expr::Bool(false) => return Expr::Bool(false),
                Expr::And(terms) => out.extend(terms),
                other => {
                    if !out.contains(&other) {
                        out.push(other)
                    }
                }
            }
        }
        match out.len() {
            0 => Expr::Bool(true),
            1 => out.pop().unwrap_or(Expr::Bool(true)),
            _ => Expr::And(out),
        }
    }

    /// Whether this needs parentheses when nested (comparisons carry their own).
    fn is_compound(&self) -> bool {
        !matches!(self, Expr::Const(_) | Expr::Bool(_) | Expr::Var { .. } | Expr::Lt(..) | Expr::Ge(..))
    }

    fn fmt_nested(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_compound() {
            write!(f, "({self})")
        } else {
            write!(f, "{self}")
        }
    }
}

/// Sums and conjunctions render bare at the top level, comparisons always in parentheses, and
/// every other compound operand is parenthesized when nested, so reading (or re-emitting) the
/// text needs no precedence rules: `(i0*12)+(i1*4)+i2+1`, `(i0<2)&&(i1>=1)`.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Const(k) => write!(f, "{k}"),
            Expr::Bool(b) => write!(f, "{b}"),
            Expr::Var { id, .. } => write!(f, "i{id}"),
            Expr::Add(terms) => {
                for (i, t) in terms.iter().enumerate() {
                    match t {
                        Expr::Const(k) if i > 0 && *k < 0 => write!(f, "-{}", k.unsigned_abs())?,
                        _ => {
                            if i > 0 {
                                f.write_str("+")?;
                            }
                            t.fmt_nested(f)?;
                        }
                    }
                }
                Ok(())
            }
            Expr::And(terms) => {
                for (i, t) in terms.iter().enumerate() {
                    if i > 0 {
                        f.write_str("&&")?;
                    }
                    t.fmt_nested(f)?;
                }
                Ok(())
            }
            Expr::Mul(a, k) => binary(f, a, "*", *k),
            Expr::FloorDiv(a, k) => binary(f, a, "//", *k),
            Expr::Mod(a, k) => binary(f, a, "%", *k),
            Expr::Lt(a, k) => {
                f.write_str("(")?;
                binary(f, a, "<", *k)?;
                f.write_str(")")
            }
            Expr::Ge(a, k) => {
                f.write_str("(")?;
                binary(f, a, ">=", *k)?;
                f.write_str(")")
            }
        }
    }
}

/// Sums normalize as they are built: flat, like terms combined, constants folded.
impl std::ops::Add for Expr {
    type Output = Expr;

    fn add(self, other: Expr) -> Expr {
        let (mut terms, mut constant) = self.linear();
        let (more, c) = other.linear();
        constant += c;
        for (t, c) in more {
            match terms.iter_mut().find(|(x, _)| *x == t) {
                Some((_, k)) => *k += c,
                None => terms.push((t, c)),
            }
        }
        Expr::from_linear(terms, constant)
    }
}

/// Scaling distributes over sums so they stay flat.
impl std::ops::Mul<i64> for Expr {
    type Output = Expr;

    fn mul(self, k: i64) -> Expr {
        let (terms, constant) = self.linear();
        Expr::from_linear(terms.into_iter().map(|(t, c)| (t, c * k)).collect(), constant * k)
    }
}

fn binary(f: &mut fmt::Formatter<'_>, a: &Expr, op: &str, k: i64) -> fmt::Result {
    a.fmt_nested(f)?;
    write!(f, "{op}{k}")
}

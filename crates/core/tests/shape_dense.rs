//! Random movement chains (and as-strided pushes) checked against a naive dense model: each op
//! is applied to a plain row-major array of buffer offsets, and the tracker's `offsets()`, its
//! symbolic index, and its simplified form must all agree with that array after every step.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed expectation is the report

mod shape_common;

use proptest::prelude::*;
use shape_common::{apply, check_index, coords, Op};
use stridelab_core::shape::tracker::ShapeTracker;
use stridelab_core::shape::view::View;

const MAX_NUMEL: usize = 1024;

/// The reference: logical elements in row-major order, each a buffer offset or padding.
#[derive(Clone, Debug)]
struct Dense {
    shape: Vec<usize>,
    data: Vec<Option<i64>>,
}

impl Dense {
    fn new(n: usize) -> Dense {
        Dense { shape: vec![n], data: (0..n as i64).map(Some).collect() }
    }

    /// Builds `shape` by asking `source` which old coordinates each new element reads.
    fn gather(&self, shape: Vec<usize>, source: impl Fn(&[i64]) -> Option<Vec<i64>>) -> Dense {
        let n: usize = shape.iter().product();
        let data = (0..n)
            .map(|k| {
                let old = source(&coords(&shape, k))?;
                let lin = old.iter().zip(&self.shape).fold(0i64, |acc, (&c, &s)| acc * s as i64 + c);
                self.data[lin as usize]
            })
            .collect();
        Dense { shape, data }
    }

    fn apply(&self, op: &Op) -> Dense {
        let old = &self.shape;
        match op {
            Op::Reshape(s) => Dense { shape: s.clone(), data: self.data.clone() },
            Op::Permute(p) => {
                let shape = p.iter().map(|&a| old[a]).collect();
                self.gather(shape, |c| {
                    let mut o = vec![0; c.len()];
                    p.iter().zip(c).for_each(|(&a, &x)| o[a] = x);
                    Some(o)
                })
            }
            Op::Expand(s) => {
                self.gather(s.clone(), |c| Some(c.iter().zip(old).map(|(&x, &s)| if s == 1 { 0 } else { x }).collect()))
            }
            Op::Pad(a) => {
                let shape = old.iter().zip(a).map(|(&s, &(b, e))| s + b + e).collect();
                self.gather(shape, |c| {
                    c.iter()
                        .zip(a.iter().zip(old))
                        .map(|(&x, (&(b, _), &s))| Some(x - b as i64).filter(|&y| y >= 0 && y < s as i64))
                        .collect()
                })
            }
            Op::Shrink(a) => {
                let shape = a.iter().map(|&(b, e)| e - b).collect();
                self.gather(shape, |c| Some(c.iter().zip(a).map(|(&x, &(b, _))| x + b as i64).collect()))
            }
            Op::Flip(f) => self.gather(old.clone(), |c| {
                Some(
                    c.iter()
                        .zip(f.iter().zip(old))
                        .map(|(&x, (&f, &s))| if f { s as i64 - 1 - x } else { x })
                        .collect(),
                )
            }),
        }
    }

    /// As-strided on the logical space: element j reads logical element offset + sum(c*stride).
    fn push(&self, v: &View) -> Dense {
        let n: usize = v.shape().iter().product();
        let data = (0..n)
            .map(|k| {
                let c = coords(v.shape(), k);
                if let Some(m) = v.mask() {
                    if c.iter().zip(m).any(|(&x, &(b, e))| x < b as i64 || x >= e as i64) {
                        return None;
                    }
                }
                let lin = v.offset() + c.iter().zip(v.strides()).map(|(x, s)| x * s).sum::<i64>();
                self.data[lin as usize]
            })
            .collect();
        Dense { shape: v.shape().to_vec(), data }
    }
}

/// Deterministic choices from one proptest-drawn seed (splitmix64), so each op's arguments fit
/// whatever shape the chain has reached.
struct Pick(u64);

impl Pick {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn flag(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

fn factorize(n: usize, p: &mut Pick) -> Vec<usize> {
    if n == 0 {
        return vec![1 + p.below(3), 0, 1 + p.below(2)];
    }
    let mut dims = Vec::new();
    let mut rest = n;
    while rest > 1 && dims.len() < 4 {
        let divs: Vec<usize> = (2..=rest).filter(|&d| rest / d * d == rest).take(4).collect();
        let d = divs[p.below(divs.len())];
        dims.push(d);
        rest /= d;
    }
    if rest > 1 {
        dims.push(rest);
    }
    for _ in 0..p.below(3) {
        let at = p.below(dims.len() + 1);
        dims.insert(at, 1);
    }
    if p.below(4) == 0 {
        dims.reverse();
    }
    dims
}

fn random_op(shape: &[usize], kind: u8, p: &mut Pick) -> Op {
    let n: usize = shape.iter().product();
    let rank = shape.len();
    match (kind % 7, rank) {
        (_, 0) | (0, _) => Op::Reshape(factorize(n, p)),
        (1, _) => {
            // merge two neighbours after a transpose-like shuffle is what needs a second view
            let mut s = shape.to_vec();
            if rank >= 2 {
                let i = p.below(rank - 1);
                let merged = s[i] * s[i + 1];
                s.splice(i..i + 2, [merged]);
            }
            Op::Reshape(s)
        }
        (2, _) => {
            let mut axes: Vec<usize> = (0..rank).collect();
            for i in (1..rank).rev() {
                axes.swap(i, p.below(i + 1));
            }
            Op::Permute(axes)
        }
        (3, _) => {
            let new: Vec<usize> = shape.iter().map(|&s| if s == 1 { 1 + p.below(3) } else { s }).collect();
            if new.iter().product::<usize>() > MAX_NUMEL {
                return Op::Flip(vec![false; rank]);
            }
            Op::Expand(new)
        }
        (4, _) => {
            let arg: Vec<(usize, usize)> = shape.iter().map(|_| (p.below(3), p.below(3))).collect();
            let padded: usize = shape.iter().zip(&arg).map(|(&s, &(b, e))| s + b + e).product();
            if padded > MAX_NUMEL {
                return Op::Flip(vec![true; rank]);
            }
            Op::Pad(arg)
        }
        (5, _) => Op::Shrink(
            shape
                .iter()
                .map(|&s| {
                    let b = p.below(s + 1);
                    let e = b + p.below(s - b + 1);
                    if e == b && p.below(8) != 0 {
                        (0, s)
                    } else {
                        (b, e)
                    }
                })
                .collect(),
        ),
        _ => Op::Flip(shape.iter().map(|_| p.flag()).collect()),
    }
}

/// A random view over `n` logical elements; `fits` says whether its reach lies inside them.
fn random_push(n: usize, p: &mut Pick) -> (View, bool) {
    let rank = p.below(4);
    let shape: Vec<usize> = (0..rank).map(|_| 1 + p.below(4)).collect();
    let strides: Vec<i64> = (0..rank).map(|_| p.below(9) as i64 - 4).collect();
    let mask: Option<Vec<(usize, usize)>> = p.flag().then(|| {
        shape
            .iter()
            .map(|&s| {
                let b = p.below(s + 1);
                (b, b + p.below(s - b + 1))
            })
            .collect()
    });
    let full: Vec<(usize, usize)> = shape.iter().map(|&s| (0, s)).collect();
    let m = mask.as_deref().unwrap_or(&full);
    let empty = m.iter().any(|&(b, e)| b >= e);
    let (lo, hi) = m.iter().zip(&strides).fold((0i64, 0i64), |(lo, hi), (&(b, e), &st)| {
        let (x, y) = (st * b as i64, st * (e as i64 - 1));
        (lo + x.min(y), hi + x.max(y))
    });
    // Aim inside [0, n) most of the time, and sometimes just outside it.
    let room = n as i64 - 1 - hi + lo;
    let offset = if room >= 0 && p.below(5) != 0 {
        -lo + p.below(room as usize + 1) as i64
    } else if p.flag() {
        -lo - 1
    } else {
        n as i64 - hi
    };
    let v = View::new(&shape, Some(&strides), offset, mask.as_deref());
    let fits = empty || shape.contains(&0) || (offset + lo >= 0 && offset + hi < n as i64);
    (v, fits)
}

fn check_chain(numel: usize, steps: &[(u8, u64)]) {
    let mut st = ShapeTracker::from_shape(&[numel]);
    let mut dense = Dense::new(numel);
    let mut log = Vec::new();
    for &(kind, seed) in steps {
        let mut p = Pick(seed);
        if kind % 8 == 7 {
            let (v, fits) = random_push(st.numel(), &mut p);
            log.push(format!("push {v:?}"));
            match st.push(v.clone()) {
                Ok(next) => {
                    assert!(fits, "{log:?}: push of an out-of-range view was accepted");
                    dense = dense.push(&v);
                    st = next;
                }
                Err(e) => {
                    assert!(!fits, "{log:?}: push refused: {e}");
                    assert_eq!(e.kind(), "index");
                    continue;
                }
            }
        } else {
            let op = random_op(st.shape(), kind, &mut p);
            log.push(format!("{op:?}"));
            st = apply(&st, &op).unwrap_or_else(|e| panic!("{log:?}: {e}"));
            dense = dense.apply(&op);
        }
        let context = format!("{log:?} -> {:?}", st.views());
        assert_eq!(st.shape(), dense.shape.as_slice(), "{context}");
        assert_eq!(st.offsets(), dense.data, "{context}");
        // The first offsets, walked no further than needed, are the list's prefix.
        for n in [0, 1, 5] {
            assert_eq!(st.first_offsets(n), dense.data[..n.min(dense.data.len())], "{context}: first {n}");
        }
        let simplified = st.simplify();
        assert!(simplified.views().len() <= st.views().len());
        assert_eq!(simplified.offsets(), dense.data, "{context}: simplified");
    }
    check_index(&st, &format!("{log:?}"));
    check_index(&st.simplify(), &format!("{log:?} simplified"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn chains_match_dense_reference(
        numel in prop::sample::select(vec![1usize, 2, 6, 12, 24, 30, 36, 48, 60, 64]),
        steps in prop::collection::vec((any::<u8>(), any::<u64>()), 1..10),
    ) {
        check_chain(numel, &steps);
    }
}

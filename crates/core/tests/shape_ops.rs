//! Argument checking of the movement ops (errors, never panics) and the symbolic expression
//! rules the index renderer relies on.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test code: a failed expectation is the report

mod shape_common;

use shape_common::{apply, check_index, Op};
use stridelab_core::shape::symbolic::Expr;
use stridelab_core::shape::tracker::ShapeTracker;

/// (shape, op, expected error kind, a word the message must contain)
fn check_error(shape: &[usize], op: Op, kind: &str, word: &str) {
    let st = ShapeTracker::from_shape(shape);
    let err = apply(&st, &op).expect_err(&format!("{op:?} on {shape:?} must fail"));
    assert_eq!(err.kind(), kind, "{op:?}: {err}");
    assert!(err.message().contains(word), "{op:?}: message {err:?} lacks {word:?}");
}

#[test]
fn invalid_movement_arguments_are_errors() {
    let cases: Vec<(&[usize], Op, &str, &str)> = vec![
        (&[2, 3], Op::Reshape(vec![4]), "shape", "reshape"),
        (&[2, 3], Op::Reshape(vec![usize::MAX, 2]), "limit", "elements"),
        (&[2, 3], Op::Permute(vec![0]), "shape", "permute"),
        (&[2, 3], Op::Permute(vec![0, 0]), "index", "permutation"),
        (&[2, 3], Op::Permute(vec![0, 2]), "index", "permutation"),
        (&[2, 3], Op::Expand(vec![2, 3, 1]), "shape", "expand"),
        (&[2, 3], Op::Expand(vec![4, 3]), "shape", "size 2"),
        (&[2, 3], Op::Pad(vec![(1, 1)]), "shape", "pad"),
        (&[2, 3], Op::Pad(vec![(0, 0), (usize::MAX, 1)]), "limit", "elements"),
        (&[2, 3], Op::Shrink(vec![(0, 3), (0, 3)]), "index", "dim 0"),
        (&[2, 3], Op::Shrink(vec![(0, 2), (2, 1)]), "index", "dim 1"),
        (&[2, 3], Op::Shrink(vec![(0, 2)]), "shape", "shrink"),
        (&[2, 3], Op::Flip(vec![true]), "shape", "flip"),
    ];
    for (shape, op, kind, word) in cases {
        check_error(shape, op, kind, word);
    }
}

/// `build` over variables of the given extents must evaluate like `reference` everywhere, and
/// render as `text` (which pins down that the simplification happened).
fn check_expr(extents: &[usize], build: impl Fn(&[Expr]) -> Expr, reference: impl Fn(&[i64]) -> i64, text: &str) {
    let vars: Vec<Expr> = extents.iter().enumerate().map(|(i, &n)| Expr::var(i, n)).collect();
    let e = build(&vars);
    assert_eq!(e.to_string(), text);
    let (lo, hi) = e.bounds();
    let total: usize = extents.iter().product();
    for k in 0..total {
        let v = shape_common::coords(extents, k);
        let got = e.eval(&v);
        assert_eq!(got, reference(&v), "{text} at {v:?}");
        assert!(lo <= got && got <= hi, "{text} at {v:?}: {got} outside bounds {lo}..={hi}");
    }
}

#[test]
fn symbolic_rules() {
    type Build = Box<dyn Fn(&[Expr]) -> Expr>;
    type Reference = Box<dyn Fn(&[i64]) -> i64>;
    let cases: Vec<(&[usize], Build, Reference, &str)> = vec![
        (
            &[3, 4],
            Box::new(|v| v[0].clone() * 4 + v[1].clone() + Expr::constant(1)),
            Box::new(|v| v[0] * 4 + v[1] + 1),
            "(i0*4)+i1+1",
        ),
        (&[3], Box::new(|v| v[0].clone() * 1 + Expr::constant(0)), Box::new(|v| v[0]), "i0"),
        (&[3], Box::new(|v| v[0].clone() * 2 + v[0].clone() * 3), Box::new(|v| v[0] * 5), "i0*5"),
        (&[3], Box::new(|v| (v[0].clone() + Expr::constant(2)) * 3), Box::new(|v| v[0] * 3 + 6), "(i0*3)+6"),
        (&[3, 4], Box::new(|v| (v[0].clone() * 4 + v[1].clone()).floordiv(4)), Box::new(|v| v[0]), "i0"),
        (&[3, 4], Box::new(|v| (v[0].clone() * 4 + v[1].clone()).modulo(4)), Box::new(|v| v[1]), "i1"),
        (
            &[3, 4],
            Box::new(|v| (v[0].clone() * 4 + v[1].clone()).modulo(12)),
            Box::new(|v| v[0] * 4 + v[1]),
            "(i0*4)+i1",
        ),
        (&[6], Box::new(|v| v[0].clone().floordiv(2).floordiv(3)), Box::new(|v| v[0] / 6), "0"),
        (&[12], Box::new(|v| v[0].clone().floordiv(2).floordiv(3)), Box::new(|v| v[0] / 6), "i0//6"),
        (&[12], Box::new(|v| v[0].clone().modulo(6).modulo(3)), Box::new(|v| v[0] % 3), "i0%3"),
        (&[5], Box::new(|v| (v[0].clone() * -1 + Expr::constant(4)).modulo(5)), Box::new(|v| 4 - v[0]), "(i0*-1)+4"),
        (
            &[5],
            Box::new(|v| (v[0].clone() + Expr::constant(-1)).floordiv(2)),
            Box::new(|v| (v[0] - 1).div_euclid(2)),
            "((i0+1)//2)-1",
        ),
        (
            &[4, 3],
            Box::new(|v| (v[0].clone() * 6 + v[1].clone() + Expr::constant(7)).floordiv(3)),
            Box::new(|v| (v[0] * 6 + v[1] + 7) / 3),
            "(i0*2)+((i1+1)//3)+2",
        ),
        (&[4], Box::new(|v| v[0].clone().lt(4)), Box::new(|_| 1), "true"),
        (
            &[4],
            Box::new(|v| v[0].clone().lt(2).and(v[0].clone().ge(1))),
            Box::new(|v| i64::from((1..2).contains(&v[0]))),
            "(i0<2)&&(i0>=1)",
        ),
        (&[4], Box::new(|v| v[0].clone().ge(4).and(v[0].clone().lt(2))), Box::new(|_| 0), "false"),
    ];
    for (extents, build, reference, text) in cases {
        check_expr(extents, build, reference, text);
    }
}

/// Index rendering of a few stacks, each checked element by element against offsets().
#[test]
fn index_text_of_stacks() {
    type Case = (Vec<usize>, Vec<Op>, (&'static str, &'static str));
    let cases: Vec<Case> = vec![
        (
            vec![24],
            vec![Op::Reshape(vec![2, 3, 4]), Op::Shrink(vec![(0, 2), (0, 3), (1, 4)])],
            ("(i0*12)+(i1*4)+i2+1", "true"),
        ),
        (vec![6], vec![Op::Reshape(vec![2, 3]), Op::Pad(vec![(0, 1), (0, 0)])], ("(i0*3)+i1", "(i0<2)")),
        (vec![6], vec![Op::Reshape(vec![2, 3]), Op::Flip(vec![false, true])], ("(i0*3)+(i1*-1)+2", "true")),
        (
            vec![6],
            vec![Op::Reshape(vec![2, 3]), Op::Permute(vec![1, 0]), Op::Reshape(vec![6])],
            ("(i0//2)+((i0%2)*3)", "true"),
        ),
    ];
    for (start, ops, (idx, valid)) in cases {
        let mut st = ShapeTracker::from_shape(&start);
        for op in &ops {
            st = apply(&st, op).expect("valid op");
        }
        assert_eq!(st.index_text(), (idx.to_string(), valid.to_string()), "{ops:?}");
        check_index(&st, &format!("{ops:?}"));
    }
}

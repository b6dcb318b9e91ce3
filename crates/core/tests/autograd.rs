//! Autograd through the trace: the step of a backward records its writes into `.grad`, the
//! step of a write that makes a saved tensor stale says so, and PyTorch's message names the
//! op that saved a saved result (its current op for a saved input) and versions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stridelab_core::trace::interp::runner::Run;

#[test]
fn backward_writes_into_grad_show_in_its_step() {
    let run = Run::run_source(
        "w = torch.ones(3, requires_grad=True)\n(w * 2).sum().backward()\n(w * 3).sum().backward()\ng = w.grad",
    );
    assert!(run.error.is_none(), "{:?}", run.error);
    // The first backward makes a fresh .grad (a new storage, version 0); the second adds into
    // it in place, and its step records that write.
    assert!(run.steps[1].writes.is_empty());
    assert_eq!(run.steps[2].writes.len(), 1);
    assert_eq!(run.steps[2].writes[0].elements.to_vec(), vec![0, 1, 2]);
}

#[test]
fn the_write_that_breaks_backward_is_flagged_at_the_write() {
    let run = Run::run_source(
        "x = torch.tensor([0.5, 1.0], requires_grad=True)\ny = x.sigmoid()\nz = y * 1\ny.mul_(2)\nz.sum().backward()",
    );
    let stale: Vec<usize> = run.steps.iter().filter(|s| !s.stale.is_empty()).map(|s| s.line).collect();
    assert_eq!(stale, vec![4], "only the write is flagged");
    assert!(run.steps[3].stale[0].contains("SigmoidBackward0"));
    // z's backward passes through SigmoidBackward0, which saved y: it fails there.
    let e = run.error.expect("the backward through the stale saved tensor fails");
    assert_eq!(e.line, 5);
    assert_eq!(e.error.kind(), "autograd");
    assert!(
        e.error.message().contains(
            "[torch.FloatTensor [2]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead"
        ),
        "{}",
        e.error.message()
    );
}

#[test]
fn gradients_match_their_formulas() {
    let run = Run::run_source(
        "x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\nw = torch.tensor([[0.5], [-1.]], requires_grad=True)\ny = (x @ w).relu().sum() + (x * x).mean()\ny.backward()\ngx = x.grad\ngw = w.grad",
    );
    assert!(run.error.is_none(), "{:?}", run.error);
    let mut run = run;
    let report = stridelab_core::trace::report::report_value(&mut run, Default::default());
    // x @ w = [[-1.5], [-2.5]]: relu passes nothing; mean(x*x) gives x / 2.
    assert_eq!(report["tensors"]["gx"]["values"], serde_json::json!([0.5, 1.0, 1.5, 2.0]));
    assert_eq!(report["tensors"]["gw"]["values"], serde_json::json!([0.0, 0.0]));
    assert_eq!(report["tensors"]["x"]["autograd"]["is_leaf"], true);
}

/// `index_select`'s gradient adds the incoming gradient at the selected rows (repeats add up),
/// as PyTorch's `index_select_backward` does; its node saves the index. Values recorded from
/// PyTorch 2.15.
#[test]
fn index_select_gradient_adds_at_the_selected_rows() {
    let mut run = Run::run_source(
        "x = torch.arange(12.).reshape(3, 4).requires_grad_()\ny = x.index_select(1, torch.tensor([0, 2, 0, 3]))\n\
         (y * torch.arange(12.).reshape(3, 4)).sum().backward()\ng1 = x.grad.clone()\nname = y.grad_fn.name()\n\
         z = x.index_select(0, torch.tensor([2, 2]))\nz.pow(2).sum().backward()\ng2 = x.grad\n\
         idx = torch.tensor([1])\nv = torch.ones(3, requires_grad=True)\nu = v.index_select(0, idx) * 2\nidx.add_(1)\nu.sum().backward()",
    );
    let values = |run: &mut Run, name: &str| {
        let t = run.tensors().into_iter().find(|(n, _)| n == name).unwrap().1;
        run.engine.values(&t).unwrap().to_f64_vec()
    };
    assert_eq!(values(&mut run, "g1"), [2., 0., 1., 3., 10., 0., 5., 7., 18., 0., 9., 11.]);
    assert_eq!(values(&mut run, "g2"), [2., 0., 1., 3., 10., 0., 5., 7., 50., 36., 49., 55.]);
    // The saved index changed in place: PyTorch refuses the backward.
    let e = run.error.expect("backward through a modified saved index fails");
    assert_eq!((e.line, e.error.kind()), (13, "autograd"));
    assert!(
        e.error.message().contains("[torch.LongTensor [1]] is at version 1; expected version 0"),
        "{}",
        e.error.message()
    );
}

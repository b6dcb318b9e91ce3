//! The runner's Python: steps are executed statements (loop bodies once per iteration, each
//! knowing its iteration), `print` is captured per step, runaway loops and recursion end with a
//! `limit` error, a run can stop after k steps (how the page steps), and every executed step
//! has its kernels.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stridelab_core::schedule::ScheduleOptions;
use stridelab_core::trace::interp::kernels::trace_kernels;
use stridelab_core::trace::interp::runner::Run;

const LOOP: &str = "x = torch.zeros(3)\nfor i in range(3):\n    x[i] += i\n    print(i)\ny = x * 2";

#[test]
fn loop_bodies_are_steps_with_their_iteration() {
    let run = Run::run_source(LOOP);
    assert!(run.error.is_none(), "{:?}", run.error);
    let lines: Vec<usize> = run.steps.iter().map(|s| s.line).collect();
    // x; then per iteration: the `for` binding, the write, the print; the final `for` test; y.
    assert_eq!(lines, vec![1, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 5]);
    let iters: Vec<Vec<(usize, usize)>> = run.steps.iter().map(|s| s.iterations.clone()).collect();
    assert_eq!(iters[1], vec![(2, 1)]);
    assert_eq!(iters[5], vec![(2, 2)]);
    assert_eq!(iters[8], vec![(2, 3)]);
    assert_eq!(iters[11], Vec::new());
    assert_eq!(run.steps[3].output, "0\n");
    assert_eq!(run.steps[9].output, "2\n");
    assert_eq!(run.steps[1].defines, vec!["i".to_string()]);
    assert_eq!(run.steps[2].writes.len(), 1, "the write through x[i] is recorded");
}

#[test]
fn stopping_after_k_steps_is_the_state_at_step_k() {
    let full = Run::run_source(LOOP);
    for k in 0..=full.steps.len() {
        let mut part = Run::new().stop_after(k);
        part.run_program(&stridelab_core::trace::lang::parser::parse(LOOP).unwrap());
        assert_eq!(part.steps.len(), k);
        assert!(part.error.is_none());
        for (a, b) in part.steps.iter().zip(&full.steps) {
            assert_eq!((a.line, &a.iterations, &a.output), (b.line, &b.iterations, &b.output));
        }
    }
}

#[test]
fn runaway_loops_and_recursion_stop_with_a_limit() {
    let run = Run::run_source("x = torch.ones(2)\nwhile True:\n    x += 1");
    let e = run.error.expect("a runaway loop must stop");
    assert_eq!(e.error.kind(), "limit");
    assert!(e.error.message().contains("10000"), "{}", e.error.message());
    let run = Run::run_source("def f(n):\n    return f(n + 1)\ny = f(0)");
    let e = run.error.expect("runaway recursion must stop");
    assert_eq!(e.error.kind(), "limit");
    assert_eq!(e.line, 2);
}

#[test]
fn calls_run_inside_the_calling_step() {
    let run = Run::run_source("def f(t):\n    u = t + 1\n    return u * 2\nx = torch.ones(2)\ny = f(x)");
    assert!(run.error.is_none(), "{:?}", run.error);
    let lines: Vec<usize> = run.steps.iter().map(|s| s.line).collect();
    assert_eq!(lines, vec![1, 4, 5]);
    // Locals stay local.
    assert!(run.tensors().iter().all(|(n, _)| *n != "u"));
}

#[test]
fn every_executed_step_has_kernels() {
    let (run, steps) = trace_kernels(LOOP, ScheduleOptions::default()).unwrap();
    assert_eq!(steps.len(), run.steps.len());
    let kernels: usize = steps.iter().map(|s| s.schedule.kernels.len()).sum();
    assert!(kernels >= 4, "three writes and the final product each run kernels: {kernels}");
}

#[test]
fn errors_point_at_the_innermost_statement() {
    let run = Run::run_source("def flat(t):\n    return t.view(-1)\nx = torch.arange(6.).view(2, 3)\nz = flat(x.t())");
    let e = run.error.unwrap();
    assert_eq!((e.line, e.error.kind()), (2, "view"));
    let run = Run::run_source("x = torch.ones(2)\nfor i in range(5):\n    x[i] = i");
    let e = run.error.unwrap();
    assert_eq!((e.line, e.error.kind()), (3, "index"));
    assert_eq!(run.steps.last().unwrap().iterations, vec![(2, 3)]);
}

/// Dict displays as Python has them (string keys, insertion order, a repeated key keeps its
/// first place with the last value), item assignment on dicts and lists, and the refusals.
#[test]
fn dict_displays_and_item_assignment() {
    let src = "d = {\"a\": 1, \"b\": [1, 2], \"a\": 3,}\nd[\"c\"] = 4.5\nxs = [1, 2, 3]\nxs[-1] = 9\n\
               print(d, len(d), \"a\" in d, xs)\nfor k, v in d.items():\n    print(k, v)\ne = {}\n\
               print(e, bool(e), d.get(\"z\", 0), list(d.keys()))\n\
               m = nn.Linear(2, 1)\nprint(torch.optim.SGD(m.parameters(), lr=0.1).param_groups[0][\"lr\"])";
    let run = Run::run_source(src);
    assert!(run.error.is_none(), "{:?}", run.error);
    let out: String = run.steps.iter().map(|s| s.output.as_str()).collect();
    assert_eq!(
        out,
        "{'a': 3, 'b': [1, 2], 'c': 4.5} 3 True [1, 2, 9]\na 3\nb [1, 2]\nc 4.5\n{} False 0 ['a', 'b', 'c']\n0.1\n"
    );
    for (src, kind, fragment) in [
        ("d = {[1]: 2}", "type", "unhashable type: 'list'"),
        ("s = {1, 2}", "parse", "set displays are not supported"),
        ("d = {(i, [i]): 1 for i in range(2)}", "type", "unhashable type: 'list'"),
        ("d = {1: 2}\nx = d[2]", "index", "KeyError: 2"),
        ("xs = [1]\nxs[3] = 0", "index", "list assignment index out of range"),
    ] {
        let e = Run::run_source(src).error.unwrap_or_else(|| panic!("{src}: expected an error"));
        assert_eq!(e.error.kind(), kind, "{src}");
        assert!(e.error.message().contains(fragment), "{src}: {}", e.error.message());
    }
}

//! A trace turned into kernels: each statement run, then what it made the engine do scheduled,
//! with the storages the kernels start from and what the interpreter left, so any kernel
//! backend can run a trace's steps and be checked against the reference.

use super::ast::Program;
use super::parser;
use super::runner::Run;
use crate::error::Result;
use crate::schedule::{schedule_events, Schedule, ScheduleOptions, StepKernels};
use crate::tensor::Event;
use crate::uop::buffer::Data;
use crate::uop::Op;

/// Every step's schedule for a finished run, in order.
pub fn schedule_run(run: &Run, opts: ScheduleOptions) -> Result<Vec<Schedule>> {
    run.steps.iter().map(|s| schedule_events(&run.engine, s.events.clone(), opts)).collect()
}

/// Runs `src` statement by statement (as [`Run::run_source`] does) and schedules each
/// statement; the run is returned too, for its report.
pub fn trace_kernels(src: &str, opts: ScheduleOptions) -> Result<(Run, Vec<StepKernels>)> {
    trace_kernels_in(Run::new(), src, opts)
}

/// [`trace_kernels`] in a given fresh run, e.g. one made by [`Run::with_files`] so that
/// `dataset(name)` statements can read their files.
pub fn trace_kernels_in(mut run: Run, src: &str, opts: ScheduleOptions) -> Result<(Run, Vec<StepKernels>)> {
    let program = parser::parse(src)?;
    let mut out = Vec::new();
    for stmt in program.stmts {
        let before: Vec<Data> = (0..run.engine.storage_count()).map(|i| run.engine.storage(i).data.clone()).collect();
        run.run_program(&Program { stmts: vec![stmt] });
        let Some(step) = run.steps.last() else { break };
        // A statement that reads a storage as another dtype (a dtype view) has no kernels yet:
        // the interpreter computed it, and the step says so instead of failing the run.
        let dtype_view = reads_dtype_view(&run, step.events.clone());
        let (schedule, note) = match dtype_view {
            Some(d) => (
                Schedule::default(),
                Some(format!("this statement reads a storage as {d} (a dtype view), which no kernel does yet; the interpreter computed it")),
            ),
            None => (schedule_events(&run.engine, step.events.clone(), opts)?, host_note(&run, step.events.clone())),
        };
        // New storages start as created: made from data, or (when a kernel fills them) zeros.
        let mut inputs: Vec<Data> = (0..run.engine.storage_count())
            .map(|i| before.get(i).cloned().unwrap_or_else(|| run.engine.storage(i).data.clone()))
            .collect();
        for e in &run.engine.events()[step.events.clone()] {
            if let Event::Realize { storage, .. } = e {
                let d = &inputs[*storage];
                inputs[*storage] = Data::zeros(d.dtype(), d.len());
            }
        }
        let expected = schedule.written().into_iter().map(|s| (s, run.engine.storage(s).data.clone())).collect();
        out.push(StepKernels { line: step.line, source: step.source.clone(), schedule, inputs, expected, note });
        if run.error.is_some() {
            break;
        }
    }
    Ok((run, out))
}

/// The dtype a statement's events read some storage as through a dtype view, if any.
fn reads_dtype_view(run: &Run, events: std::ops::Range<usize>) -> Option<crate::dtype::DType> {
    let graph = run.engine.graph();
    let roots: Vec<_> = run.engine.events()[events]
        .iter()
        .filter_map(|e| match e {
            Event::Realize { node, .. } | Event::Store { node, .. } => Some(*node),
            Event::Host { .. } => None,
        })
        .collect();
    graph.toposort(&roots).into_iter().find_map(|id| match graph.node(id).op {
        Op::Bitcast(d) => Some(d),
        _ => None,
    })
}

/// What the interpreter changed itself in a statement (see `Event::Host`), as the step's note.
fn host_note(run: &Run, events: std::ops::Range<usize>) -> Option<String> {
    let storages: Vec<String> = run.engine.events()[events]
        .iter()
        .filter_map(|e| match e {
            Event::Host { storage } => Some(storage.to_string()),
            _ => None,
        })
        .collect();
    (!storages.is_empty()).then(|| {
        format!(
            "storage {} was changed by the interpreter itself (a write through a dtype view, or resize_ growing it), which no kernel does",
            storages.join(", ")
        )
    })
}

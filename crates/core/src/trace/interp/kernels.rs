//! A trace turned into kernels: each statement run, then what it made the engine do scheduled,
//! with the storages the kernels start from and what the interpreter left, so any kernel
//! backend can run a trace's steps and be checked against the reference.

use crate::error::{Error, Result};
use crate::schedule::{Schedule, ScheduleOptions, Scheduler, StepKernels};
use crate::tensor::{Engine, Event};
use crate::trace::interp::runner::{Run, Step, StepObserver};
use crate::trace::lang::parser;
use crate::uop::buffer::Data;
use crate::uop::Op;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// Every step's schedule for a finished run, in order.
pub fn schedule_run(run: &Run, opts: ScheduleOptions) -> Result<Vec<Schedule>> {
    let mut scheduler = Scheduler::default();
    run.steps.iter().map(|s| scheduler.schedule(&run.engine, s.events.clone(), opts)).collect()
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
    let shared = Rc::new(RefCell::new(Collector::new(opts)));
    run.observe(Box::new(Observer(shared.clone())));
    run.run_program(&program);
    run.unobserve();
    let c = shared.replace(Collector::new(opts));
    match c.error {
        Some(e) => Err(e),
        None => Ok((run, c.out)),
    }
}

/// Builds each step's kernels as the run takes it: the storages as the step found them, its
/// schedule, and what it left in the storages it wrote.
struct Collector {
    opts: ScheduleOptions,
    scheduler: Scheduler,
    /// Every storage as the last step left it: kept up to date with what each step changed
    /// (its events' storages and the storages it made), so that a step costs what it touched,
    /// not a copy of every storage.
    before: Vec<Data>,
    out: Vec<StepKernels>,
    error: Option<Error>,
}

impl Collector {
    fn new(opts: ScheduleOptions) -> Collector {
        Collector { opts, scheduler: Scheduler::default(), before: Vec::new(), out: Vec::new(), error: None }
    }
}

struct Observer(Rc<RefCell<Collector>>);

impl StepObserver for Observer {
    fn before(&mut self, engine: &Engine) {
        let mut c = self.0.borrow_mut();
        for i in c.before.len()..engine.storage_count() {
            let d = engine.storage(i).data.clone();
            c.before.push(d);
        }
    }

    fn after(&mut self, engine: &Engine, step: &Step) {
        let c = &mut *self.0.borrow_mut();
        if c.error.is_none() {
            match step_kernels(engine, step, &c.before, &mut c.scheduler, c.opts) {
                Ok(k) => c.out.push(k),
                Err(e) => c.error = Some(e),
            }
        }
        // What the step changed, for the next step's starting point.
        for e in &engine.events()[step.events.clone()] {
            let (Event::Realize { storage, .. } | Event::Store { storage, .. } | Event::Host { storage }) = e;
            if let Some(d) = c.before.get_mut(*storage) {
                d.clone_from(&engine.storage(*storage).data);
            }
        }
        for i in c.before.len()..engine.storage_count() {
            let d = engine.storage(i).data.clone();
            c.before.push(d);
        }
    }
}

fn step_kernels(
    engine: &Engine,
    step: &Step,
    before: &[Data],
    scheduler: &mut Scheduler,
    opts: ScheduleOptions,
) -> Result<StepKernels> {
    // A statement that reads a storage as another dtype (a dtype view) has no kernels yet:
    // the interpreter computed it, and the step says so instead of failing the run.
    let (schedule, note) = match reads_dtype_view(engine, step.events.clone()) {
        Some(d) => (
            Schedule::default(),
            Some(format!("this statement reads a storage as {d} (a dtype view), which no kernel does yet; the interpreter computed it")),
        ),
        None => (scheduler.schedule(engine, step.events.clone(), opts)?, host_note(engine, step.events.clone())),
    };
    // The storages the kernels touch, as the step found them; new storages start as created
    // (made from data) or, when a kernel fills them, as zeros.
    let realized: BTreeSet<usize> = engine.events()[step.events.clone()]
        .iter()
        .filter_map(|e| match e {
            Event::Realize { storage, .. } => Some(*storage),
            _ => None,
        })
        .collect();
    let inputs = schedule
        .storages()
        .into_iter()
        .map(|i| {
            let now = &engine.storage(i).data;
            let d = if realized.contains(&i) {
                Data::zeros(now.dtype(), now.len())
            } else {
                before.get(i).unwrap_or(now).clone()
            };
            (i, d)
        })
        .collect();
    let expected = schedule.written().into_iter().map(|s| (s, engine.storage(s).data.clone())).collect();
    Ok(StepKernels { line: step.line, source: step.source.clone(), schedule, inputs, expected, note })
}

/// The dtype a statement's events read some storage as through a dtype view, if any.
fn reads_dtype_view(engine: &Engine, events: std::ops::Range<usize>) -> Option<crate::dtype::DType> {
    let graph = engine.graph();
    let roots: Vec<_> = engine.events()[events]
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
fn host_note(engine: &Engine, events: std::ops::Range<usize>) -> Option<String> {
    let storages: Vec<String> = engine.events()[events]
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

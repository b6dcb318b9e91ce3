//! Scheduling, codegen and the CPU IR executor, checked against the reference interpreter.
//!
//! Every trace is replayed statement by statement: the storages before a statement are the
//! inputs, the statement's events are scheduled, the kernels run on the IR executor, and every
//! storage must then equal what the interpreter left (ints exact, floats 1e-5 relative).

use serde_json::Value;
use std::path::PathBuf;
use stridelab_core::codegen::{cpu, ir::Kernel, wgsl};
use stridelab_core::schedule::{schedule_events, Schedule, ScheduleOptions};
use stridelab_core::trace::ast::Program;
use stridelab_core::trace::parser;
use stridelab_core::trace::runner::Run;
use stridelab_core::uop::data::Data;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Equal as the interpreter would compare: NaNs match, floats within 1e-5 relative.
fn same(a: &Data, b: &Data) -> bool {
    if a.dtype() != b.dtype() || a.len() != b.len() {
        return false;
    }
    let float = a.dtype().is_float();
    a.to_f64_vec().iter().zip(b.to_f64_vec()).all(|(x, y)| {
        (x.is_nan() && y.is_nan())
            || *x == y
            || (float && (x - y).abs() <= 1e-5 * y.abs().max(1e-30))
    })
}

/// One statement's schedule and how it ran.
struct Replayed {
    schedules: Vec<Schedule>,
}

/// Replays `src`, checking the IR executor against the interpreter after every statement.
fn replay(src: &str, opts: ScheduleOptions) -> Result<Replayed, String> {
    let program = parser::parse(src).map_err(|e| format!("parse: {e}"))?;
    let mut run = Run::new();
    let mut schedules = Vec::new();
    for stmt in program.stmts {
        let before: Vec<Data> = (0..run.engine.storage_count())
            .map(|i| run.engine.storage(i).data.clone())
            .collect();
        run.run_program(&Program {
            stmts: vec![stmt.clone()],
        });
        let Some(step) = run.steps.last() else { break };
        let events = step.events.clone();
        let sched = schedule_events(&run.engine, events.clone(), opts)
            .map_err(|e| format!("line {}: schedule: {e}", step.line))?;
        // Storages created during the statement start as the engine created them: the
        // realized ones are overwritten by kernels, the rest are inputs made from data.
        let mut storages: Vec<Data> = (0..run.engine.storage_count())
            .map(|i| {
                before
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| run.engine.storage(i).data.clone())
            })
            .collect();
        let realized: Vec<usize> = run.engine.events()[events.clone()]
            .iter()
            .filter_map(|e| match e {
                stridelab_core::tensor::Event::Realize { storage, .. } => Some(*storage),
                _ => None,
            })
            .collect();
        for &s in &realized {
            let d = &storages[s];
            storages[s] = Data::zeros(d.dtype(), d.len());
        }
        let mut bufs = cpu::Buffers {
            storages: &mut storages,
            temps: sched
                .temps
                .iter()
                .map(|&(d, n)| Data::zeros(d, n))
                .collect(),
        };
        for k in &sched.kernels {
            cpu::execute(k, &mut bufs)
                .map_err(|e| format!("line {}: {}: {e}", step.line, k.name))?;
        }
        for (i, got) in storages.iter().enumerate() {
            let want = &run.engine.storage(i).data;
            if !same(got, want) {
                return Err(format!(
                    "line {} `{}`: storage {i} differs:\n got {:?}\nwant {:?}\nkernels:\n{}",
                    step.line,
                    step.source,
                    got,
                    want,
                    dump(&sched.kernels)
                ));
            }
        }
        schedules.push(sched);
        if run.error.is_some() {
            break;
        }
    }
    Ok(Replayed { schedules })
}

fn dump(ks: &[Kernel]) -> String {
    ks.iter()
        .map(|k| {
            wgsl::render(k)
                .map(|r| r.wgsl)
                .unwrap_or_else(|e| e.to_string())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks every kernel's WGSL with naga.
fn naga_valid(ks: &[Kernel]) -> Result<(), String> {
    for k in ks {
        let r = wgsl::render(k).map_err(|e| e.to_string())?;
        let module = naga::front::wgsl::parse_str(&r.wgsl)
            .map_err(|e| format!("{}: {}\n{}", k.name, e.emit_to_string(&r.wgsl), r.wgsl))?;
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .map_err(|e| format!("{}: {}\n{}", k.name, e.emit_to_string(&r.wgsl), r.wgsl))?;
    }
    Ok(())
}

fn fixture_sources(file: &str) -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(repo().join("tests/fixtures").join(file)).unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    v["cases"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    (
                        c["name"].as_str().unwrap_or("").to_string(),
                        c["source"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn ir_executor_agrees_with_interpreter_on_fixtures() {
    let mut failures = Vec::new();
    let mut total = 0;
    for file in ["torch_ops.json", "torch_inplace.json"] {
        let cases = fixture_sources(file);
        assert!(!cases.is_empty(), "{file} has no cases");
        for (name, src) in cases {
            total += 1;
            match replay(&src, ScheduleOptions::default()) {
                Ok(r) => {
                    for s in &r.schedules {
                        if let Err(e) = naga_valid(&s.kernels) {
                            failures.push(format!("{name}: naga: {e}"));
                        }
                    }
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

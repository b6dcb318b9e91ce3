//! Scheduling, codegen and the CPU IR executor, checked against the reference interpreter.
//!
//! Every trace is replayed statement by statement: the storages before a statement are the
//! inputs, the statement's events are scheduled, the kernels run on the IR executor, and every
//! storage must then equal what the interpreter left (ints exact, floats 1e-5 relative).
// A failed expectation here is the test failing, with its message.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod fixture_common;

use fixture_common::{fixture_sources, repo};

use stridelab_core::codegen::{cpu, ir::Kernel, wgsl, wgsl_check};
use stridelab_core::schedule::{schedule_events, Schedule, ScheduleOptions};
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::trace::lang::ast::Program;
use stridelab_core::trace::lang::parser;
use stridelab_core::uop::buffer::Data;

/// Equal as the interpreter would compare: NaNs match, floats within 1e-5 relative.
fn same(a: &Data, b: &Data) -> bool {
    if a.dtype() != b.dtype() || a.len() != b.len() {
        return false;
    }
    let float = a.dtype().is_float();
    a.to_f64_vec()
        .iter()
        .zip(b.to_f64_vec())
        .all(|(x, y)| (x.is_nan() && y.is_nan()) || *x == y || (float && (x - y).abs() <= 1e-5 * y.abs().max(1e-30)))
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
        let before: Vec<Data> = (0..run.engine.storage_count()).map(|i| run.engine.storage(i).data.clone()).collect();
        run.run_program(&Program { stmts: vec![stmt.clone()], imports: Vec::new() });
        let Some(step) = run.steps.last() else { break };
        let events = step.events.clone();
        let sched = schedule_events(&run.engine, events.clone(), opts)
            .map_err(|e| format!("line {}: schedule: {e}", step.line))?;
        // Storages created during the statement start as the engine created them: the
        // realized ones are overwritten by kernels, the rest are inputs made from data.
        let mut storages: Vec<Data> = (0..run.engine.storage_count())
            .map(|i| before.get(i).cloned().unwrap_or_else(|| run.engine.storage(i).data.clone()))
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
            temps: sched.temps.iter().map(|&(d, n)| Data::zeros(d, n)).collect(),
        };
        for k in &sched.kernels {
            cpu::execute(k, &mut bufs).map_err(|e| format!("line {}: {}: {e}", step.line, k.name))?;
        }
        // What the interpreter changed itself is no kernel's to reproduce: taken as given.
        for e in &run.engine.events()[events.clone()] {
            if let stridelab_core::tensor::Event::Host { storage } = e {
                storages[*storage] = run.engine.storage(*storage).data.clone();
            }
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
    ks.iter().map(|k| wgsl::render(k).map(|r| r.wgsl).unwrap_or_else(|e| e.to_string())).collect::<Vec<_>>().join("\n")
}

/// Checks every kernel's WGSL with naga, and that its loops are counted (the renderer's
/// invariant, which lets the runtime drop wgpu's loop guard).
fn naga_valid(ks: &[Kernel]) -> Result<(), String> {
    // Kernels over int64/float64/... have no WGSL: they run on the CPU executor, checked below.
    for k in ks.iter().filter(|k| wgsl::unsupported_dtype(k).is_none()) {
        let r = wgsl::render(k).map_err(|e| e.to_string())?;
        if !wgsl_check::loops_are_counted(&r.wgsl) {
            return Err(format!("{}: a loop that is not counted\n{}", k.name, r.wgsl));
        }
        let module = naga::front::wgsl::parse_str(&r.wgsl)
            .map_err(|e| format!("{}: {}\n{}", k.name, e.emit_to_string(&r.wgsl), r.wgsl))?;
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
            .validate(&module)
            .map_err(|e| format!("{}: {}\n{}", k.name, e.emit_to_string(&r.wgsl), r.wgsl))?;
    }
    Ok(())
}

#[test]
fn ir_executor_agrees_with_interpreter_on_fixtures() {
    let mut failures = Vec::new();
    let mut total = 0;
    for file in [
        "torch_ops.json",
        "torch_inplace.json",
        "torch_elementwise.json",
        "torch_surface.json",
        "torch_indexing.json",
        "torch_random.json",
    ] {
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
        failures.iter().take(8).cloned().collect::<Vec<_>>().join("\n\n")
    );
}

/// One scheduling expectation: the last statement of `src` becomes `kernels` kernels of these
/// kinds, and each sentence appears among the kernels' boundary reasons.
struct FusionCase {
    name: &'static str,
    src: &'static str,
    kinds: &'static [&'static str],
    reasons: &'static [&'static str],
    max_buffers: usize,
}

fn check_fusion(c: &FusionCase) -> Result<(), String> {
    let r = replay(c.src, ScheduleOptions { max_buffers: c.max_buffers })?;
    let last = r.schedules.last().ok_or("no statements")?;
    let kinds: Vec<String> = last
        .kernels
        .iter()
        .map(|k| serde_json::to_value(k.kind).map(|v| v.as_str().unwrap_or("").to_string()).unwrap_or_default())
        .collect();
    if kinds != c.kinds {
        return Err(format!("kinds {kinds:?}, expected {:?}\n{}", c.kinds, dump(&last.kernels)));
    }
    for want in c.reasons {
        if !last.kernels.iter().any(|k| k.reason.starts_with(want)) {
            let got: Vec<&str> = last.kernels.iter().map(|k| k.reason.as_str()).collect();
            return Err(format!("no reason starting {want:?} in {got:?}"));
        }
    }
    // Each boundary sentence reaches the shader too, so the panel shows it beside the code.
    for k in &last.kernels {
        let src = wgsl::render(k).map_err(|e| e.to_string())?.wgsl;
        if !src.contains(&k.reason) {
            return Err(format!("{}: reason missing from WGSL", k.name));
        }
    }
    naga_valid(&last.kernels)
}

#[test]
fn fusion_and_boundaries() {
    let nine = "a0 = arange(4.)\na1 = a0 + 1\na2 = a0 + 2\na3 = a0 + 3\na4 = a0 + 4\na5 = a0 + 5\na6 = a0 + 6\na7 = a0 + 7\na8 = a0 + 8\nb = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8";
    let cases = [
        FusionCase {
            name: "a long sum to one output runs as partial sums plus a combining kernel",
            src: "a = arange(65536.)\nb = (a * 0.5).sum()",
            kinds: &["reduce", "reduce"],
            reasons: &["two-stage reduce", "realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "a long max whose last chunk is partial, then a mean with work after the reduce",
            src: "a = arange(140001.)\nb = a.max()\nc = (a * 2).mean()",
            kinds: &["reduce", "reduce"],
            reasons: &["two-stage reduce", "realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "a long reduce broadcast back is split inside its own temporary",
            src: "a = (arange(70000.) / 1000).reshape(1, 70000)\nb = (a - a.amax(1, keepdim=True)).exp()",
            kinds: &["reduce", "reduce", "elementwise"],
            reasons: &["two-stage reduce", "reduce boundary", "realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "a kernel at the binding limit keeps its reduce whole",
            src: "a = arange(65536.)\nb = arange(65536.)\nc = (a * b).sum()",
            kinds: &["reduce"],
            reasons: &["realize point"],
            max_buffers: 3,
        },
        FusionCase {
            name: "acceptance: elementwise chain into a sum is one kernel",
            src: "a = arange(4096.)\nb = ((a * 2 + 1).exp()).sum()",
            kinds: &["reduce"],
            reasons: &["realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "acceptance: matmul with bias and relu",
            src:
                "a = arange(12.).reshape(3, 4)\nb = arange(8.).reshape(4, 2)\nc = arange(2.)\nd = ((a @ b) + c).relu()",
            kinds: &["matmul"],
            reasons: &["realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "elementwise through views",
            src: "a = arange(12.).reshape(3, 4)\nb = (a.t().flip(0) * 2 - 1).abs()",
            kinds: &["elementwise"],
            reasons: &["realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "store through a view",
            src: "a = arange(6.)\na[1:3] = 5.",
            kinds: &["store"],
            reasons: &["store/assign"],
            max_buffers: 8,
        },
        FusionCase {
            name: "in-place update fuses its read",
            src: "a = arange(6.)\na.mul_(3)",
            kinds: &["store"],
            reasons: &["store/assign"],
            max_buffers: 8,
        },
        FusionCase {
            name: "reduce broadcast back",
            src: "a = arange(6.).reshape(2, 3)\nb = a - a.amax(1, keepdim=True)",
            kinds: &["reduce", "elementwise"],
            reasons: &["reduce boundary: the reduced value", "realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "reduce feeds a reduce",
            src: "a = arange(6.).reshape(2, 3)\nb = a.sum(1).amax()",
            kinds: &["reduce", "reduce"],
            reasons: &["reduce boundary: this reduce feeds another reduce"],
            max_buffers: 8,
        },
        FusionCase {
            name: "two sibling reduces",
            src: "a = arange(6.).reshape(2, 3)\nb = a.sum() + a.amax()",
            kinds: &["reduce", "reduce"],
            reasons: &["reduce boundary: the kernel already reduces"],
            max_buffers: 8,
        },
        FusionCase {
            name: "buffer-binding limit splits",
            src: nine,
            kinds: &["elementwise", "elementwise"],
            reasons: &["buffer-binding limit"],
            max_buffers: 8,
        },
        FusionCase {
            name: "store that reads what it overwrites runs in order",
            src: "a = arange(6.)\nb = a.view(2, 3)\nb[0] = b[1]",
            kinds: &["store"],
            reasons: &["store/assign"],
            max_buffers: 8,
        },
        FusionCase {
            name: "store through an overlapping view runs in order",
            src: "a = arange(10.)\nb = a.unfold(0, 4, 2)\nb.add_(1)",
            kinds: &["store"],
            reasons: &["store/assign"],
            max_buffers: 8,
        },
        FusionCase {
            name: "a reduce read by a store is realized first",
            src: "a = arange(6.)\nb = a.view(2, 3)\nb[0] = b.sum(0)",
            kinds: &["reduce", "store"],
            reasons: &["realize point", "store/assign"],
            max_buffers: 8,
        },
        FusionCase {
            name: "an index read is one gather kernel reading each output once",
            src: "w = arange(12.).reshape(4, 3)\ni = tensor([3, 0, 3])\ny = w[i] * 2",
            kinds: &["elementwise"],
            reasons: &["realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "a sum into repeated positions folds them in a reduce, then gathers per target",
            src: "x = zeros(4)\ni = tensor([0, 0, 1])\ny = x.index_add(0, i, tensor([1., 2., 3.]))",
            kinds: &["reduce", "elementwise"],
            reasons: &["gather boundary", "realize point"],
            max_buffers: 8,
        },
        FusionCase {
            name: "uint8 store through a view",
            src: "a = arange(8, dtype=uint8)\na[1:5] = 7",
            kinds: &["store"],
            reasons: &["store/assign"],
            max_buffers: 8,
        },
    ];
    let failures: Vec<String> =
        cases.iter().filter_map(|c| check_fusion(c).err().map(|e| format!("{}: {e}", c.name))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn index_overflow_is_a_limit_error() {
    use stridelab_core::codegen::ir::{check_i32, BufRef, Inst, KernelKind, Slot};
    use stridelab_core::shape::symbolic::Expr;
    use stridelab_core::DType;
    // (extent of i0, stride of the load): the product must fit i32.
    let cases = [(1usize << 12, 1i64 << 18, true), (1 << 12, 1 << 20, false), (1 << 16, 1 << 16, false)];
    for (extent, stride, ok) in cases {
        let k = Kernel {
            name: "E".into(),
            kind: KernelKind::Elementwise,
            dims: vec![extent],
            slots: vec![
                Slot { buf: BufRef::Temp(0), dtype: DType::Float32, len: extent },
                Slot { buf: BufRef::Storage(0), dtype: DType::Float32, len: 1 },
            ],
            insts: vec![
                Inst::Load {
                    slot: 1,
                    index: Expr::var(0, extent) * stride,
                    valid: Expr::Bool(true),
                    dtype: DType::Float32,
                },
                Inst::Store { index: Expr::var(0, extent), valid: Expr::Bool(true), value: 0, dtype: DType::Float32 },
            ],
            tile: None,
            serial: false,
            order: Vec::new(),
            reason: String::new(),
        };
        match check_i32(&k) {
            Ok(()) => assert!(ok, "{extent}x{stride} should overflow"),
            Err(e) => {
                assert!(!ok, "{extent}x{stride}: {e}");
                assert_eq!(e.kind(), "limit", "{e}");
            }
        }
    }
}

/// Representative kernels whose WGSL is checked in, so any change to the renderer shows up as
/// a reviewable diff. `STRIDELAB_BLESS=1` rewrites them.
#[test]
fn golden_wgsl() {
    let cases = [
        ("elementwise_exp_sum", "a = arange(4096.)\nb = ((a * 2 + 1).exp()).sum()"),
        (
            "matmul_bias_relu",
            "a = arange(12.).reshape(3, 4)\nb = arange(8.).reshape(4, 2)\nc = arange(2.)\nd = ((a @ b) + c).relu()",
        ),
        ("pad_flip_masked", "a = arange(6.).reshape(2, 3)\nb = a.flip(1)[:, 1:] * 2"),
        ("int_floordiv_mod", "a = arange(-6, 6, dtype=torch.int32)\nb = (a // 4) + (a % 3)"),
        ("bool_where", "a = arange(6.)\nb = where(a > 2, a, -a)"),
        ("vec4_add_2d", "a = arange(16.).reshape(4, 4)\nb = arange(16.).reshape(4, 4) * 0.5\nc = a + b"),
        ("uint8_packed", "a = arange(8, dtype=uint8)\nb = a * 3"),
        ("uint8_store_view", "a = arange(8, dtype=uint8)\na[1:5] = 7"),
        ("softmax_max_boundary", "a = arange(6.).reshape(2, 3)\nb = (a - a.amax(1, keepdim=True)).exp()"),
        ("two_stage_sum", "a = arange(65536.)\nb = (a * 0.5).sum()"),
        ("two_stage_max_masked", "a = arange(140001.)\nb = a.max()"),
    ];
    let dir = repo().join("tests/golden/wgsl");
    let bless = std::env::var("STRIDELAB_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for (name, src) in cases {
        let r = match replay(src, ScheduleOptions::default()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let kernels = &r.schedules.last().map(|s| s.kernels.clone()).unwrap_or_default();
        if let Err(e) = naga_valid(kernels) {
            failures.push(format!("{name}: {e}"));
        }
        let text = dump(kernels);
        let path = dir.join(format!("{name}.wgsl"));
        if bless {
            std::fs::create_dir_all(&dir).expect("golden dir");
            std::fs::write(&path, &text).expect("write golden");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == text => {}
            Ok(_) => failures
                .push(format!("{name}: WGSL differs from {} (STRIDELAB_BLESS=1 to update):\n{text}", path.display())),
            Err(e) => failures.push(format!("{name}: {}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

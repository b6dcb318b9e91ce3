//! Hand-written kernels run on whatever adapter the machine has (lavapipe in CI), checked against
//! CPU results, with their timings and Chrome trace. With no adapter at all, each test says why
//! and returns.
// A failed expectation here is the test failing, with its message.
#![allow(clippy::expect_used)]

use pollster::block_on;
use stridelab_gpu::{chrome_trace, wgpu, Access, Gpu, KernelSpec, KernelTiming, RunOptions, TimingSource};

const ADD: &str = "
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&c)) { c[i] = a[i] + b[i]; }
}";

const SUM: &str = "
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
var<workgroup> part: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 256u + lid.x;
    var v = 0.0;
    if (i < arrayLength(&src)) { v = src[i]; }
    part[lid.x] = v;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if (lid.x < s) { part[lid.x] = part[lid.x] + part[lid.x + s]; }
        workgroupBarrier();
    }
    if (lid.x == 0u) { dst[wid.x] = part[0]; }
}";

// Binding 1 is declared and never read: `layout: auto` would drop it from the layout.
const AFFINE_UNUSED: &str = "
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> unused: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read> scale: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&out)) { out[i] = a[i] * scale[0] + 1.0; }
}";

// Binding 1 is not even declared by the shader.
const AFFINE_UNDECLARED: &str = "
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read> scale: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&out)) { out[i] = a[i] * scale[0] + 1.0; }
}";

/// `out = x0 + x1 + ... + x{n-1}` over `n` read-only inputs: `n + 1` storage bindings.
fn sum_n_wgsl(n: usize) -> String {
    let mut s = String::new();
    for k in 0..n {
        s += &format!("@group(0) @binding({k}) var<storage, read> x{k}: array<f32>;\n");
    }
    s += &format!("@group(0) @binding({n}) var<storage, read_write> out: array<f32>;\n");
    s += "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n";
    s += "    let i = gid.x;\n    if (i >= arrayLength(&out)) { return; }\n    var acc = 0.0;\n";
    for k in 0..n {
        s += &format!("    acc = acc + x{k}[i];\n");
    }
    s + "    out[i] = acc;\n}\n"
}

/// Deterministic floats in [0, 1) (a 32-bit LCG), so CPU and GPU see the same data.
fn data(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / (1u32 << 24) as f32
        })
        .collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

enum Expect {
    /// Buffer `buffer` holds `want`, each within `tol` relative to max(1, |want|).
    Output { buffer: usize, want: Vec<f32>, tol: f32 },
    /// The run fails with this error kind and a message containing every fragment.
    Fails { kind: &'static str, fragments: Vec<String> },
}

struct Case {
    name: &'static str,
    kernels: Vec<KernelSpec>,
    /// The buffer table's initial contents (outputs start as zeros of their length).
    buffers: Vec<Vec<f32>>,
    opts: RunOptions,
    expect: Expect,
}

mod common;
use common::device;

/// A device on the same adapter that reports `limits` (tighter than the adapter's) to the
/// runtime, as a web page with a lower-limit device would.
fn device_with(limits: wgpu::Limits) -> Option<Gpu> {
    let gpu = device()?;
    let info = gpu.adapter_info().clone();
    Some(Gpu::from_device(info, gpu.device().clone(), gpu.queue().clone(), gpu.features(), limits))
}

/// Runs every case and checks its output or error, then that the timings are complete and
/// consistent and that the Chrome trace of the run parses.
fn check(gpu: &Gpu, cases: Vec<Case>) {
    for case in cases {
        let name = case.name;
        let buffers: Vec<_> = case
            .buffers
            .iter()
            .enumerate()
            .map(|(i, v)| block_on(gpu.upload(&format!("{name}[{i}]"), &bytes(v))))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{name}: upload: {e}"));
        let table: Vec<_> = buffers.iter().collect();
        let result = block_on(gpu.run(&case.kernels, &table, &case.opts));
        match (&case.expect, result) {
            (Expect::Output { buffer, want, tol }, Ok(timings)) => {
                let got = floats(&block_on(gpu.read(&buffers[*buffer])).expect("readback"));
                assert_eq!(got.len(), want.len(), "{name}: output length");
                for (i, (g, w)) in got.iter().zip(want).enumerate() {
                    let err = (g - w).abs() / w.abs().max(1.0);
                    assert!(err <= *tol, "{name}: element {i} is {g}, want {w}");
                }
                check_timings(gpu, name, &case.kernels, &case.opts, &timings);
            }
            (Expect::Fails { kind, fragments }, Err(e)) => {
                let text = e.to_string();
                assert_eq!(e.kind(), *kind, "{name}: {text}");
                for f in fragments {
                    assert!(text.contains(f.as_str()), "{name}: `{text}` lacks `{f}`");
                }
            }
            (Expect::Output { .. }, Err(e)) => panic!("{name}: failed: {e}"),
            (Expect::Fails { kind, .. }, Ok(_)) => panic!("{name}: ran, want a {kind} error"),
        }
    }
}

fn check_timings(gpu: &Gpu, name: &str, kernels: &[KernelSpec], opts: &RunOptions, t: &[KernelTiming]) {
    assert_eq!(t.len(), kernels.len(), "{name}: one timing per kernel");
    let want_source = match gpu.timestamp_period_ns() {
        Some(_) if !opts.wallclock() => TimingSource::Timestamp,
        _ => TimingSource::Wallclock,
    };
    for (k, t) in kernels.iter().zip(t) {
        assert_eq!(t.name(), k.name());
        assert_eq!(t.wgsl(), k.wgsl());
        assert_eq!((t.workgroups(), t.workgroup_size()), (k.workgroups(), k.workgroup_size()));
        assert_eq!((t.bytes_read(), t.bytes_written(), t.flops()), (k.bytes_read(), k.bytes_written(), k.flops()));
        assert_eq!(t.source(), want_source, "{name}");
        assert_eq!(t.repeats(), opts.repeats(), "{name}");
        assert!(t.resolution_ns() > 0.0, "{name}: resolution {}", t.resolution_ns());
        assert!(t.start_ns() >= 0.0 && t.span_ns() >= 0.0, "{name}: {t:?}");
        match t.time_ns() {
            Some(time) => {
                assert!(time.is_finite() && time > 0.0, "{name}: time {time}");
                // Well under a minute: these kernels are small even on a software rasterizer.
                assert!(time < 60e9, "{name}: time {time}");
                assert_eq!(t.estimated(), t.below_resolution(), "{name}: {t:?}");
                let moved = (k.bytes_read() + k.bytes_written()) as f64;
                let gbps = t.gbps().expect("a time gives a bandwidth");
                assert!((gbps - moved / time).abs() <= 1e-9 * gbps.max(1.0), "{name}");
                let gflops = t.gflops().expect("a time gives a rate");
                assert!((gflops - k.flops() as f64 / time).abs() <= 1e-9 * gflops.max(1.0));
            }
            None => {
                assert!(t.below_resolution(), "{name}: no time but resolved: {t:?}");
                assert_eq!((t.gbps(), t.gflops()), (None, None), "{name}: rates without a time");
            }
        }
        match t.spread_ns() {
            Some(s) => {
                assert!(opts.repeats() > 1 && !t.below_resolution(), "{name}: {t:?}");
                assert!(s.min_ns() <= s.median_ns() && s.median_ns() <= s.max_ns(), "{name}");
                assert_eq!(Some(s.median_ns()), t.time_ns(), "{name}: time is the median");
                // All repeats lie inside the span (the wall clock's span also counts the gaps).
                assert!(s.max_ns() <= t.span_ns() + 1.0, "{name}: {t:?}");
            }
            None => assert!(opts.repeats() == 1 || t.below_resolution(), "{name}: no spread: {t:?}"),
        }
    }
    let json = serde_json::to_string(&chrome_trace(&gpu.adapter_info().name, t)).expect("a trace serializes");
    eprintln!("{name}: {json}");
    let trace: serde_json::Value = serde_json::from_str(&json).expect("the Chrome trace is JSON");
    let events = trace["traceEvents"].as_array().expect("traceEvents is an array");
    let spans: Vec<_> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(spans.len(), t.len(), "{name}: one X event per kernel");
    for (e, t) in spans.iter().zip(t) {
        assert_eq!(e["name"], t.name());
        for key in ["ts", "dur", "pid", "tid"] {
            assert!(e[key].is_number(), "{name}: trace event lacks {key}: {e}");
        }
        assert_eq!(e["args"]["repeats"], t.repeats());
        assert_eq!(e["args"]["source"], serde_json::to_value(t.source()).expect("a name"));
    }
}

const N_ADD: usize = 1 << 20;
const N_SUM: usize = 1 << 16;

fn add_case(name: &'static str, opts: RunOptions) -> Case {
    let (a, b) = (data(N_ADD, 1), data(N_ADD, 2));
    let want = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let bytes = (N_ADD * 4) as u64;
    Case {
        name,
        kernels: vec![KernelSpec::new("add", ADD, "main")
            .with_binding(0, Access::ReadOnly)
            .with_binding(1, Access::ReadOnly)
            .with_binding(2, Access::ReadWrite)
            .with_workgroups([(N_ADD / 256) as u32, 1, 1])
            .with_workgroup_size([256, 1, 1])
            .with_cost(2 * bytes, bytes, N_ADD as u64)],
        buffers: vec![a, b, vec![0.0; N_ADD]],
        opts,
        expect: Expect::Output { buffer: 2, want, tol: 0.0 },
    }
}

fn affine_case(name: &'static str, wgsl: &str) -> Case {
    let a = data(1000, 3);
    let want = a.iter().map(|x| x * 3.0 + 1.0).collect();
    Case {
        name,
        kernels: vec![KernelSpec::new("affine", wgsl, "main")
            .with_binding(0, Access::ReadOnly)
            .with_binding(1, Access::ReadOnly)
            .with_binding(2, Access::ReadWrite)
            .with_binding(3, Access::ReadOnly)
            .with_workgroups([1000u32.div_ceil(64), 1, 1])
            .with_workgroup_size([64, 1, 1])
            .with_cost(4000 + 4, 4000, 2000)],
        buffers: vec![a, vec![7.0; 16], vec![0.0; 1000], vec![3.0]],
        opts: RunOptions::new(),
        expect: Expect::Output { buffer: 2, want, tol: 0.0 },
    }
}

fn sum_n_case(name: &'static str, inputs: usize, expect_limit: Option<u64>) -> Case {
    let n = 256;
    let xs: Vec<Vec<f32>> = (0..inputs).map(|k| data(n, 10 + k as u32)).collect();
    let want = (0..n).map(|i| xs.iter().fold(0.0f32, |acc, x| acc + x[i])).collect();
    let mut spec = KernelSpec::new("sum_n", sum_n_wgsl(inputs), "main")
        .with_workgroups([(n / 64) as u32, 1, 1])
        .with_workgroup_size([64, 1, 1]);
    for k in 0..inputs {
        spec = spec.with_binding(k, Access::ReadOnly);
    }
    let mut buffers = xs;
    buffers.push(vec![0.0; n]);
    Case {
        name,
        kernels: vec![spec.with_binding(inputs, Access::ReadWrite)],
        buffers,
        opts: RunOptions::new(),
        expect: match expect_limit {
            None => Expect::Output { buffer: inputs, want, tol: 0.0 },
            Some(allowed) => Expect::Fails {
                kind: "limit",
                fragments: vec![
                    "max_storage_buffers_per_shader_stage".into(),
                    format!("= {}", inputs + 1),
                    format!("allows {allowed}"),
                ],
            },
        },
    }
}

#[test]
fn elementwise_add_of_2_20_floats() {
    let Some(gpu) = device() else { return };
    eprintln!("adapter: {}", serde_json::to_string(&gpu.describe()).expect("a description serializes"));
    check(
        &gpu,
        vec![
            add_case("add, timestamps", RunOptions::new()),
            add_case("add, 5 repeats", RunOptions::new().with_repeats(5)),
            add_case("add, wall clock, 3 repeats", RunOptions::new().with_wallclock(true).with_repeats(3)),
        ],
    );
}

#[test]
fn two_stage_reduction() {
    let Some(gpu) = device() else { return };
    let x = data(N_SUM, 7);
    let want = x.iter().map(|&v| f64::from(v)).sum::<f64>() as f32;
    let groups = (N_SUM / 256) as u32;
    let stage = |name: &str, src: usize, dst: usize, wg: u32, n: u64| {
        KernelSpec::new(name, SUM, "main")
            .with_binding(src, Access::ReadOnly)
            .with_binding(dst, Access::ReadWrite)
            .with_workgroups([wg, 1, 1])
            .with_workgroup_size([256, 1, 1])
            .with_cost(4 * n, 4 * u64::from(wg), n)
    };
    check(
        &gpu,
        vec![Case {
            name: "sum of 2^16 floats",
            kernels: vec![
                stage("sum.partials", 0, 1, groups, N_SUM as u64),
                stage("sum.total", 1, 2, 1, u64::from(groups)),
            ],
            buffers: vec![x, vec![0.0; groups as usize], vec![0.0]],
            opts: RunOptions::new(),
            expect: Expect::Output { buffer: 2, want: vec![want], tol: 1e-5 },
        }],
    );
    assert_eq!(gpu.cached_pipelines(), 1, "both stages share one pipeline (same WGSL)");
}

#[test]
fn unused_and_undeclared_bindings_keep_their_slots() {
    let Some(gpu) = device() else { return };
    check(
        &gpu,
        vec![
            affine_case("declared, unused binding", AFFINE_UNUSED),
            affine_case("undeclared binding", AFFINE_UNDECLARED),
            // 2100 passes need 4200 timestamps: more than one query set holds.
            affine_case("2100 repeats", AFFINE_UNUSED).with_opts(RunOptions::new().with_repeats(2100)),
        ],
    );
}

#[test]
fn kernels_over_the_limits_fail_cleanly() {
    let Some(gpu) = device() else { return };
    // The adapter's own limit is high (lavapipe allows far more than 9), so 9 bindings run.
    check(&gpu, vec![sum_n_case("9 bindings, adapter limits", 8, None)]);
    let tight = wgpu::Limits::default();
    let max = u64::from(tight.max_storage_buffers_per_shader_stage);
    let Some(small) = device_with(tight.clone()) else {
        return;
    };
    let over_dispatch = u64::from(tight.max_compute_workgroups_per_dimension) + 1;
    let mut cases = vec![
        sum_n_case("at the binding limit", max as usize - 1, None),
        sum_n_case("over the binding limit", max as usize, Some(max)),
    ];
    let add = add_case("dispatch", RunOptions::new()).kernels.remove(0);
    cases.push(Case {
        name: "over max_compute_workgroups_per_dimension",
        kernels: vec![add.clone().with_workgroups([1, over_dispatch as u32, 1])],
        buffers: vec![vec![0.0; 4]; 3],
        opts: RunOptions::new(),
        expect: Expect::Fails {
            kind: "limit",
            fragments: vec!["max_compute_workgroups_per_dimension".into(), format!("= {over_dispatch}")],
        },
    });
    cases.push(Case {
        name: "over max_compute_invocations_per_workgroup",
        kernels: vec![add.clone().with_workgroup_size([tight.max_compute_workgroup_size_x, 2, 1])],
        buffers: vec![vec![0.0; 4]; 3],
        opts: RunOptions::new(),
        expect: Expect::Fails { kind: "limit", fragments: vec!["max_compute_invocations_per_workgroup".into()] },
    });
    check(&small, cases);
    let Some(narrow) = device_with(wgpu::Limits { max_storage_buffer_binding_size: 1024, ..tight }) else {
        return;
    };
    check(
        &narrow,
        vec![Case {
            name: "over max_storage_buffer_binding_size",
            kernels: vec![add],
            buffers: vec![vec![0.0; 512], vec![0.0; 4], vec![0.0; 4]],
            opts: RunOptions::new(),
            expect: Expect::Fails {
                kind: "limit",
                fragments: vec!["max_storage_buffer_binding_size = 2048".into(), "allows 1024".into()],
            },
        }],
    );
}

#[test]
fn bad_kernels_fail_before_the_device_sees_them() {
    let Some(gpu) = device() else { return };
    let add = add_case("base", RunOptions::new()).kernels.remove(0);
    let small = |kernels: Vec<KernelSpec>, name, kind, fragments: &[&str]| Case {
        name,
        kernels,
        buffers: vec![vec![0.0; 4]; 3],
        opts: RunOptions::new(),
        expect: Expect::Fails { kind, fragments: fragments.iter().map(|s| s.to_string()).collect() },
    };
    let broken = KernelSpec::new("broken", ADD.replace("a[i] + b[i]", "a[i] + "), "main")
        .with_binding(0, Access::ReadOnly)
        .with_binding(1, Access::ReadOnly)
        .with_binding(2, Access::ReadWrite)
        .with_workgroup_size([256, 1, 1]);
    let mistyped = KernelSpec::new("mistyped", ADD.replace("a[i] + b[i]", "a[i] + gid.x"), "main")
        .with_binding(0, Access::ReadOnly)
        .with_binding(1, Access::ReadOnly)
        .with_binding(2, Access::ReadWrite)
        .with_workgroup_size([256, 1, 1]);
    check(
        &gpu,
        vec![
            small(vec![broken], "syntax error", "wgsl", &["expected"]),
            small(vec![mistyped], "type error", "wgsl", &["gid.x"]),
            small(
                vec![KernelSpec::new("add", ADD, "main")
                    .with_binding(0, Access::ReadOnly)
                    .with_binding(1, Access::ReadOnly)
                    .with_workgroup_size([256, 1, 1])],
                "shader declares more bindings than the spec",
                "kernel",
                &["declares @binding(2) `c` but the spec has 2 bindings"],
            ),
            small(
                vec![KernelSpec::new("add", ADD, "main")
                    .with_binding(0, Access::ReadOnly)
                    .with_binding(1, Access::ReadOnly)
                    .with_binding(2, Access::ReadOnly)
                    .with_workgroup_size([256, 1, 1])],
                "writable buffer declared read-only",
                "kernel",
                &["@binding(2) `c` is var<storage, read_write> but the spec says read"],
            ),
            small(
                vec![KernelSpec::new("add", ADD, "main")
                    .with_binding(0, Access::ReadOnly)
                    .with_binding(1, Access::ReadOnly)
                    .with_binding(5, Access::ReadWrite)
                    .with_workgroup_size([256, 1, 1])],
                "binding outside the buffer table",
                "kernel",
                &["names buffer 5 but the run has 3 buffers"],
            ),
            small(
                vec![KernelSpec::new("add", ADD, "main")
                    .with_binding(0, Access::ReadOnly)
                    .with_binding(1, Access::ReadOnly)
                    .with_binding(0, Access::ReadWrite)
                    .with_workgroup_size([256, 1, 1])],
                "read-only and writable view of one buffer",
                "kernel",
                &["bound read-only and writable at once"],
            ),
            small(
                vec![KernelSpec::new("add", ADD, "other")
                    .with_binding(0, Access::ReadOnly)
                    .with_binding(1, Access::ReadOnly)
                    .with_binding(2, Access::ReadWrite)
                    .with_workgroup_size([256, 1, 1])],
                "missing entry point",
                "kernel",
                &["no compute entry point `other`", "[\"main\"]"],
            ),
            small(vec![add.clone()], "zero repeats", "invalid", &["at least one repeat"])
                .with_opts(RunOptions::new().with_repeats(0)),
        ],
    );
}

impl Case {
    fn with_opts(mut self, opts: RunOptions) -> Self {
        self.opts = opts;
        self
    }
}

/// Prepares the add case once, then runs it with each of `runs` in turn: the output stays right,
/// every run's timings are complete, and no run builds another pipeline. Timed runs that need
/// more queries than the kept slots hold make new ones; smaller ones reuse them.
fn check_prepared(gpu: &Gpu, name: &str, runs: &[RunOptions]) {
    let case = add_case("prepared add", RunOptions::new());
    let buffers: Vec<_> = case.buffers.iter().map(|v| block_on(gpu.upload(name, &bytes(v))).expect("upload")).collect();
    let table: Vec<_> = buffers.iter().collect();
    let prepared = block_on(gpu.prepare(&case.kernels, &table)).unwrap_or_else(|e| panic!("{name}: prepare: {e}"));
    let pipelines = gpu.cached_pipelines();
    let Expect::Output { buffer, want, .. } = &case.expect else { panic!("{name}: the add case has an output") };
    for (r, opts) in runs.iter().enumerate() {
        block_on(gpu.write(&buffers[*buffer], 0, &bytes(&vec![0.0; N_ADD]))).expect("clear");
        let timings = block_on(gpu.run_prepared(&prepared, opts)).unwrap_or_else(|e| panic!("{name}: run {r}: {e}"));
        let got = floats(&block_on(gpu.read(&buffers[*buffer])).expect("readback"));
        assert!(got == *want, "{name}: run {r} left a wrong sum");
        check_timings(gpu, name, prepared.kernels(), opts, &timings);
        assert_eq!(gpu.cached_pipelines(), pipelines, "{name}: run {r} built a pipeline");
    }
}

#[test]
fn prepared_kernels_run_again() {
    let Some(gpu) = device() else { return };
    let ts = RunOptions::new();
    let wall = RunOptions::new().with_wallclock(true);
    for (name, runs) in [
        ("timestamps, growing then shrinking", vec![ts, ts.with_repeats(9), ts, ts.with_repeats(3)]),
        ("wall clock between timed runs", vec![wall, ts.with_repeats(2), wall.with_repeats(4), ts]),
    ] {
        check_prepared(&gpu, name, &runs);
    }
}

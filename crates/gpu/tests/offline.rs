//! The checks that run before any device is touched: naga validation, the spec/shader
//! comparison and the limit checks. They need no GPU, so these run everywhere.
// A failed expectation here is the test failing, with its message.
#![allow(clippy::expect_used)]

use stridelab_gpu::{check_module, validate_wgsl, wgpu, Access, KernelSpec};

const COPY: &str = "
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&dst)) { dst[gid.x] = src[gid.x]; }
}";

const UNIFORM: &str = "
@group(0) @binding(0) var<uniform> scale: vec4<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&dst)) { dst[gid.x] = scale.x; }
}";

struct Case {
    name: &'static str,
    spec: KernelSpec,
    /// Byte sizes of the run's buffer table.
    sizes: Vec<u64>,
    limits: wgpu::Limits,
    /// `None`: passes every check; else the error kind and fragments of its message.
    fails: Option<(&'static str, Vec<String>)>,
}

fn copy() -> KernelSpec {
    KernelSpec::new("copy", COPY, "main")
        .with_binding(0, Access::ReadOnly)
        .with_binding(1, Access::ReadWrite)
        .with_workgroup_size([64, 1, 1])
}

/// Runs the whole pre-device gate (WGSL, shader against spec, limits) on each case.
fn check(cases: Vec<Case>) {
    for case in cases {
        let name = case.name;
        let result = validate_wgsl(case.spec.wgsl())
            .and_then(|module| check_module(&case.spec, &module))
            .and_then(|()| case.spec.check(&case.limits, &case.sizes));
        match (result, &case.fails) {
            (Ok(()), None) => {}
            (Ok(()), Some((kind, _))) => panic!("{name}: passed, want a {kind} error"),
            (Err(e), None) => panic!("{name}: {e}"),
            (Err(e), Some((kind, fragments))) => {
                let text = e.to_string();
                assert_eq!(e.kind(), *kind, "{name}: {text}");
                for f in fragments {
                    assert!(text.contains(f.as_str()), "{name}: `{text}` lacks `{f}`");
                }
            }
        }
        // The description is what the scheduler will hand over: it must survive JSON.
        let json = serde_json::to_string(&case.spec).expect("a spec serializes");
        let back: KernelSpec = serde_json::from_str(&json).expect("and reads back");
        assert_eq!(back, case.spec, "{name}: JSON round trip");
    }
}

fn fails(kind: &'static str, fragments: &[&str]) -> Option<(&'static str, Vec<String>)> {
    Some((kind, fragments.iter().map(|s| s.to_string()).collect()))
}

#[test]
fn pre_device_checks() {
    let d = wgpu::Limits::default();
    let ok = |name, spec| Case { name, spec, sizes: vec![256, 256], limits: d.clone(), fails: None };
    let bad = |name, spec, f| Case { name, spec, sizes: vec![256, 256], limits: d.clone(), fails: f };
    let max_wg = d.max_compute_workgroups_per_dimension;
    check(vec![
        ok("copy", copy()),
        ok("extra binding the shader ignores", copy().with_binding(0, Access::ReadOnly)),
        ok("at the dispatch limit", copy().with_workgroups([max_wg, 1, 1])),
        bad(
            "syntax error",
            KernelSpec::new("s", COPY.replace("dst[gid.x] = src[gid.x];", "dst[gid.x] = ;"), "main"),
            fails("wgsl", &["expected", "dst[gid.x] = ;"]),
        ),
        bad(
            "type error",
            KernelSpec::new("t", COPY.replace("= src[gid.x]", "= gid.x"), "main"),
            fails("wgsl", &["invalid WGSL"]),
        ),
        bad(
            "unknown identifier",
            KernelSpec::new("u", COPY.replace("src[gid.x]", "nowhere[gid.x]"), "main"),
            fails("wgsl", &["nowhere"]),
        ),
        bad(
            "entry point missing",
            KernelSpec::new("copy", COPY, "go"),
            fails("kernel", &["no compute entry point `go`"]),
        ),
        bad(
            "workgroup size differs",
            copy().with_workgroup_size([32, 1, 1]),
            fails("kernel", &["@workgroup_size is [64, 1, 1] but the spec says [32, 1, 1]"]),
        ),
        bad(
            "writable binding declared read-only in the spec",
            KernelSpec::new("copy", COPY, "main")
                .with_binding(0, Access::ReadOnly)
                .with_binding(1, Access::ReadOnly)
                .with_workgroup_size([64, 1, 1]),
            fails("kernel", &["`dst` is var<storage, read_write> but the spec says read"]),
        ),
        bad(
            "read-only binding declared writable in the spec",
            KernelSpec::new("copy", COPY, "main")
                .with_binding(0, Access::ReadWrite)
                .with_binding(1, Access::ReadWrite)
                .with_workgroup_size([64, 1, 1]),
            fails("kernel", &["`src` is var<storage, read> but the spec says read_write"]),
        ),
        bad(
            "shader binding missing from the spec",
            KernelSpec::new("copy", COPY, "main").with_binding(0, Access::ReadOnly).with_workgroup_size([64, 1, 1]),
            fails("kernel", &["declares @binding(1) `dst` but the spec has 1 bindings"]),
        ),
        bad(
            "uniform binding",
            KernelSpec::new("u", UNIFORM, "main")
                .with_binding(0, Access::ReadOnly)
                .with_binding(1, Access::ReadWrite)
                .with_workgroup_size([64, 1, 1]),
            fails("kernel", &["`scale` is not a storage buffer"]),
        ),
        bad(
            "over the dispatch limit",
            copy().with_workgroups([1, 1, max_wg + 1]),
            fails("limit", &["max_compute_workgroups_per_dimension", &format!("= {}", max_wg + 1)]),
        ),
        bad(
            "binding outside the table",
            copy().with_binding(2, Access::ReadOnly),
            fails("kernel", &["@binding(2) names buffer 2 but the run has 2 buffers"]),
        ),
        bad(
            "one buffer read-only and writable",
            copy().with_binding(1, Access::ReadOnly),
            fails("kernel", &["buffer 1 is bound read-only and writable at once (@binding(1) and @binding(2))"]),
        ),
        Case {
            name: "binding larger than max_storage_buffer_binding_size",
            spec: copy(),
            sizes: vec![256, d.max_storage_buffer_binding_size + 4],
            limits: d.clone(),
            fails: fails(
                "limit",
                &["max_storage_buffer_binding_size", &format!("allows {}", d.max_storage_buffer_binding_size)],
            ),
        },
        Case {
            name: "more storage buffers than the stage allows",
            spec: copy(),
            sizes: vec![256, 256],
            limits: wgpu::Limits { max_storage_buffers_per_shader_stage: 1, ..d.clone() },
            fails: fails("limit", &["max_storage_buffers_per_shader_stage = 2", "allows 1"]),
        },
        Case {
            name: "workgroup larger than the adapter's",
            spec: copy(),
            sizes: vec![256, 256],
            limits: wgpu::Limits { max_compute_workgroup_size_x: 32, ..d.clone() },
            fails: fails("limit", &["max_compute_workgroup_size_x = 64", "allows 32"]),
        },
        Case {
            name: "too many invocations",
            spec: copy(),
            sizes: vec![256, 256],
            limits: wgpu::Limits { max_compute_invocations_per_workgroup: 63, ..d.clone() },
            fails: fails("limit", &["max_compute_invocations_per_workgroup = 64", "allows 63"]),
        },
    ]);
}

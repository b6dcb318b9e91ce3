// r_274_512: two-stage reduce: 140001 reduce steps into 1 output(s) would keep only 1 GPU thread(s) busy, so 274 partial reduces of 512 steps run in parallel into their own buffer and the next kernel combines them
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
fn is_nan_f32(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u; }
fn f32_inf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
fn f32_nan() -> f32 { var bits = 0x7fc00000u; return bitcast<f32>(bits); }
fn max_f32(a: f32, b: f32) -> f32 { return select(max(a, b), f32_nan(), is_nan_f32(a) || is_nan_f32(b)); }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 64u);
  if (t >= 274) { return; }
  let gid = t;
  let i0: i32 = gid;
  var acc5: f32 = (-f32_inf());
  for (var i1: i32 = 0; i1 < 512; i1 = i1 + 1) {
    let v1: f32 = b1[((((i0 * 512) + i1) % 140001))];
    let v2: bool = (((i0 * 512) + i1) < 140001);
    let v3: f32 = (-f32_inf());
    let v4: f32 = select(v3, v1, v2);
    acc5 = max_f32(acc5, v4);
  }
  let v5: f32 = acc5;
  b0[i0] = v5;
}

// r_274: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
fn is_nan_f32(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u; }
fn f32_inf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
fn f32_nan() -> f32 { var bits = 0x7fc00000u; return bitcast<f32>(bits); }
fn max_f32(a: f32, b: f32) -> f32 { return select(max(a, b), f32_nan(), is_nan_f32(a) || is_nan_f32(b)); }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 64u);
  if (t >= 1) { return; }
  let gid = t;
  var acc2: f32 = (-f32_inf());
  for (var i0: i32 = 0; i0 < 274; i0 = i0 + 1) {
    let v1: f32 = b2[(i0)];
    acc2 = max_f32(acc2, v1);
  }
  let v2: f32 = acc2;
  b0[0] = v2;
}

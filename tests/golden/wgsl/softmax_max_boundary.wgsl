// r_2_1_3: reduce boundary: the reduced value (shape [2, 1]) is broadcast back to shape [2, 3], so it is reduced once into its own buffer instead of once per element
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
fn is_nan_f32(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u; }
fn f32_inf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
fn f32_nan() -> f32 { var bits = 0x7fc00000u; return bitcast<f32>(bits); }
fn max_f32(a: f32, b: f32) -> f32 { return select(max(a, b), f32_nan(), is_nan_f32(a) || is_nan_f32(b)); }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 64u);
  if (t >= 2) { return; }
  let gid = t;
  let i1: i32 = 0;
  let i0: i32 = gid;
  var acc2: f32 = (-f32_inf());
  for (var i2: i32 = 0; i2 < 3; i2 = i2 + 1) {
    let v1: f32 = b1[(((i0 * 3) + i2))];
    acc2 = max_f32(acc2, v1);
  }
  let v2: f32 = acc2;
  b0[i0] = v2;
}

// E_2_3: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 256u);
  if (t >= 256) { return; }
  let base = (t / 256) * 1024 + t % 256;
  {
    const j: i32 = 0;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i1: i32 = gid % 3;
    let i0: i32 = gid / 3;
    let v0: f32 = b1[(((i0 * 3) + i1))];
    let v1: f32 = b2[(i0)];
    let v2: f32 = (v0 - v1);
    let v3: f32 = exp(v2);
    b0[(i1 + (i0 * 3))] = v3;
  }
  {
    const j: i32 = 1;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i1: i32 = gid % 3;
    let i0: i32 = gid / 3;
    let v0: f32 = b1[(((i0 * 3) + i1))];
    let v1: f32 = b2[(i0)];
    let v2: f32 = (v0 - v1);
    let v3: f32 = exp(v2);
    b0[(i1 + (i0 * 3))] = v3;
  }
  {
    const j: i32 = 2;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i1: i32 = gid % 3;
    let i0: i32 = gid / 3;
    let v0: f32 = b1[(((i0 * 3) + i1))];
    let v1: f32 = b2[(i0)];
    let v2: f32 = (v0 - v1);
    let v3: f32 = exp(v2);
    b0[(i1 + (i0 * 3))] = v3;
  }
  {
    const j: i32 = 3;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i1: i32 = gid % 3;
    let i0: i32 = gid / 3;
    let v0: f32 = b1[(((i0 * 3) + i1))];
    let v1: f32 = b2[(i0)];
    let v2: f32 = (v0 - v1);
    let v3: f32 = exp(v2);
    b0[(i1 + (i0 * 3))] = v3;
  }
}

// r_256_256: two-stage reduce: 65536 reduce steps into 1 output(s) would keep only 1 GPU thread(s) busy, so 256 partial reduces of 256 steps run in parallel into their own buffer and the next kernel combines them
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 64u);
  if (t >= 256) { return; }
  let gid = t;
  let i0: i32 = gid;
  var acc4: f32 = 0.0;
  for (var i1: i32 = 0; i1 < 256; i1 = i1 + 1) {
    let v1: f32 = b1[(((i0 * 256) + i1))];
    let v2: f32 = f32(0.5);
    let v3: f32 = (v1 * v2);
    acc4 = (acc4 + v3);
  }
  let v4: f32 = acc4;
  b0[i0] = v4;
}

// r_256: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 64u);
  if (t >= 1) { return; }
  let gid = t;
  var acc2: f32 = 0.0;
  for (var i0: i32 = 0; i0 < 256; i0 = i0 + 1) {
    let v1: f32 = b2[(i0)];
    acc2 = (acc2 + v1);
  }
  let v2: f32 = acc2;
  b0[0] = v2;
}

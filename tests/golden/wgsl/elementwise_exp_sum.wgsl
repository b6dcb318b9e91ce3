// r_4096: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 64u);
  if (t >= 1) { return; }
  let gid = t;
  var acc7: f32 = 0.0;
  for (var i0: i32 = 0; i0 < 4096; i0 = i0 + 1) {
    let v1: f32 = b1[(i0)];
    let v2: f32 = f32(2.0);
    let v3: f32 = (v1 * v2);
    let v4: f32 = f32(1.0);
    let v5: f32 = (v3 + v4);
    let v6: f32 = exp(v5);
    acc7 = (acc7 + v6);
  }
  let v7: f32 = acc7;
  b0[0] = v7;
}

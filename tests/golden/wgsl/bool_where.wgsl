// E_6: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 256u);
  if (t >= 256) { return; }
  let base = (t / 256) * 1024 + t % 256;
  {
    const j: i32 = 0;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i0: i32 = gid;
    let v0: f32 = f32(2.0);
    let v1: f32 = b1[(i0)];
    let v2: bool = (v0 < v1);
    let v3: f32 = (-v1);
    let v4: f32 = select(v3, v1, v2);
    b0[i0] = v4;
  }
  {
    const j: i32 = 1;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i0: i32 = gid;
    let v0: f32 = f32(2.0);
    let v1: f32 = b1[(i0)];
    let v2: bool = (v0 < v1);
    let v3: f32 = (-v1);
    let v4: f32 = select(v3, v1, v2);
    b0[i0] = v4;
  }
  {
    const j: i32 = 2;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i0: i32 = gid;
    let v0: f32 = f32(2.0);
    let v1: f32 = b1[(i0)];
    let v2: bool = (v0 < v1);
    let v3: f32 = (-v1);
    let v4: f32 = select(v3, v1, v2);
    b0[i0] = v4;
  }
  {
    const j: i32 = 3;
    let gid = base + j * 256;
    if (gid >= 6) { return; }
    let i0: i32 = gid;
    let v0: f32 = f32(2.0);
    let v1: f32 = b1[(i0)];
    let v2: bool = (v0 < v1);
    let v3: f32 = (-v1);
    let v4: f32 = select(v3, v1, v2);
    b0[i0] = v4;
  }
}

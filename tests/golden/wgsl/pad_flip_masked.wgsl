// E_2_2: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 256u);
  if (t >= 1) { return; }
  {
    const u: i32 = 0;
    let w = t * 2 + u;
    if (w >= 1) { return; }
    var q0: vec4<f32>;
    {
      const j: i32 = 0;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    {
      const j: i32 = 1;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    {
      const j: i32 = 2;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    {
      const j: i32 = 3;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    b0[w] = q0;
  }
  {
    const u: i32 = 1;
    let w = t * 2 + u;
    if (w >= 1) { return; }
    var q0: vec4<f32>;
    {
      const j: i32 = 0;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    {
      const j: i32 = 1;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    {
      const j: i32 = 2;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    {
      const j: i32 = 3;
      let gid = w * 4 + j;
      let i1: i32 = gid % 2;
      let i0: i32 = gid / 2;
      let v0: f32 = b1[(((i0 * 3) + (i1 * (-1)) + 1))];
      let v1: f32 = f32(2.0);
      let v2: f32 = (v0 * v1);
      q0[j] = v2;
    }
    b0[w] = q0;
  }
}

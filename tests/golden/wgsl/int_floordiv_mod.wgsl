// E_12: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read> b1: array<vec4<i32>>;
fn idiv_floor(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let q = a / b;
  return select(q, q - 1, (a % b != 0) && ((a < 0) != (b < 0)));
}
fn mod_i32(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let r = a % b;
  return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 256u);
  if (t >= 2) { return; }
  {
    const u: i32 = 0;
    let w = t * 2 + u;
    if (w >= 3) { return; }
    let q1 = b1[w];
    var q0: vec4<i32>;
    {
      const j: i32 = 0;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    {
      const j: i32 = 1;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    {
      const j: i32 = 2;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    {
      const j: i32 = 3;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    b0[w] = q0;
  }
  {
    const u: i32 = 1;
    let w = t * 2 + u;
    if (w >= 3) { return; }
    let q1 = b1[w];
    var q0: vec4<i32>;
    {
      const j: i32 = 0;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    {
      const j: i32 = 1;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    {
      const j: i32 = 2;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    {
      const j: i32 = 3;
      let gid = w * 4 + j;
      let i0: i32 = gid;
      let v0: i32 = q1[j];
      let v1: i32 = i32(4);
      let v2: i32 = idiv_floor(v0, v1);
      let v3: i32 = i32(3);
      let v4: i32 = mod_i32(v0, v3);
      let v5: i32 = (v2 + v4);
      q0[j] = v5;
    }
    b0[w] = q0;
  }
}

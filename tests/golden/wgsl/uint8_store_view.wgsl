// S_4: store/assign: writes through the view into storage 0; a write is a kernel of its own so later reads see it
@group(0) @binding(0) var<storage, read_write> b0: array<atomic<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 256u);
  if (t >= 256) { return; }
  let base = (t / 256) * 1024 + t % 256;
  {
    const j: i32 = 0;
    let gid = base + j * 256;
    if (gid >= 4) { return; }
    let i0: i32 = gid;
    let v0: u32 = 7u;
    let si = (i0 + 1);
    let sh = u32(si & 3) * 8u;
    atomicAnd(&b0[si >> 2u], ~(0xffu << sh));
    atomicOr(&b0[si >> 2u], (v0 & 0xffu) << sh);
  }
  {
    const j: i32 = 1;
    let gid = base + j * 256;
    if (gid >= 4) { return; }
    let i0: i32 = gid;
    let v0: u32 = 7u;
    let si = (i0 + 1);
    let sh = u32(si & 3) * 8u;
    atomicAnd(&b0[si >> 2u], ~(0xffu << sh));
    atomicOr(&b0[si >> 2u], (v0 & 0xffu) << sh);
  }
  {
    const j: i32 = 2;
    let gid = base + j * 256;
    if (gid >= 4) { return; }
    let i0: i32 = gid;
    let v0: u32 = 7u;
    let si = (i0 + 1);
    let sh = u32(si & 3) * 8u;
    atomicAnd(&b0[si >> 2u], ~(0xffu << sh));
    atomicOr(&b0[si >> 2u], (v0 & 0xffu) << sh);
  }
  {
    const j: i32 = 3;
    let gid = base + j * 256;
    if (gid >= 4) { return; }
    let i0: i32 = gid;
    let v0: u32 = 7u;
    let si = (i0 + 1);
    let sh = u32(si & 3) * 8u;
    atomicAnd(&b0[si >> 2u], ~(0xffu << sh));
    atomicOr(&b0[si >> 2u], (v0 & 0xffu) << sh);
  }
}

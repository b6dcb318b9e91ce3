// E_8: realize point: the statement's value is materialised into storage 1, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<u32>;
@group(0) @binding(1) var<storage, read> b1: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = i32(g.x + g.y * nw.x * 64u);
  if (t >= 2) { return; }
  var word: u32 = 0u;
  for (var j: i32 = 0; j < 4; j = j + 1) {
    let gid = t * 4 + j;
    if (gid >= 8) { break; }
    let i0: i32 = gid;
    let v0: u32 = ((b1[(i0) >> 2u] >> (u32((i0) & 3) * 8u)) & 0xffu);
    let v1: u32 = 3u;
    let v2: u32 = ((v0 * v1) & 0xffu);
    word = word | ((v2 & 0xffu) << (u32(j) * 8u));
  }
  b0[t] = word;
}

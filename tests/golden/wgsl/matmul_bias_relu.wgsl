// mm_3_2_4: realize point: the statement's value is materialised into storage 3, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read> b3: array<f32>;
var<workgroup> ta: array<array<f32, 16>, 32>;
var<workgroup> tb: array<array<vec4<f32>, 8>, 16>;
@compute @workgroup_size(8, 8, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let ly = i32(lid.y);
  let lx = i32(lid.x);
  let lf = i32(li);
  let m0 = i32(wg.y) * 32;
  let n0 = i32(wg.x) * 32;
  let bz = i32(wg.z);
  var acc0: vec4<f32> = vec4<f32>(0.0);
  var acc1: vec4<f32> = vec4<f32>(0.0);
  var acc2: vec4<f32> = vec4<f32>(0.0);
  var acc3: vec4<f32> = vec4<f32>(0.0);
  for (var k0: i32 = 0; k0 < 4; k0 = k0 + 16) {
    for (var e: i32 = 0; e < 8; e = e + 1) {
      let f = lf + e * 64;
      let row = f / 16;
      let col = f % 16;
      let ok = (k0 + col) < 4 && (m0 + row) < 3;
      let i2 = min(k0 + col, 3);
      let i0 = min(m0 + row, 2);
      let v1: f32 = b1[(((i0 * 4) + i2))];
      ta[row][col] = select(0.0, v1, ok);
    }
    for (var e: i32 = 0; e < 8; e = e + 1) {
      let f = lf + e * 64;
      let row = f / 32;
      let col = f % 32;
      let ok = (k0 + row) < 4 && (n0 + col) < 2;
      let i2 = min(k0 + row, 3);
      let i1 = min(n0 + col, 1);
      let v2: f32 = b2[(((i2 * 2) + i1))];
      tb[row][col / 4][col % 4] = select(0.0, v2, ok);
    }
    workgroupBarrier();
    for (var kk: i32 = 0; kk < 16; kk = kk + 1) {
      let bv = tb[kk][lx];
      acc0 = (acc0 + ta[ly * 4 + 0][kk] * bv);
      acc1 = (acc1 + ta[ly * 4 + 1][kk] * bv);
      acc2 = (acc2 + ta[ly * 4 + 2][kk] * bv);
      acc3 = (acc3 + ta[ly * 4 + 3][kk] * bv);
    }
    workgroupBarrier();
  }
  var acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  for (var r: i32 = 0; r < 4; r = r + 1) {
    for (var c: i32 = 0; c < 4; c = c + 1) {
      let i0 = m0 + ly * 4 + r;
      let i1 = n0 + lx * 4 + c;
      if (i0 < 3 && i1 < 2) {
        let v4: f32 = acc[r][c];
        let v5: f32 = b3[(i1)];
        let v6: f32 = (v4 + v5);
        let v7: f32 = select(0.0, v6, v6 > 0.0);
        b0[(i1 + (i0 * 2))] = v7;
      }
    }
  }
}

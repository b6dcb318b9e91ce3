// mm_3_2_4: realize point: the statement's value is materialised into storage 3, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read> b3: array<f32>;
var<workgroup> ta: array<array<f32, 16>, 64>;
var<workgroup> tb: array<array<vec4<f32>, 16>, 16>;
@compute @workgroup_size(8, 8, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let ly = i32(lid.y);
  let lx = i32(lid.x);
  let lf = i32(li);
  let m0 = i32(wg.y) * 64;
  let n0 = i32(wg.x) * 64;
  let bz = i32(wg.z);
  var acc0_0: vec4<f32> = vec4<f32>(0.0);
  var acc0_1: vec4<f32> = vec4<f32>(0.0);
  var acc1_0: vec4<f32> = vec4<f32>(0.0);
  var acc1_1: vec4<f32> = vec4<f32>(0.0);
  var acc2_0: vec4<f32> = vec4<f32>(0.0);
  var acc2_1: vec4<f32> = vec4<f32>(0.0);
  var acc3_0: vec4<f32> = vec4<f32>(0.0);
  var acc3_1: vec4<f32> = vec4<f32>(0.0);
  var acc4_0: vec4<f32> = vec4<f32>(0.0);
  var acc4_1: vec4<f32> = vec4<f32>(0.0);
  var acc5_0: vec4<f32> = vec4<f32>(0.0);
  var acc5_1: vec4<f32> = vec4<f32>(0.0);
  var acc6_0: vec4<f32> = vec4<f32>(0.0);
  var acc6_1: vec4<f32> = vec4<f32>(0.0);
  var acc7_0: vec4<f32> = vec4<f32>(0.0);
  var acc7_1: vec4<f32> = vec4<f32>(0.0);
  for (var k0: i32 = 0; k0 < 4; k0 = k0 + 16) {
    for (var e: i32 = 0; e < 16; e = e + 1) {
      let f = lf + e * 64;
      let row = f / 16;
      let col = f % 16;
      let ok = (k0 + col) < 4 && (m0 + row) < 3;
      let i2 = min(k0 + col, 3);
      let i0 = min(m0 + row, 2);
      let v1: f32 = b1[(((i0 * 4) + i2))];
      ta[row][col] = select(0.0, v1, ok);
    }
    for (var e: i32 = 0; e < 16; e = e + 1) {
      let f = lf + e * 64;
      let row = f / 64;
      let col = f % 64;
      let ok = (k0 + row) < 4 && (n0 + col) < 2;
      let i2 = min(k0 + row, 3);
      let i1 = min(n0 + col, 1);
      let v2: f32 = b2[(((i2 * 2) + i1))];
      tb[row][col / 4][col % 4] = select(0.0, v2, ok);
    }
    workgroupBarrier();
    for (var kk: i32 = 0; kk < 16; kk = kk + 1) {
      let bq0 = tb[kk][lx * 2 + 0];
      let bq1 = tb[kk][lx * 2 + 1];
      let ar0 = ta[ly * 8 + 0][kk];
      let ar1 = ta[ly * 8 + 1][kk];
      let ar2 = ta[ly * 8 + 2][kk];
      let ar3 = ta[ly * 8 + 3][kk];
      let ar4 = ta[ly * 8 + 4][kk];
      let ar5 = ta[ly * 8 + 5][kk];
      let ar6 = ta[ly * 8 + 6][kk];
      let ar7 = ta[ly * 8 + 7][kk];
      acc0_0 = (acc0_0 + ar0 * bq0);
      acc0_1 = (acc0_1 + ar0 * bq1);
      acc1_0 = (acc1_0 + ar1 * bq0);
      acc1_1 = (acc1_1 + ar1 * bq1);
      acc2_0 = (acc2_0 + ar2 * bq0);
      acc2_1 = (acc2_1 + ar2 * bq1);
      acc3_0 = (acc3_0 + ar3 * bq0);
      acc3_1 = (acc3_1 + ar3 * bq1);
      acc4_0 = (acc4_0 + ar4 * bq0);
      acc4_1 = (acc4_1 + ar4 * bq1);
      acc5_0 = (acc5_0 + ar5 * bq0);
      acc5_1 = (acc5_1 + ar5 * bq1);
      acc6_0 = (acc6_0 + ar6 * bq0);
      acc6_1 = (acc6_1 + ar6 * bq1);
      acc7_0 = (acc7_0 + ar7 * bq0);
      acc7_1 = (acc7_1 + ar7 * bq1);
    }
    workgroupBarrier();
  }
  var acc = array<vec4<f32>, 16>(acc0_0, acc0_1, acc1_0, acc1_1, acc2_0, acc2_1, acc3_0, acc3_1, acc4_0, acc4_1, acc5_0, acc5_1, acc6_0, acc6_1, acc7_0, acc7_1);
  for (var r: i32 = 0; r < 8; r = r + 1) {
    for (var c: i32 = 0; c < 8; c = c + 1) {
      let i0 = m0 + ly * 8 + r;
      let i1 = n0 + lx * 8 + c;
      if (i0 < 3 && i1 < 2) {
        let v4: f32 = acc[r * 2 + c / 4][c % 4];
        let v5: f32 = b3[(i1)];
        let v6: f32 = (v4 + v5);
        let v7: f32 = select(0.0, v6, v6 > 0.0);
        b0[(i1 + (i0 * 2))] = v7;
      }
    }
  }
}

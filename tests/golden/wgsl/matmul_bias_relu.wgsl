// mm_3_2_4: realize point: the statement's value is materialised into storage 3, which later statements read
@group(0) @binding(0) var<storage, read_write> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read> b3: array<f32>;
var<workgroup> ta: array<array<f32, 16>, 16>;
var<workgroup> tb: array<array<f32, 16>, 16>;
@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let ly = i32(lid.y);
  let lx = i32(lid.x);
  let i0 = i32(wg.y) * 16 + ly;
  let i1 = i32(wg.x) * 16 + lx;
  let bz = i32(wg.z);
  var acc: f32 = 0.0;
  for (var k0: i32 = 0; k0 < 4; k0 = k0 + 16) {
    {
      let ok = (k0 + lx) < 4 && i0 < 3;
      let i2 = min(k0 + lx, 3);
      let i0 = min(i0, 2);
      let v1: f32 = b1[(((i0 * 4) + i2))];
      ta[ly][lx] = select(0.0, v1, ok);
    }
    {
      let ok = (k0 + ly) < 4 && i1 < 2;
      let i2 = min(k0 + ly, 3);
      let i1 = min(i1, 1);
      let v2: f32 = b2[(((i2 * 2) + i1))];
      tb[ly][lx] = select(0.0, v2, ok);
    }
    workgroupBarrier();
    for (var kk: i32 = 0; kk < 16; kk = kk + 1) {
      acc = (acc + ta[ly][kk] * tb[kk][lx]);
    }
    workgroupBarrier();
  }
  if (i0 < 3 && i1 < 2) {
    let v4: f32 = acc;
    let v5: f32 = b3[(i1)];
    let v6: f32 = (v4 + v5);
    let v7: f32 = select(0.0, v6, v6 > 0.0);
    b0[(i1 + (i0 * 2))] = v7;
  }
}

//! Running a schedule from the core on a [`Gpu`]: upload the storages its kernels read, run the
//! rendered kernels in order, read back what they wrote, and time each kernel.
//!
//! Element layouts follow the WGSL renderer: float32 and int32 as themselves, bool as one u32
//! per element, uint8 packed four per u32 word (little-endian bytes, so a packed buffer is the
//! bytes themselves). Everything is async and never blocks, so the web page calls it as is.

use std::collections::BTreeMap;

use stridelab_core::codegen::cpu::StorageTable;
use stridelab_core::codegen::ir::{BufRef, Kernel};
use stridelab_core::codegen::wgsl;
use stridelab_core::schedule::Schedule;
use stridelab_core::uop::buffer::Data;
use stridelab_core::uop::StorageId;
use stridelab_core::DType;

use crate::buffer::GpuBuffer;
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::kernel::{Access, KernelSpec};
use crate::run::RunOptions;
use crate::timing::KernelTiming;

/// What a schedule left in the storages it wrote, and what each kernel cost.
#[derive(Debug)]
pub struct ScheduleOutput {
    pub outputs: BTreeMap<StorageId, Data>,
    pub timings: Vec<KernelTiming>,
}

/// The bytes of `d` in the renderer's storage layout.
pub fn encode(d: &Data) -> Result<Vec<u8>> {
    Ok(match d {
        Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Data::Bool(v) => v.iter().flat_map(|&b| u32::from(b).to_le_bytes()).collect(),
        Data::U8(v) => v.clone(),
        other => return Err(Error::Invalid(format!("WGSL has no {} type", other.dtype()))),
    })
}

/// Reads `len` elements of `dtype` back out of the renderer's storage layout.
pub fn decode(bytes: &[u8], dtype: DType, len: usize) -> Result<Data> {
    let need = byte_len(dtype, len);
    if bytes.len() < need {
        return Err(Error::Buffer(format!("read {} bytes, expected {need}", bytes.len())));
    }
    let words = |i: usize| [bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]];
    Ok(match dtype {
        DType::Float32 => Data::F32((0..len).map(|i| f32::from_le_bytes(words(i))).collect()),
        DType::Int32 => Data::I32((0..len).map(|i| i32::from_le_bytes(words(i))).collect()),
        DType::Bool => Data::Bool((0..len).map(|i| u32::from_le_bytes(words(i)) != 0).collect()),
        DType::UInt8 => Data::U8(bytes[..len].to_vec()),
        other => return Err(Error::Invalid(format!("WGSL has no {other} type"))),
    })
}

/// Bytes a buffer of `len` elements of `dtype` takes on the GPU.
pub fn byte_len(dtype: DType, len: usize) -> usize {
    match dtype {
        DType::UInt8 => len,
        _ => 4 * len,
    }
}

/// The kernel description the runtime dispatches for one IR kernel; `table` maps each slot's
/// buffer to its index in the run's buffer table.
pub fn kernel_spec(k: &Kernel, table: &dyn Fn(BufRef) -> usize) -> Result<KernelSpec> {
    let r = wgsl::render(k).map_err(|e| Error::kernel(&k.name, e.to_string()))?;
    let (read, written) = k.bytes();
    let mut spec = KernelSpec::new(&k.name, r.wgsl, r.entry)
        .with_workgroups(r.workgroups)
        .with_workgroup_size(r.workgroup_size)
        .with_cost(read, written, k.flops());
    for (slot, ro) in k.slots.iter().zip(&r.read_only) {
        let access = if *ro { Access::ReadOnly } else { Access::ReadWrite };
        spec = spec.with_binding(table(slot.buf), access);
    }
    Ok(spec)
}

/// Every kernel of a schedule as a runtime description, with the buffer table order:
/// the schedule's storages (sorted), then its temporaries.
pub fn schedule_specs(s: &Schedule) -> Result<(Vec<KernelSpec>, Vec<BufRef>)> {
    let mut table: Vec<BufRef> = s.storages().into_iter().map(BufRef::Storage).collect();
    table.extend((0..s.temps.len()).map(BufRef::Temp));
    let index = |b: BufRef| table.iter().position(|&t| t == b).unwrap_or(0);
    let specs = s.kernels.iter().map(|k| kernel_spec(k, &index)).collect::<Result<Vec<_>>>()?;
    Ok((specs, table))
}

impl Gpu {
    /// Runs `s` over `storages` (indexed by storage id, as the engine holds them before the
    /// schedule's statement ran) and returns the storages it wrote. With `repeats > 1` the
    /// outputs come from a first run and the timings from a second, repeated one, because
    /// in-place kernels are not idempotent.
    pub async fn run_schedule(
        &self,
        s: &Schedule,
        storages: &dyn StorageTable,
        opts: &RunOptions,
    ) -> Result<ScheduleOutput> {
        let (specs, table) = schedule_specs(s)?;
        if specs.is_empty() {
            return Ok(ScheduleOutput { outputs: BTreeMap::new(), timings: Vec::new() });
        }
        let buffers = self.upload_table(s, &table, storages).await?;
        let refs: Vec<&GpuBuffer> = buffers.iter().collect();
        let mut timings = self.run(&specs, &refs, &RunOptions::new().with_wallclock(opts.wallclock())).await?;
        let mut outputs = BTreeMap::new();
        for id in s.written() {
            let Some(i) = table.iter().position(|&b| b == BufRef::Storage(id)) else {
                continue;
            };
            let Some(d) = storages.storage(id) else {
                return Err(Error::Invalid(format!("storage {id} is not in the table passed in")));
            };
            let bytes = self.read(&buffers[i]).await?;
            outputs.insert(id, decode(&bytes, d.dtype(), d.len())?);
        }
        if opts.repeats() > 1 {
            timings = self.run(&specs, &refs, opts).await?;
        }
        Ok(ScheduleOutput { outputs, timings })
    }

    async fn upload_table(
        &self,
        s: &Schedule,
        table: &[BufRef],
        storages: &dyn StorageTable,
    ) -> Result<Vec<GpuBuffer>> {
        let mut out = Vec::with_capacity(table.len());
        for b in table {
            let buf = match *b {
                BufRef::Storage(id) => {
                    let d = storages
                        .storage(id)
                        .ok_or_else(|| Error::Invalid(format!("storage {id} is not in the table passed in")))?;
                    // Writes keep to 4-byte alignment: pad the tail of packed uint8 data.
                    let mut padded = encode(d)?;
                    padded.resize(padded.len().div_ceil(4).max(1) * 4, 0);
                    let buf = self.create_buffer(&format!("storage {id}"), padded.len() as u64).await?;
                    self.write(&buf, 0, &padded).await?;
                    buf
                }
                BufRef::Temp(t) => {
                    let (dtype, len) = s.temps[t];
                    self.create_buffer(&format!("temp {t}"), byte_len(dtype, len).div_ceil(4).max(1) as u64 * 4).await?
                }
            };
            out.push(buf);
        }
        Ok(out)
    }
}

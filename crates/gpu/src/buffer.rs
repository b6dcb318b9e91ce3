//! Storage buffers and their readback. Reading a GPU buffer is asynchronous in WebGPU (map a
//! staging copy, wait for a callback), and the browser must never be blocked, so readback is a
//! future on every target; natively the crate drives it with `device.poll`, which is what makes it
//! complete under a plain executor such as a test's `block_on`.

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::oneshot::oneshot;

/// A storage buffer of `len` bytes. The allocation is rounded up to wgpu's copy alignment
/// (4 bytes); readback returns exactly `len` bytes.
#[derive(Debug)]
pub struct GpuBuffer {
    buffer: wgpu::Buffer,
    len: u64,
}

impl GpuBuffer {
    /// Bytes the caller asked for.
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes allocated, which is also the size of the binding a kernel sees.
    pub fn size(&self) -> u64 {
        self.buffer.size()
    }
    pub fn raw(&self) -> &wgpu::Buffer {
        &self.buffer
    }
}

const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

fn padded(len: u64) -> u64 {
    len.div_ceil(wgpu::COPY_BUFFER_ALIGNMENT).max(1) * wgpu::COPY_BUFFER_ALIGNMENT
}

impl Gpu {
    /// A zero-filled storage buffer of `len` bytes.
    pub async fn create_buffer(&self, label: &str, len: u64) -> Result<GpuBuffer> {
        let size = padded(len);
        if size > self.limits().max_buffer_size {
            return Err(Error::Buffer(format!(
                "`{label}` needs {size} bytes but max_buffer_size is {}",
                self.limits().max_buffer_size
            )));
        }
        let buffer = self
            .scoped(&format!("creating buffer `{label}`"), || {
                self.device().create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage: STORAGE,
                    mapped_at_creation: false,
                })
            })
            .await?;
        Ok(GpuBuffer { buffer, len })
    }

    /// A storage buffer holding `bytes`.
    pub async fn upload(&self, label: &str, bytes: &[u8]) -> Result<GpuBuffer> {
        let buffer = self.create_buffer(label, bytes.len() as u64).await?;
        self.write(&buffer, 0, bytes).await?;
        Ok(buffer)
    }

    /// Writes `bytes` at `offset`; both must keep to wgpu's 4-byte copy alignment unless the
    /// write ends exactly at the buffer's requested length (the tail is padded with zeros).
    pub async fn write(&self, buffer: &GpuBuffer, offset: u64, bytes: &[u8]) -> Result<()> {
        let align = wgpu::COPY_BUFFER_ALIGNMENT;
        let end = offset.saturating_add(bytes.len() as u64);
        if end > buffer.len {
            return Err(Error::Buffer(format!(
                "writing {} bytes at {offset} overruns a buffer of {} bytes",
                bytes.len(),
                buffer.len
            )));
        }
        if !offset.is_multiple_of(align) || (!end.is_multiple_of(align) && end != buffer.len) {
            return Err(Error::Buffer(format!(
                "a write of {} bytes at {offset} is not aligned to {align} bytes",
                bytes.len()
            )));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let mut data = bytes.to_vec();
        data.resize(padded(bytes.len() as u64) as usize, 0);
        self.scoped("writing a buffer", || self.queue().write_buffer(&buffer.buffer, offset, &data)).await
    }

    /// Copies the buffer into a mappable staging buffer and returns its `len` bytes.
    pub async fn read(&self, buffer: &GpuBuffer) -> Result<Vec<u8>> {
        let staging = self
            .scoped("reading a buffer", || {
                let staging = self.device().create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size: buffer.size(),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let mut encoder = self.device().create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(&buffer.buffer, 0, &staging, 0, buffer.size());
                self.queue().submit([encoder.finish()]);
                staging
            })
            .await?;
        let mut bytes = self.map_read(&staging, buffer.size()).await?;
        bytes.truncate(buffer.len as usize);
        Ok(bytes)
    }

    /// Maps the first `len` bytes of a `MAP_READ` buffer whose copy has been submitted and
    /// returns them.
    pub(crate) async fn map_read(&self, staging: &wgpu::Buffer, len: u64) -> Result<Vec<u8>> {
        let (tx, rx) = oneshot();
        staging.slice(..len).map_async(wgpu::MapMode::Read, move |r| tx.send(r));
        // Natively nothing fires the callback until the device is polled; on the web the
        // browser's event loop does, and waiting here would block it.
        #[cfg(not(target_family = "wasm"))]
        crate::device::wait_for_queue(self.device())?;
        rx.await
            .ok_or_else(|| Error::Buffer("the mapping callback was dropped".into()))?
            .map_err(|e| Error::Buffer(format!("mapping for readback failed: {e}")))?;
        let bytes = {
            let view = staging
                .slice(..len)
                .get_mapped_range()
                .map_err(|e| Error::Buffer(format!("reading the mapped range: {e}")))?;
            view.to_vec()
        };
        staging.unmap();
        Ok(bytes)
    }
}

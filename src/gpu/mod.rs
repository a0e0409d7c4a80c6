//! The GPU: device and adapter choice, shader sources, buffer helpers.

pub mod device;
pub mod select;
pub mod shaders;

pub use device::Gpu;

use bytemuck::Pod;
use wgpu::util::DeviceExt;

impl Gpu {
    /// A storage buffer holding `data`. Bindings may not be empty, so an empty slice gets
    /// one zeroed element.
    pub fn buffer_with<T: Pod>(
        &self,
        label: &str,
        data: &[T],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let zero = [T::zeroed()];
        let contents: &[T] = if data.is_empty() { &zero } else { data };
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(contents),
                usage,
            })
    }

    /// Copies `count` elements from `offset` (bytes) of `buffer` back to the host and waits.
    pub fn read_buffer<T: Pod>(&self, buffer: &wgpu::Buffer, offset: u64, count: usize) -> Vec<T> {
        self.read_buffer_with(buffer, offset, count, |values: &[T]| values.to_vec())
    }

    /// `read` of `count` values of `buffer` from byte `offset`, straight from the mapped
    /// copy (a large field is then copied once, not twice).
    pub fn read_buffer_with<T: Pod, R>(
        &self,
        buffer: &wgpu::Buffer,
        offset: u64,
        count: usize,
        read: impl FnOnce(&[T]) -> R,
    ) -> R {
        let size = (count * std::mem::size_of::<T>()) as u64;
        if size == 0 {
            return read(&[]);
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        self.map_and_wait(&staging);
        let out = {
            let view = staging.get_mapped_range(..).expect("mapped staging buffer");
            read(bytemuck::cast_slice(&view))
        };
        staging.unmap();
        out
    }

    /// A compute pipeline from WGSL source, with the layout the shader implies.
    pub fn compute_pipeline(
        &self,
        label: &str,
        source: &str,
        entry: &str,
    ) -> wgpu::ComputePipeline {
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        self.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
    }

    /// Maps a MAP_READ buffer whose copy has been submitted, blocking until it is ready.
    pub fn map_and_wait(&self, buffer: &wgpu::Buffer) {
        let _ = request_read(buffer);
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("wait for the GPU");
    }
}

/// Asks for a MAP_READ buffer to be mapped once the GPU is done with it. The callback does
/// not judge the outcome: a failed map shows when the range is read, and a map still
/// pending when a run stops on an error (its buffers dropped) must not panic on the way out.
pub fn request_read(buffer: &wgpu::Buffer) -> MapRequest {
    request_map(buffer, wgpu::MapMode::Read)
}

/// As `request_read`, for the host to write a MAP_WRITE buffer the GPU then reads.
pub fn request_write(buffer: &wgpu::Buffer) -> MapRequest {
    request_map(buffer, wgpu::MapMode::Write)
}

fn request_map(buffer: &wgpu::Buffer, mode: wgpu::MapMode) -> MapRequest {
    let request = MapRequest::default();
    let done = request.0.clone();
    buffer.map_async(mode, .., move |_| {
        done.store(true, std::sync::atomic::Ordering::Release)
    });
    request
}

/// A map asked for by `request_read` or `request_write`: done once a poll of the device has
/// run its callback.
#[derive(Clone, Default)]
pub struct MapRequest(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl MapRequest {
    pub fn is_done(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }
}

//! Adapter choice and device creation.

use crate::error::{Error, Result};

/// An open GPU: the device, its queue and what it is.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub features: wgpu::Features,
}

const NO_ADAPTER_HELP: &str = "quadflood needs a Vulkan, Metal or DX12 GPU adapter. \
On Debian/Ubuntu install a Vulkan driver: `apt install mesa-vulkan-drivers libvulkan1` \
(software Vulkan, lavapipe) or your GPU vendor's driver (for NVIDIA: the driver's Vulkan ICD \
plus libvulkan1). Check with `quadflood info`; WGPU_BACKEND=vulkan|metal|dx12 narrows the search.";

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    // wgpu checks indirect dispatch arguments with an extra pass before every indirect
    // dispatch. Ours come from the end of each step, which bounds them by construction, and the
    // check would double the dispatches of every step. WGPU_VALIDATION_INDIRECT_CALL=1 brings
    // it back.
    desc.flags
        .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    wgpu::Instance::new(desc.with_env())
}

/// Every adapter the environment offers (WGPU_BACKEND narrows the backends).
pub fn adapters() -> Vec<wgpu::Adapter> {
    let instance = instance();
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
}

/// Preference order: device kind first, then backend (OpenGL last: its compute path is a
/// different compiler, so it must never mix with Vulkan ranks in one run).
fn preference(a: &wgpu::Adapter) -> (u8, bool) {
    let info = a.get_info();
    (rank(info.device_type), info.backend == wgpu::Backend::Gl)
}

fn rank(kind: wgpu::DeviceType) -> u8 {
    match kind {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

/// Picks an adapter: the first whose name contains `filter` (case-insensitive) when given,
/// else the best kind (discrete, integrated, virtual, CPU).
pub fn choose_adapter(filter: Option<&str>) -> Result<wgpu::Adapter> {
    let mut all = adapters();
    if all.is_empty() {
        return Err(Error::NoAdapter(NO_ADAPTER_HELP.into()));
    }
    if let Some(filter) = filter {
        let want = filter.to_lowercase();
        let names: Vec<String> = all.iter().map(|a| a.get_info().name).collect();
        return all
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&want))
            .ok_or_else(|| {
                Error::NoAdapter(format!(
                    "no adapter name contains {filter:?}; found: {}",
                    names.join(", ")
                ))
            });
    }
    all.sort_by_key(preference);
    Ok(all.remove(0))
}

/// The k-th adapter of the best kind present (discrete before integrated, ...), in
/// enumeration order, wrapping around: rank k on a node drives GPU k. GPUs of one model
/// share a name, so the index, not the name, tells them apart.
pub fn nth_adapter(k: usize) -> Result<wgpu::Adapter> {
    let mut all = adapters();
    if all.is_empty() {
        return Err(Error::NoAdapter(NO_ADAPTER_HELP.into()));
    }
    all.sort_by_key(preference);
    let best = preference(&all[0]);
    let mut same: Vec<wgpu::Adapter> = all.into_iter().filter(|a| preference(a) == best).collect();
    let n = same.len();
    Ok(same.swap_remove(k % n))
}

impl Gpu {
    /// Opens the adapter a rank drives: `filter` when given, else the rank's local index.
    pub fn open_for_rank(filter: Option<&str>, local_rank: usize) -> Result<Gpu> {
        match filter {
            Some(_) => Gpu::open(filter),
            None => Gpu::open_adapter(nth_adapter(local_rank)?),
        }
    }

    /// Opens the chosen adapter with its own limits: wgpu's defaults cap storage bindings
    /// at 128 MiB, far below what real GPUs allow.
    pub fn open(filter: Option<&str>) -> Result<Gpu> {
        Gpu::open_adapter(choose_adapter(filter)?)
    }

    fn open_adapter(adapter: wgpu::Adapter) -> Result<Gpu> {
        let info = adapter.get_info();
        let limits = adapter.limits();
        // Mappable storage buffers let an MPI rank's pack kernel write its strips straight
        // into host-visible memory (`solver::ranks`). Only buffers created both mappable and
        // storage live there, so the feature costs the other buffers nothing.
        let wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::MAPPABLE_PRIMARY_BUFFERS;
        let features = adapter.features() & wanted;
        let desc = wgpu::DeviceDescriptor {
            label: Some("quadflood"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| Error::Gpu(format!("cannot open {}: {e}", info.name)))?;
        Ok(Gpu {
            device,
            queue,
            info,
            limits,
            features,
        })
    }

    /// "name (backend, kind)", as reports print it.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    pub fn is_cpu(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }
}

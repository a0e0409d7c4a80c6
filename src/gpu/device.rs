//! Adapter choice and device creation.

use super::select::{self, AdapterDescription, Host, NodePlace};
use crate::error::{Error, Result};

/// An open GPU: the device, its queue and what it is.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub features: wgpu::Features,
    /// The device bounds every buffer access itself (Vulkan's robustBufferAccess2, which
    /// wgpu enables where offered), so naga's clamps guard only the kernels' own arrays.
    pub bounds_buffers: bool,
}

const NO_ADAPTER_HELP: &str = "quadflood needs a Vulkan, Metal or DX12 GPU adapter. \
On Debian/Ubuntu install a Vulkan driver: `apt install mesa-vulkan-drivers libvulkan1` \
(software Vulkan, lavapipe) or your GPU vendor's driver (for NVIDIA: the driver's Vulkan ICD \
plus libvulkan1). Check with `quadflood info`; WGPU_BACKEND=vulkan|metal|dx12 narrows the search.";

/// Mesa's device-select Vulkan layer connects to a Wayland display to order the GPUs, and
/// on a headless machine (no XDG_RUNTIME_DIR) libwayland then prints two `error:` lines
/// before anything else. quadflood chooses its adapter itself (`select`), so there the
/// layer is switched off, unless the user set its variable. Done here, before the first
/// instance, so that the tests and any program built on the library start as quietly as
/// the binary.
fn quiet_headless_vulkan() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let headless = std::env::var_os("XDG_RUNTIME_DIR").is_none();
        if headless && std::env::var_os("NODEVICE_SELECT").is_none() {
            std::env::set_var("NODEVICE_SELECT", "1");
        }
    });
}

fn instance() -> wgpu::Instance {
    quiet_headless_vulkan();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    // wgpu checks indirect dispatch arguments with an extra pass before every indirect
    // dispatch. Ours come from the end of each step, which bounds them by construction, and the
    // check would double the dispatches of every step. WGPU_VALIDATION_INDIRECT_CALL=1 brings
    // it back.
    desc.flags
        .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    // Vulkan, Metal and DX12 only: probing the GL backend printed two `error:
    // XDG_RUNTIME_DIR is invalid` lines on headless machines and listed every GPU a second
    // time, and quadflood's kernels need what GL cannot give. WGPU_BACKEND=gl asks for it.
    desc.backends = wgpu::Backends::PRIMARY;
    wgpu::Instance::new(desc.with_env())
}

/// Every adapter the environment offers (WGPU_BACKEND narrows the backends).
pub fn adapters() -> Vec<wgpu::Adapter> {
    let instance = instance();
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
}

/// The error for a machine without adapters, with what to install.
pub fn no_adapter_error() -> Error {
    Error::NoAdapter(NO_ADAPTER_HELP.into())
}

/// The adapter of the rank at `place` and one line saying why (see `select`): the best kind
/// present, narrowed by `filter` (a part of the name) and by the scheduler's visibility
/// variables, then shared out among the ranks of the node.
pub fn choose_adapter(filter: Option<&str>, place: NodePlace) -> Result<(wgpu::Adapter, String)> {
    let mut all = adapters();
    if all.is_empty() {
        return Err(no_adapter_error());
    }
    let described: Vec<AdapterDescription> = all
        .iter()
        .map(|a| AdapterDescription::from(&a.get_info()))
        .collect();
    let choice = select::choose(&described, filter, place, &Host::real())?;
    Ok((all.swap_remove(choice.index), choice.reason))
}

impl Gpu {
    /// Opens the adapter of the rank at `place` on its node, with the line saying why it
    /// was chosen, for the run to print.
    pub fn open_for_rank(filter: Option<&str>, place: NodePlace) -> Result<(Gpu, String)> {
        let (adapter, reason) = choose_adapter(filter, place)?;
        Ok((Gpu::open_adapter(adapter)?, reason))
    }

    /// Opens the adapter of a run of one rank: the first GPU of the best kind (honouring
    /// CUDA_VISIBLE_DEVICES and its kin), among those whose name contains `filter`.
    pub fn open(filter: Option<&str>) -> Result<Gpu> {
        Ok(Gpu::open_for_rank(filter, NodePlace::ALONE)?.0)
    }

    /// Opens an adapter with its own limits: wgpu's defaults cap storage bindings at
    /// 128 MiB, far below what real GPUs allow.
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
            bounds_buffers: bounds_buffers(&adapter),
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

/// Whether a Vulkan adapter offers robustBufferAccess2: reads past a buffer binding's end
/// return zero and writes there are dropped, by the device itself.
#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
pub fn bounds_buffers(adapter: &wgpu::Adapter) -> bool {
    use ash::vk;
    // SAFETY: the hal adapter is only read, while `adapter` keeps it alive.
    unsafe {
        let Some(hal) = adapter.as_hal::<wgpu::hal::api::Vulkan>() else {
            return false;
        };
        let properties = hal.physical_device_capabilities();
        // vkGetPhysicalDeviceFeatures2 is Vulkan 1.1, of the instance as of the device.
        if hal.shared_instance().instance_api_version() < vk::API_VERSION_1_1
            || properties.properties().api_version < vk::API_VERSION_1_1
            || !properties.supports_extension(ash::ext::robustness2::NAME)
        {
            return false;
        }
        let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut robustness2);
        let instance = hal.shared_instance().raw_instance();
        instance.get_physical_device_features2(hal.raw_physical_device(), &mut features);
        robustness2.robust_buffer_access2 == vk::TRUE
    }
}

#[cfg(not(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
)))]
pub fn bounds_buffers(_adapter: &wgpu::Adapter) -> bool {
    false
}

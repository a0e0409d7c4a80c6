//! What the Vulkan driver compiled each solver kernel into: registers per thread, shared
//! memory, spills and whatever else the driver reports through
//! VK_KHR_pipeline_executable_properties. These set how many workgroups an SM holds at
//! once, the figure the stage kernels' speed turns on (docs/benchmarks-history.md, ablations).
//!
//!     cargo run --release --example kernel_stats -- [ADAPTER] [ENTRY...]
//!
//! ADAPTER is part of the device name (default: the first device); ENTRY defaults to the
//! kernels of a step. The SPIR-V comes from naga (QUADFLOOD_SOLVER_WGSL and
//! QUADFLOOD_SHADER_CHECKS=off apply, as in the solver), through a Vulkan device of this
//! program's own: wgpu cannot ask the driver for pipeline statistics. Not quite as wgpu
//! makes it: this writes SPIR-V 1.3 with naga's bounds checks on buffer accesses, where
//! wgpu on a Vulkan 1.3 device with robustBufferAccess2 (an H100) writes SPIR-V 1.6 and
//! leaves buffer bounds to the hardware, so the solver's own register counts may differ by
//! a few. Variants compared with this tool are compared like for like.

use ash::vk;
use std::ffi::CStr;

const STEP_KERNELS: [&str; 5] = [
    "stage1",
    "stage2",
    "stage1_levels",
    "stage2_levels",
    "scan_then_finalize",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let adapter = args.first().cloned().unwrap_or_default();
    let entries: Vec<String> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        STEP_KERNELS.iter().map(|s| s.to_string()).collect()
    };
    let source = match std::env::var("QUADFLOOD_SOLVER_WGSL") {
        Ok(path) => std::fs::read_to_string(&path).expect("QUADFLOOD_SOLVER_WGSL"),
        Err(_) => quadflood::gpu::shaders::SOLVER.to_string(),
    };
    let module = quadflood::gpu::shaders::validate("solver", &source).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .expect("validated above");
    let vulkan = Vulkan::open(&adapter);
    println!("device: {}", vulkan.name);
    for entry in &entries {
        let Some(index) = module.entry_points.iter().position(|e| &e.name == entry) else {
            eprintln!("no entry point {entry}");
            std::process::exit(2)
        };
        let spirv = spirv_of(&module, &info, entry);
        let sets = descriptor_sets(&module, &info, index);
        println!("\n{entry}:");
        for (name, value) in vulkan.statistics(&spirv, &sets, entry) {
            println!("  {name:<40} {value}");
        }
    }
}

/// SPIR-V for one entry point, with the bounds-check policies wgpu uses.
fn spirv_of(module: &naga::Module, info: &naga::valid::ModuleInfo, entry: &str) -> Vec<u32> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let checks = std::env::var("QUADFLOOD_SHADER_CHECKS").as_deref() != Ok("off");
    let policy = if checks {
        BoundsCheckPolicy::Restrict
    } else {
        BoundsCheckPolicy::Unchecked
    };
    let options = spv::Options {
        lang_version: (1, 3),
        bounds_check_policies: BoundsCheckPolicies {
            index: policy,
            buffer: policy,
            image_load: policy,
            binding_array: policy,
        },
        ..Default::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry.to_string(),
    };
    // Override constants at their defaults, as wgpu substitutes them.
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        module,
        info,
        Some((naga::ShaderStage::Compute, entry)),
        &Default::default(),
    )
    .expect("override constants");
    spv::write_vec(&module, &info, &options, Some(&pipeline)).expect("SPIR-V")
}

/// The descriptor types of the bindings the entry point uses, set by set.
fn descriptor_sets(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry: usize,
) -> Vec<Vec<(u32, vk::DescriptorType)>> {
    let uses = info.get_entry_point(entry);
    let mut sets: Vec<Vec<(u32, vk::DescriptorType)>> = Vec::new();
    for (handle, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        if uses[handle].is_empty() {
            continue;
        }
        let ty = match var.space {
            naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
            naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
            _ => continue,
        };
        let group = binding.group as usize;
        if sets.len() <= group {
            sets.resize(group + 1, Vec::new());
        }
        sets[group].push((binding.binding, ty));
    }
    sets
}

struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    executables: ash::khr::pipeline_executable_properties::Device,
    name: String,
}

impl Vulkan {
    fn open(filter: &str) -> Vulkan {
        unsafe {
            let entry = ash::Entry::load().expect("no Vulkan loader");
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .expect("vkCreateInstance");
            let (physical, name) = instance
                .enumerate_physical_devices()
                .expect("no Vulkan devices")
                .into_iter()
                .map(|p| {
                    let props = instance.get_physical_device_properties(p);
                    let name = CStr::from_ptr(props.device_name.as_ptr());
                    (p, name.to_string_lossy().into_owned())
                })
                .find(|(_, name)| name.to_lowercase().contains(&filter.to_lowercase()))
                .unwrap_or_else(|| {
                    eprintln!("no Vulkan device name contains {filter:?}");
                    std::process::exit(2)
                });
            let queue = instance
                .get_physical_device_queue_family_properties(physical)
                .iter()
                .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .expect("no compute queue") as u32;
            let priorities = [1.0];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(queue)
                .queue_priorities(&priorities)];
            let extensions = [ash::khr::pipeline_executable_properties::NAME.as_ptr()];
            let mut wanted = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
            let device = instance
                .create_device(
                    physical,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&queues)
                        .enabled_extension_names(&extensions)
                        .push_next(&mut wanted),
                    None,
                )
                .unwrap_or_else(|e| {
                    eprintln!("{name}: no VK_KHR_pipeline_executable_properties ({e})");
                    std::process::exit(1)
                });
            let executables =
                ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
            Vulkan {
                _entry: entry,
                instance,
                device,
                executables,
                name,
            }
        }
    }

    /// Compiles one compute pipeline and returns the driver's statistics for it.
    fn statistics(
        &self,
        spirv: &[u32],
        sets: &[Vec<(u32, vk::DescriptorType)>],
        entry: &str,
    ) -> Vec<(String, String)> {
        unsafe {
            let d = &self.device;
            let shader = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
                .expect("vkCreateShaderModule");
            let set_layouts: Vec<vk::DescriptorSetLayout> = sets
                .iter()
                .map(|set| {
                    let bindings: Vec<vk::DescriptorSetLayoutBinding> = set
                        .iter()
                        .map(|&(binding, ty)| {
                            vk::DescriptorSetLayoutBinding::default()
                                .binding(binding)
                                .descriptor_type(ty)
                                .descriptor_count(1)
                                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                        })
                        .collect();
                    let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
                    d.create_descriptor_set_layout(&info, None).unwrap()
                })
                .collect();
            let layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                    None,
                )
                .unwrap();
            let name = std::ffi::CString::new(entry).unwrap();
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(shader)
                .name(&name);
            let create = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)
                .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR);
            let pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &[create], None)
                .map_err(|(_, e)| e)
                .expect("vkCreateComputePipelines")[0];
            let mut out = Vec::new();
            let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
            let executables = self
                .executables
                .get_pipeline_executable_properties(&info)
                .unwrap_or_default();
            for (index, exe) in executables.iter().enumerate() {
                let label = exe
                    .name_as_c_str()
                    .map(|s| s.to_string_lossy().into_owned());
                out.push((
                    format!("executable {index}"),
                    format!(
                        "{} (subgroup {})",
                        label.unwrap_or_default(),
                        exe.subgroup_size
                    ),
                ));
                let which = vk::PipelineExecutableInfoKHR::default()
                    .pipeline(pipeline)
                    .executable_index(index as u32);
                for stat in self
                    .executables
                    .get_pipeline_executable_statistics(&which)
                    .unwrap_or_default()
                {
                    let name = stat
                        .name_as_c_str()
                        .map(|s| s.to_string_lossy().into_owned());
                    out.push((name.unwrap_or_default(), value_of(&stat)));
                }
            }
            d.destroy_pipeline(pipeline, None);
            d.destroy_pipeline_layout(layout, None);
            for set in set_layouts {
                d.destroy_descriptor_set_layout(set, None);
            }
            d.destroy_shader_module(shader, None);
            out
        }
    }
}

fn value_of(stat: &vk::PipelineExecutableStatisticKHR) -> String {
    unsafe {
        match stat.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (stat.value.b32 != 0).to_string(),
            vk::PipelineExecutableStatisticFormatKHR::INT64 => stat.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => stat.value.u64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => stat.value.f64.to_string(),
            _ => "?".into(),
        }
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

//! The solver's pipelines: one bind group layout shared by every kernel, one pipeline per
//! entry point of `shaders::SOLVER`.

use crate::gpu::{shaders, Gpu};
use crate::scenario::model::Limiter;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Binding numbers, as declared in `shaders/common.wgsl`.
pub mod binding {
    pub const PARAMS: u32 = 0;
    pub const CONTROL: u32 = 1;
    pub const SIM: u32 = 2;
    pub const STATE_A: u32 = 3;
    pub const STATE_B: u32 = 4;
    pub const FRICTION: u32 = 5;
    pub const BLOCKS: u32 = 6;
    pub const NEIGHBOURS: u32 = 7;
    pub const BLOCK_FLAGS: u32 = 8;
    pub const ACTIVE_LIST: u32 = 9;
    pub const BC_EDGE: u32 = 10;
    pub const BC_DEFS: u32 = 11;
    pub const SERIES_META: u32 = 12;
    pub const SERIES_PTS: u32 = 13;
    pub const FORCING: u32 = 14;
    pub const BLOCK_VOLUME: u32 = 15;
    pub const MAXIMA: u32 = 16;
    pub const SOURCES: u32 = 17;
    pub const LOSSES: u32 = 18;
    pub const STRUCTURES: u32 = 19;
    pub const COUNT: u32 = 20;
}

fn buffer_entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn is_uniform(b: u32) -> bool {
    b == binding::PARAMS || b == binding::CONTROL
}

fn is_read_only(b: u32) -> bool {
    use binding::*;
    matches!(
        b,
        FRICTION
            | BLOCKS
            | NEIGHBOURS
            | BC_EDGE
            | BC_DEFS
            | SERIES_META
            | SERIES_PTS
            | SOURCES
            | STRUCTURES
    )
}

#[derive(Clone)]
pub struct Kernels {
    pub module: wgpu::ShaderModule,
    pub layout: wgpu::BindGroupLayout,
    /// Group 1: the indirect dispatch arguments, for the kernels that finalise a step.
    pub dispatch_layout: wgpu::BindGroupLayout,
    pub init_speeds: wgpu::ComputePipeline,
    pub scan_blocks: wgpu::ComputePipeline,
    pub finalize_step: wgpu::ComputePipeline,
    /// `scan_blocks` then `finalize_step` in one dispatch, for the steps of a run.
    pub scan_then_finalize: wgpu::ComputePipeline,
    /// The step about to be taken planned again from limits the ranks agreed on.
    pub replan_step: wgpu::ComputePipeline,
    /// Each culvert's and weir's discharge from the state, at a step's start (structures.wgsl).
    pub structure_flows: wgpu::ComputePipeline,
    pipeline_layout: wgpu::PipelineLayout,
    /// Groups 0 and 1: for the kernels that write the dispatch arguments.
    finalize_layout: wgpu::PipelineLayout,
    /// Rows of threads of the regular stage kernels (see `regular_rows`).
    regular_rows: u32,
    /// The scenario's constants of every kernel (limiter, what forcing it has).
    options: KernelOptions,
    /// The stage kernels, each compiled when a grid first needs it (see `stage`). Shared
    /// by clones.
    stages: Arc<Mutex<HashMap<&'static str, wgpu::ComputePipeline>>>,
}

impl Kernels {
    pub fn new(gpu: &Gpu, kernel_options: KernelOptions) -> Kernels {
        let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..binding::COUNT)
            .map(|b| {
                let ty = if is_uniform(b) {
                    wgpu::BufferBindingType::Uniform
                } else {
                    wgpu::BufferBindingType::Storage {
                        read_only: is_read_only(b),
                    }
                };
                buffer_entry(b, ty)
            })
            .collect();
        let layout = gpu
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("solver"),
                entries: &entries,
            });
        let dispatch_layout =
            gpu.device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("dispatch"),
                    entries: &[buffer_entry(
                        0,
                        wgpu::BufferBindingType::Storage { read_only: false },
                    )],
                });
        let pipeline_layout = gpu
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("solver"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        let finalize_layout = gpu
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("finalize"),
                bind_group_layouts: &[Some(&layout), Some(&dispatch_layout)],
                immediate_size: 0,
            });
        let module = solver_module(gpu);
        let constants = override_constants(kernel_options);
        let pipeline_in = |entry: &str, layout: &wgpu::PipelineLayout| {
            gpu.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: options(&constants),
                    cache: None,
                })
        };
        let pipeline = |entry: &str| pipeline_in(entry, &pipeline_layout);
        Kernels {
            init_speeds: pipeline("init_speeds"),
            scan_blocks: pipeline("scan_blocks"),
            finalize_step: pipeline_in("finalize_step", &finalize_layout),
            scan_then_finalize: pipeline_in("scan_then_finalize", &finalize_layout),
            replan_step: pipeline_in("replan_step", &finalize_layout),
            structure_flows: pipeline("structure_flows"),
            pipeline_layout,
            finalize_layout,
            regular_rows: regular_rows(&gpu.limits),
            options: kernel_options,
            stages: Default::default(),
            layout,
            dispatch_layout,
            module,
        }
    }

    /// The pipeline of stage kernel `entry` (`stage1`, `stage2_levels`, `stage2_end`, ...),
    /// compiled on first use: the stage kernels are most of the start-up, and a grid needs
    /// two or three of them. Those ending in `_end` also end the step, so they see the
    /// dispatch arguments (group 1).
    pub fn stage(&self, gpu: &Gpu, entry: &'static str) -> wgpu::ComputePipeline {
        let mut stages = self.stages.lock().unwrap_or_else(|e| e.into_inner());
        let layout = if entry.ends_with("_end") {
            &self.finalize_layout
        } else {
            &self.pipeline_layout
        };
        stages
            .entry(entry)
            .or_insert_with(|| self.compile(gpu, entry, layout))
            .clone()
    }

    fn compile(
        &self,
        gpu: &Gpu,
        entry: &str,
        layout: &wgpu::PipelineLayout,
    ) -> wgpu::ComputePipeline {
        // Passed only when it differs from the shader's default, so that a module from
        // QUADFLOOD_SOLVER_WGSL without the constant still compiles.
        let mut constants = override_constants(self.options);
        if self.regular_rows != DEFAULT_REGULAR_ROWS {
            constants.push(("REGULAR_ROWS", f64::from(self.regular_rows)));
        }
        gpu.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(layout),
                module: &self.module,
                entry_point: Some(entry),
                compilation_options: options(&constants),
                cache: None,
            })
    }
}

/// What the kernels are compiled for: the scenario's slope limiter and whether it has
/// losses, outflow edges and open, normal-depth or rating lines. Code a scenario does not use is
/// compiled out: compiled in, the losses, the outflow faces and the lines cost a grid
/// without them 0.6%, 1.25% and 0.4% of a step on an H100, in registers
/// (docs/benchmarks-history.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelOptions {
    pub limiter: Limiter,
    pub losses: bool,
    pub outflow_edges: bool,
    pub edge_lines: bool,
}

impl KernelOptions {
    pub fn of(model: &crate::scenario::model::Model) -> KernelOptions {
        use crate::scenario::model::BcKind;
        let outflow = |k: u32| k == BcKind::NormalDepth as u32 || k == BcKind::Rating as u32;
        KernelOptions {
            limiter: model.numerics.limiter,
            losses: model.losses.any(),
            outflow_edges: model.bc_defs.iter().any(|d| outflow(d.kind)),
            edge_lines: model.sources.iter().any(|s| s.inner != 0),
        }
    }
}

/// The module's override constants (`MINMOD_LIMITER` in reconstruct.wgsl, `LOSSES`,
/// `OUTFLOW_EDGES` and `EDGE_LINES` in flux.wgsl), each passed only when it differs from the shader's
/// default, for the same reason as `REGULAR_ROWS`.
fn override_constants(o: KernelOptions) -> Vec<(&'static str, f64)> {
    let mut constants = Vec::new();
    if o.limiter == Limiter::Minmod {
        constants.push(("MINMOD_LIMITER", 1.0));
    }
    if o.losses {
        constants.push(("LOSSES", 1.0));
    }
    if o.outflow_edges {
        constants.push(("OUTFLOW_EDGES", 1.0));
    }
    if o.edge_lines {
        constants.push(("EDGE_LINES", 1.0));
    }
    constants
}

/// How the solver's pipelines are compiled: `constants` sets the module's override
/// constants. Workgroup memory is not zeroed at each workgroup's start, as WebGPU would
/// have it: the kernels write every workgroup value that reaches a result before reading
/// it (`init_speeds` reads face balances of blocks off the domain edge that it never
/// uses), and the zeroing cost 1-2.4% of a step on an H100 (docs/benchmarks-history.md).
/// QUADFLOOD_ZERO_WORKGROUP=on zeroes it, to check that no result changes
/// (tests/workgroup_shape.rs).
fn options<'a>(constants: &'a [(&'a str, f64)]) -> wgpu::PipelineCompilationOptions<'a> {
    wgpu::PipelineCompilationOptions {
        constants,
        zero_initialize_workgroup_memory: super::env_choice(
            "QUADFLOOD_ZERO_WORKGROUP",
            &["on", "off"],
        ) == Some("on"),
    }
}

/// `REGULAR_ROWS` in shaders/flux.wgsl: the regular stage kernels run 16 × 17 threads, so
/// that each direction's 272 faces take one round.
const DEFAULT_REGULAR_ROWS: u32 = 17;

/// Rows of threads of the regular stage kernels: the default where the adapter allows
/// 16 × 17 invocations per workgroup (every desktop GPU does), else 16, one per cell, which
/// WebGPU's baseline allows. Either gives the same bits. QUADFLOOD_REGULAR_ROWS=16|17
/// forces it, for testing.
fn regular_rows(limits: &wgpu::Limits) -> u32 {
    let fits = limits.max_compute_invocations_per_workgroup >= 16 * DEFAULT_REGULAR_ROWS
        && limits.max_compute_workgroup_size_y >= DEFAULT_REGULAR_ROWS;
    match super::env_choice("QUADFLOOD_REGULAR_ROWS", &["16", "17"]) {
        Some("16") => 16,
        Some(_) => DEFAULT_REGULAR_ROWS,
        None if fits => DEFAULT_REGULAR_ROWS,
        None => 16,
    }
}

/// Bindings of the exchange buffers, group 2 (`shaders/exchange.wgsl`).
pub const EXCHANGE_BINDINGS: u32 = 7;
/// Of those, what the pack kernel alone uses (index list, words it fills, places)…
pub const EXCHANGE_SENDING: [u32; 3] = [1, 2, 5];
/// …what the unpack kernel alone uses…
pub const EXCHANGE_RECEIVING: [u32; 3] = [3, 4, 6];
/// …and the one written (the rest are read only, or the uniform sizes).
pub const EXCHANGE_WRITTEN: [u32; 1] = [2];

/// Group-0 bindings the pack and unpack kernels use. Their pipelines see only these, so
/// that group 0 and the exchange group stay within 16 storage buffers per stage.
pub const EXCHANGE_STATE: [u32; 6] = [
    binding::PARAMS,
    binding::SIM,
    binding::STATE_A,
    binding::STATE_B,
    binding::BLOCK_FLAGS,
    binding::LOSSES,
];

/// The kernels only a run split over ranks needs: stages over border blocks and ghosts,
/// the border blocks' dry-map, and packing and unpacking the ghost strips. Built on
/// demand: a one-rank run never compiles them.
pub struct RankKernels {
    pub state_layout: wgpu::BindGroupLayout,
    pub exchange_layout: wgpu::BindGroupLayout,
    pub stage2_border: wgpu::ComputePipeline,
    /// Stage 1 of the ghosts and the border blocks, one dispatch (flux.wgsl).
    pub stage1_ghosts_and_border: wgpu::ComputePipeline,
    /// The border blocks' dry-map, once the ghosts' wet flags are in (drymap.wgsl).
    pub scan_border: wgpu::ComputePipeline,
    pub pack: wgpu::ComputePipeline,
    pub unpack: wgpu::ComputePipeline,
}

impl RankKernels {
    pub fn new(gpu: &Gpu, k: &Kernels) -> RankKernels {
        let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..EXCHANGE_BINDINGS)
            .map(|b| {
                let ty = match b {
                    0 => wgpu::BufferBindingType::Uniform,
                    _ => wgpu::BufferBindingType::Storage {
                        read_only: !EXCHANGE_WRITTEN.contains(&b),
                    },
                };
                buffer_entry(b, ty)
            })
            .collect();
        let d = &gpu.device;
        let exchange_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("exchange"),
            entries: &entries,
        });
        let state_entries: Vec<wgpu::BindGroupLayoutEntry> = EXCHANGE_STATE
            .iter()
            .map(|&b| {
                let ty = if is_uniform(b) {
                    wgpu::BufferBindingType::Uniform
                } else {
                    wgpu::BufferBindingType::Storage {
                        read_only: is_read_only(b),
                    }
                };
                buffer_entry(b, ty)
            })
            .collect();
        let state_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("exchange state"),
            entries: &state_entries,
        });
        let stages = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("border stages"),
            bind_group_layouts: &[Some(&k.layout)],
            immediate_size: 0,
        });
        let exchange = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("exchange"),
            bind_group_layouts: &[Some(&state_layout), None, Some(&exchange_layout)],
            immediate_size: 0,
        });
        let constants = override_constants(k.options);
        let pipeline = |entry: &str, layout: &wgpu::PipelineLayout| {
            d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(layout),
                module: &k.module,
                entry_point: Some(entry),
                compilation_options: options(&constants),
                cache: None,
            })
        };
        RankKernels {
            stage2_border: pipeline("stage2_border", &stages),
            stage1_ghosts_and_border: pipeline("stage1_ghosts_and_border", &stages),
            scan_border: pipeline("scan_border", &k.finalize_layout),
            pack: pipeline("pack", &exchange),
            unpack: pipeline("unpack", &exchange),
            state_layout,
            exchange_layout,
        }
    }
}

/// The solver module. QUADFLOOD_SOLVER_WGSL names a file that replaces the built-in source,
/// for kernel experiments on a GPU without a rebuild; QUADFLOOD_SHADER_CHECKS picks naga's
/// runtime checks (`shader_checks`).
fn solver_module(gpu: &Gpu) -> wgpu::ShaderModule {
    let source = match std::env::var("QUADFLOOD_SOLVER_WGSL") {
        Ok(path) => std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("QUADFLOOD_SOLVER_WGSL={path}: {e}")),
        Err(_) => shaders::SOLVER.to_string(),
    };
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some("solver"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    let setting = std::env::var("QUADFLOOD_SHADER_CHECKS").ok();
    // A replaced source is not the solver whose indices are known to stay in range.
    let replaced = std::env::var_os("QUADFLOOD_SOLVER_WGSL").is_some();
    let checks = shader_checks(setting.as_deref(), gpu.bounds_buffers && !replaced);
    // SAFETY: by default the only checks left out are naga's clamps of the kernels' own
    // arrays' indices, which stay in range by construction, on devices that bound buffer
    // accesses themselves (shader_checks).
    unsafe { gpu.device.create_shader_module_trusted(desc, checks) }
}

/// naga's runtime checks. On a device that bounds buffer accesses itself, wgpu's bounds
/// checks only clamp the index of every access to the kernels' workgroup and local arrays
/// (the tile, the faces), whose indices come from the thread's place in the block and stay
/// in range by construction: the clamps cost 1.7% of a step on an H200 (they keep the
/// compiler from folding a stencil's offsets into its loads; docs/benchmarks-history.md),
/// so they are left out there. QUADFLOOD_SHADER_CHECKS overrides: "all", "default", "off",
/// or a comma list of those to leave out ("loops", "bounds", "int-div").
fn shader_checks(setting: Option<&str>, bounds_buffers: bool) -> wgpu::ShaderRuntimeChecks {
    let mut checks = wgpu::ShaderRuntimeChecks::checked();
    let dropped = match setting {
        None | Some("default") if bounds_buffers => "bounds",
        None | Some("default") | Some("all") => "",
        Some("off") => "loops,bounds,int-div",
        Some(list) => list,
    };
    for check in dropped.split(',').filter(|c| !c.is_empty()) {
        match check {
            "loops" => checks.force_loop_bounding = false,
            "bounds" => checks.bounds_checks = false,
            "int-div" => checks.int_div_checks = false,
            other => panic!("QUADFLOOD_SHADER_CHECKS: unknown check {other:?}"),
        }
    }
    checks
}

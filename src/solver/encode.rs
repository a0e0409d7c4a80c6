//! What a step records: its dispatches in order (`step_kernels`), and a batch of steps
//! encoded into one compute pass, or one pass per kernel between timestamps when profiled.

use super::*;

/// How a kernel of the step is launched: from the GPU's dispatch arguments at a byte
/// offset, or with a fixed number of workgroups.
#[derive(Clone, Copy)]
pub(super) enum Launch {
    Indirect(u64),
    Groups(u32),
}

/// One dispatch of a step: the entry point's name, the RK stage it computes (None for the
/// step's end), its pipeline and launch.
pub(super) struct StepKernel {
    pub(super) name: &'static str,
    stage: Option<u32>,
    pipeline: wgpu::ComputePipeline,
    launch: Launch,
}

/// The dispatches of one step for `split`, in order: each stage over the internal blocks
/// of each class that has any, then the dry-map and the step's end, which on one rank the
/// last workgroup of the last stage-2 dispatch takes on (`Split::end_in_stage2`). Building
/// it compiles the stage pipelines the split runs, before the time loop.
pub(super) fn step_kernels(
    gpu: &Gpu,
    k: &Kernels,
    split: Split,
    scan_groups: u32,
    structures: bool,
) -> Vec<StepKernel> {
    let classes = [
        (
            split.regular,
            ["stage1", "stage2", "stage2_end"],
            REGULAR_ARGS,
        ),
        (
            split.levels_class(),
            ["stage1_levels", "stage2_levels", "stage2_levels_end"],
            LEVELS_ARGS,
        ),
    ];
    let present: Vec<_> = classes.iter().filter(|c| c.0 > 0).collect();
    let mut kernels = Vec::with_capacity(6);
    if structures {
        kernels.push(StepKernel {
            name: "structure_flows",
            stage: None,
            pipeline: k.structure_flows.clone(),
            launch: Launch::Groups(1),
        });
    }
    for stage in [1, 2] {
        for (i, &&(_, names, args)) in present.iter().enumerate() {
            let last_of_stage = i + 1 == present.len();
            let ends_step = stage == 2 && split.end_in_stage2 && last_of_stage;
            let name = if ends_step {
                names[2]
            } else {
                names[stage as usize - 1]
            };
            kernels.push(StepKernel {
                name,
                stage: Some(stage),
                pipeline: k.stage(gpu, name),
                launch: Launch::Indirect(args),
            });
        }
    }
    if !split.end_in_stage2 {
        kernels.push(StepKernel {
            name: "scan_then_finalize",
            stage: None,
            pipeline: k.scan_then_finalize.clone(),
            launch: Launch::Groups(scan_groups),
        });
    }
    kernels
}

impl Simulation<'_> {
    /// Stage `stage`'s kernels over internal blocks: regular ones, then those at a level
    /// change.
    pub(crate) fn dispatch_internal(&self, pass: &mut wgpu::ComputePass, stage: u32) {
        for kernel in self.steps.iter().filter(|k| k.stage == Some(stage)) {
            self.dispatch(pass, kernel, self.parity.get());
        }
    }

    /// The `dispatch` buffers the next step reads its arguments from and writes the next
    /// step's to, and the step after it then reads.
    pub(super) fn step_args(&self) -> (usize, usize) {
        let reads = self.parity.get();
        let writes = if self.split.end_in_stage2 {
            1 - reads
        } else {
            reads
        };
        (reads, writes)
    }

    pub(super) fn dispatch(&self, pass: &mut wgpu::ComputePass, kernel: &StepKernel, args: usize) {
        pass.set_pipeline(&kernel.pipeline);
        match kernel.launch {
            Launch::Indirect(offset) => {
                pass.dispatch_workgroups_indirect(&self.buffers.dispatch[args], offset)
            }
            Launch::Groups(n) => pass.dispatch_workgroups(n, 1, 1),
        }
    }

    /// A pass with the solver's bind group, and group 1 on the `dispatch` buffer `writes`.
    pub(super) fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        desc: &wgpu::ComputePassDescriptor,
        writes: usize,
    ) -> wgpu::ComputePass<'e> {
        let mut pass = encoder.begin_compute_pass(desc);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_bind_group(1, &self.dispatch_groups[writes], &[]);
        pass
    }

    /// `n` steps in one compute pass.
    pub(super) fn encode_steps(&self, encoder: &mut wgpu::CommandEncoder, n: u32) {
        let (_, writes) = self.step_args();
        let mut pass = self.begin_pass(encoder, &Default::default(), writes);
        for _ in 0..n {
            let (reads, writes) = self.step_args();
            if writes != reads {
                pass.set_bind_group(1, &self.dispatch_groups[writes], &[]);
            }
            for kernel in &self.steps {
                self.dispatch(&mut pass, kernel, reads);
            }
            self.parity.set(writes);
        }
    }

    /// `n` steps with each kernel in a pass of its own, between timestamps.
    pub(super) fn encode_timed_steps(
        &self,
        p: &profile::Profiler,
        encoder: &mut wgpu::CommandEncoder,
        n: u32,
        slot: usize,
    ) {
        for step in 0..n {
            let (reads, writes) = self.step_args();
            for (k, kernel) in self.steps.iter().enumerate() {
                let desc = wgpu::ComputePassDescriptor {
                    label: Some(kernel.name),
                    timestamp_writes: p.writes(slot, step, k),
                };
                self.dispatch(&mut self.begin_pass(encoder, &desc, writes), kernel, reads);
            }
            self.parity.set(writes);
        }
    }
}

/// Workgroups for `count` blocks as (x, y): as few rows y as keep x at most MAX_GROUPS_X,
/// of equal length, so that fewer than y workgroups find no block (as `set_groups` in
/// `shaders/timestep.wgsl`).
pub(crate) fn grid_2d(count: u32) -> (u32, u32) {
    if count == 0 {
        return (0, 0);
    }
    let rows = count.div_ceil(MAX_GROUPS_X);
    (count.div_ceil(rows), rows)
}

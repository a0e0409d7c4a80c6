//! What a ranked step's two submissions record (see `Ranked::step`).

use super::*;

impl Ranked<'_, '_> {
    pub(super) fn encoder(&self) -> wgpu::CommandEncoder {
        self.sim
            .gpu
            .device
            .create_command_encoder(&Default::default())
    }

    /// The first submission of a step (see `step`): the step before's end, when it is
    /// due (pass 0), then stage 1 of the internal blocks (pass 1).
    pub(super) fn record_first_submission(&self, ends_step_before: bool) -> wgpu::CommandBuffer {
        self.record_first_submission_timed(ends_step_before, true)
    }

    /// `record_first_submission`, with its passes timed where the step is (`timed`) or not.
    pub(super) fn record_first_submission_timed(
        &self,
        ends_step_before: bool,
        timed: bool,
    ) -> wgpu::CommandBuffer {
        let s = &self.sim;
        let descriptor = |k| {
            if timed {
                self.pass(k)
            } else {
                Default::default()
            }
        };
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&descriptor(0));
            if ends_step_before {
                self.end_step_before(&mut pass);
            }
        }
        {
            let mut pass = e.begin_compute_pass(&descriptor(1));
            pass.set_bind_group(0, &s.bind_group, &[]);
            s.dispatch_internal(&mut pass, 1);
        }
        e.finish()
    }

    /// The end of the step before: the internal blocks' dry-map, the clock and the next
    /// dt (scan_then_finalize; the border blocks are scanned at the next step's start).
    pub(super) fn end_step_before(&self, pass: &mut wgpu::ComputePass) {
        let s = &self.sim;
        pass.set_bind_group(0, &s.bind_group, &[]);
        pass.set_bind_group(1, &s.dispatch_groups[0], &[]);
        pass.set_pipeline(&s.kernels.scan_then_finalize);
        pass.dispatch_workgroups(s.scan_groups, 1, 1);
    }

    /// The second submission of a step (see `step`): the ghosts' U^n and wet flags
    /// unpacked, the border blocks' dry-map, stage 1 on the ghosts and the border
    /// blocks (pass 2); stage 2 on every own block and the new strips packed (pass 3);
    /// the strips and the status record copied for the host.
    pub(super) fn record_second_submission(&self) -> wgpu::CommandBuffer {
        let (s, k, t) = (&self.sim, &self.kernels, &self.transfer);
        let n_recv = total(&t.recv_cells).max(total(&t.recv_flags));
        let mut e = self.encoder();
        {
            let mut pass = e.begin_compute_pass(&self.pass(2));
            if n_recv > 0 {
                pass.set_bind_group(0, &t.state_group, &[]);
                pass.set_bind_group(2, &t.unpack_group, &[]);
                pass.set_pipeline(&k.unpack);
                pass.dispatch_workgroups(groups(n_recv), 1, 1);
            }
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_bind_group(1, &s.dispatch_groups[0], &[]);
            if s.has_structures {
                // Both ends' U^n are here now (a culvert's blocks are border blocks).
                pass.set_pipeline(&s.kernels.structure_flows);
                pass.dispatch_workgroups(1, 1, 1);
            }
            pass.set_pipeline(&k.scan_border);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&k.stage1_ghosts_and_border);
            pass.dispatch_workgroups_indirect(&s.buffers.dispatch[0], GHOST_ARGS);
        }
        {
            let mut pass = e.begin_compute_pass(&self.pass(3));
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.set_pipeline(&k.stage2_border);
            pass.dispatch_workgroups_indirect(&s.buffers.dispatch[0], BORDER_ARGS);
            s.dispatch_internal(&mut pass, 2);
            self.pack_strips(&mut pass);
        }
        self.copy_strips(&mut e);
        let size = std::mem::size_of::<SimRecord>() as u64;
        e.copy_buffer_to_buffer(&s.buffers.sim, 0, &self.staging_sim, 0, size);
        e.finish()
    }

    /// The own blocks' U^n and wet flags that other ranks read, packed.
    pub(super) fn pack_strips(&self, pass: &mut wgpu::ComputePass) {
        let t = &self.transfer;
        let n_send = total(&t.send_cells).max(total(&t.send_flags));
        if n_send > 0 {
            pass.set_bind_group(0, &t.state_group, &[]);
            pass.set_bind_group(2, &t.pack_group, &[]);
            pass.set_pipeline(&self.kernels.pack);
            pass.dispatch_workgroups(groups(n_send), 1, 1);
        }
    }

    /// Where the host cannot map the pack kernel's buffer: its copy for it.
    pub(super) fn copy_strips(&self, e: &mut wgpu::CommandEncoder) {
        let t = &self.transfer;
        let bytes: usize = t.send_bytes().sum();
        if t.copies_strips && bytes > 0 {
            e.copy_buffer_to_buffer(&t.send, 0, &t.host_strips, 0, bytes as u64);
        }
    }
}

//! What the host reads back from a run: fields, snapshots, cells, losses, structure
//! flows and the volumes that crossed the domain's edge.

use super::*;

impl Simulation<'_> {
    /// Depth and momentum of every domain cell.
    pub fn read_fields(&self) -> Fields {
        let cells = self.grid.stored_cells();
        self.gpu
            .read_buffer_with(&self.buffers.state_a, 0, cells, |stored| {
                Fields::from_stored(&self.grid, stored)
            })
    }

    /// Depth and the discharge a run reports (shaders/discharge.wgsl) of every domain cell.
    pub fn read_reported_fields(&self) -> Fields {
        Fields::from_stored(&self.grid, &self.reported_state())
    }

    /// The own blocks' cells as a run reports them in its maps, (h, qx, qy, z) in storage
    /// layout: the unit discharge the cell's faces pass where they tell it, not the
    /// momentum the cell holds (shaders/discharge.wgsl); the maxima take it in. Ghost
    /// blocks must hold their owners' state, as they do once `advance_to` returns (not
    /// after a stop on a signal or `run_steps`, where nothing reports).
    pub(crate) fn reported_state(&self) -> Vec<[f32; 4]> {
        self.report_discharge(true);
        let own = self.split.own as usize;
        let discharge: Vec<[f32; 2]> =
            self.gpu
                .read_buffer(&self.buffers.state_b, 0, own * STAGED_PER_BLOCK);
        let mut state: Vec<[f32; 4]> =
            self.gpu
                .read_buffer(&self.buffers.state_a, 0, own * CELLS_PER_BLOCK);
        for (k, s) in state.iter_mut().enumerate() {
            let q = discharge[k / CELLS_PER_BLOCK * STAGED_PER_BLOCK + k % CELLS_PER_BLOCK];
            [s[1], s[2]] = q;
        }
        state
    }

    /// The reported discharge of the own blocks into state_b (`face_discharge`), with the
    /// maxima taking it in where `for_maps`.
    fn report_discharge(&self, for_maps: bool) {
        let entry = match for_maps {
            true => "face_discharge_and_peaks",
            false => "face_discharge",
        };
        let kernel = self.kernels.stage(self.gpu, entry);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_pipeline(&kernel);
            let (x, y) = grid_2d(self.split.own);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.gpu.queue.submit([encoder.finish()]);
    }

    /// This simulation's own blocks as they stand: state, maxima, edge volumes and clock,
    /// in storage layout.
    pub fn read_snapshot(&self) -> Snapshot {
        let own = self.split.own as usize;
        let cells = own * CELLS_PER_BLOCK;
        let r: SimRecord = self.gpu.read_buffer(&self.buffers.sim, 0, 1)[0];
        let tracked = self.buffers.maxima.size() as usize >= cells * size_of::<Peak>();
        let (infiltrated, loss_volume) = self.read_losses();
        let state: Vec<[f32; 4]> = self.gpu.read_buffer(&self.buffers.state_a, 0, cells);
        let mut maxima = Vec::new();
        if tracked {
            maxima = self.gpu.read_buffer(&self.buffers.maxima, 0, cells);
            self.spells
                .settled(&mut maxima, |k| state[k][0], (r.t_hi, r.t_lo));
        }
        Snapshot {
            state,
            resume: Resume {
                t: (r.t_hi, r.t_lo),
                steps: ((r.step_hi as u64) << 32) | r.step_lo as u64,
                dt_cfl: r.dt_cfl,
                cfl_limit: f32::from_bits(r.cfl_limit),
                cell_updates: ((r.upd_hi as u64) << 32) | r.upd_lo as u64,
                rain: (r.rain_hi, r.rain_lo),
                steps_planned_again: r.cfl_replans,
                block_volume: self.gpu.read_buffer(&self.buffers.block_volume, 0, own),
                maxima,
                infiltrated,
                loss_volume,
                structure_flows: self.read_structure_flows(),
            },
        }
    }

    /// (h, qx, qy) at the given domain cells as a run reports them (`read_stored_cells`).
    pub fn read_cells(&self, cells: &[(usize, usize)]) -> Vec<[f32; 3]> {
        let stored: Vec<usize> = cells
            .iter()
            .map(|&(i, j)| self.grid.storage_index(i, j))
            .collect();
        self.read_stored_cells(&stored)
    }

    /// (h, qx, qy) as a run reports them (`reported_state`) at the given stored cells of
    /// the own blocks (indices into this simulation's storage), in one submission and one
    /// wait after the discharge pass, which leaves the maxima alone: a gauge changes no map.
    pub(crate) fn read_stored_cells(&self, stored: &[usize]) -> Vec<[f32; 3]> {
        if stored.is_empty() {
            return Vec::new();
        }
        self.report_discharge(false);
        let staging = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gauges"),
            size: (stored.len() * 24) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let discharges = (stored.len() * 16) as u64;
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        for (k, &index) in stored.iter().enumerate() {
            let (from, to) = ((index * 16) as u64, (k * 16) as u64);
            encoder.copy_buffer_to_buffer(&self.buffers.state_a, from, &staging, to, 16);
            let slot = index / CELLS_PER_BLOCK * STAGED_PER_BLOCK + index % CELLS_PER_BLOCK;
            let to = discharges + (k * 8) as u64;
            encoder.copy_buffer_to_buffer(
                &self.buffers.state_b,
                (slot * 8) as u64,
                &staging,
                to,
                8,
            );
        }
        self.gpu.queue.submit([encoder.finish()]);
        self.gpu.map_and_wait(&staging);
        let view = staging.get_mapped_range(..).expect("mapped gauge buffer");
        let (states, qs) = view.split_at(discharges as usize);
        let states: &[[f32; 4]] = bytemuck::cast_slice(states);
        let qs: &[[f32; 2]] = bytemuck::cast_slice(qs);
        let values = states
            .iter()
            .zip(qs)
            .map(|(s, q)| [s[0], q[0], q[1]])
            .collect();
        drop(view);
        staging.unmap();
        values
    }

    /// The own blocks' cumulative loss per cell and lost volume per block; empty without
    /// losses.
    pub(super) fn read_losses(&self) -> (Vec<f32>, Vec<[f32; 2]>) {
        if !self.has_losses {
            return (Vec::new(), Vec::new());
        }
        let own = self.split.own as usize;
        let words: Vec<u32> = self.gpu.read_buffer(
            &self.buffers.losses,
            0,
            self.buffers.losses.size() as usize / 4,
        );
        let (offset, count) = loss_table::volume_range(self.nblocks as usize, own);
        let start = offset as usize / 4;
        let volumes = bytemuck::cast_slice(&words[start..start + 2 * count]).to_vec();
        (loss_table::infiltrated(&words, own), volumes)
    }

    /// The own blocks' volumes (m³) lost to the ground so far, per block (double-f32).
    pub fn block_losses(&self) -> Vec<[f32; 2]> {
        if !self.has_losses {
            return Vec::new();
        }
        let (offset, count) =
            loss_table::volume_range(self.nblocks as usize, self.split.own as usize);
        self.gpu.read_buffer(&self.buffers.losses, offset, count)
    }

    /// The discharge (m³/s) each culvert and weir structure carries in the step about to
    /// be taken (0 for one this rank holds no end of).
    pub fn read_structure_flows(&self) -> Vec<f32> {
        let (first, count) = self.structure_slots;
        let forcing = &self.buffers.all[binding::FORCING as usize];
        let slots: Vec<[f32; 4]> = self.gpu.read_buffer(forcing, 16 * first as u64, count);
        slots.iter().map(|s| s[0]).collect()
    }

    /// Volume (m³) lost to the ground so far, summed in f64.
    pub fn lost_volume(&self) -> f64 {
        loss_table::sum(&self.block_losses())
    }

    /// Volumes (m³) that entered and left through the domain edge so far, summed in f64.
    pub fn edge_volumes(&self) -> (f64, f64) {
        let v: Vec<[f32; 4]> =
            self.gpu
                .read_buffer(&self.buffers.block_volume, 0, self.nblocks as usize);
        sum_volumes(&v)
    }
}

/// Total (in, out) of per-block double-f32 edge volumes, in block order.
pub(super) fn sum_volumes(v: &[[f32; 4]]) -> (f64, f64) {
    v.iter().fold((0.0, 0.0), |(vin, vout), b| {
        (
            vin + b[0] as f64 + b[1] as f64,
            vout + b[2] as f64 + b[3] as f64,
        )
    })
}

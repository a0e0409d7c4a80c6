//! Reading a ranked run's results: every rank's own blocks gathered on rank 0 into the
//! global block order, so that the results and their sums have the same bits on any
//! number of ranks.

use super::*;

impl Ranked<'_, '_> {
    /// Own blocks' stored values, gathered into the global layout on rank 0.
    pub(super) fn gather_stored<T: bytemuck::Pod + Default>(
        &self,
        buffer: &wgpu::Buffer,
    ) -> Option<Vec<T>> {
        let own = self.sim.split.own as usize * CELLS_PER_BLOCK;
        self.gather_blocks(self.sim.gpu.read_buffer(buffer, 0, own), CELLS_PER_BLOCK)
    }

    /// Every rank's per-block values (`per_block` of them for each own block), in global
    /// block order, on rank 0.
    pub(super) fn gather_blocks<T: bytemuck::Pod + Default>(
        &self,
        mine: Vec<T>,
        per_block: usize,
    ) -> Option<Vec<T>> {
        let all = self.comm.gather(bytemuck::cast_slice(&mine).to_vec())?;
        let owned = self
            .owned
            .as_ref()
            .expect("rank 0 holds every rank's blocks");
        let mut stored = vec![T::default(); self.model.grid.nblocks() * per_block];
        for (r, (bytes, blocks)) in all.iter().zip(owned).enumerate() {
            let expected = blocks.len() * per_block * std::mem::size_of::<T>();
            if bytes.len() != expected {
                self.not_the_same_model(r, "its blocks' values", bytes.len(), expected);
            }
            let values: &[T] = bytemuck::cast_slice(bytes);
            for (l, &g) in blocks.iter().enumerate() {
                let g = g as usize;
                stored[g * per_block..(g + 1) * per_block]
                    .copy_from_slice(&values[l * per_block..(l + 1) * per_block]);
            }
        }
        Some(stored)
    }

    /// The whole run's snapshot, on rank 0; every rank must call this.
    pub fn read_snapshot(&self) -> Option<Snapshot> {
        let mine = self.sim.read_snapshot();
        let state = self.gather_blocks(mine.state, CELLS_PER_BLOCK);
        let block_volume = self.gather_blocks(mine.resume.block_volume, 1);
        let tracked = !mine.resume.maxima.is_empty();
        let maxima = tracked.then(|| self.gather_blocks(mine.resume.maxima, CELLS_PER_BLOCK));
        let losing = self.model.losses.any();
        let infiltrated =
            losing.then(|| self.gather_blocks(mine.resume.infiltrated, CELLS_PER_BLOCK));
        let loss_volume = losing.then(|| self.gather_blocks(mine.resume.loss_volume, 1));
        let own = self.own_cell_updates(mine.resume.cell_updates);
        let cell_updates = self.resumed_cell_updates() + self.comm.sum_f64(own as f64) as u64;
        // Every rank gathers, before any leaves on a value only rank 0 has.
        let structure_flows = Stepper::structure_flows(self);
        Some(Snapshot {
            state: state?,
            resume: Resume {
                block_volume: block_volume?,
                maxima: maxima.map_or(Some(Vec::new()), |m| m)?,
                infiltrated: infiltrated.map_or(Some(Vec::new()), |m| m)?,
                loss_volume: loss_volume.map_or(Some(Vec::new()), |m| m)?,
                structure_flows: structure_flows?,
                cell_updates,
                ..mine.resume
            },
        })
    }

    /// Finest-level fields on rank 0; every rank must call this.
    pub fn read_fields(&self) -> Option<Fields> {
        let stored: Vec<[f32; 4]> = self.gather_stored(&self.sim.buffers.state_a)?;
        Some(Fields::from_stored(&self.model.grid, &stored))
    }

    /// Depth and the discharge the faces pass (`Simulation::reported_state`), on rank 0;
    /// every rank must call this. The faces read the ghost blocks, which hold their owners'
    /// state as it stands: the idle step that ends each run of steps (`advance_to`)
    /// exchanged it.
    pub fn read_reported_fields(&self) -> Option<Fields> {
        let mine = self.sim.reported_state();
        let stored = self.gather_blocks(mine, CELLS_PER_BLOCK)?;
        Some(Fields::from_stored(&self.model.grid, &stored))
    }

    /// (h, qx, qy) at finest cells (i, j) as a run reports them, on rank 0: each rank reads
    /// the ones it owns.
    pub fn read_cells(&self, grid: &BlockGrid, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>> {
        // This rank's cells, each with its place in `cells`, read in one submission.
        let (places, stored): (Vec<u32>, Vec<usize>) = cells
            .iter()
            .enumerate()
            .filter_map(|(k, &(i, j))| {
                let g = grid.storage_index(i, j);
                let l = self.local_cell.get(&((g / CELLS_PER_BLOCK) as u32))?;
                Some((
                    k as u32,
                    *l as usize * CELLS_PER_BLOCK + g % CELLS_PER_BLOCK,
                ))
            })
            .unzip();
        let values = self.sim.read_stored_cells(&stored);
        let mine: Vec<u8> = places
            .iter()
            .zip(&values)
            .flat_map(|(k, v)| [&k.to_le_bytes()[..], bytemuck::cast_slice(&v[..])].concat())
            .collect();
        let all = self.comm.gather(mine)?;
        let mut out = vec![[0.0f32; 3]; cells.len()];
        for (r, bytes) in all.iter().enumerate() {
            if bytes.len() % 16 != 0 || bytes.len() > 16 * cells.len() {
                self.not_the_same_model(r, "cell values", bytes.len(), 16 * cells.len());
            }
            for chunk in bytes.chunks_exact(16) {
                let k = u32::from_le_bytes(chunk[..4].try_into().expect("4 bytes")) as usize;
                if k >= cells.len() {
                    self.not_the_same_model(r, "cell values", bytes.len(), 16 * cells.len());
                }
                out[k] = *bytemuck::from_bytes(&chunk[4..16]);
            }
        }
        Some(out)
    }

    /// Ends every rank when rank `r`'s share of a gather (`got` bytes of `what`) is not what
    /// this rank's model expects: the ranks do not run the same model. Ranks agree on their
    /// models at start-up (`comm::agree`), so this is the last line, not a panic.
    pub(super) fn not_the_same_model(
        &self,
        r: usize,
        what: &str,
        got: usize,
        expected: usize,
    ) -> ! {
        use std::io::Write;
        let line = format!(
            "quadflood: rank {r} sent {got} bytes of {what} where rank {} expected {expected}: \
             the ranks do not run the same model; ending every rank\n",
            self.comm.rank()
        );
        let _ = std::io::stderr().write_all(line.as_bytes());
        self.comm.abort(1)
    }

    /// Volume lost to the ground, summed in global block order on rank 0 (the same bits
    /// on any number of ranks); 0 on other ranks.
    pub fn lost_volume(&self) -> f64 {
        let mine = self.sim.block_losses();
        if mine.is_empty() {
            return 0.0;
        }
        self.gather_blocks(mine, 1)
            .map_or(0.0, |all| crate::solver::loss_table::sum(&all))
    }

    /// Volumes in and out through the domain edge, summed in global block order on rank 0
    /// (so the sum has the same bits on any number of ranks); (0, 0) on other ranks.
    pub fn edge_volumes(&self) -> (f64, f64) {
        let own = self.sim.split.own as usize;
        let mine: Vec<[f32; 4]> = self
            .sim
            .gpu
            .read_buffer(&self.sim.buffers.block_volume, 0, own);
        match self.gather_blocks(mine, 1) {
            Some(all) => crate::solver::sum_volumes(&all),
            None => (0.0, 0.0),
        }
    }
}

/// Each structure's discharge from every rank's (bytes of f32 each): every rank holding a
/// structure computes the same one, the others none, so the largest in size is it.
pub(crate) fn held_flows(all: &[Vec<u8>], count: usize) -> Vec<f32> {
    let mut flows = vec![0.0f32; count];
    for bytes in all {
        let theirs: Vec<f32> = bytemuck::pod_collect_to_vec(bytes);
        for (q, &t) in flows.iter_mut().zip(&theirs) {
            if t.abs() > q.abs() {
                *q = t;
            }
        }
    }
    flows
}

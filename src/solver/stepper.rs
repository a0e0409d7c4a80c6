//! The interface a run drives: one GPU (`Simulation`) or many ranks (`ranks`).

use super::*;

/// What a run needs from a solver, on one rank or many. Every rank calls these in the same
/// order; the reads return `Some` on rank 0 only.
pub trait Stepper {
    fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()>;
    fn status(&self) -> &Status;
    /// Depth and the discharge the faces pass (`Simulation::read_reported_fields`): what
    /// the maps show.
    fn fields(&self) -> Option<Fields>;
    /// The whole run's state, clock and maxima in global storage layout (for checkpoints
    /// and the maxima maps).
    fn snapshot(&self) -> Option<Snapshot>;
    /// (h, qx, qy) at the given finest cells, the discharge as `fields` reports it.
    fn cells(&self, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>>;
    fn edge_volumes(&self) -> (f64, f64);
    /// Volume (m³) lost to the ground so far (0 without losses).
    fn lost_volume(&self) -> f64;
    /// Each culvert and weir structure's discharge (m³/s), at rank 0.
    fn structure_flows(&self) -> Option<Vec<f32>>;
    fn host_us_per_step(&self) -> f64;
    /// GPU time per kernel and step, when profiling.
    fn profile(&self) -> Option<profile::Profile> {
        None
    }
    /// Per-rank timings, at rank 0.
    fn rank_reports(&self) -> Option<Vec<serde_json::Value>>;
    /// Whether a signal asked the run to stop (on ranks: any rank's; every rank calls
    /// this together).
    fn stop_requested(&self) -> bool {
        crate::interrupt::requested().is_some()
    }
    /// One entry per rebalance, at rank 0 (None when the run does not balance).
    fn rebalancing(&self) -> Option<Vec<serde_json::Value>> {
        None
    }
    /// Whether every rank found its part sound (`sound` on this one), so that all stop
    /// together when one cannot go on.
    fn all_sound(&self, sound: bool) -> bool {
        sound
    }
    /// See [`Simulation::poison_for_test`].
    fn poison_for_test(&self);
}

impl Stepper for Simulation<'_> {
    fn poison_for_test(&self) {
        Simulation::poison_for_test(self)
    }
    fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()> {
        Simulation::advance_to(self, target, progress)
    }
    fn status(&self) -> &Status {
        Simulation::status(self)
    }
    fn fields(&self) -> Option<Fields> {
        Some(self.read_reported_fields())
    }
    fn snapshot(&self) -> Option<Snapshot> {
        Some(self.read_snapshot())
    }
    fn cells(&self, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>> {
        Some(self.read_cells(cells))
    }
    fn edge_volumes(&self) -> (f64, f64) {
        Simulation::edge_volumes(self)
    }
    fn lost_volume(&self) -> f64 {
        Simulation::lost_volume(self)
    }
    fn structure_flows(&self) -> Option<Vec<f32>> {
        Some(self.read_structure_flows())
    }
    fn host_us_per_step(&self) -> f64 {
        1e6 * (self.host_record_s + self.host_submit_s) / self.host_steps.max(1) as f64
    }
    fn profile(&self) -> Option<profile::Profile> {
        Simulation::profile(self)
    }
    fn rank_reports(&self) -> Option<Vec<serde_json::Value>> {
        None
    }
}

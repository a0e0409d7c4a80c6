//! A ranked run as the driver sees it (`Stepper`): each call made by every rank together.

use super::gather::held_flows;
use super::*;

impl Stepper for Ranked<'_, '_> {
    /// The last rank's own first cell, so that the tests see a fault on another rank than
    /// the one that reports.
    fn poison_for_test(&self) {
        if self.comm.rank() + 1 == self.comm.size() {
            self.sim.poison_for_test()
        }
    }
    fn advance_to(&mut self, target: f64, progress: &mut dyn FnMut(&Status)) -> Result<()> {
        Ranked::advance_to(self, target, progress)
    }
    fn status(&self) -> &Status {
        Ranked::status(self)
    }
    fn fields(&self) -> Option<Fields> {
        self.read_reported_fields()
    }
    fn snapshot(&self) -> Option<Snapshot> {
        self.read_snapshot()
    }
    fn cells(&self, cells: &[(usize, usize)]) -> Option<Vec<[f32; 3]>> {
        self.read_cells(&self.model.grid, cells)
    }
    fn edge_volumes(&self) -> (f64, f64) {
        Ranked::edge_volumes(self)
    }
    fn lost_volume(&self) -> f64 {
        Ranked::lost_volume(self)
    }
    fn structure_flows(&self) -> Option<Vec<f32>> {
        let mine = self.sim.read_structure_flows();
        if mine.is_empty() {
            return (self.comm.rank() == 0).then(Vec::new);
        }
        let all = self.comm.gather(bytemuck::cast_slice(&mine).to_vec())?;
        Some(held_flows(&all, mine.len()))
    }
    fn host_us_per_step(&self) -> f64 {
        1e6 * (self.sim.host_record_s + self.sim.host_submit_s) / self.sim.host_steps.max(1) as f64
    }
    fn stop_requested(&self) -> bool {
        self.stop_agreed()
    }
    fn rebalancing(&self) -> Option<Vec<serde_json::Value>> {
        let b = self.balancer.as_ref()?;
        (self.comm.rank() == 0).then(|| b.log.clone())
    }
    fn all_sound(&self, sound: bool) -> bool {
        self.comm.min_u32(sound as u32) == 1
    }
    fn profile(&self) -> Option<crate::solver::profile::Profile> {
        let (t, steps) = self.pass_profile()?;
        let us = |v: [f64; pass_clock::PASSES as usize]| {
            PASS_NAMES.into_iter().zip(v.map(|s| 1e6 * s)).collect()
        };
        Some(crate::solver::profile::Profile {
            kernel_us: us(t.busy),
            idle_before_us: us(t.before),
            steps,
        })
    }
    fn rank_reports(&self) -> Option<Vec<serde_json::Value>> {
        let w = self.waits();
        let mut mine = vec![
            w.compute_s,
            w.exchange_s,
            w.reduce_s,
            self.sim.split.own as f64,
            self.sim.split.border as f64,
            self.own_cell_updates(self.status.cell_updates) as f64,
        ];
        if let Some((t, _)) = self.pass_profile() {
            mine.extend(t.busy.iter().chain(&t.before).map(|s| 1e6 * s));
        }
        let all = self.comm.gather(bytemuck::cast_slice(&mine).to_vec())?;
        for (r, b) in all.iter().enumerate() {
            if b.len() % 8 != 0 || b.len() < 6 * 8 {
                self.not_the_same_model(r, "its timings", b.len(), 6 * 8);
            }
        }
        Some(
            all.iter()
                .enumerate()
                .map(|(r, b)| {
                    let v: &[f64] = bytemuck::cast_slice(b);
                    let mut report = serde_json::json!({
                        "rank": r,
                        "blocks": v[3] as u64,
                        "border_blocks": v[4] as u64,
                        "gpu_wait_s": v[0],
                        "exchange_wait_s": v[1],
                        "dt_reduction_wait_s": v[2],
                        "cell_updates": v[5] as u64,
                    });
                    if v.len() == 6 + 2 * PASS_NAMES.len() {
                        let (busy, before) = v[6..].split_at(PASS_NAMES.len());
                        report["gpu_us_per_step"] = named(busy).into();
                        report["gpu_idle_before_us_per_step"] = named(before).into();
                    }
                    report
                })
                .collect(),
        )
    }
}

/// Figures per pass, by the passes' names.
pub fn named(per_pass: &[f64]) -> serde_json::Map<String, serde_json::Value> {
    PASS_NAMES
        .iter()
        .zip(per_pass)
        .map(|(&name, &v)| (name.to_string(), v.into()))
        .collect()
}

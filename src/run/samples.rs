//! What a run samples at its gauge and output times: gauges, cross-sections and
//! structures into their series, and the mass balance with its check.

use super::Files;
use crate::balance::{self, Balance};
use crate::error::{Error, Result};
use crate::scenario::model::Model;
use crate::solver::{Fields, Stepper};
use std::sync::Arc;

/// The cells read at gauge times: the gauges', then every cell a cross-section samples,
/// each once.
pub(super) struct Probes {
    cells: Vec<(usize, usize)>,
    /// Per section: (index into `cells`, normal times length) per sample.
    sections: Vec<Vec<(usize, [f64; 2])>>,
}

impl Probes {
    pub(super) fn new(model: &Model) -> Probes {
        let mut cells: Vec<(usize, usize)> = model.gauges.iter().map(|g| g.cell).collect();
        let mut index = std::collections::HashMap::new();
        let sections = model
            .sections
            .iter()
            .map(|s| {
                s.samples
                    .iter()
                    .map(|&(cell, w)| {
                        let k = *index.entry(cell).or_insert_with(|| {
                            cells.push(cell);
                            cells.len() - 1
                        });
                        (k, w)
                    })
                    .collect()
            })
            .collect();
        Probes { cells, sections }
    }

    /// Discharge through each section from the probed (h, hu, hv).
    pub(super) fn discharges(&self, values: &[[f32; 3]]) -> Vec<f64> {
        self.sections
            .iter()
            .map(|s| {
                s.iter()
                    .map(|&(k, w)| values[k][1] as f64 * w[0] + values[k][2] as f64 * w[1])
                    .sum()
            })
            .collect()
    }
}

pub(super) fn sample_gauges(
    sim: &dyn Stepper,
    files: &mut Option<Files<'_>>,
    model: &Model,
    probes: &Probes,
    t: f64,
) -> Result<()> {
    if !model.structures.is_empty() {
        if let (Some(flows), Some(f)) = (sim.structure_flows(), files.as_mut()) {
            f.series
                .record_structures(t, &model.structure_totals(&flows))?;
        }
    }
    if probes.cells.is_empty() {
        return Ok(());
    }
    if let (Some(values), Some(f)) = (sim.cells(&probes.cells), files.as_mut()) {
        let gauges = &values[..model.gauges.len()];
        f.series.record_gauges(model, t, gauges)?;
        f.series.record_sections(t, &probes.discharges(&values))?;
    }
    Ok(())
}

/// A mass-balance row at time t, from the fields just read, and the check that the balance
/// holds (every rank calls this: the edge volumes are gathered from every rank, and all
/// stop together when it broke).
pub(super) fn record_balance(
    sim: &dyn Stepper,
    files: &mut Option<Files<'_>>,
    model: &Model,
    t: f64,
    fields: Option<Arc<Fields>>,
) -> Result<()> {
    let (inflow, outflow) = sim.edge_volumes();
    let losses = sim.lost_volume();
    let rain = sim.status().rain_depth * model.valid_cells() as f64 * model.cell_area();
    let mut verdict = Ok(());
    if let (Some(fields), Some(f)) = (fields, files.as_mut()) {
        let storage = model.volume(&fields.depth);
        // A restart knows its run's initial water from that run's balance file.
        let initial = f
            .series
            .initial()
            .or(model.resume.is_none().then_some(storage));
        let mut account = Balance {
            initial: 0.0,
            inflow,
            outflow,
            rain,
            losses,
            storage,
        };
        f.series.record_balance(t, &account)?;
        if let Some(initial) = initial {
            account.initial = initial;
            verdict = balance::check(model, t, &account);
        }
        if verdict.is_ok() {
            f.last_good = Some((t, fields));
        }
    }
    if !sim.all_sound(verdict.is_ok()) {
        return Err(verdict.err().unwrap_or_else(|| {
            Error::MassBalance(format!(
                "the mass balance broke by t = {t:.3} s (rank 0 reports the volumes)"
            ))
        }));
    }
    Ok(())
}

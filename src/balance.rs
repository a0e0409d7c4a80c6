//! The water a run must account for, and the check that stops a run whose account does not
//! close: stored water must equal the initial water plus what came in (boundaries, sources,
//! rain) minus what left (boundaries, losses to the ground), within `numerics.max_mass_error`. A run past that bound cannot
//! vouch for its maps, so it stops and says when, by how much and where the water moved.

use crate::error::Error;
use crate::scenario::model::{BcKind, Model};

/// The volumes (m³) of a run's account at one time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Balance {
    pub initial: f64,
    /// Through the domain edge, sources and level lines, in and out.
    pub inflow: f64,
    pub outflow: f64,
    pub rain: f64,
    /// Lost to the ground (`[losses]`).
    pub losses: f64,
    pub storage: f64,
}

impl Balance {
    /// Stored water less the water accounted for.
    pub fn excess(&self) -> f64 {
        self.storage - (self.initial + self.inflow - self.outflow + self.rain - self.losses)
    }

    /// (final − initial − in + out − rain + losses) / (initial + in + rain).
    pub fn error_rel(&self) -> f64 {
        self.excess() / (self.initial + self.inflow + self.rain).max(1e-300)
    }
}

/// Ok while the account closes within the scenario's bound; else the error that stops the
/// run, naming the time, the volumes and the forcing that moved them.
pub fn check(model: &Model, t: f64, b: &Balance) -> Result<(), Error> {
    let bound = model.numerics.max_mass_error;
    let error = b.error_rel();
    if error.abs() <= bound {
        return Ok(());
    }
    let mut message = format!(
        "the mass balance broke by t = {t:.3} s: the domain holds {:.6e} m³ where {:.6e} m³ are accounted for (initial {:.4e}, in {:.4e}, out {:.4e}, rain {:.4e}, losses {:.4e}); relative error {error:.2e} exceeds numerics.max_mass_error = {bound:.0e}",
        b.storage,
        b.storage - b.excess(),
        b.initial,
        b.inflow,
        b.outflow,
        b.rain,
        b.losses,
    );
    message += &format!("; {}", forcing_report(model, t, b));
    if error.is_nan() {
        message += "; the volumes are not numbers";
    }
    Err(Error::MassBalance(message))
}

/// What each forcing brought by time t, from its series: the hydrographs of inflow
/// segments and sources, and the rest of the counted exchange (stage edges and lines, open
/// edges), largest first.
fn forcing_report(model: &Model, t: f64, b: &Balance) -> String {
    let mut known: Vec<(String, f64)> = Vec::new();
    let mut add = |series: u32, share: f64| {
        if let Some(s) = model.series.get(series as usize) {
            let volume = share * s.integral(model.t_start, t);
            match known.iter_mut().find(|(name, _)| *name == s.name) {
                Some(entry) => entry.1 += volume,
                None => known.push((s.name.clone(), volume)),
            }
        }
    };
    let mut seen = Vec::new();
    for def in &model.bc_defs {
        if def.kind == BcKind::Inflow as u32 && !seen.contains(&def.series) {
            seen.push(def.series);
            add(def.series, 1.0);
        }
    }
    for source in model.sources.iter().filter(|s| !s.level) {
        add(source.series, source.fraction);
    }
    let hydrographs: f64 = known.iter().map(|(_, v)| v).sum();
    known.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let mut parts: Vec<String> = known
        .iter()
        .map(|(name, v)| format!("`{name}` {v:.4e} m³"))
        .collect();
    parts.push(format!(
        "stage edges and lines and open edges {:.4e} m³ in, {:.4e} m³ out",
        b.inflow - hydrographs,
        b.outflow
    ));
    format!("water moved by: {}", parts.join(", "))
}

/// A block's place in map coordinates, for messages.
pub fn place_of_block(model: &Model, block: Option<u32>) -> String {
    let Some(info) = block.and_then(|b| model.grid.blocks.get(b as usize)) else {
        return "a block of another rank".into();
    };
    let cell = model.cell_size * (1u64 << info.level) as f64;
    let size = crate::grid::BLOCK as f64 * cell;
    let x0 = model.origin.0 + info.i0 as f64 * cell;
    let y0 = model.origin.1 + info.j0 as f64 * cell;
    format!(
        "block {} (level {}), x {x0:.1} to {:.1}, y {y0:.1} to {:.1}",
        block.unwrap_or_default(),
        info.level,
        x0 + size,
        y0 + size
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_is_relative_to_the_water_that_came_in() {
        let b = Balance {
            initial: 100.0,
            inflow: 50.0,
            outflow: 30.0,
            rain: 50.0,
            losses: 0.0,
            storage: 170.2,
        };
        assert!((b.excess() - 0.2).abs() < 1e-12);
        assert!((b.error_rel() - 0.001).abs() < 1e-12);
    }
}

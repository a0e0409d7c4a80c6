//! Forcing no flood can hold: a hydrograph, stage or rain whose peak would drive waves
//! faster than any flood reaches (the kernels' 10 km/s, past which a run counts as
//! unstable). Every forcing bounds the time step by the wave it creates, so such a forcing
//! would not blow the run up but grind it to steps of microseconds; it is refused at load,
//! naming the key, like any other impossible input.

use super::model::{BcKind, Model, Series};
use crate::error::InputError;

/// The wave speed (m/s) past which the kernels report a run as unstable (`MAX_WAVE_SPEED`
/// in `shaders/common.wgsl`): sqrt(g h) is 313 m/s in 10 km of water.
pub const MAX_WAVE_SPEED: f64 = 1.0e4;

/// The time a depth rate `rate` (m/s) takes to fill a cell of `width` m to the depth whose
/// gravity wave crosses the cell in that time: dt sqrt(g rate dt) = width. Infinite
/// without inflow.
pub fn fill_time(rate: f64, width: f64, g: f64) -> f64 {
    if rate <= 0.0 {
        return f64::INFINITY;
    }
    (width / (g * rate).sqrt()).powf(2.0 / 3.0)
}

/// Refuses the model's first forcing whose peak no flood can hold.
pub fn refuse_impossible(model: &Model) -> Result<(), InputError> {
    let g = model.numerics.gravity;
    let peak = |series: u32| {
        model.series.get(series as usize).map_or(0.0, |s: &Series| {
            s.values.iter().cloned().fold(0.0, f64::max)
        })
    };
    let name = |series: u32| {
        model
            .series
            .get(series as usize)
            .map_or(String::new(), |s| s.name.clone())
    };
    for def in &model.bc_defs {
        let value = peak(def.series) * def.scale as f64 + def.offset as f64;
        let speed = match def.kind {
            k if k == BcKind::Inflow as u32 => {
                // Unit discharge q enters at least at critical depth, at sqrt(g h_c).
                let critical = (value * value / g).cbrt();
                (g * critical).sqrt()
            }
            // A level above the datum (the lowest terrain) enters at most critically.
            k if k == BcKind::Stage as u32 => (g * value.max(0.0)).sqrt(),
            _ => continue,
        };
        refuse_faster(&name(def.series), speed, "at the edge")?;
    }
    for s in &model.sources {
        let width = model.cell_size * model.grid.cell_footprint(s.cell).2 as f64;
        let speed = if s.level {
            (g * peak(s.series).max(0.0)).sqrt()
        } else {
            let rate = s.fraction * peak(s.series) / (width * width);
            width / fill_time(rate, width, g)
        };
        refuse_faster(&name(s.series), speed, "in its cells")?;
    }
    for &(series, _) in &model.rain.weights {
        let speed = model.cell_size / fill_time(peak(series), model.cell_size, g);
        refuse_faster(&name(series), speed, "on a cell")?;
    }
    Ok(())
}

fn refuse_faster(key: &str, speed: f64, place: &str) -> Result<(), InputError> {
    if speed <= MAX_WAVE_SPEED {
        return Ok(());
    }
    Err(InputError::new(format!(
        "its peak would drive water at {speed:.3e} m/s {place}, faster than the {MAX_WAVE_SPEED:.0e} m/s no flood reaches: expected a forcing in the key's units (m³/s, m, mm/h)"
    ))
    .at_key(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_time_follows_its_definition() {
        // 1000 mm/h on 1 m cells: after t, depth r t, whose wave crosses 1 m in t.
        let (rate, width, g) = (1.0 / 3600.0, 1.0, 9.81);
        let t = fill_time(rate, width, g);
        assert!((t * (g * rate * t).sqrt() - width).abs() < 1e-12, "{t}");
        assert_eq!(fill_time(0.0, 1.0, g), f64::INFINITY);
    }
}

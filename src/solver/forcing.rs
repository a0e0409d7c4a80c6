//! The forcing series as the kernels read them, and the bounds they put on the time step.
//!
//! Series of volumes (inflow discharges, sources, rain) are used as their mean over each
//! step, so a step adds exactly the series' integral; series that can send a wave into the
//! domain (inflows, stages, level lines) carry their peak over the next steps, from which
//! the stage kernels bound dt before the wave exists (`series_forcing` in
//! `shaders/common.wgsl`).

pub(crate) use crate::scenario::forcing_limits::fill_time;
use crate::scenario::model::{BcKind, Model, Series};

/// In `series_meta[s].y`, above the point count (`SERIES_*` in `shaders/common.wgsl`).
const SERIES_MEAN: u32 = 0x8000_0000;
const SERIES_PEAK: u32 = 0x4000_0000;
const SERIES_COUNT: u32 = 0x3fff_ffff;

/// Per series, how the kernels evaluate it (SERIES_* flags).
fn series_flags(model: &Model) -> Vec<u32> {
    let mut flags = vec![0u32; model.series.len()];
    let mut mark = |series: u32, f: u32| {
        if let Some(x) = flags.get_mut(series as usize) {
            *x |= f;
        }
    };
    for bc in &model.bc_defs {
        match bc.kind {
            k if k == BcKind::Inflow as u32 => mark(bc.series, SERIES_MEAN | SERIES_PEAK),
            k if k == BcKind::Stage as u32 => mark(bc.series, SERIES_PEAK),
            _ => {}
        }
    }
    for s in &model.sources {
        mark(s.series, if s.level { SERIES_PEAK } else { SERIES_MEAN });
    }
    for &(series, _) in &model.rain.weights {
        mark(series, SERIES_MEAN);
    }
    flags
}

/// `series_meta` (first point, point count | flags) and `series_pts` (t as a double-f32
/// pair, value, 0).
pub(crate) fn pack_series(model: &Model) -> (Vec<[u32; 2]>, Vec<[f32; 4]>) {
    let mut meta = Vec::new();
    let mut pts = Vec::new();
    for (s, flags) in model.series.iter().zip(series_flags(model)) {
        debug_assert!(s.times.len() as u64 <= SERIES_COUNT as u64);
        meta.push([pts.len() as u32, s.times.len() as u32 | flags]);
        pts.extend(s.times.iter().zip(&s.values).map(|(&t, &v)| {
            let hi = t as f32;
            [hi, (t - hi as f64) as f32, v as f32, 0.0]
        }));
    }
    (meta, pts)
}

/// The forcing the initial pass reads at time `t` (what `series_forcing` gives a step of
/// length 0): the value, and the peak until dt_max later, which bounds the first step.
pub(crate) fn initial_forcing(model: &Model, t: f64) -> Vec<[f32; 4]> {
    let horizon = t + model.numerics.dt_max;
    model
        .series
        .iter()
        .map(|s| {
            let v = s.at(t) as f32;
            [v, v, peak(s, t, horizon) as f32, 0.0]
        })
        .collect()
}

/// The largest value of `s` over [a, b].
pub fn peak(s: &Series, a: f64, b: f64) -> f64 {
    s.times
        .iter()
        .zip(&s.values)
        .filter(|(&t, _)| t > a && t < b)
        .map(|(_, &v)| v)
        .fold(s.at(a).max(s.at(b)), f64::max)
}

/// The largest step (s) the run may take: `time.dt_max`, and no longer than rain at its
/// heaviest needs to fill a cell of the finest size to a depth whose wave crosses it.
pub(crate) fn dt_max(model: &Model) -> f64 {
    let heaviest = model
        .rain
        .weights
        .iter()
        .filter_map(|&(series, _)| model.series.get(series as usize))
        .flat_map(|s| s.values.iter().copied())
        .fold(0.0, f64::max);
    let g = model.numerics.gravity;
    let filling = fill_time(heaviest, model.cell_size, g);
    model.numerics.dt_max.min(model.numerics.cfl * filling)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(times: &[f64], values: &[f64]) -> Series {
        Series {
            name: "s".into(),
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn peak_sees_a_breakpoint_inside_the_window() {
        let s = series(&[0.0, 1.0, 2.0], &[0.0, 10.0, 0.0]);
        assert_eq!(peak(&s, 0.0, 10.0), 10.0);
        assert_eq!(peak(&s, 0.5, 0.75), 7.5);
        assert_eq!(peak(&s, 3.0, 9.0), 0.0);
    }
}

//! Turns a parsed scenario into a [`Model`], one concept at a time, each in its own module:
//! `terrain` (the frame, the bed, levees, friction), `water` (the start), `boundaries`
//! (edges and lines), `forcing` (sources and rain), `structures` and `weirs`,
//! `observations` (gauges and sections), `settings` (numerics, balancing, output formats)
//! and `schedule` (output times); `frame` places points, lines and polygons on the grid and
//! `refine` builds the grid. Every problem is an [`InputError`] naming the key.

use super::{
    boundaries::*, forcing::*, frame::*, observations::*, schedule::*, settings::*, terrain::*,
    water::*,
};
use crate::error::InputError;
use crate::scenario::model::{
    BcDef, BcKind, Model, Rain, LINE_BEYOND, LINE_OUTSIDE_BED, STRUCTURE_WALL_BED, WALL_BED,
};
use crate::scenario::reference::TimeReference;
use crate::scenario::series::SeriesList;
use crate::scenario::spec::*;
use crate::scenario::{limits, nodata, outflow, refine, segment_lines};
use std::path::Path;

/// Builds the model; `dir` resolves relative paths in the scenario.
pub fn build(spec: &Spec, dir: &Path) -> Result<Model, InputError> {
    let (frame, terrain_raster) = frame(spec, dir)?;
    let mut elevation = terrain(
        &spec.terrain,
        &frame,
        terrain_raster.as_ref().map(|(r, p)| (r, p.as_path())),
    )?;
    let levee_walls = levees(&spec.levees, &frame, &mut elevation, dir)?;
    let weir_walls = super::weirs::walls(&spec.weirs, &frame, &mut elevation, dir)?;
    // Cells the scenario's own walls took out of the domain: a cross-section may cross them.
    let built_walls: std::collections::HashSet<(usize, usize)> = levee_walls
        .iter()
        .flatten()
        .chain(weir_walls.iter().flatten())
        .copied()
        .collect();
    // The walls water passes over by a structure's ends.
    let structure_walls: std::collections::HashSet<usize> = levee_walls
        .iter()
        .zip(&spec.levees)
        .filter(|(_, levee)| levee.crest.is_some())
        .flat_map(|(wall, _)| wall)
        .chain(weir_walls.iter().flatten())
        .map(|&(i, j)| i + frame.nx * j)
        .collect();
    // Nodata (NaN here) lies outside the domain: a wall, never wet, left out of the datum.
    let datum = elevation.iter().cloned().fold(f64::INFINITY, f64::min);
    let mut fine_bed: Vec<f32> = crate::parallel::map(elevation.len(), |k| {
        let z = elevation[k];
        if structure_walls.contains(&k) {
            STRUCTURE_WALL_BED
        } else if z.is_nan() {
            WALL_BED
        } else {
            (z - datum) as f32
        }
    });
    let reference = spec
        .time
        .reference
        .as_ref()
        .map(|r| TimeReference::from_toml(r).map_err(|m| bad("time.reference", m)))
        .transpose()?;
    let mut series_list = SeriesList::new(reference);
    let boundary = segment_lines::resolve(&spec.boundary, &frame, dir)?;
    let (mut bc_edge, mut bc_defs) = boundaries(&boundary, &frame, datum, dir, &mut series_list)?;
    nodata::segments(&boundary, &bc_edge, &frame, &elevation)?;
    let gauges = gauges(&spec.gauges, &frame)?;
    nodata::gauges(&gauges, &frame, &elevation)?;
    let mut source_cells = sources(&spec.sources, &frame, &elevation, dir, &mut series_list)?;
    source_cells.extend(level_lines(
        &boundary.lines,
        &frame,
        &elevation,
        datum,
        dir,
        &mut series_list,
    )?);
    for k in beyond_lines(&source_cells, &frame, &elevation) {
        // Not the walls of weirs and crested levees, which stay dry banks.
        if fine_bed[k] == WALL_BED {
            fine_bed[k] = LINE_OUTSIDE_BED;
        }
    }
    walls_beyond_lines(&source_cells, &frame, &mut bc_edge, &mut bc_defs);
    let mut grid = refine::grid(spec, &frame, &elevation, &bc_edge, &bc_defs, &gauges, dir)?;
    if let Some(why) = limits::stored_too_large(frame.nx, frame.ny, grid.stored_cells()) {
        let key = match spec.terrain {
            TerrainSpec::Raster { .. } => "terrain.cell_size",
            _ => "domain.nx",
        };
        return Err(bad(key, why));
    }
    mark_forced_blocks(&mut grid, &bc_edge, &bc_defs);
    let crossings = super::structures::Crossings {
        culverts: &spec.culverts,
        weirs: &spec.weirs,
        levees: &spec.levees,
        levee_walls: &levee_walls,
        weir_walls: &weir_walls,
    };
    let structures =
        super::structures::build(crossings, &frame, &mut grid, &elevation, datum, dir)?;
    let sources = stored_sources(&mut grid, &source_cells);
    // Coarse cells take the mean of the finest terrain they cover.
    let mut bed = grid.to_storage(&fine_bed, WALL_BED);
    let points = storage_points(&grid, &frame);
    let (depth, hu, hv) = initial(&spec.initial, &points, &frame, &grid, datum, &mut bed, dir)?;
    let fine_manning = friction(&spec.friction, &frame, dir)?;
    outflow::refuse_frictionless(&boundary.segments, &bc_edge, &frame, &fine_manning)?;
    refuse_frictionless_lines(&source_cells, &frame, &fine_manning)?;
    let manning = grid.to_storage(&fine_manning, 0.0);
    let losses = match &spec.losses {
        Some(l) => super::losses::build(l, &frame, &grid, dir)?,
        None => Default::default(),
    };
    let rain = match &spec.rain {
        Some(r) => rain(r, &grid, &frame, &points, &bed, dir, &mut series_list)?,
        None => Rain::default(),
    };
    let numerics = numerics(spec)?;
    let sections = sections(&spec.sections, &frame, dir)?;
    nodata::sections(&sections, &frame, &elevation, &built_walls)?;
    let (output_times, gauge_times) = schedule(
        &spec.time,
        !gauges.is_empty() || !sections.is_empty() || !structures.is_empty(),
    )?;
    let model = Model {
        name: spec.name.clone().unwrap_or_else(|| "scenario".into()),
        grid,
        cell_size: frame.dx,
        origin: frame.origin,
        crs: frame.crs.clone(),
        datum,
        bed,
        depth,
        hu,
        hv,
        manning,
        losses,
        structures,
        bc_edge,
        bc_defs,
        series: series_list.into_series(),
        rain,
        gauges,
        sources,
        sections,
        numerics,
        t_start: spec.time.start,
        t_end: spec.time.end,
        peak_clock: super::maxima::PeakClock::new(spec.time.start, spec.time.end),
        time_reference: reference,
        output_times,
        gauge_times,
        write_rasters: spec.output.rasters,
        write_png: spec.output.png,
        write_check: spec.output.check.unwrap_or(spec.output.rasters),
        write_netcdf: netcdf(&spec.output)?,
        netcdf_asked: spec.output.netcdf == Some(true),
        write_animation: spec.output.png && spec.output.animation,
        raster_format: raster_format(&spec.output)?,
        resume: None,
        scenario_keys: Vec::new(),
        resolved_scenario: String::new(),
        input_files: Vec::new(),
        partition: spec
            .parallel
            .partition
            .as_deref()
            .unwrap_or("hilbert")
            .parse()
            .map_err(|m: String| bad("parallel.partition", m))?,
        balance: spec
            .load_balancing
            .as_ref()
            .filter(|b| b.enabled != Some(false))
            .map(balance_settings)
            .transpose()?,
    };
    super::forcing_limits::refuse_impossible(&model)?;
    Ok(model)
}

/// The cells across from the inner neighbours of the cells of open, normal-depth and
/// rating lines, where the water those lines let out leaves: (i, j), which may lie past
/// the rectangle by one.
fn outside_lines(lines: &[SourceCells]) -> impl Iterator<Item = (i64, i64)> + '_ {
    let steps = [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)];
    lines.iter().flat_map(move |line| {
        line.cells
            .iter()
            .zip(&line.inner)
            .map(move |(&(i, j), &side)| {
                let (di, dj) = steps[side as usize - 1];
                (i as i64 - di, j as i64 - dj)
            })
    })
}

/// Of those, the nodata cells (row-major indices).
fn beyond_lines(lines: &[SourceCells], frame: &Frame, elevation: &[f64]) -> Vec<usize> {
    let (nx, ny) = (frame.nx as i64, frame.ny as i64);
    outside_lines(lines)
        .filter(|&(i, j)| i >= 0 && j >= 0 && i < nx && j < ny)
        .map(|(i, j)| (i + nx * j) as usize)
        .filter(|&k| elevation[k].is_nan())
        .collect()
}

/// Those past the rectangle, where a wall edge's ghosts would mirror the line's cells:
/// their edge cells take a wall whose ghosts go on from the line (`LINE_BEYOND`).
fn walls_beyond_lines(
    lines: &[SourceCells],
    frame: &Frame,
    bc_edge: &mut [u32],
    bc_defs: &mut Vec<BcDef>,
) {
    let (nx, ny) = (frame.nx as i64, frame.ny as i64);
    // Edge entries: west and east by row, then south and north by column (edge_offsets).
    let entry = |i: i64, j: i64| match (i, j) {
        (-1, j) => Some(j),
        (i, j) if i == nx => Some(ny + j),
        (i, -1) => Some(2 * ny + i),
        (i, j) if j == ny => Some(2 * ny + nx + i),
        _ => None,
    };
    let beyond = BcDef {
        series: LINE_BEYOND,
        ..BcDef::plain(BcKind::Wall)
    };
    for k in outside_lines(lines).filter_map(|(i, j)| entry(i, j)) {
        let k = k as usize;
        if bc_defs[bc_edge[k] as usize].kind != BcKind::Wall as u32 {
            continue;
        }
        let id = match bc_defs.iter().position(|d| *d == beyond) {
            Some(id) => id,
            None => {
                bc_defs.push(beyond);
                bc_defs.len() - 1
            }
        };
        bc_edge[k] = id as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::ascii_grid::Raster;

    #[test]
    fn rasters_are_averaged_down_and_interpolated_up() {
        // A plane z = x + 2y on 1 m cells, 8 x 6.
        let mut r = Raster::new(8, 6, 0.0, 0.0, 1.0, None, 0.0);
        for row in 0..6 {
            for col in 0..8 {
                r.set(col, row, (col as f64 + 0.5) + 2.0 * (row as f64 + 0.5));
            }
        }
        let coarse = Frame {
            nx: 4,
            ny: 3,
            dx: 2.0,
            origin: (0.0, 0.0),
            crs: None,
        };
        let z = resample(&r, &coarse);
        // The mean of a plane over a cell is its value at the centre.
        assert_eq!(z[1 + 4 * 2], 3.0 + 2.0 * 5.0);
        let fine = Frame {
            nx: 16,
            ny: 12,
            dx: 0.5,
            origin: (0.0, 0.0),
            crs: None,
        };
        let z = resample(&r, &fine);
        let (i, j) = (5, 7);
        let (x, y) = ((i as f64 + 0.5) * 0.5, (j as f64 + 0.5) * 0.5);
        assert!(
            (z[i + 16 * j] - (x + 2.0 * y)).abs() < 1e-12,
            "bilinear is exact on a plane"
        );
        let same = Frame {
            nx: 8,
            ny: 6,
            dx: 1.0,
            origin: (0.0, 0.0),
            crs: None,
        };
        assert_eq!(resample(&r, &same), r.data);
    }

    #[test]
    fn level_and_bed_add_up_exactly() {
        // The last pair has no exact depth on its own bed: a rounding tie in every sum.
        for (level, bed) in [
            (10.0f32, 0.1f32),
            (1.0, 0.3),
            (123.456, 7.89),
            (0.5, 0.49999),
            (1.2978085, 0.262932),
        ] {
            let (h, z) = depth_for_level(level, bed);
            assert_eq!(h + z, level, "level {level} bed {bed}");
            assert!((h - (level - bed)).abs() <= 4.0 * f32::EPSILON * level);
            assert!((z - bed).abs() <= f32::EPSILON * bed);
        }
        assert!(exact_depth(1.2978085, 0.262932).is_none());
        assert_eq!(depth_for_level(1.0, 2.0), (0.0, 2.0));
    }

    #[test]
    fn a_dry_start_is_all_zero_and_a_velocity_alone_is_still_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dry.toml");
        let base = "[domain]\ncell_size = 1.0\nnx = 40\nny = 24\n[terrain]\ntype = \"flat\"\n[time]\nend = 1.0\n";
        std::fs::write(&path, base).unwrap();
        let m = crate::scenario::load(&path).unwrap();
        assert!(m.depth.iter().chain(&m.hu).chain(&m.hv).all(|&v| v == 0.0));
        std::fs::write(&path, format!("{base}[initial]\nu = \"speed * 2\"\n")).unwrap();
        let e = crate::scenario::load(&path).unwrap_err().to_string();
        assert!(e.contains("initial.u"), "{e}");
    }
}

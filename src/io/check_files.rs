//! The model as built, for an engineer to check in a GIS before trusting its results (as
//! TUFLOW's `_check` folder): maps in `check/` of the bed the solver uses (coarse cells
//! averaged, walls and crested levees as nodata, relative to the datum put back),
//! Manning's n, each cell's refinement level, the cells that boundaries, sources and level
//! lines act on, and the loss parameters (`losses`, with `[losses]` only).
//! Written when the run starts, in the run's raster format, on the finest grid.

use crate::grid::CELLS_PER_BLOCK;
use crate::io::outputs::{Band, Maps};
use crate::io::writer::write_maps;
use crate::scenario::losses::LossModel;
use crate::scenario::model::{BcKind, Model, RasterFormat};
use std::path::{Path, PathBuf};

/// The folder, inside the output folder.
pub const CHECK_DIR: &str = "check";
/// The maps it holds (their stems).
pub const CHECK_MAPS: [&str; 4] = ["bed", "manning_n", "block_level", "forcing_cells"];

/// Codes of `forcing_cells`: what acts on a cell (a source or line wins over an edge).
pub const FORCING_CODES: &str =
    "0 none or wall, 1 open edge, 2 inflow edge, 3 stage edge, 4 source, 5 stage, outfall, open, normal-depth or rating line, 6 normal-depth edge, 7 rating edge, 8 culvert, weir or crested levee end";
const OPEN_EDGE: f64 = 1.0;
const INFLOW_EDGE: f64 = 2.0;
const STAGE_EDGE: f64 = 3.0;
const SOURCE: f64 = 4.0;
const LEVEL_LINE: f64 = 5.0;
const NORMAL_DEPTH_EDGE: f64 = 6.0;
const RATING_EDGE: f64 = 7.0;
const STRUCTURE_END: f64 = 8.0;

/// Writes the check maps into `dir/check`; returns the files.
pub fn write(dir: &Path, model: &Model, maps: &Maps) -> std::io::Result<Vec<PathBuf>> {
    let check = dir.join(CHECK_DIR);
    std::fs::create_dir_all(&check)?;
    let manning = model.domain(&model.manning);
    let levels = block_levels(model);
    let forcing = forcing_cells(model);
    let (bed, datum) = (&maps.bed, model.datum);
    let map = |name: &str, band| maps.task(&check, model, name.into(), band);
    let (first, second) = loss_parameters(model);
    let mut tasks = vec![
        map(
            CHECK_MAPS[0],
            Band::new("bed elevation as the solver uses it", "m", move |c| {
                Some(bed[c] as f64 + datum)
            }),
        ),
        map(
            CHECK_MAPS[1],
            Band::new("Manning's n", "s/m^(1/3)", |c| Some(manning[c] as f64)),
        ),
        map(
            CHECK_MAPS[2],
            Band::new("refinement level (0 finest)", "level", |c| Some(levels[c])),
        ),
        map(
            CHECK_MAPS[3],
            Band::new(FORCING_CODES, "code", |c| Some(forcing[c])),
        ),
    ];
    if let Some(model_kind) = model.losses.model {
        let bands = match model_kind {
            LossModel::InitialContinuing => [("initial loss", "mm"), ("continuing loss", "mm/h")],
            LossModel::GreenAmpt => [
                ("Green-Ampt saturated conductivity K", "mm/h"),
                ("Green-Ampt suction head x moisture deficit", "mm"),
            ],
        };
        let (first, second) = (&first, &second);
        let first = Band::new(bands[0].0, bands[0].1, move |c| Some(first[c]));
        let second = Band::new(bands[1].0, bands[1].1, move |c| Some(second[c]));
        // An ESRI ASCII grid holds one band: the second parameter has a file of its own
        // (`losses_2`), where the ASCII format wrote the first alone.
        if model.raster_format == RasterFormat::Ascii {
            tasks.push(maps.task(&check, model, LOSSES_MAP.into(), first));
            tasks.push(maps.task(&check, model, LOSSES_SECOND_MAP.into(), second));
        } else {
            tasks.push(maps.task_bands(&check, model, LOSSES_MAP.into(), vec![first, second]));
        }
    }
    write_maps(bed.len(), tasks)
}

/// The check map of the loss parameters, with `[losses]` only.
pub const LOSSES_MAP: &str = "losses";
/// Its second parameter's own map, in the ASCII format.
pub const LOSSES_SECOND_MAP: &str = "losses_2";

/// Each finest cell's two loss parameters in the units the scenario gives them (mm and
/// mm/h); empty without losses.
fn loss_parameters(model: &Model) -> (Vec<f64>, Vec<f64>) {
    let Some(kind) = model.losses.model else {
        return (Vec::new(), Vec::new());
    };
    let (to_first, to_second) = match kind {
        LossModel::InitialContinuing => (1e3, 3.6e6),
        LossModel::GreenAmpt => (3.6e6, 1e3),
    };
    let stored = model.grid.stored_cells();
    let pick = |i: usize, scale: f64| -> Vec<f64> {
        let values: Vec<f32> = (0..stored).map(|k| model.losses.parameters(k)[i]).collect();
        model
            .domain(&values)
            .into_iter()
            .map(|v| v as f64 * scale)
            .collect()
    };
    (pick(0, to_first), pick(1, to_second))
}

/// Each finest cell's block level.
fn block_levels(model: &Model) -> Vec<f64> {
    let grid = &model.grid;
    let stored: Vec<f32> = (0..grid.stored_cells())
        .map(|k| grid.blocks[k / CELLS_PER_BLOCK].level as f32)
        .collect();
    model.domain(&stored).into_iter().map(f64::from).collect()
}

/// Each finest cell's forcing code (`FORCING_CODES`).
fn forcing_cells(model: &Model) -> Vec<f64> {
    let (nx, ny) = (model.nx(), model.ny());
    let mut codes = vec![0.0; nx * ny];
    let kind = |entry: u32| {
        let kind = model.bc_defs.get(entry as usize).map(|d| d.kind);
        match kind {
            Some(k) if k == BcKind::Open as u32 => OPEN_EDGE,
            Some(k) if k == BcKind::Inflow as u32 => INFLOW_EDGE,
            Some(k) if k == BcKind::Stage as u32 => STAGE_EDGE,
            Some(k) if k == BcKind::NormalDepth as u32 => NORMAL_DEPTH_EDGE,
            Some(k) if k == BcKind::Rating as u32 => RATING_EDGE,
            _ => 0.0,
        }
    };
    let [west, east, south, north] = model.edge_offsets().map(|o| o as usize);
    // A corner cell lies on two edges: it shows the one that forces it.
    let mut set = |c: usize, entry: u32| codes[c] = f64::max(codes[c], kind(entry));
    for j in 0..ny {
        set(j * nx, model.bc_edge[west + j]);
        set(j * nx + nx - 1, model.bc_edge[east + j]);
    }
    for i in 0..nx {
        set(i, model.bc_edge[south + i]);
        set((ny - 1) * nx + i, model.bc_edge[north + i]);
    }
    let mut stored = vec![0.0f32; model.grid.stored_cells()];
    for s in &model.sources {
        stored[s.cell] = if s.level { LEVEL_LINE } else { SOURCE } as f32;
    }
    for end in model.structures.iter().flat_map(|s| &s.ends) {
        for &k in &end.cells {
            stored[k] = STRUCTURE_END as f32;
        }
    }
    for (code, source) in codes.iter_mut().zip(model.domain(&stored)) {
        if source > 0.0 {
            *code = source as f64;
        }
    }
    codes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_named_are_the_codes_written() {
        for (code, name) in [
            (OPEN_EDGE, "open edge"),
            (INFLOW_EDGE, "inflow edge"),
            (STAGE_EDGE, "stage edge"),
            (SOURCE, "source"),
            (
                LEVEL_LINE,
                "stage, outfall, open, normal-depth or rating line",
            ),
            (NORMAL_DEPTH_EDGE, "normal-depth edge"),
            (RATING_EDGE, "rating edge"),
            (STRUCTURE_END, "culvert, weir or crested levee end"),
        ] {
            assert!(
                FORCING_CODES.contains(&format!("{code} {name}")),
                "{code} {name}"
            );
        }
    }
}

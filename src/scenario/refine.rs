//! Where the grid is fine: the `[refinement]` table turned into a block-uniform quadtree.
//!
//! A block at level r is split when any criterion asks for a level below r: the default
//! level, regions forced to a level, terrain relief or slope within the block, or nearness
//! to inflow and stage edges, gauges and initial water. Blocks holding an inflow, stage,
//! normal-depth or rating edge cell are always finest, so imposed discharges and levels
//! fall on whole cells; so are blocks under a levee's crest, which a coarse cell would
//! average away.

use super::boundaries::edge_cells_where;
use super::fields::Shape;
use super::frame::Frame;
use super::model::{BcDef, BcKind, Gauge};
use super::spec::{RefinementSpec, Spec};
use super::water::{region_shape, water_spec, Water1};
use crate::error::InputError;
use crate::grid::quadtree::{self, Footprint};
use crate::grid::{BlockGrid, BLOCK};
use std::path::Path;

/// Per 16×16 tile of finest cells: whatever the criteria need, so that a block at any
/// level is judged from the tiles it covers.
struct Tiles {
    nx: usize,
    ny: usize,
    /// Tiles per row and column.
    tx: usize,
    ty: usize,
    z_min: Vec<f64>,
    z_max: Vec<f64>,
    slope: Vec<f64>,
    /// 1.0 where a tile holds both domain and nodata cells: it must be finest, so no
    /// coarse cell averages terrain with the outside.
    mixed: Vec<f64>,
}

/// Of one 16 × 16 tile of finest cells: (lowest bed, highest bed, steepest slope to the
/// next cell east or north, 1 when it holds both nodata and terrain else 0).
fn tile_stats(frame: &Frame, elevation: &[f64], ti: usize, tj: usize) -> (f64, f64, f64, f64) {
    let (nx, ny) = (frame.nx, frame.ny);
    let (mut z_min, mut z_max, mut slope) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    let mut holes = 0u8;
    for j in tj * BLOCK..((tj + 1) * BLOCK).min(ny) {
        for i in ti * BLOCK..((ti + 1) * BLOCK).min(nx) {
            let z = elevation[i + nx * j];
            holes |= if z.is_nan() { 1 } else { 2 };
            z_min = z_min.min(z);
            z_max = z_max.max(z);
            let mut s: f64 = 0.0;
            if i + 1 < nx {
                s = s.max((elevation[i + 1 + nx * j] - z).abs());
            }
            if j + 1 < ny {
                s = s.max((elevation[i + nx * (j + 1)] - z).abs());
            }
            slope = slope.max(s / frame.dx);
        }
    }
    (z_min, z_max, slope, if holes == 3 { 1.0 } else { 0.0 })
}

impl Tiles {
    fn new(frame: &Frame, elevation: &[f64]) -> Tiles {
        let (nx, ny) = (frame.nx, frame.ny);
        let (tx, ty) = (nx.div_ceil(BLOCK), ny.div_ceil(BLOCK));
        let stats = crate::parallel::map(tx * ty, |k| tile_stats(frame, elevation, k % tx, k / tx));
        Tiles {
            nx,
            ny,
            tx,
            ty,
            z_min: stats.iter().map(|s| s.0).collect(),
            z_max: stats.iter().map(|s| s.1).collect(),
            slope: stats.iter().map(|s| s.2).collect(),
            mixed: stats.iter().map(|s| s.3).collect(),
        }
    }

    /// Tile range (inclusive start, exclusive end) of a footprint grown by `margin` cells.
    fn range(&self, f: &Footprint, margin: usize) -> (usize, usize, usize, usize) {
        let lo = |v: usize| v.saturating_sub(margin) / BLOCK;
        // Saturating: a distance of 1e30 m is a margin of usize::MAX cells (all of the grid).
        let hi = |v: usize, n: usize| (v + f.size).saturating_add(margin).min(n).div_ceil(BLOCK);
        (lo(f.i0), hi(f.i0, self.nx), lo(f.j0), hi(f.j0, self.ny))
    }

    fn fold(
        &self,
        f: &Footprint,
        margin: usize,
        field: &[f64],
        init: f64,
        op: fn(f64, f64) -> f64,
    ) -> f64 {
        let (i0, i1, j0, j1) = self.range(f, margin);
        let mut acc = init;
        for j in j0..j1.min(self.ty) {
            for i in i0..i1.min(self.tx) {
                acc = op(acc, field[i + self.tx * j]);
            }
        }
        acc
    }
}

/// Tiles holding any of the given finest cells, as 1.0 / 0.0.
fn mark(tiles: &Tiles, cells: impl Iterator<Item = (usize, usize)>) -> Vec<f64> {
    let mut m = vec![0.0; tiles.tx * tiles.ty];
    for (i, j) in cells {
        m[i / BLOCK + tiles.tx * (j / BLOCK)] = 1.0;
    }
    m
}

struct Criteria {
    tiles: Tiles,
    default_level: u32,
    regions: Vec<(Shape, u32)>,
    relief: Option<f64>,
    slope: Option<f64>,
    /// Tiles that must be finest, with the margin (cells) around them.
    near: Vec<(Vec<f64>, usize)>,
    forced: Vec<f64>,
    origin: (f64, f64),
    dx: f64,
}

impl Criteria {
    fn split(&self, f: &Footprint) -> bool {
        let t = &self.tiles;
        let any = |m: &[f64], margin| t.fold(f, margin, m, 0.0, f64::max) > 0.0;
        if f.level > self.default_level || any(&self.forced, 0) {
            return true;
        }
        let rect = self.rect(f);
        if self
            .regions
            .iter()
            .any(|(shape, level)| *level < f.level && shape.meets(rect))
        {
            return true;
        }
        if let Some(relief) = self.relief {
            let hi = t.fold(f, 0, &t.z_max, f64::NEG_INFINITY, f64::max);
            let lo = t.fold(f, 0, &t.z_min, f64::INFINITY, f64::min);
            if hi - lo > relief {
                return true;
            }
        }
        if self
            .slope
            .is_some_and(|s| t.fold(f, 0, &t.slope, 0.0, f64::max) > s)
        {
            return true;
        }
        self.near.iter().any(|(m, margin)| any(m, *margin))
    }

    /// The footprint in map coordinates: (x0, y0, x1, y1).
    fn rect(&self, f: &Footprint) -> (f64, f64, f64, f64) {
        let x0 = self.origin.0 + f.i0 as f64 * self.dx;
        let y0 = self.origin.1 + f.j0 as f64 * self.dx;
        let side = f.size as f64 * self.dx;
        (x0, y0, x0 + side, y0 + side)
    }
}

fn positive(value: Option<f64>, key: &str) -> Result<Option<f64>, InputError> {
    match value {
        Some(v) if !(v.is_finite() && v >= 0.0) => {
            Err(InputError::new(format!("expected a non-negative number, found {v}")).at_key(key))
        }
        _ => Ok(value),
    }
}

/// Builds the block grid the scenario asks for.
pub(crate) fn grid(
    spec: &Spec,
    frame: &Frame,
    elevation: &[f64],
    bc_edge: &[u32],
    bc_defs: &[BcDef],
    gauges: &[Gauge],
    dir: &Path,
) -> Result<BlockGrid, InputError> {
    let default = RefinementSpec::default();
    let r = spec.refinement.as_ref().unwrap_or(&default);
    let levels = r.levels.unwrap_or(1);
    if !(1..=12).contains(&levels) {
        return Err(
            InputError::new(format!("expected 1 to 12 levels, found {levels}"))
                .at_key("refinement.levels"),
        );
    }
    if levels == 1 {
        return Ok(BlockGrid::uniform(frame.nx, frame.ny));
    }
    let top = levels as u32 - 1;
    let default_level = r.default_level.unwrap_or(top);
    if default_level > top {
        return Err(InputError::new(format!(
            "expected a level from 0 to {top}, found {default_level}"
        ))
        .at_key("refinement.default_level"));
    }
    let mut regions = Vec::new();
    for (k, region) in r.regions.iter().enumerate() {
        let key = format!("refinement.region[{k}]");
        if region.level > top {
            return Err(InputError::new(format!(
                "expected a level from 0 to {top}, found {}",
                region.level
            ))
            .at_key(format!("{key}.level")));
        }
        regions.push((region_shape(&region.shape_keys(), &key)?, region.level));
    }
    let tiles = Tiles::new(frame, elevation);
    let cells = |d: f64| (d / frame.dx).ceil() as usize;
    let forced_cells = forced_edge_cells(frame, bc_edge, bc_defs);
    let forced = mark(&tiles, forced_cells.iter().copied());
    let mut near = Vec::new();
    if let Some(d) = positive(r.near_inflow, "refinement.near_inflow")? {
        near.push((forced.clone(), cells(d)));
    }
    if let Some(d) = positive(r.near_gauges, "refinement.near_gauges")? {
        near.push((mark(&tiles, gauges.iter().map(|g| g.cell)), cells(d)));
    }
    if let Some(d) = positive(r.near_water, "refinement.near_water")? {
        near.push((
            mark(&tiles, wet_cells(spec, frame, elevation, dir)?.into_iter()),
            cells(d),
        ));
    }
    if let Some(area) = positive(r.channels, "refinement.channels")? {
        if area <= 0.0 {
            return Err(InputError::new(format!(
                "expected an area > 0 m² (drained through a cell), found {area}"
            ))
            .at_key("refinement.channels"));
        }
        near.push((mark(&tiles, channel_cells(frame, elevation, area)), 0));
    }
    near.push((mark(&tiles, crest_cells(spec, frame, dir)?.into_iter()), 0));
    let finest = forced
        .iter()
        .zip(&tiles.mixed)
        .map(|(f, m)| f.max(*m))
        .collect();
    let criteria = Criteria {
        tiles,
        default_level,
        regions,
        relief: positive(r.relief, "refinement.relief")?,
        slope: positive(r.slope, "refinement.slope")?,
        near,
        forced: finest,
        origin: frame.origin,
        dx: frame.dx,
    };
    Ok(quadtree::build(frame.nx, frame.ny, levels, &|f| {
        criteria.split(f)
    }))
}

/// Finest edge cells with an inflow, stage, normal-depth or rating condition.
fn forced_edge_cells(frame: &Frame, bc_edge: &[u32], defs: &[BcDef]) -> Vec<(usize, usize)> {
    let forced = |id: u32| BcKind::imposes_flux(defs[id as usize].kind);
    edge_cells_where(frame.nx, frame.ny, bc_edge, forced)
}

/// Finest cells under a levee with a crest: their blocks stay finest, as a crestless levee's
/// (a wall) do. On a coarse block the crest was averaged with the cells beside it: a 1.5 m
/// crest on a 4 m cell stood 0.375 m high, and a 1 m deep pond poured over it.
fn crest_cells(spec: &Spec, frame: &Frame, dir: &Path) -> Result<Vec<(usize, usize)>, InputError> {
    let mut cells = Vec::new();
    for (k, levee) in spec.levees.iter().enumerate() {
        if levee.crest.is_none() {
            continue;
        }
        cells.extend(super::terrain::levee_cells(levee, k, frame, dir)?);
    }
    Ok(cells)
}

/// Finest cells through which at least `area` (m²) drains.
fn channel_cells(
    frame: &Frame,
    elevation: &[f64],
    area: f64,
) -> impl Iterator<Item = (usize, usize)> {
    let drained =
        super::drainage::upstream_area(frame.nx, frame.ny, elevation, frame.dx * frame.dx);
    let nx = frame.nx;
    (0..drained.len())
        .filter(move |&c| drained[c] >= area)
        .map(move |c| (c % nx, c / nx))
}

/// Finest cells that start wet.
fn wet_cells(
    spec: &Spec,
    frame: &Frame,
    elevation: &[f64],
    dir: &Path,
) -> Result<Vec<(usize, usize)>, InputError> {
    let uniform = BlockGrid::uniform(frame.nx, frame.ny);
    let points: Vec<Option<(f64, f64)>> = frame.cells().map(|(_, x, y)| Some((x, y))).collect();
    let water = water_spec(&spec.initial, &points, frame, &uniform, dir)?;
    Ok(water
        .iter()
        .enumerate()
        .filter(|(c, w)| match w {
            Some((Water1::Level(level), _, _)) => *level > elevation[*c],
            Some((Water1::Depth(depth), _, _)) => *depth > 0.0,
            None => false,
        })
        .map(|(c, _)| (c % frame.nx, c / frame.nx))
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::scenario::from_str;
    use std::path::Path;

    fn grid_of(refinement: &str) -> crate::grid::BlockGrid {
        let toml = format!(
            "[domain]\ncell_size = 1.0\nnx = 256\nny = 256\n[terrain]\ntype = \"expression\"\n\
             expression = \"max(0, 0.05*(x-128))\"\n[[gauge]]\nname = \"g\"\nx = 20.0\ny = 230.0\n\
             [refinement]\nlevels = 3\n{refinement}\n[time]\nend = 1.0\n"
        );
        from_str(&toml, Path::new(".")).unwrap().grid
    }

    /// The level of the block holding finest cell (i, j).
    fn level_at(g: &crate::grid::BlockGrid, i: usize, j: usize) -> u32 {
        g.blocks[g.block_of_cell(i, j)].level
    }

    #[test]
    fn criteria_refine_where_they_should() {
        let plain = grid_of("");
        assert_eq!(
            plain.blocks_per_level(),
            vec![0, 0, 16],
            "nothing asks for refinement"
        );
        let relief = grid_of("relief = 1.0");
        // The slope rises 0.05 m per m east of x = 128: a 16 m block spans 0.8 m.
        assert_eq!(level_at(&relief, 10, 10), 2);
        assert_eq!(level_at(&relief, 200, 100), 0);
        let slope = grid_of("slope = 0.01");
        assert_eq!(level_at(&slope, 200, 100), 0);
        assert_eq!(level_at(&slope, 10, 100), 2);
        let gauges = grid_of("near_gauges = 5.0");
        assert_eq!(level_at(&gauges, 20, 230), 0);
        assert_eq!(level_at(&gauges, 200, 20), 2);
        let region = grid_of("[[refinement.region]]\nshape = \"rectangle\"\nmin = [0.0, 0.0]\nmax = [40.0, 40.0]\nlevel = 1");
        assert_eq!(level_at(&region, 10, 10), 1);
        let default = grid_of("default_level = 1");
        assert_eq!(default.blocks_per_level(), vec![0, 64, 0]);
    }

    #[test]
    fn channels_are_finest_where_much_drains_through() {
        // A valley along y = 128 falling west: its floor gathers the slopes on either side.
        let toml =
            "[domain]\ncell_size = 1.0\nnx = 256\nny = 256\n[terrain]\ntype = \"expression\"\n\
             expression = \"0.05*abs(y-128) + 0.01*x\"\n[refinement]\nlevels = 3\n\
             channels = 5000.0\n[time]\nend = 1.0\n";
        let g = from_str(toml, Path::new(".")).unwrap().grid;
        assert_eq!(level_at(&g, 40, 127), 0, "the valley floor");
        assert_eq!(level_at(&g, 200, 240), 2, "a hillslope drains little");
        let fine = g.blocks_per_level()[0];
        assert!(fine > 0 && fine < 64, "{fine} finest blocks of 256");
    }
}

//! The edges and lines that water crosses: edge kinds and segments (inflow, stage, normal
//! depth, rating), and stage, outfall, open, normal-depth and rating lines anywhere.

use super::{forcing::*, frame::*};
use crate::error::InputError;
use crate::grid::{BlockGrid, BLOCK_ALWAYS_ACTIVE, NONE};
use crate::io::vector::Want;
use crate::scenario::model::{BcDef, BcKind, Series};
use crate::scenario::series::{self, Quantity, SeriesList};
use crate::scenario::spec::*;
use crate::scenario::{nodata, outflow};
use std::path::Path;

#[derive(Clone, Copy)]
pub(crate) enum Edge {
    West,
    East,
    South,
    North,
}

impl Edge {
    fn parse(name: &str, key: &str) -> Result<Edge, InputError> {
        match name {
            "west" => Ok(Edge::West),
            "east" => Ok(Edge::East),
            "south" => Ok(Edge::South),
            "north" => Ok(Edge::North),
            other => Err(bad(
                key,
                format!("expected west, east, south or north, found {other:?}"),
            )),
        }
    }
    const ALL: [Edge; 4] = [Edge::West, Edge::East, Edge::South, Edge::North];
}

pub(crate) fn edge_kind(name: &str, key: &str) -> Result<BcKind, InputError> {
    match name {
        "wall" => Ok(BcKind::Wall),
        "open" => Ok(BcKind::Open),
        other => Err(bad(
            key,
            format!("expected \"wall\" or \"open\" (inflow, stage, normal_depth and rating go in [[boundary.segment]]), found {other:?}"),
        )),
    }
}

/// Edge cell arrays (west, east, south, north) of boundary-condition indices.
pub(crate) fn boundaries(
    spec: &BoundarySpec,
    frame: &Frame,
    datum: f64,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<(Vec<u32>, Vec<BcDef>), InputError> {
    let mut defs = vec![BcDef::plain(BcKind::Wall), BcDef::plain(BcKind::Open)];
    let default = edge_kind(
        spec.default.as_deref().unwrap_or("wall"),
        "boundary.default",
    )?;
    let mut edges: Vec<Vec<u32>> = Vec::new();
    for (edge, name, given) in [
        (Edge::West, "west", &spec.west),
        (Edge::East, "east", &spec.east),
        (Edge::South, "south", &spec.south),
        (Edge::North, "north", &spec.north),
    ] {
        let kind = match given {
            Some(k) => edge_kind(k, &format!("boundary.{name}"))?,
            None => default,
        };
        edges.push(vec![kind as u32; edge_length(edge, frame)]);
    }
    for (k, seg) in spec.segments.iter().enumerate() {
        let key = format!("boundary.segment[{k}]");
        let edge = Edge::parse(seg.edge_name(), &format!("{key}.edge"))?;
        let cells = segment_cells(seg, edge, frame, &key)?;
        let def = segment_def(seg, &key, cells.len(), frame.dx, datum, dir, series_list)?;
        defs.push(def);
        let id = (defs.len() - 1) as u32;
        let slot = Edge::ALL
            .iter()
            .position(|e| std::mem::discriminant(e) == std::mem::discriminant(&edge))
            .unwrap();
        refuse_over_inflow(&edges[slot], &cells, &defs, &key)?;
        for c in cells {
            edges[slot][c] = id;
        }
    }
    Ok((edges.concat(), defs))
}

/// A segment over cells of an earlier inflow segment would take them from it, and the
/// inflow's hydrograph would then enter over its other cells only.
pub(crate) fn refuse_over_inflow(
    edge: &[u32],
    cells: &[usize],
    defs: &[BcDef],
    key: &str,
) -> Result<(), InputError> {
    let mut taken = cells
        .iter()
        .map(|&c| edge[c])
        .filter(|&d| defs[d as usize].kind == BcKind::Inflow as u32);
    let Some(inflow) = taken.next() else {
        return Ok(());
    };
    // Definitions 0 and 1 are the plain wall and open edges; segment k is k + 2.
    Err(bad(
        key,
        format!(
            "it covers {} cells of boundary.segment[{}], an inflow, whose discharge would then enter over its other cells only: make the segments meet without overlapping",
            1 + taken.filter(|&d| d == inflow).count(),
            inflow - 2
        ),
    ))
}

pub(crate) fn edge_length(edge: Edge, frame: &Frame) -> usize {
    match edge {
        Edge::West | Edge::East => frame.ny,
        Edge::South | Edge::North => frame.nx,
    }
}

/// Edge cells whose centres lie within [from, to] along the edge.
pub(crate) fn segment_cells(
    seg: &SegmentSpec,
    edge: Edge,
    frame: &Frame,
    key: &str,
) -> Result<Vec<usize>, InputError> {
    let n = edge_length(edge, frame);
    let start = match edge {
        Edge::West | Edge::East => frame.origin.1,
        Edge::South | Edge::North => frame.origin.0,
    };
    let from = seg.from.unwrap_or(f64::NEG_INFINITY);
    let to = seg.to.unwrap_or(f64::INFINITY);
    if from >= to {
        return Err(bad(
            key,
            format!("expected from < to, found from = {from}, to = {to}"),
        ));
    }
    let cells: Vec<usize> = (0..n)
        .filter(|&c| {
            let s = start + (c as f64 + 0.5) * frame.dx;
            s >= from && s <= to
        })
        .collect();
    if cells.is_empty() {
        return Err(bad(
            key,
            format!(
                "the segment [{from}, {to}] holds no cell centre of the {} edge, which runs from {start} to {}",
                seg.edge_name(),
                start + n as f64 * frame.dx
            ),
        ));
    }
    Ok(cells)
}

pub(crate) fn segment_def(
    seg: &SegmentSpec,
    key: &str,
    cells: usize,
    dx: f64,
    datum: f64,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<BcDef, InputError> {
    let mut add = |spec: &SeriesSpec, k: &str, q: Quantity| -> Result<u32, InputError> {
        let s = series::load(spec, k, dir, q, series_list.reference())?;
        series_list.push(s);
        Ok((series_list.len() - 1) as u32)
    };
    // The keys each type reads; the others it refuses.
    let reads: &[&str] = match seg.kind.as_str() {
        "inflow" => &["discharge"],
        "stage" => &["level"],
        "normal_depth" => &["slope"],
        "rating" => &["rating"],
        _ => &[],
    };
    let given = [
        ("discharge", seg.discharge.is_some()),
        ("level", seg.level.is_some()),
        ("slope", seg.slope.is_some()),
        ("rating", seg.rating.is_some()),
    ];
    let unused = given
        .iter()
        .find(|(k, set)| *set && !reads.contains(k))
        .map(|(k, _)| k);
    if let Some(extra) = unused {
        return Err(bad(
            &format!("{key}.{extra}"),
            format!("a {} segment does not use `{extra}`", seg.kind),
        ));
    }
    match seg.kind.as_str() {
        "inflow" => {
            let q = seg
                .discharge
                .as_ref()
                .ok_or_else(|| bad(key, "an inflow segment needs `discharge` (m³/s)"))?;
            let id = add(q, &format!("{key}.discharge"), Quantity::Discharge)?;
            if series_list[id as usize].values.iter().any(|&v| v < 0.0) {
                return Err(bad(
                    &format!("{key}.discharge"),
                    "expected discharge >= 0 m³/s",
                ));
            }
            // Q spreads evenly over the segment's cell faces.
            Ok(BcDef {
                kind: BcKind::Inflow as u32,
                series: id,
                scale: (1.0 / (cells as f64 * dx)) as f32,
                offset: 0.0,
            })
        }
        "stage" => {
            let level = seg
                .level
                .as_ref()
                .ok_or_else(|| bad(key, "a stage segment needs `level` (m)"))?;
            let id = add(level, &format!("{key}.level"), Quantity::Level)?;
            // Relative to the datum in f64, as the initial water is: an f32 level and an
            // f32 datum, each rounded, stood up to 1e-4 m off a lake at rest 1,236 m up,
            // which then flowed (a hunt).
            for v in &mut series_list[id as usize].values {
                *v -= datum;
            }
            Ok(BcDef {
                kind: BcKind::Stage as u32,
                series: id,
                scale: 1.0,
                offset: 0.0,
            })
        }
        "normal_depth" => {
            let slope = seg.slope.ok_or_else(|| {
                bad(
                    key,
                    "a normal_depth segment needs `slope` (the friction slope, m/m, > 0)",
                )
            })?;
            if !(slope > 0.0 && slope.is_finite()) {
                return Err(bad(
                    &format!("{key}.slope"),
                    format!("expected a friction slope > 0 (m/m), found {slope}"),
                ));
            }
            Ok(BcDef {
                kind: BcKind::NormalDepth as u32,
                series: NONE,
                scale: slope as f32,
                offset: 0.0,
            })
        }
        "rating" => {
            let rating = seg.rating.as_ref().ok_or_else(|| {
                bad(
                    key,
                    "a rating segment needs `rating` (discharge in m³/s against water level in m)",
                )
            })?;
            series_list.push(outflow::load_rating(rating, &format!("{key}.rating"), dir, datum)?);
            // Each cell's discharge per metre of edge is Q(its level) / the segment's width.
            Ok(BcDef {
                kind: BcKind::Rating as u32,
                series: (series_list.len() - 1) as u32,
                scale: (1.0 / (cells as f64 * dx)) as f32,
                offset: 0.0,
            })
        }
        "open" => Ok(BcDef::plain(BcKind::Open)),
        "wall" => Ok(BcDef::plain(BcKind::Wall)),
        other => Err(bad(
            &format!("{key}.type"),
            format!("expected \"inflow\", \"stage\", \"normal_depth\", \"rating\", \"open\" or \"wall\", found {other:?}"),
        )),
    }
}

/// Blocks that hold an inflow or stage edge cell are launched every step, dry or not.
pub(crate) fn mark_forced_blocks(grid: &mut BlockGrid, bc_edge: &[u32], defs: &[BcDef]) {
    let forced = |id: u32| {
        let k = defs[id as usize].kind;
        k == BcKind::Inflow as u32 || k == BcKind::Stage as u32
    };
    for (i, j) in edge_cells_where(grid.nx, grid.ny, bc_edge, forced) {
        let b = grid.block_of_cell(i, j);
        grid.blocks[b].flags |= BLOCK_ALWAYS_ACTIVE;
    }
}

/// The edge cells (i, j) of an nx × ny domain whose boundary definition in `bc_edge` (W, E,
/// S, N in turn) passes `keep`.
pub(crate) fn edge_cells_where(
    nx: usize,
    ny: usize,
    bc_edge: &[u32],
    keep: impl Fn(u32) -> bool,
) -> Vec<(usize, usize)> {
    let mut cells = Vec::new();
    for j in 0..ny {
        if keep(bc_edge[j]) {
            cells.push((0, j));
        }
        if keep(bc_edge[ny + j]) {
            cells.push((nx - 1, j));
        }
    }
    for i in 0..nx {
        if keep(bc_edge[2 * ny + i]) {
            cells.push((i, 0));
        }
        if keep(bc_edge[2 * ny + nx + i]) {
            cells.push((i, ny - 1));
        }
    }
    cells
}

/// Level below any terrain: an outfall line holds its cells dry, so water that reaches it
/// leaves the domain.
pub(crate) const OUTFALL_LEVEL: f64 = -1.0e6;

/// Stage and outfall lines inside the domain: the cells they cross hold the line's water
/// level (relative to the datum), taking in or giving up whatever water that needs.
pub(crate) fn level_lines(
    specs: &[BoundaryLineSpec],
    frame: &Frame,
    elevation: &[f64],
    datum: f64,
    dir: &Path,
    series_list: &mut SeriesList,
) -> Result<Vec<SourceCells>, InputError> {
    let mut out = Vec::new();
    for (k, s) in specs.iter().enumerate() {
        let key = format!("boundary.line[{k}]");
        let mut series = match (s.kind.as_str(), &s.level) {
            ("stage", Some(level)) => series::load(
                level,
                &format!("{key}.level"),
                dir,
                Quantity::Level,
                series_list.reference(),
            )?,
            ("stage", None) => return Err(bad(&key, "a stage line needs `level`")),
            ("outfall", None) => Series::constant(&key, OUTFALL_LEVEL),
            // Open and normal-depth lines hold no level: their series is never read.
            ("open" | "normal_depth", None) => Series::constant(&key, 0.0),
            // A rating line's series is its curve, levels already relative to the datum.
            ("rating", None) => line_rating(s, &key, dir, datum)?,
            (kind @ ("outfall" | "open" | "normal_depth" | "rating"), Some(_)) => {
                return Err(bad(
                    &format!("{key}.level"),
                    format!("an {kind} line takes no level"),
                ));
            }
            (other, _) => {
                return Err(bad(
                    &format!("{key}.type"),
                    format!("expected \"stage\", \"outfall\", \"open\", \"normal_depth\" or \"rating\", found {other:?} (inflow lines are [[source]] lines, walls are [[levee]] lines)"),
                ));
            }
        };
        if s.kind != "rating" {
            refuse_rating(s, &key)?;
            series.values.iter_mut().for_each(|v| *v -= datum);
        }
        let line = coords(&s.line, Want::Line, &format!("{key}.line"), dir, frame)?;
        let cells = line_cells(frame, &line, &format!("{key}.line"))?;
        let what = match &s.name {
            Some(n) => format!("{} line {n:?}", s.kind),
            None => format!("the {} line", s.kind),
        };
        let advice = "draw the line on the cells just inside the domain";
        nodata::cells(
            &format!("{key}.line"),
            &what,
            &cells,
            frame,
            elevation,
            advice,
        )?;
        let slope = line_slope(s, &key)?;
        let cells_len = cells.len();
        let inner = match s.kind.as_str() {
            "open" | "normal_depth" | "rating" => {
                open_line_inner(frame, elevation, &cells, &format!("{key}.line"), &s.kind)?
            }
            _ => Vec::new(),
        };
        series_list.push(series);
        out.push(SourceCells {
            series: (series_list.len() - 1) as u32,
            cells,
            level: true,
            inner,
            slope,
            rating_scale: rating_scale(s, cells_len, frame.dx),
            key,
        });
    }
    Ok(out)
}

/// A rating line's curve: discharge of the whole line (m³/s) at each water level.
pub(crate) fn line_rating(
    s: &BoundaryLineSpec,
    key: &str,
    dir: &Path,
    datum: f64,
) -> Result<Series, InputError> {
    let rating = s.rating.as_ref().ok_or_else(|| {
        bad(
            key,
            "a rating line needs `rating` (discharge in m³/s against water level in m)",
        )
    })?;
    super::outflow::load_rating(rating, &format!("{key}.rating"), dir, datum)
}

/// Only a rating line takes a curve.
pub(crate) fn refuse_rating(s: &BoundaryLineSpec, key: &str) -> Result<(), InputError> {
    match s.rating {
        Some(_) => Err(bad(
            &format!("{key}.rating"),
            format!("a {} line takes no rating", s.kind),
        )),
        None => Ok(()),
    }
}

/// 1 / a rating line's length, its cells' widths summed; 0 for any other line.
pub(crate) fn rating_scale(s: &BoundaryLineSpec, cells: usize, dx: f64) -> f64 {
    if s.kind == "rating" {
        1.0 / (cells as f64 * dx)
    } else {
        0.0
    }
}

/// A normal-depth line passes h^(5/3) √S / n: Manning's n must be > 0 on every cell of it,
/// as on a normal-depth edge (with n = 0 the line would pass critical flow, silently).
pub(crate) fn refuse_frictionless_lines(
    lines: &[SourceCells],
    frame: &Frame,
    manning: &[f32],
) -> Result<(), InputError> {
    for line in lines.iter().filter(|l| l.slope > 0.0) {
        let bare = line
            .cells
            .iter()
            .find(|&&(i, j)| manning[i + frame.nx * j] <= 0.0);
        if let Some(&(i, j)) = bare {
            let (x, y) = frame.centre(i, j);
            return Err(InputError::new(format!(
                "a normal-depth line needs friction: Manning's n is 0 in its cell at ({x}, {y}); expected n > 0 on every cell of the line (see [friction])"
            ))
            .at_key(line.key.clone()));
        }
    }
    Ok(())
}

/// A normal-depth line's friction slope (> 0), and 0 for any other line, which takes none.
pub(crate) fn line_slope(s: &BoundaryLineSpec, key: &str) -> Result<f64, InputError> {
    match (s.kind.as_str(), s.slope) {
        ("normal_depth", Some(slope)) if slope.is_finite() && slope > 0.0 => Ok(slope),
        ("normal_depth", Some(slope)) => Err(bad(
            &format!("{key}.slope"),
            format!("expected a friction slope > 0 (m/m), found {slope}"),
        )),
        ("normal_depth", None) => Err(bad(key, "a normal_depth line needs `slope`")),
        (kind, Some(_)) => Err(bad(
            &format!("{key}.slope"),
            format!("a {kind} line takes no slope"),
        )),
        _ => Ok(0.0),
    }
}

/// The neighbour an open line's cell takes its state from: `OPEN_WEST` .. `OPEN_NORTH`, in
/// that order of preference.
pub(crate) const OPEN_WEST: u8 = 1;

pub(crate) const OPEN_NORTH: u8 = 4;

/// For each cell of an open line (or a normal-depth or rating line, `kind`), the side of
/// the neighbour whose state it copies (zero gradient): a valid cell off the line whose
/// opposite neighbour lies outside the domain (nodata or past the rectangle), so that the
/// water the line takes leaves across the domain's edge. A cell with no such neighbour is
/// refused: such a line runs along the edge of the domain, on the cells just inside it.
pub(crate) fn open_line_inner(
    frame: &Frame,
    elevation: &[f64],
    cells: &[(usize, usize)],
    key: &str,
    kind: &str,
) -> Result<Vec<u8>, InputError> {
    let (nx, ny) = (frame.nx as i64, frame.ny as i64);
    let on_line: std::collections::HashSet<(usize, usize)> = cells.iter().copied().collect();
    let valid = |i: i64, j: i64| {
        i >= 0 && j >= 0 && i < nx && j < ny && !elevation[(j * nx + i) as usize].is_nan()
    };
    let sides = [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)];
    cells
        .iter()
        .map(|&(i, j)| {
            let (i, j) = (i as i64, j as i64);
            (OPEN_WEST..=OPEN_NORTH)
                .zip(sides)
                .find(|&(_, (di, dj))| {
                    let off_line = !on_line.contains(&((i + di) as usize, (j + dj) as usize));
                    valid(i + di, j + dj) && off_line && !valid(i - di, j - dj)
                })
                .map(|(side, _)| side)
                .ok_or_else(|| {
                    let (x, y) = frame.centre(i as usize, j as usize);
                    bad(
                        key,
                        format!("{} {kind} line runs along the domain's edge, on the cells just inside it; the cell at ({x:.1}, {y:.1}) has no neighbour outside the domain across from one inside", if kind == "open" { "an" } else { "a" }),
                    )
                })
        })
        .collect()
}

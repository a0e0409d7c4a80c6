//! `[[weir]]`: a crest along a line, over which water passes by the weir equation with
//! Villemonte's submergence correction rather than as the shallow-water flow over a raised
//! bed. The line's cells become a wall (as a levee without crest); every stretch of up to
//! `PIECE_CELLS` of them is a structure of its own (`structures.rs`) whose ends are the
//! cells beside that stretch on either side, so a long weir with a sloping water surface
//! passes water by the head along each stretch.
//!
//! A `[[levee]]` with a crest is a weir too (`levee`), where its crest stands above the
//! ground: as a raised bed, the shallow-water scheme passed about half the weir equation's
//! discharge over a one-cell crest with vertical faces (the hydrostatic reconstruction at
//! a step, whose upstream water reaches the crest at the slow speed of the deep pool), and
//! the head over the crest came out a third to two thirds too high.

use super::frame::{bad, coords, line_cells, Frame};
use super::structures::{Shape, Structure};
use crate::error::InputError;
use crate::io::vector::Want;
use crate::scenario::spec::{Coords, LeveeSpec};
use serde::Deserialize;
use std::collections::HashSet;
use std::path::Path;

/// Wall cells per stretch of a weir.
const PIECE_CELLS: usize = 8;

/// `[[weir]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeirSpec {
    pub name: Option<String>,
    pub line: Coords,
    /// Crest elevation (m, the terrain's datum).
    pub crest: f64,
    /// q = coefficient H^1.5 (m^0.5/s); 1.7 by default (a broad crest: (2/3)^1.5 √g).
    pub coefficient: Option<f64>,
    /// Time (s) over which the discharge relaxes towards the weir equation's.
    pub smoothing: Option<f64>,
}

/// One stretch of a weir: the structure (its ends' cells left empty) and each end's finest
/// cells with the crest (relative to the datum).
pub(crate) struct Piece {
    pub weir: Structure,
    pub ends: [(Vec<(usize, usize)>, f64); 2],
}

/// Takes the cells of every weir line out of the domain (NaN, as nodata) where the crest
/// stands above the ground: water crosses there only by the weir equation. Ground at or
/// above the crest stays ground, as under a levee: counted into the crest's length, it
/// passed a V-shaped valley's weir 30-40% more than its low section could (a hunt). Returns
/// each weir's wall cells, in the line's order.
pub(crate) fn walls(
    specs: &[WeirSpec],
    frame: &Frame,
    elevation: &mut [f64],
    dir: &Path,
) -> Result<Vec<Vec<(usize, usize)>>, InputError> {
    let mut walls = Vec::new();
    for (k, w) in specs.iter().enumerate() {
        let key = format!("weir[{k}].line");
        let line = coords(&w.line, Want::Line, &key, dir, frame)?;
        let mut wall = Vec::new();
        for (i, j) in line_cells(frame, &line, &key)? {
            let z = &mut elevation[i + frame.nx * j];
            if !z.is_nan() && w.crest > *z {
                *z = f64::NAN;
                wall.push((i, j));
            }
        }
        walls.push(wall);
    }
    Ok(walls)
}

/// The stretches of weir `k`, over its `wall` cells (after `walls`): every run of touching
/// wall cells cut into stretches of up to `PIECE_CELLS`, each a structure between the cells
/// beside it, whose crest length is its cells' share of the line's length.
pub(crate) fn build(
    k: usize,
    spec: &WeirSpec,
    wall: &[(usize, usize)],
    frame: &Frame,
    elevation: &[f64],
    datum: f64,
    dir: &Path,
) -> Result<Vec<Piece>, InputError> {
    let key = format!("weir[{k}]");
    if !spec.crest.is_finite() {
        return Err(bad(&format!("{key}.crest"), "expected an elevation (m)"));
    }
    let coefficient = coefficient(spec.coefficient, &key)?;
    let line = coords(&spec.line, Want::Line, &format!("{key}.line"), dir, frame)?;
    if let Some([x, y]) = self_crossing(&line) {
        return Err(bad(
            &format!("{key}.line"),
            format!(
                "the line crosses itself near ({x:.1}, {y:.1}): a crest has two sides; draw \
                 each part as a weir of its own"
            ),
        ));
    }
    let name = spec
        .name
        .clone()
        .unwrap_or_else(|| format!("weir {}", k + 1));
    let weir = Weir {
        name,
        coefficient,
        crest: spec.crest - datum,
        smoothing: super::structures::smoothing(spec.smoothing, &key)?,
    };
    stretches(&weir, wall, &line, &key, frame, elevation, |(i, j)| {
        let (x, y) = frame.centre(i, j);
        Err(bad(
            &key,
            format!("no domain on one side of the line near ({x:.1}, {y:.1}): a weir must part two wet areas"),
        ))
    })
}

/// The stretches of crested levee `k`, whose `wall` cells (in the line's order)
/// `terrain::levees` took out of the domain: every run of touching wall cells is cut into
/// stretches of up to `PIECE_CELLS`, each a weir between the cells beside it; a stretch
/// with domain on one side only (along nodata or the domain's edge) is a plain wall.
pub(crate) fn levee(
    k: usize,
    spec: &LeveeSpec,
    wall: &[(usize, usize)],
    frame: &Frame,
    elevation: &[f64],
    datum: f64,
    dir: &Path,
) -> Result<Vec<Piece>, InputError> {
    let Some(crest) = spec.crest else {
        return Ok(Vec::new());
    };
    let key = format!("levee[{k}]");
    let coefficient = coefficient(spec.coefficient, &key)?;
    let line = coords(&spec.line, Want::Line, &format!("{key}.line"), dir, frame)?;
    let name = spec
        .name
        .clone()
        .unwrap_or_else(|| format!("levee {}", k + 1));
    let weir = Weir {
        name,
        coefficient,
        crest: crest - datum,
        smoothing: super::structures::smoothing(None, &key)?,
    };
    // A stretch with domain on one side only is a plain wall.
    stretches(&weir, wall, &line, &key, frame, elevation, |_| Ok(()))
}

/// What every stretch of one weir or levee shares.
struct Weir {
    name: String,
    coefficient: f64,
    /// Relative to the datum.
    crest: f64,
    smoothing: f64,
}

/// The stretches of `weir` over its `wall` cells (in the line's order): every run of
/// touching wall cells cut into stretches of up to `PIECE_CELLS`, each a structure between
/// the cells beside it, whose crest length is the length of the line within its cells
/// (scaled so that the line's cells hold its whole length). A
/// stretch with domain on one side only is left out where `one_sided` (given its first
/// cell) allows.
fn stretches(
    weir: &Weir,
    wall: &[(usize, usize)],
    line: &[[f64; 2]],
    key: &str,
    frame: &Frame,
    elevation: &[f64],
    one_sided: impl Fn((usize, usize)) -> Result<(), InputError>,
) -> Result<Vec<Piece>, InputError> {
    // The line's cells touch corner to corner, so a slanting line passes through cells
    // beside them too: its length within its own cells is scaled to the whole line.
    let within: f64 = line_cells(frame, line, &format!("{key}.line"))?
        .into_iter()
        .map(|c| length_in_cell(line, frame, c))
        .sum();
    let scale = if within > 0.0 {
        line_length(line) / within
    } else {
        1.0
    };
    let walls: HashSet<(usize, usize)> = wall.iter().copied().collect();
    let mut pieces = Vec::new();
    for run in touching_runs(wall) {
        for stretch in run.chunks(PIECE_CELLS) {
            let [left, right] = sides(stretch, line, &walls, frame, elevation);
            if left.is_empty() || right.is_empty() {
                one_sided(stretch[0])?;
                continue;
            }
            pieces.push(Piece {
                weir: Structure {
                    name: weir.name.clone(),
                    owner: 0,
                    shape: Shape::Weir {
                        coefficient: weir.coefficient,
                    },
                    length: scale
                        * stretch
                            .iter()
                            .map(|&c| length_in_cell(line, frame, c))
                            .sum::<f64>(),
                    manning: 0.0,
                    loss: 0.0,
                    smoothing: weir.smoothing,
                    ends: Default::default(),
                },
                ends: [(left, weir.crest), (right, weir.crest)],
            });
        }
    }
    Ok(pieces)
}

/// `cells` cut where two that follow each other do not touch (a gap where the ground
/// stands above the crest).
fn touching_runs(cells: &[(usize, usize)]) -> Vec<&[(usize, usize)]> {
    let mut runs = Vec::new();
    let mut start = 0;
    for k in 1..=cells.len() {
        let apart = k == cells.len() || {
            let (a, b) = (cells[k - 1], cells[k]);
            a.0.abs_diff(b.0) > 1 || a.1.abs_diff(b.1) > 1
        };
        if apart {
            runs.push(&cells[start..k]);
            start = k;
        }
    }
    runs
}

fn coefficient(given: Option<f64>, key: &str) -> Result<f64, InputError> {
    let coefficient = given.unwrap_or(1.7);
    if !(coefficient.is_finite() && coefficient > 0.0) {
        return Err(bad(
            &format!("{key}.coefficient"),
            format!("expected a weir coefficient > 0 (m^0.5/s), found {coefficient}"),
        ));
    }
    Ok(coefficient)
}

/// The length of `line` within finest cell `(i, j)` (each segment clipped to the cell's
/// square). An even share of the whole line per cell it crosses counted the cells the line
/// only clips at its ends, or over ground above the crest, into the crest: a 20 m channel's
/// weir drawn 22 m long had a crest 4% short (a hunt).
fn length_in_cell(line: &[[f64; 2]], frame: &Frame, (i, j): (usize, usize)) -> f64 {
    let x0 = frame.origin.0 + i as f64 * frame.dx;
    let y0 = frame.origin.1 + j as f64 * frame.dx;
    let (x1, y1) = (x0 + frame.dx, y0 + frame.dx);
    line.windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let d = [b[0] - a[0], b[1] - a[1]];
            // Liang-Barsky: the part of a + t d, t in [0, 1], inside the square.
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for (p, q) in [
                (-d[0], a[0] - x0),
                (d[0], x1 - a[0]),
                (-d[1], a[1] - y0),
                (d[1], y1 - a[1]),
            ] {
                if p == 0.0 {
                    if q < 0.0 {
                        return 0.0;
                    }
                } else if p < 0.0 {
                    lo = lo.max(q / p);
                } else {
                    hi = hi.min(q / p);
                }
            }
            (hi - lo).max(0.0) * d[0].hypot(d[1])
        })
        .sum()
}

fn line_length(line: &[[f64; 2]]) -> f64 {
    line.windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt())
        .sum()
}

/// The domain cells beside a stretch of wall cells, on the left and on the right of the
/// line's direction (4-neighbours, by the nearest segment's direction).
fn sides(
    stretch: &[(usize, usize)],
    line: &[[f64; 2]],
    wall: &HashSet<(usize, usize)>,
    frame: &Frame,
    elevation: &[f64],
) -> [Vec<(usize, usize)>; 2] {
    let mut out = [Vec::new(), Vec::new()];
    for &(i, j) in stretch {
        let (x, y) = frame.centre(i, j);
        let d = nearest_direction(line, [x, y]);
        let beside = [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)];
        for (di, dj) in beside {
            let (ni, nj) = (i as i64 + di, j as i64 + dj);
            if ni < 0 || nj < 0 || ni >= frame.nx as i64 || nj >= frame.ny as i64 {
                continue;
            }
            let n = (ni as usize, nj as usize);
            if wall.contains(&n) || elevation[n.0 + frame.nx * n.1].is_nan() {
                continue;
            }
            let cross = d[0] * dj as f64 - d[1] * di as f64;
            let side = if cross > 0.0 {
                0
            } else if cross < 0.0 {
                1
            } else {
                continue;
            };
            if !out[side].contains(&n) && !out[1 - side].contains(&n) {
                out[side].push(n);
            }
        }
    }
    out
}

/// Where two segments of `line` that do not follow each other cross (a self-crossing weir
/// line made water: the cells around the crossing lie on both sides of it), if they do.
fn self_crossing(line: &[[f64; 2]]) -> Option<[f64; 2]> {
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let segments: Vec<[[f64; 2]; 2]> = line.windows(2).map(|w| [w[0], w[1]]).collect();
    for (i, p) in segments.iter().enumerate() {
        for q in segments.iter().skip(i + 2) {
            let (d1, d2) = (cross(q[0], q[1], p[0]), cross(q[0], q[1], p[1]));
            let (d3, d4) = (cross(p[0], p[1], q[0]), cross(p[0], p[1], q[1]));
            if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
                let t = d1 / (d1 - d2);
                return Some([
                    p[0][0] + t * (p[1][0] - p[0][0]),
                    p[0][1] + t * (p[1][1] - p[0][1]),
                ]);
            }
        }
    }
    None
}

/// The direction of the segment of `line` nearest to `p`.
fn nearest_direction(line: &[[f64; 2]], p: [f64; 2]) -> [f64; 2] {
    let mut best = (f64::INFINITY, [1.0, 0.0]);
    for w in line.windows(2) {
        let d = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
        let len2 = d[0] * d[0] + d[1] * d[1];
        if len2 == 0.0 {
            continue;
        }
        let t = (((p[0] - w[0][0]) * d[0] + (p[1] - w[0][1]) * d[1]) / len2).clamp(0.0, 1.0);
        let q = [w[0][0] + t * d[0], w[0][1] + t * d[1]];
        let dist = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
        if dist < best.0 {
            best = (dist, d);
        }
    }
    best.1
}

#[cfg(test)]
mod length_tests {
    use super::*;

    #[test]
    fn a_line_lies_in_its_cells_by_its_length() {
        let f = Frame {
            nx: 64,
            ny: 64,
            dx: 1.0,
            origin: (0.0, 0.0),
            crs: None,
        };
        let across = [[32.5, 21.0], [32.5, 43.0]];
        assert!((length_in_cell(&across, &f, (32, 30)) - 1.0).abs() < 1e-12);
        assert_eq!(
            length_in_cell(&across, &f, (32, 20)),
            0.0,
            "it starts at y = 21"
        );
        assert_eq!(length_in_cell(&across, &f, (31, 30)), 0.0);
        let slant = [[10.2, 3.7], [40.9, 50.1], [12.3, 60.0]];
        let total: f64 = (0..64)
            .flat_map(|i| (0..64).map(move |j| (i, j)))
            .map(|c| length_in_cell(&slant, &f, c))
            .sum();
        assert!((total - line_length(&slant)).abs() < 1e-9, "{total}");
    }
}

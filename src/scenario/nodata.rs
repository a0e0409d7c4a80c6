//! Forcing and probes lie on the domain. A boundary segment, line or source over nodata
//! cells (outside the domain: walls to the scheme) loses the water it should bring or take
//! there, and a gauge on one reports the wall's bed as its level; so each is refused,
//! naming it, where it is and how many of its cells are nodata.

use super::frame::Frame;
use super::model::{Gauge, Section};
use super::spec::BoundarySpec;
use crate::error::InputError;

/// Refuses `cells` (finest cells, (i, j)) of the thing at `key`, described by `what`, if
/// any is nodata (NaN in `elevation`); `advice` says what to do about it.
pub(crate) fn cells(
    key: &str,
    what: &str,
    cells: &[(usize, usize)],
    frame: &Frame,
    elevation: &[f64],
    advice: &str,
) -> Result<(), InputError> {
    let mut distinct = cells.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let outside: Vec<&(usize, usize)> = distinct
        .iter()
        .filter(|&&(i, j)| elevation[i + frame.nx * j].is_nan())
        .collect();
    let Some(&&(i, j)) = outside.first() else {
        return Ok(());
    };
    let (x, y) = frame.centre(i, j);
    let verb = if outside.len() == 1 { "is" } else { "are" };
    Err(InputError::new(format!(
        "{what}: {} of its {} cells {verb} nodata, outside the domain (the first at ({x}, {y})): {advice}",
        outside.len(),
        distinct.len()
    ))
    .at_key(key))
}

/// Edge segments (`[[boundary.segment]]`), each over the edge cells it holds in `bc_edge`
/// (west, east, south, north; segment k is boundary condition k + 2).
pub(crate) fn segments(
    spec: &BoundarySpec,
    bc_edge: &[u32],
    frame: &Frame,
    elevation: &[f64],
) -> Result<(), InputError> {
    let (nx, ny) = (frame.nx, frame.ny);
    for (k, seg) in spec.segments.iter().enumerate() {
        let id = (k + 2) as u32;
        let (offset, along) = match seg.edge_name() {
            "west" => (0, ny),
            "east" => (ny, ny),
            "south" => (2 * ny, nx),
            _ => (2 * ny + nx, nx),
        };
        let held: Vec<usize> = (0..along).filter(|&c| bc_edge[offset + c] == id).collect();
        let (Some(&first), Some(&last)) = (held.first(), held.last()) else {
            continue;
        };
        let (axis, start) = match seg.edge_name() {
            "west" | "east" => ("y", frame.origin.1),
            _ => ("x", frame.origin.0),
        };
        let what = format!(
            "the {} segment on the {} edge from {axis} = {} to {}",
            seg.kind,
            seg.edge_name(),
            start + first as f64 * frame.dx,
            start + (last + 1) as f64 * frame.dx
        );
        let advice = match seg.kind.as_str() {
            "inflow" => "their share of the discharge would be lost; set `from` and `to` to the part of the edge on the domain",
            _ => "set `from` and `to` to the part of the edge on the domain",
        };
        let cells: Vec<(usize, usize)> = held
            .iter()
            .map(|&c| edge_cell(seg.edge_name(), c, nx, ny))
            .collect();
        self::cells(
            &format!("boundary.segment[{k}]"),
            &what,
            &cells,
            frame,
            elevation,
            advice,
        )?;
    }
    Ok(())
}

/// The finest cell of edge cell `c` along `edge`.
fn edge_cell(edge: &str, c: usize, nx: usize, ny: usize) -> (usize, usize) {
    match edge {
        "west" => (0, c),
        "east" => (nx - 1, c),
        "south" => (c, 0),
        _ => (c, ny - 1),
    }
}

pub(crate) fn gauges(gauges: &[Gauge], frame: &Frame, elevation: &[f64]) -> Result<(), InputError> {
    for (k, g) in gauges.iter().enumerate() {
        let (i, j) = g.cell;
        if elevation[i + frame.nx * j].is_nan() {
            return Err(InputError::new(format!(
                "gauge {:?} at ({}, {}) lies on a nodata cell, outside the domain: it would report the wall's bed as its level; move it onto the domain",
                g.name, g.x, g.y
            ))
            .at_key(format!("gauge[{k}]")));
        }
    }
    Ok(())
}

/// Cross-sections over nodata are refused; one may cross the walls of levees and weirs
/// (`walls`), through which no water passes, as a section across a floodplain crosses its
/// embankments.
pub(crate) fn sections(
    sections: &[Section],
    frame: &Frame,
    elevation: &[f64],
    walls: &std::collections::HashSet<(usize, usize)>,
) -> Result<(), InputError> {
    for (k, s) in sections.iter().enumerate() {
        let samples: Vec<(usize, usize)> = s
            .samples
            .iter()
            .map(|&(c, _)| c)
            .filter(|c| !walls.contains(c))
            .collect();
        cells(
            &format!("cross_section[{k}]"),
            &format!("cross-section {:?}", s.name),
            &samples,
            frame,
            elevation,
            "draw it across the domain only",
        )?;
    }
    Ok(())
}

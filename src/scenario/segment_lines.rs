//! Edge segments drawn as lines: a `[[boundary.segment]]` may give a polyline (inline or a
//! vector feature, as a boundary line does) in place of `edge`, `from` and `to`. The line
//! must run along one edge of the domain's rectangle; the segment is that edge, from the
//! line's first to its last point along it.

use super::frame::{bad, coords, Frame};
use super::spec::{BoundarySpec, SegmentSpec};
use crate::error::InputError;
use crate::io::vector::Want;
use std::path::Path;

/// How far (in cells) a line's points may lie from the edge it is drawn along: a line
/// traced on the edge itself, or on the centres of the cells just inside it, is along it.
const ALONG_EDGE_CELLS: f64 = 1.5;

/// The boundary with every segment drawn as a line turned into edge, from and to.
pub(crate) fn resolve(
    spec: &BoundarySpec,
    frame: &Frame,
    dir: &Path,
) -> Result<BoundarySpec, InputError> {
    let mut out = spec.clone();
    for (k, seg) in out.segments.iter_mut().enumerate() {
        let key = format!("boundary.segment[{k}]");
        let Some(line) = &seg.line else {
            if seg.edge.is_none() {
                return Err(bad(
                    &key,
                    "a segment needs `edge` (with `from` and `to`) or `line`",
                ));
            }
            continue;
        };
        if seg.from.is_some() || seg.to.is_some() {
            return Err(bad(
                &key,
                "a segment drawn as a `line` takes no `from` or `to`: it runs from the line's first to its last point along its edge",
            ));
        }
        let points = coords(line, Want::Line, &format!("{key}.line"), dir, frame)?;
        let (edge, from, to) = along_edge(&points, frame, &format!("{key}.line"))?;
        if let Some(given) = &seg.edge {
            if given != edge {
                return Err(bad(
                    &format!("{key}.edge"),
                    format!("the line runs along the {edge} edge, not the {given:?} one"),
                ));
            }
        }
        *seg = SegmentSpec {
            edge: Some(edge.to_string()),
            from: Some(from),
            to: Some(to),
            line: None,
            ..seg.clone()
        };
    }
    Ok(out)
}

/// The edge a line runs along, and the span it covers there (in the coordinate along it).
fn along_edge(
    points: &[[f64; 2]],
    frame: &Frame,
    key: &str,
) -> Result<(&'static str, f64, f64), InputError> {
    if points.len() < 2 {
        return Err(bad(key, "expected a line of at least two points"));
    }
    let (x0, y0) = frame.origin;
    let (x1, y1) = (
        x0 + frame.nx as f64 * frame.dx,
        y0 + frame.ny as f64 * frame.dx,
    );
    // Each edge: its name, the coordinate across it and where it lies, the coordinate along.
    let edges: [(&str, usize, f64); 4] = [
        ("west", 0, x0),
        ("east", 0, x1),
        ("south", 1, y0),
        ("north", 1, y1),
    ];
    let distance = |&(_, axis, at): &(&str, usize, f64)| {
        points
            .iter()
            .map(|p| (p[axis] - at).abs())
            .fold(0.0f64, f64::max)
    };
    let tolerance = ALONG_EDGE_CELLS * frame.dx;
    let along: Vec<_> = edges.iter().filter(|e| distance(e) <= tolerance).collect();
    match along.as_slice() {
        [(name, axis, _)] => {
            let coordinate = |p: &[f64; 2]| p[1 - axis];
            let from = points.iter().map(coordinate).fold(f64::INFINITY, f64::min);
            let to = points
                .iter()
                .map(coordinate)
                .fold(f64::NEG_INFINITY, f64::max);
            Ok((name, from, to))
        }
        [] if touches_edges_only(points, &edges, tolerance) => {
            let names: Vec<&str> = edges
                .iter()
                .filter(|&&(_, axis, at)| points.iter().any(|p| (p[axis] - at).abs() <= tolerance))
                .map(|e| e.0)
                .collect();
            Err(bad(
                key,
                format!(
                    "the line runs along the {} edges: give one segment per edge",
                    names.join(" and ")
                ),
            ))
        }
        [] => {
            let nearest = edges
                .iter()
                .min_by(|a, b| distance(a).total_cmp(&distance(b)))
                .expect("four edges");
            Err(bad(
                key,
                format!(
                    "the line does not run along an edge of the domain: its points lie up to {:.1} m from the nearest, the {} edge; expected every point within {ALONG_EDGE_CELLS} cells ({tolerance} m) of one edge (a boundary inside the domain is a [[boundary.line]])",
                    distance(nearest),
                    nearest.0
                ),
            ))
        }
        _ => Err(bad(
            key,
            format!(
                "the line runs along the {} and {} edges: give one segment per edge",
                along[0].0, along[1].0
            ),
        )),
    }
}

/// Every point lies near some edge (a line around a corner of the domain).
fn touches_edges_only(
    points: &[[f64; 2]],
    edges: &[(&str, usize, f64); 4],
    tolerance: f64,
) -> bool {
    points.iter().all(|p| {
        edges
            .iter()
            .any(|&(_, axis, at)| (p[axis] - at).abs() <= tolerance)
    })
}

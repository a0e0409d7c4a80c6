//! What a run records where: gauges and cross-sections.

use super::frame::*;
use crate::error::InputError;
use crate::io::vector::Want;
use crate::scenario::model::{Gauge, Section};
use crate::scenario::spec::*;
use std::path::Path;

/// Cross-sections sampled every quarter cell: each sample carries its cell and its share
/// of the line as its left-hand normal times length (so a line drawn from the left bank to
/// the right bank, looking downstream, counts the downstream flow as positive).
pub(crate) fn sections(
    specs: &[SectionSpec],
    frame: &Frame,
    dir: &Path,
) -> Result<Vec<Section>, InputError> {
    let mut out = Vec::new();
    for (k, s) in specs.iter().enumerate() {
        let key = format!("cross_section[{k}].line");
        let line = coords(&s.line, Want::Line, &key, dir, frame)?;
        if line.len() < 2 {
            return Err(bad(&key, "expected at least two points"));
        }
        let mut samples = Vec::new();
        for w in line.windows(2) {
            let (dx, dy) = (w[1][0] - w[0][0], w[1][1] - w[0][1]);
            let length = (dx * dx + dy * dy).sqrt();
            if length.is_nan() || length <= 0.0 {
                return Err(bad(&key, "expected distinct, finite points"));
            }
            let n = (4.0 * length / frame.dx).ceil() as usize;
            let ds = length / n as f64;
            let normal = [-dy / length * ds, dx / length * ds];
            for m in 0..n {
                let f = (m as f64 + 0.5) / n as f64;
                let p = [w[0][0] + f * dx, w[0][1] + f * dy];
                samples.push((cell_at(frame, p, &key)?, normal));
            }
        }
        out.push(Section {
            name: s.name.clone(),
            samples,
        });
    }
    Ok(out)
}

pub(crate) fn gauges(specs: &[GaugeSpec], frame: &Frame) -> Result<Vec<Gauge>, InputError> {
    specs
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let i = ((g.x - frame.origin.0) / frame.dx).floor();
            let j = ((g.y - frame.origin.1) / frame.dx).floor();
            let inside = (0.0..frame.nx as f64).contains(&i) && (0.0..frame.ny as f64).contains(&j);
            if !inside {
                return Err(bad(
                    &format!("gauge[{k}]"),
                    format!(
                        "gauge {:?} at ({}, {}) lies outside the domain",
                        g.name, g.x, g.y
                    ),
                ));
            }
            Ok(Gauge {
                name: g.name.clone(),
                x: g.x,
                y: g.y,
                cell: (i as usize, j as usize),
            })
        })
        .collect()
}

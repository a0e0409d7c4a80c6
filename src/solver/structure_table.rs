//! The `culverts` buffer (layout in `shaders/culverts.wgsl`) and the source entries through
//! which each culvert's end cells take its discharge.

use crate::grid::CELLS_PER_BLOCK;
use crate::scenario::model::Model;
use crate::scenario::structures::Shape;

/// Words per culvert, as `STRUCTURE_WORDS` in culverts.wgsl.
const STRUCTURE_WORDS: usize = 13;

pub fn words(model: &Model) -> Vec<u32> {
    let culverts = &model.structures;
    if culverts.is_empty() {
        return vec![0; 4];
    }
    let mut words = Vec::with_capacity(STRUCTURE_WORDS * culverts.len());
    let mut cells = Vec::new();
    let first = (STRUCTURE_WORDS * culverts.len()) as u32;
    for c in culverts {
        // A weir's crest length stands for the width, its coefficient for Manning's n.
        let (kind, width, rise, roughness) = match c.shape {
            Shape::Box { width, height } => (0, width, height, c.manning),
            Shape::Circular { diameter } => (1, diameter, diameter, c.manning),
            Shape::Weir { coefficient } => (2, c.length, 0.0, coefficient),
        };
        words.push(kind);
        let f = |v: f64| (v as f32).to_bits();
        words.extend([width, rise, c.length, roughness, c.loss].map(f));
        words.extend(c.ends.iter().map(|e| f(e.invert)));
        for end in &c.ends {
            words.extend([first + cells.len() as u32, end.cells.len() as u32]);
            cells.extend(end.cells.iter().map(|&k| k as u32));
        }
        words.push(f(c.smoothing));
    }
    words.extend(cells);
    words
}

/// Each culvert end cell's source entry, by block: (cell in block, forcing slot, depth rate
/// per m³/s as f32 bits, 0: the balance does not count water moving inside the domain).
/// Water leaves the inlet (first end) at positive discharge.
pub fn source_entries(model: &Model) -> Vec<(usize, [u32; 4])> {
    let mut out = Vec::new();
    let slot = model.series.len() as u32;
    for (c, culvert) in model.structures.iter().enumerate() {
        for (e, end) in culvert.ends.iter().enumerate() {
            let area: f64 = end.cells.iter().map(|&k| cell_area(model, k)).sum();
            let sign = if e == 0 { -1.0 } else { 1.0 };
            let rate = ((sign / area) as f32).to_bits();
            for &k in &end.cells {
                let entry = [(k % CELLS_PER_BLOCK) as u32, slot + c as u32, rate, 0];
                out.push((k / CELLS_PER_BLOCK, entry));
            }
        }
    }
    out
}

fn cell_area(model: &Model, k: usize) -> f64 {
    let width = model.cell_size * model.grid.cell_footprint(k).2 as f64;
    width * width
}

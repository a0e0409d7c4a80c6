//! `quadflood grid`: a picture of the block layout (colour = level, blocks outlined) and a
//! summary of what the grid costs against a uniform finest grid.

use crate::grid::{BlockGrid, BLOCK, CELLS_PER_BLOCK};
use crate::io::font::{draw_text, fill_rect};
use image::{Rgb, RgbImage};
use serde_json::json;
use std::path::Path;

const TARGET_SIDE: f64 = 1000.0;
const LEGEND_H: u32 = 30;
const OUTLINE: Rgb<u8> = Rgb([40, 40, 40]);
/// Finest first: warm for fine, cool for coarse.
const PALETTE: [[u8; 3]; 6] = [
    [215, 48, 39],
    [252, 141, 89],
    [254, 224, 144],
    [224, 243, 248],
    [145, 191, 219],
    [69, 117, 180],
];

fn level_colour(level: u32) -> Rgb<u8> {
    Rgb(PALETTE[level as usize % PALETTE.len()])
}

/// Draws every block, filled by level and outlined, north up.
pub fn write_grid_png(path: &Path, grid: &BlockGrid, cell_size: f64) -> Result<(), String> {
    let mut img = draw_blocks(grid, &|b| level_colour(grid.blocks[b].level));
    let h = img.height() - LEGEND_H;
    let mut x = 6;
    for level in 0..grid.levels as u32 {
        fill_rect(&mut img, x, h + 8, 14, 14, level_colour(level));
        let label = format!("{} m", cell_size * (1u64 << level) as f64);
        draw_text(&mut img, x + 18, h + 8, &label);
        x += 18 + 12 * label.len() as u32 + 16;
    }
    crate::io::quicklook::save_png(path, &img)
}

/// Draws the partition: blocks coloured by owner rank.
pub fn write_partition_png(
    path: &Path,
    grid: &BlockGrid,
    p: &crate::partition::Partition,
) -> Result<(), String> {
    let mut img = draw_blocks(grid, &|b| rank_colour(p.owner[b]));
    let h = img.height() - LEGEND_H;
    draw_text(&mut img, 6, h + 8, &format!("{} ranks", p.ranks));
    crate::io::quicklook::save_png(path, &img)
}

/// Hues a golden angle apart, so that ranks next to each other on the curve differ.
fn rank_colour(r: u32) -> Rgb<u8> {
    let hue = (r as f64 * 137.508) % 360.0 / 60.0;
    let x = 1.0 - (hue % 2.0 - 1.0).abs();
    let (r, g, b) = match hue as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    let c = |v: f64| (60.0 + 180.0 * v) as u8;
    Rgb([c(r), c(g), c(b)])
}

fn draw_blocks(grid: &BlockGrid, fill: &dyn Fn(usize) -> Rgb<u8>) -> RgbImage {
    let scale = (TARGET_SIDE / grid.nx.max(grid.ny) as f64).min(8.0);
    let (w, h) = (
        (grid.nx as f64 * scale).ceil() as u32,
        (grid.ny as f64 * scale).ceil() as u32,
    );
    let mut img = RgbImage::from_pixel(w.max(360), h + LEGEND_H, Rgb([255, 255, 255]));
    for (k, b) in grid.blocks.iter().enumerate() {
        let size = (BLOCK << b.level) as f64;
        let (x0, y0) = (
            ((b.i0 as usize) << b.level) as f64,
            ((b.j0 as usize) << b.level) as f64,
        );
        let x1 = (x0 + size).min(grid.nx as f64);
        let y1 = (y0 + size).min(grid.ny as f64);
        let px = |x: f64| (x * scale).round() as u32;
        // Image rows grow downwards: flip so that north is up.
        let (top, bottom) = (h - px(y1), h - px(y0));
        let (left, right) = (px(x0), px(x1));
        fill_rect(&mut img, left, top, right - left, bottom - top, fill(k));
        for (x, y, ww, hh) in [
            (left, top, right - left, 1),
            (left, bottom.saturating_sub(1), right - left, 1),
            (left, top, 1, bottom - top),
            (right.saturating_sub(1), top, 1, bottom - top),
        ] {
            fill_rect(&mut img, x, y, ww.max(1), hh.max(1), OUTLINE);
        }
    }
    img
}

/// Blocks and cells per level, and the saving against a uniform finest grid.
pub fn summary(grid: &BlockGrid, cell_size: f64) -> serde_json::Value {
    let per_level = grid.blocks_per_level();
    let cells: usize = per_level.iter().sum::<usize>() * CELLS_PER_BLOCK;
    let uniform = grid.nx.div_ceil(BLOCK) * grid.ny.div_ceil(BLOCK) * CELLS_PER_BLOCK;
    json!({
        "levels": grid.levels,
        "finest_cell_size_m": cell_size,
        "blocks": grid.nblocks(),
        "blocks_per_level": per_level,
        "cells_per_level": per_level.iter().map(|n| n * CELLS_PER_BLOCK).collect::<Vec<_>>(),
        "cells": cells,
        "uniform_finest_cells": uniform,
        "cell_ratio": uniform as f64 / cells as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_levels_and_sums_cells() {
        let grid = crate::grid::quadtree::build(128, 96, 3, &|f| f.i0 == 0 && f.j0 == 0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grid.png");
        write_grid_png(&path, &grid, 2.0).unwrap();
        let img = image::open(&path).unwrap().to_rgb8();
        // The finest blocks sit at the south-west corner: bottom left of the map.
        let map_h = img.height() - LEGEND_H;
        assert_eq!(*img.get_pixel(10, map_h - 10), level_colour(0));
        let s = summary(&grid, 2.0);
        assert_eq!(s["uniform_finest_cells"], 128 * 96);
        assert!(s["cell_ratio"].as_f64().unwrap() > 1.0);
    }
}

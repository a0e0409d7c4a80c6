//! An animated GIF of the flood: the depth quick-look at every output time, every frame in
//! the same fixed depth classes (`depth_classes`), so that frames compare.
//!
//! Frames are kept binned to at most `MAX_SIDE` cells a side (the deepest cell of each
//! bin, as in the PNGs), so a run of any size holds a few MB per frame until the end.

use crate::io::quicklook::{render, QuickLook};
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, RgbaImage};
use std::path::Path;

const MAX_SIDE: usize = 640;
/// Time each frame stays on screen.
const FRAME_MS: u32 = 400;

pub struct Animation {
    /// Cells of the finest grid per bin side.
    bin: usize,
    nx: usize,
    ny: usize,
    cell_size: f64,
    valid: Vec<bool>,
    terrain: Vec<f32>,
    frames: Vec<(String, Vec<f32>)>,
}

impl Animation {
    /// `valid` and `terrain` are finest-level rasters of `nx` × `ny`, row 0 south.
    pub fn new(nx: usize, ny: usize, cell_size: f64, valid: &[bool], terrain: &[f32]) -> Self {
        let bin = nx.max(ny).div_ceil(MAX_SIDE).max(1);
        let (bx, by) = (nx.div_ceil(bin), ny.div_ceil(bin));
        let mut binned_valid = vec![false; bx * by];
        let mut binned_terrain = vec![0.0f32; bx * by];
        for j in 0..ny {
            for i in 0..nx {
                let (c, b) = (i + nx * j, i / bin + bx * (j / bin));
                if valid[c] && !binned_valid[b] {
                    // The first valid cell of a bin stands for its terrain, as in the PNGs.
                    binned_valid[b] = true;
                    binned_terrain[b] = terrain[c];
                }
            }
        }
        Animation {
            bin,
            nx,
            ny,
            cell_size,
            valid: binned_valid,
            terrain: binned_terrain,
            frames: Vec::new(),
        }
    }

    pub fn push(&mut self, title: String, depth: &[f32]) {
        let bx = self.nx.div_ceil(self.bin);
        let mut binned = vec![0.0f32; self.valid.len()];
        for j in 0..self.ny {
            for i in 0..self.nx {
                let b = i / self.bin + bx * (j / self.bin);
                binned[b] = binned[b].max(depth[i + self.nx * j]);
            }
        }
        self.frames.push((title, binned));
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Writes the GIF, looping.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let fail = |m: String| format!("{}: {m}", path.display());
        // Encoded in memory: the encoder writes the GIF's last byte as it is dropped,
        // where a failed write would go unseen; the file is written whole afterwards.
        let mut bytes = Vec::new();
        let mut gif = GifEncoder::new_with_speed(&mut bytes, 10);
        gif.set_repeat(Repeat::Infinite)
            .map_err(|e| fail(e.to_string()))?;
        let images = self
            .frames
            .iter()
            .map(|(title, depth)| {
                render(&QuickLook {
                    nx: self.nx.div_ceil(self.bin),
                    ny: self.ny.div_ceil(self.bin),
                    depth,
                    valid: &self.valid,
                    terrain: Some(&self.terrain),
                    cell_size: self.cell_size * self.bin as f64,
                    title: title.clone(),
                })
            })
            .collect::<Result<Vec<_>, String>>()
            .map_err(&fail)?;
        // Every frame on one canvas: titles of different lengths make images of different
        // widths.
        let width = images.iter().map(|i| i.width()).max().unwrap_or(1);
        let height = images.iter().map(|i| i.height()).max().unwrap_or(1);
        for rgb in images {
            let mut canvas = RgbaImage::from_pixel(width, height, image::Rgba([255; 4]));
            for (x, y, p) in rgb.enumerate_pixels() {
                canvas.put_pixel(x, y, image::Rgba([p[0], p[1], p[2], 255]));
            }
            let delay = Delay::from_numer_denom_ms(FRAME_MS, 1);
            gif.encode_frame(Frame::from_parts(canvas, 0, 0, delay))
                .map_err(|e| fail(e.to_string()))?;
        }
        drop(gif);
        crate::io::durable::write_bytes(path, &bytes).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::AnimationDecoder;

    #[test]
    fn frames_share_one_size_and_keep_the_deepest_cell_of_each_bin() {
        let (nx, ny) = (1300, 20);
        let valid = vec![true; nx * ny];
        let terrain: Vec<f32> = (0..nx * ny).map(|c| (c % nx) as f32 * 0.01).collect();
        let mut a = Animation::new(nx, ny, 1.0, &valid, &terrain);
        assert_eq!(a.bin, 3);
        let mut depth = vec![0.0f32; nx * ny];
        depth[7 + nx * 4] = 2.0; // one flooded cell, binned with eight dry ones
        a.push("short".into(), &depth);
        a.push(
            "a much longer title than the first".into(),
            &vec![0.5; nx * ny],
        );
        assert_eq!(a.frames[0].1.iter().filter(|&&d| d == 2.0).count(), 1);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("flood.gif");
        a.write(&path).unwrap();
        let file = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
        let frames = image::codecs::gif::GifDecoder::new(file)
            .unwrap()
            .into_frames()
            .collect_frames()
            .unwrap();
        assert_eq!(frames.len(), 2);
        assert_eq!(
            frames[0].buffer().dimensions(),
            frames[1].buffer().dimensions()
        );
    }
}

//! The `losses` buffer (layout in `shaders/losses.wgsl`): built from a model's losses and,
//! on a restart or a rebalance, the depth and volume each block had lost; read back for
//! checkpoints, the mass balance and the infiltration map.

use crate::grid::{CELLS_PER_BLOCK, NONE};
use crate::scenario::model::Model;

/// In a block's class word: its cells' classes follow one by one from the entry given.
const LOSS_PER_CELL: u32 = 0x8000_0000;

/// The buffer's words. A model without losses gets a placeholder (bindings cannot be empty).
pub fn words(model: &Model) -> Vec<u32> {
    let losses = &model.losses;
    if !losses.any() {
        return vec![NONE; 4];
    }
    let nb = model.grid.nblocks();
    let resume = model.resume.as_ref().filter(|r| !r.infiltrated.is_empty());
    let mut words = vec![NONE; nb];
    words.extend(vec![0u32; nb]);
    for b in 0..nb {
        let v = resume.map_or([0.0f32; 2], |r| r.loss_volume[b]);
        words.extend(v.map(f32::to_bits));
    }
    words.extend(losses.classes.iter().flatten().map(|p| p.to_bits()));
    for b in 0..nb {
        let cells = b * CELLS_PER_BLOCK..(b + 1) * CELLS_PER_BLOCK;
        let mut valid = cells.clone().filter(|&c| model.is_valid(c));
        let Some(first) = valid.next() else {
            continue;
        };
        let class = losses.cells[first];
        if valid.all(|c| losses.cells[c] == class) {
            if losses.classes[class as usize] == [0.0, 0.0] {
                continue; // nothing to lose: no depth to keep either
            }
            words[nb + b] = class;
        } else {
            words[nb + b] = LOSS_PER_CELL | words.len() as u32;
            words.extend(cells.clone().map(|c| losses.cells[c]));
        }
        words[b] = words.len() as u32;
        words.extend(cells.map(|c| resume.map_or(0.0f32, |r| r.infiltrated[c]).to_bits()));
    }
    // Below the flag bit, as the friction table is (check_size refuses larger grids).
    debug_assert!(words.len() < LOSS_PER_CELL as usize);
    words
}

/// The depth each of the first `own` blocks' cells has lost (0 in blocks without losses).
pub fn infiltrated(words: &[u32], own: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; own * CELLS_PER_BLOCK];
    for (b, cells) in out.chunks_mut(CELLS_PER_BLOCK).enumerate() {
        let base = words[b];
        if base != NONE {
            let base = base as usize;
            for (c, f) in cells.iter_mut().enumerate() {
                *f = f32::from_bits(words[base + c]);
            }
        }
    }
    out
}

/// Byte offset and count of the first `own` blocks' lost volumes, for a read of
/// `[f32; 2]` values.
pub fn volume_range(nblocks: usize, own: usize) -> (u64, usize) {
    ((2 * nblocks * 4) as u64, own)
}

/// Total of per-block double-f32 volumes, in block order. From +0: `Iterator::sum` of no
/// floats is -0, which a run without losses printed in summary.json where ranks print 0.
pub fn sum(volumes: &[[f32; 2]]) -> f64 {
    volumes
        .iter()
        .fold(0.0, |total, v| total + (v[0] as f64 + v[1] as f64))
}

#[cfg(test)]
mod tests {
    #[test]
    fn no_volumes_sum_to_positive_zero() {
        assert!(super::sum(&[]).is_sign_positive());
        assert_eq!(super::sum(&[[1.0, 0.5], [2.0, -0.25]]), 3.25);
    }
}

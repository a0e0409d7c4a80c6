//! The block grid: 16×16-cell blocks in flat arrays indexed by block id, with a neighbour
//! table of 12 slots per block (two per side, for a finer neighbour later, and one per
//! corner). Cell state lives on the GPU as `block * 256 + (i + 16 j)`.

pub mod quadtree;

use bytemuck::{Pod, Zeroable};

pub const BLOCK: usize = 16;
pub const CELLS_PER_BLOCK: usize = BLOCK * BLOCK;
/// Cells of halo the flux kernel loads around a block.
pub const HALO: usize = 2;
/// "No block": the neighbour lies outside the domain.
pub const NONE: u32 = u32::MAX;

/// Neighbour slots, in the order the kernels read them (see `shaders/common.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    N0,
    N1,
    S0,
    S1,
    E0,
    E1,
    W0,
    W1,
    NE,
    NW,
    SE,
    SW,
}
pub const NB_SLOTS: usize = 12;

/// The block touches an inflow or stage boundary, so the dry-map always launches it.
pub const BLOCK_ALWAYS_ACTIVE: u32 = 1;
/// The block touches the domain edge and builds ghost cells.
pub const BLOCK_ON_EDGE: u32 = 2;
/// Bits 8..12: the side (W, E, S, N) faces a coarser block; bits 12..16: finer blocks.
/// Static, so the kernels never look up a neighbour's level.
pub const COARSER_SIDES_SHIFT: u32 = 8;
pub const FINER_SIDES_SHIFT: u32 = 12;
/// The coarser and finer bits together.
pub const LEVEL_CHANGE_SIDES: u32 = 0xff00;

/// One block as the kernels see it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct BlockInfo {
    /// First cell of the block, in cells of its level.
    pub i0: u32,
    pub j0: u32,
    pub level: u32,
    pub flags: u32,
}

impl BlockInfo {
    /// A side faces a block of another level: the block needs the multi-resolution code.
    pub fn has_level_change(&self) -> bool {
        self.flags & LEVEL_CHANGE_SIDES != 0
    }
}

/// A grid of blocks over a domain of `nx × ny` cells of the finest level. A block at level
/// r has cells 2^r times as wide. Blocks past the domain's east and north edges are padded
/// with cells that are never wet and never written out.
#[derive(Clone, Debug)]
pub struct BlockGrid {
    pub nx: usize,
    pub ny: usize,
    pub levels: usize,
    pub blocks: Vec<BlockInfo>,
    pub neighbours: Vec<u32>,
    /// The block covering each 16×16 tile of finest cells, row-major.
    cover: Vec<u32>,
    tiles_x: usize,
    /// Cells, as (block, cell in block), that read one another's state though their blocks
    /// need not touch: the two ends of a culvert. A rank that holds any of a link's blocks
    /// holds every cell of the link (`partition::local`).
    pub links: Vec<Vec<(u32, u32)>>,
}

impl BlockGrid {
    /// A single-level grid, blocks in row-major order.
    pub fn uniform(nx: usize, ny: usize) -> Self {
        quadtree::build(nx, ny, 1, &|_| false)
    }

    /// Assembles a grid from its blocks and neighbour table, and indexes which block covers
    /// each finest-level tile.
    pub(crate) fn assemble(
        nx: usize,
        ny: usize,
        levels: usize,
        blocks: Vec<BlockInfo>,
        neighbours: Vec<u32>,
    ) -> Self {
        let tiles_x = nx.div_ceil(BLOCK);
        let tiles_y = ny.div_ceil(BLOCK);
        let mut cover = vec![NONE; tiles_x * tiles_y];
        for (b, info) in blocks.iter().enumerate() {
            let span = 1usize << info.level; // finest tiles per block side
            let (ti, tj) = (
                info.i0 as usize / BLOCK * span,
                info.j0 as usize / BLOCK * span,
            );
            for tj in tj..(tj + span).min(tiles_y) {
                for ti in ti..(ti + span).min(tiles_x) {
                    cover[ti + tiles_x * tj] = b as u32;
                }
            }
        }
        BlockGrid {
            nx,
            ny,
            levels,
            blocks,
            neighbours,
            cover,
            tiles_x,
            links: Vec::new(),
        }
    }

    pub fn nblocks(&self) -> usize {
        self.blocks.len()
    }

    /// Cells stored on the GPU, padding included.
    pub fn stored_cells(&self) -> usize {
        self.nblocks() * CELLS_PER_BLOCK
    }

    pub fn neighbour(&self, block: usize, slot: Slot) -> u32 {
        self.neighbours[block * NB_SLOTS + slot as usize]
    }

    /// The block holding finest cell (i, j).
    pub fn block_of_cell(&self, i: usize, j: usize) -> usize {
        self.cover[i / BLOCK + self.tiles_x * (j / BLOCK)] as usize
    }

    /// Storage index of the cell covering finest cell (i, j), row j = 0 at the south edge.
    pub fn storage_index(&self, i: usize, j: usize) -> usize {
        let b = self.block_of_cell(i, j);
        let info = &self.blocks[b];
        let r = info.level;
        let li = (i >> r) - info.i0 as usize;
        let lj = (j >> r) - info.j0 as usize;
        b * CELLS_PER_BLOCK + li + BLOCK * lj
    }

    /// Stored cell k: its first finest cell and its width in finest cells.
    pub fn cell_footprint(&self, k: usize) -> (usize, usize, usize) {
        let info = &self.blocks[k / CELLS_PER_BLOCK];
        let local = k % CELLS_PER_BLOCK;
        let r = info.level as usize;
        let i = (info.i0 as usize + local % BLOCK) << r;
        let j = (info.j0 as usize + local / BLOCK) << r;
        (i, j, 1 << r)
    }

    /// Whether stored cell k lies inside the domain (not padding).
    pub fn in_domain(&self, k: usize) -> bool {
        let (i, j, _) = self.cell_footprint(k);
        i < self.nx && j < self.ny
    }

    /// Lays a row-major finest-level field out in block order: a coarse cell gets the mean
    /// of the finest cells it covers; padding gets `pad`.
    pub fn to_storage(&self, field: &[f32], pad: f32) -> Vec<f32> {
        assert_eq!(field.len(), self.nx * self.ny);
        crate::parallel::map(self.stored_cells(), |k| {
            let (i0, j0, w) = self.cell_footprint(k);
            if i0 >= self.nx || j0 >= self.ny {
                return pad;
            }
            let mut sum = 0.0f64;
            for j in j0..(j0 + w).min(self.ny) {
                for i in i0..(i0 + w).min(self.nx) {
                    sum += field[i + self.nx * j] as f64;
                }
            }
            (sum / (w * w) as f64) as f32
        })
    }

    /// The finest-level row-major field: each finest cell takes the value of the stored
    /// cell that covers it (coarse cells are replicated). Padding is dropped.
    pub fn from_storage<T: Copy + Send + Sync + Default>(&self, stored: &[T]) -> Vec<T> {
        self.from_storage_map(stored, |v| *v)
    }

    /// `from_storage` of `part(v)` of each stored value, on every core (outputs of a large
    /// grid would otherwise keep the time loop waiting).
    pub fn from_storage_map<T: Sync, U: Send + Default + Clone>(
        &self,
        stored: &[T],
        part: impl Fn(&T) -> U + Sync,
    ) -> Vec<U> {
        assert_eq!(stored.len(), self.stored_cells());
        crate::parallel::map(self.nx * self.ny, |c| {
            part(&stored[self.storage_index(c % self.nx, c / self.nx)])
        })
    }

    /// Blocks per level, finest first.
    pub fn blocks_per_level(&self) -> Vec<usize> {
        let mut count = vec![0; self.levels];
        for b in &self.blocks {
            count[b.level as usize] += 1;
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_and_round_trip() {
        let g = BlockGrid::uniform(20, 33);
        assert_eq!(g.nblocks(), 6);
        let field: Vec<f32> = (0..20 * 33).map(|v| v as f32).collect();
        let stored = g.to_storage(&field, -1.0);
        assert_eq!(
            stored.iter().filter(|&&v| v == -1.0).count(),
            6 * 256 - 20 * 33
        );
        assert_eq!(g.from_storage(&stored), field);
    }

    #[test]
    fn neighbours_are_mutual() {
        let g = BlockGrid::uniform(64, 48);
        let opposite = [
            (Slot::N0, Slot::S0),
            (Slot::E0, Slot::W0),
            (Slot::NE, Slot::SW),
            (Slot::NW, Slot::SE),
        ];
        for b in 0..g.nblocks() {
            for (a, o) in opposite {
                let n = g.neighbour(b, a);
                if n != NONE {
                    assert_eq!(g.neighbour(n as usize, o), b as u32);
                }
            }
            assert_eq!(g.neighbour(b, Slot::N1), NONE);
        }
        // A corner block has three neighbours, an interior one eight.
        let count = |b: usize| {
            (0..NB_SLOTS)
                .filter(|&s| g.neighbours[b * NB_SLOTS + s] != NONE)
                .count()
        };
        assert_eq!(count(0), 3);
        assert_eq!(count(g.block_of_cell(20, 20)), 8);
    }

    #[test]
    fn edge_flags() {
        let g = BlockGrid::uniform(48, 48);
        let edge: Vec<bool> = g
            .blocks
            .iter()
            .map(|b| b.flags & BLOCK_ON_EDGE != 0)
            .collect();
        assert_eq!(edge.iter().filter(|&&e| !e).count(), 1);
        assert!(!edge[4]);
        // 33 cells: the second block's halo reaches cell 33, past the edge.
        let g = BlockGrid::uniform(33, 64);
        assert!(g.blocks[1].flags & BLOCK_ON_EDGE != 0);
    }
}

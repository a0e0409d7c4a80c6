//! The block grid: 16×16-cell blocks in flat arrays indexed by block id, with a neighbour
//! table of 12 slots per block (two per side, for a finer neighbour later, and one per
//! corner). Cell state lives on the GPU as `block * 256 + (i + 16 j)`.

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

/// A grid of blocks over a domain of `nx × ny` cells. Blocks past the domain's east and
/// north edges are padded with cells that are never wet and never written out.
#[derive(Clone, Debug)]
pub struct BlockGrid {
    pub nx: usize,
    pub ny: usize,
    /// Blocks per row and per column.
    pub bx: usize,
    pub by: usize,
    pub blocks: Vec<BlockInfo>,
    pub neighbours: Vec<u32>,
}

impl BlockGrid {
    /// A single-level grid, blocks in row-major order.
    pub fn uniform(nx: usize, ny: usize) -> Self {
        let bx = nx.div_ceil(BLOCK);
        let by = ny.div_ceil(BLOCK);
        let mut blocks = Vec::with_capacity(bx * by);
        let mut neighbours = Vec::with_capacity(bx * by * NB_SLOTS);
        for bj in 0..by {
            for bi in 0..bx {
                // A block whose halo reaches past the edge needs ghost cells too: its faces
                // must agree bit for bit with those of the block on the edge.
                let on_edge = bi == 0
                    || bj == 0
                    || (bi + 1) * BLOCK + HALO > nx
                    || (bj + 1) * BLOCK + HALO > ny;
                blocks.push(BlockInfo {
                    i0: (bi * BLOCK) as u32,
                    j0: (bj * BLOCK) as u32,
                    level: 0,
                    flags: if on_edge { BLOCK_ON_EDGE } else { 0 },
                });
                neighbours.extend(uniform_neighbours(bi, bj, bx, by));
            }
        }
        BlockGrid {
            nx,
            ny,
            bx,
            by,
            blocks,
            neighbours,
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

    /// Storage index of domain cell (i, j), row j = 0 at the south edge.
    pub fn storage_index(&self, i: usize, j: usize) -> usize {
        let block = (j / BLOCK) * self.bx + i / BLOCK;
        block * CELLS_PER_BLOCK + (i % BLOCK) + BLOCK * (j % BLOCK)
    }

    /// Lays a row-major domain field out in block order, filling padding with `pad`.
    pub fn to_storage<T: Copy>(&self, field: &[T], pad: T) -> Vec<T> {
        assert_eq!(field.len(), self.nx * self.ny);
        let mut out = vec![pad; self.stored_cells()];
        for j in 0..self.ny {
            for i in 0..self.nx {
                out[self.storage_index(i, j)] = field[i + self.nx * j];
            }
        }
        out
    }

    /// The inverse of [`to_storage`](Self::to_storage): padding is dropped.
    pub fn from_storage<T: Copy>(&self, stored: &[T]) -> Vec<T> {
        assert_eq!(stored.len(), self.stored_cells());
        let mut out = Vec::with_capacity(self.nx * self.ny);
        for j in 0..self.ny {
            for i in 0..self.nx {
                out.push(stored[self.storage_index(i, j)]);
            }
        }
        out
    }

    /// Blocks holding any of the given domain cells.
    pub fn block_of_cell(&self, i: usize, j: usize) -> usize {
        (j / BLOCK) * self.bx + i / BLOCK
    }
}

fn uniform_neighbours(bi: usize, bj: usize, bx: usize, by: usize) -> [u32; NB_SLOTS] {
    let at = |di: isize, dj: isize| -> u32 {
        let (i, j) = (bi as isize + di, bj as isize + dj);
        if i < 0 || j < 0 || i >= bx as isize || j >= by as isize {
            NONE
        } else {
            (j as usize * bx + i as usize) as u32
        }
    };
    let mut n = [NONE; NB_SLOTS];
    n[Slot::N0 as usize] = at(0, 1);
    n[Slot::S0 as usize] = at(0, -1);
    n[Slot::E0 as usize] = at(1, 0);
    n[Slot::W0 as usize] = at(-1, 0);
    n[Slot::NE as usize] = at(1, 1);
    n[Slot::NW as usize] = at(-1, 1);
    n[Slot::SE as usize] = at(1, -1);
    n[Slot::SW as usize] = at(-1, -1);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_and_round_trip() {
        let g = BlockGrid::uniform(20, 33);
        assert_eq!((g.bx, g.by), (2, 3));
        let field: Vec<u32> = (0..20 * 33).collect();
        let stored = g.to_storage(&field, u32::MAX);
        assert_eq!(
            stored.iter().filter(|&&v| v == u32::MAX).count(),
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
        assert_eq!(count(g.bx + 1), 8);
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

//! One rank's share of the grid: its own blocks (border blocks first, then internal ones),
//! one layer of ghost blocks from other ranks, and what it sends and receives each step.
//!
//! A rank exchanges once per step: the ghosts' U^n, deep enough that it can run stage 1 on
//! the ghosts beside its blocks itself (`needed`), and their wet flags.

use super::Partition;
use crate::grid::{BlockGrid, BlockInfo, Slot, BLOCK, CELLS_PER_BLOCK, NB_SLOTS, NONE};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What travels between this rank and one other, in an order both sides agree on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exchange {
    pub rank: usize,
    /// Cells as (global block, cell in block), sorted.
    pub cells: Vec<(u32, u32)>,
    /// Blocks whose wet flag travels, global ids, sorted.
    pub flags: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct LocalGrid {
    pub rank: usize,
    /// Own blocks, then ghosts, with neighbours renumbered locally (ghosts have none).
    pub grid: BlockGrid,
    /// Global id of each local block.
    pub global: Vec<u32>,
    /// Own blocks: [0, border) have a neighbour (side or corner) on another rank, [border,
    /// own) do not.
    pub own: usize,
    pub border: usize,
    pub sends: Vec<Exchange>,
    pub recvs: Vec<Exchange>,
}

const SIDES: [(Slot, Slot); 4] = [
    (Slot::W0, Slot::W1),
    (Slot::E0, Slot::E1),
    (Slot::S0, Slot::S1),
    (Slot::N0, Slot::N1),
];

/// Side neighbours of block b: (side index W, E, S, N; neighbour).
fn side_neighbours(grid: &BlockGrid, b: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    SIDES.iter().enumerate().flat_map(move |(side, &(s0, s1))| {
        [grid.neighbour(b, s0), grid.neighbour(b, s1)]
            .into_iter()
            .filter(|&nb| nb != NONE)
            .map(move |nb| (side, nb as usize))
    })
}

fn all_neighbours(grid: &BlockGrid, b: usize) -> impl Iterator<Item = usize> + '_ {
    (0..NB_SLOTS)
        .map(move |s| grid.neighbours[b * NB_SLOTS + s])
        .filter(|&n| n != NONE)
        .map(|n| n as usize)
}

/// The cells of neighbour `n` that block `b`'s kernel reads, `n` lying on `side` of `b`:
/// a strip two cells deep (of n's level) along the part of n's side that faces b. (What
/// travels, `needed`, includes them; the tests check.)
#[cfg(test)]
fn cells_read(grid: &BlockGrid, b: usize, side: usize, n: usize) -> Vec<u32> {
    let (bi, ni) = (&grid.blocks[b], &grid.blocks[n]);
    let vertical = side < 2; // W or E: the strip runs along y
                             // First cell along the strip and its length, in n's cells.
    let (start, len) = if ni.level > bi.level {
        let b_along = if vertical { bi.j0 } else { bi.i0 } as i64;
        let n_along = if vertical { ni.j0 } else { ni.i0 } as i64;
        ((b_along >> 1) - n_along, BLOCK as i64 / 2)
    } else {
        (0, BLOCK as i64)
    };
    // Depth 0 is n's row or column next to b: n's west column if n lies east of b, etc.
    let from_high = side == 0 || side == 2; // n lies west or south: its east or north edge
    let mut cells = Vec::with_capacity(2 * len as usize);
    for d in 0..2i64 {
        let across = if from_high { BLOCK as i64 - 1 - d } else { d };
        for a in start..start + len {
            let (i, j) = if vertical { (across, a) } else { (a, across) };
            cells.push((i + BLOCK as i64 * j) as u32);
        }
    }
    cells
}

/// A block's extent in finest cells: (x0, y0, x1, y1).
fn extent(info: &BlockInfo) -> [i64; 4] {
    let s = 1i64 << info.level;
    let (x0, y0) = (info.i0 as i64 * s, info.j0 as i64 * s);
    let side = BLOCK as i64 * s;
    [x0, y0, x0 + side, y0 + side]
}

/// The distance (in finest cells, the larger of the two axes' gaps) between two extents;
/// 0 where they touch.
fn gap(a: [i64; 4], b: [i64; 4]) -> i64 {
    let gx = (a[0] - b[2]).max(b[0] - a[2]).max(0);
    let gy = (a[1] - b[3]).max(b[1] - a[3]).max(0);
    gx.max(gy)
}

/// How far (in cells of its own level) from a rank's blocks ghost `g`'s U^n is read in a
/// step. A block's stage 2 reads its side neighbours' U* two cells deep; the rank computes
/// that U* itself (stage 1 on its ghosts), which reads two cells further, so four
/// cells. A finer block beside a coarser one is read further: the coarse block's stage 1
/// reads two coarse cells (four fine) of it, from coarse cells up to three of their own
/// from the rank's blocks, so ten.
fn reach(grid: &BlockGrid, g: usize) -> i64 {
    let level = grid.blocks[g].level;
    let coarser_beside = side_neighbours(grid, g).any(|(_, n)| grid.blocks[n].level > level);
    (if coarser_beside { 10 } else { 4 }) << level
}

/// The cells `rank` receives from `from` (as (global block, cell)) each step: the U^n its
/// own blocks' two stages read, its own stage 1 on its ghosts included: every cell of a
/// ghost owned by `from` that lies within `reach` of a block of `rank` it touches.
fn needed(grid: &BlockGrid, p: &Partition, rank: usize, from: usize) -> Vec<(u32, u32)> {
    // The rank's blocks each ghost touches, whichever of the two lists the other (corner
    // slots across a level change are not always mutual).
    let mut touching: HashMap<u32, BTreeSet<usize>> = HashMap::new();
    for b in p.blocks_of(rank) {
        for n in all_neighbours(grid, b).filter(|&n| p.owner[n] as usize != rank) {
            let mine = touching.entry(n as u32).or_default();
            mine.insert(b);
            mine.extend(all_neighbours(grid, n).filter(|&m| p.owner[m] as usize == rank));
        }
    }
    let mut cells = linked_cells(grid, p, rank, from);
    for g in ghosts_of(grid, p, rank) {
        let g = g as usize;
        if p.owner[g] as usize != from {
            continue;
        }
        let Some(touched) = touching.get(&(g as u32)) else {
            continue; // held for a link alone
        };
        let mine: Vec<[i64; 4]> = touched.iter().map(|&n| extent(&grid.blocks[n])).collect();
        let (s, [x0, y0, ..]) = (1i64 << grid.blocks[g].level, extent(&grid.blocks[g]));
        let reach = reach(grid, g);
        for c in 0..CELLS_PER_BLOCK {
            let (i, j) = ((c % BLOCK) as i64, (c / BLOCK) as i64);
            let cell = [x0 + i * s, y0 + j * s, x0 + (i + 1) * s, y0 + (j + 1) * s];
            if mine.iter().any(|&m| gap(cell, m) < reach) {
                cells.push((g as u32, c as u32));
            }
        }
    }
    cells.sort_unstable();
    cells.dedup();
    cells
}

/// Remote blocks next to a rank's own blocks (sides and corners), and the blocks of every
/// link one of those or of its own blocks is part of.
fn ghosts_of(grid: &BlockGrid, p: &Partition, rank: usize) -> BTreeSet<u32> {
    let mut ghosts = remote_neighbours(grid, p, rank);
    for link in held_links(grid, p, rank, &ghosts) {
        ghosts.extend(
            link.iter()
                .map(|&(b, _)| b)
                .filter(|&b| p.owner[b as usize] as usize != rank),
        );
    }
    ghosts
}

/// Remote blocks next to a rank's own blocks (sides and corners).
fn remote_neighbours(grid: &BlockGrid, p: &Partition, rank: usize) -> BTreeSet<u32> {
    p.blocks_of(rank)
        .into_iter()
        .flat_map(|b| all_neighbours(grid, b).collect::<Vec<_>>())
        .filter(|&n| p.owner[n] as usize != rank)
        .map(|n| n as u32)
        .collect()
}

/// The links (`BlockGrid::links`) with a block that `rank` owns or holds as a ghost of
/// `neighbours` (its blocks' remote neighbours).
fn held_links<'g>(
    grid: &'g BlockGrid,
    p: &Partition,
    rank: usize,
    neighbours: &BTreeSet<u32>,
) -> Vec<&'g Vec<(u32, u32)>> {
    grid.links
        .iter()
        .filter(|link| {
            link.iter()
                .any(|&(b, _)| p.owner[b as usize] as usize == rank || neighbours.contains(&b))
        })
        .collect()
}

/// The cells of links that `rank` holds which `from` owns: their state travels every step.
fn linked_cells(grid: &BlockGrid, p: &Partition, rank: usize, from: usize) -> Vec<(u32, u32)> {
    held_links(grid, p, rank, &remote_neighbours(grid, p, rank))
        .into_iter()
        .flatten()
        .copied()
        .filter(|&(b, _)| p.owner[b as usize] as usize == from)
        .collect()
}

/// Whether block `b` holds a cell of a link: its stage 1 needs the link's discharge, which
/// a rank computes once the ghosts' state has arrived, so it is a border block.
fn in_link(grid: &BlockGrid, b: usize) -> bool {
    grid.links
        .iter()
        .any(|link| link.iter().any(|&(lb, _)| lb as usize == b))
}

/// Block `b`'s neighbour slots, renumbered locally. Ghosts keep the neighbours the rank
/// holds, since it runs stage 1 on them; where a side faces two finer blocks and the rank
/// holds one, both slots name that one: the halo loads take a side whose first slot is
/// empty for the domain's edge, and the cells the other slot would give are never read
/// (where neither is held, the coarse face code reads an empty slot unchecked; the
/// bounds-checked load keeps it in range, and those faces are never read either).
fn held_neighbours(grid: &BlockGrid, b: usize, local: &HashMap<u32, u32>) -> [u32; NB_SLOTS] {
    let mut slots = [NONE; NB_SLOTS];
    for (s, slot) in slots.iter_mut().enumerate() {
        let n = grid.neighbours[b * NB_SLOTS + s];
        *slot = local.get(&n).copied().unwrap_or(NONE);
    }
    for &(s0, s1) in &SIDES {
        let (s0, s1) = (s0 as usize, s1 as usize);
        if slots[s0] == NONE {
            slots[s0] = slots[s1];
        } else if slots[s1] == NONE && grid.neighbours[b * NB_SLOTS + s1] != NONE {
            slots[s1] = slots[s0];
        }
    }
    slots
}

/// The ranks that hold each block under `p`: its owner, then every rank for which it is a
/// ghost (it lies next to one of that rank's blocks), sorted, without repeats.
pub fn holders(grid: &BlockGrid, p: &Partition) -> Vec<Vec<u32>> {
    let mut held: Vec<Vec<u32>> = p.owner.iter().map(|&o| vec![o]).collect();
    for b in 0..grid.nblocks() {
        for n in all_neighbours(grid, b) {
            held[n].push(p.owner[b]);
        }
    }
    // Every rank holding a block of a link holds all of its blocks.
    for rank in 0..p.ranks {
        for g in ghosts_of(grid, p, rank) {
            held[g as usize].push(rank as u32);
        }
    }
    for h in &mut held {
        h.sort_unstable();
        h.dedup();
    }
    held
}

impl LocalGrid {
    pub fn new(grid: &BlockGrid, p: &Partition, rank: usize) -> LocalGrid {
        let own_blocks = p.blocks_of(rank);
        let remote = |b: usize| {
            all_neighbours(grid, b).any(|n| p.owner[n] as usize != rank) || in_link(grid, b)
        };
        let (border, internal): (Vec<usize>, Vec<usize>) =
            own_blocks.iter().partition(|&&b| remote(b));
        let ghosts = ghosts_of(grid, p, rank);
        let global: Vec<u32> = border
            .iter()
            .chain(&internal)
            .map(|&b| b as u32)
            .chain(ghosts.iter().copied())
            .collect();
        let local: HashMap<u32, u32> = global
            .iter()
            .enumerate()
            .map(|(l, &g)| (g, l as u32))
            .collect();
        let own = own_blocks.len();
        let mut blocks: Vec<BlockInfo> = Vec::with_capacity(global.len());
        let mut neighbours = Vec::with_capacity(global.len() * NB_SLOTS);
        for &g in &global {
            blocks.push(grid.blocks[g as usize]);
            neighbours.extend(held_neighbours(grid, g as usize, &local));
        }
        // Both ways: the ranks whose blocks this rank holds, and those that hold one of this
        // rank's. A rank can hold a block of a structure's far end through a ghost of its
        // near end without the far end's owner holding any of its blocks; each side's list
        // alone left one rank waiting for a message the other never sent (a deadlock).
        let mut peers: BTreeSet<usize> = ghosts
            .iter()
            .map(|&g| p.owner[g as usize] as usize)
            .collect();
        let holding_mine: Vec<usize> = (0..p.ranks)
            .filter(|&q| q != rank && !peers.contains(&q))
            .filter(|&q| {
                ghosts_of(grid, p, q)
                    .iter()
                    .any(|&g| p.owner[g as usize] as usize == rank)
            })
            .collect();
        peers.extend(holding_mine);
        let mut sends = Vec::new();
        let mut recvs = Vec::new();
        for &q in &peers {
            let theirs = ghosts_of(grid, p, q);
            sends.push(Exchange {
                rank: q,
                cells: needed(grid, p, q, rank),
                flags: theirs
                    .iter()
                    .copied()
                    .filter(|&g| p.owner[g as usize] as usize == rank)
                    .collect(),
            });
            recvs.push(Exchange {
                rank: q,
                cells: needed(grid, p, rank, q),
                flags: ghosts
                    .iter()
                    .copied()
                    .filter(|&g| p.owner[g as usize] as usize == q)
                    .collect(),
            });
        }
        let local_grid = BlockGrid::assemble(grid.nx, grid.ny, grid.levels, blocks, neighbours);
        LocalGrid {
            rank,
            grid: local_grid,
            global,
            own,
            border: border.len(),
            sends,
            recvs,
        }
    }

    /// Local block id of a global block present on this rank.
    pub fn local_of(&self) -> HashMap<u32, u32> {
        self.global
            .iter()
            .enumerate()
            .map(|(l, &g)| (g, l as u32))
            .collect()
    }

    /// Storage indices (local) of an exchange's cells.
    pub fn cell_indices(&self, e: &Exchange) -> Vec<u32> {
        let local = self.local_of();
        e.cells
            .iter()
            .map(|&(b, c)| local[&b] * CELLS_PER_BLOCK as u32 + c)
            .collect()
    }

    pub fn flag_blocks(&self, e: &Exchange) -> Vec<u32> {
        let local = self.local_of();
        e.flags.iter().map(|b| local[b]).collect()
    }

    /// Bytes this rank sends per step (cells of 12 bytes: the bed does not travel; flags of
    /// 4).
    pub fn bytes_sent(&self) -> usize {
        self.sends
            .iter()
            .map(|e| 12 * e.cells.len() + 4 * e.flags.len())
            .sum()
    }
}

/// Per-rank figures of a partition, for `quadflood grid`.
pub fn rank_summary(
    grid: &BlockGrid,
    p: &Partition,
) -> Vec<BTreeMap<&'static str, serde_json::Value>> {
    (0..p.ranks)
        .map(|r| {
            let l = LocalGrid::new(grid, p, r);
            let mut m = BTreeMap::new();
            m.insert("rank", r.into());
            m.insert("blocks", l.own.into());
            m.insert("cells", (l.own * CELLS_PER_BLOCK).into());
            m.insert("border_blocks", l.border.into());
            m.insert("ghost_blocks", (l.global.len() - l.own).into());
            m.insert(
                "neighbour_ranks",
                l.sends.iter().map(|e| e.rank).collect::<Vec<_>>().into(),
            );
            m.insert("bytes_sent_per_step", l.bytes_sent().into());
            m
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::quadtree;
    use crate::partition::{partition, per_block, Method};

    #[test]
    fn holders_are_the_ranks_whose_local_grid_has_the_block() {
        let grid = quadtree::build(300, 200, 3, &|f| f.i0 < 64);
        let p = partition(&grid, 5, Method::Hilbert, &per_block);
        let held = holders(&grid, &p);
        let mut seen: Vec<Vec<u32>> = vec![Vec::new(); grid.nblocks()];
        for r in 0..5 {
            for &g in &LocalGrid::new(&grid, &p, r).global {
                seen[g as usize].push(r as u32);
            }
        }
        assert_eq!(held, seen);
        assert!(held.iter().any(|h| h.len() > 1), "some blocks are ghosts");
    }

    #[test]
    fn sends_match_receives_and_blocks_are_shared_out() {
        let grid = quadtree::build(320, 256, 3, &|f| {
            (f.i0 as i64 - 150).abs() < 40 && (f.j0 as i64 - 120).abs() < 40
        });
        for ranks in [2, 3, 4] {
            let p = partition(&grid, ranks, Method::Hilbert, &per_block);
            let locals: Vec<LocalGrid> = (0..ranks).map(|r| LocalGrid::new(&grid, &p, r)).collect();
            assert_eq!(locals.iter().map(|l| l.own).sum::<usize>(), grid.nblocks());
            for l in &locals {
                for s in &l.sends {
                    let other = &locals[s.rank];
                    let r = other
                        .recvs
                        .iter()
                        .find(|e| e.rank == l.rank)
                        .expect("a matching receive");
                    assert_eq!(s.cells, r.cells, "rank {} -> {}", l.rank, s.rank);
                    assert_eq!(s.flags, r.flags);
                    assert!(!s.cells.is_empty());
                }
                // Every neighbour of an own block is local; a ghost keeps those the rank
                // holds (a side facing two finer blocks may name the held one twice).
                for b in 0..l.own {
                    let g = l.global[b] as usize;
                    for s in 0..NB_SLOTS {
                        let (local, global) = (
                            l.grid.neighbours[b * NB_SLOTS + s],
                            grid.neighbours[g * NB_SLOTS + s],
                        );
                        assert_eq!(local == NONE, global == NONE);
                        if local != NONE {
                            assert_eq!(l.global[local as usize], global);
                        }
                    }
                }
                for g in l.own..l.global.len() {
                    for s in 0..NB_SLOTS {
                        let n = l.grid.neighbours[g * NB_SLOTS + s];
                        assert!(n == NONE || (n as usize) < l.global.len());
                    }
                }
                assert!(l.border > 0 && l.border <= l.own);
            }
        }
    }

    /// Two ranks side by side on one level: each receives the other's four columns facing
    /// it (its stage 2 reads two, its stage 1 on the ghost reads two more), and from the
    /// ghosts touching its blocks at a corner only the 4 × 4 cells at that corner.
    #[test]
    fn ghosts_arrive_four_cells_deep_on_the_facing_side() {
        let grid = BlockGrid::uniform(64, 32);
        // Blocks are 4 × 2; rank 0 owns the western two columns of blocks.
        let owner: Vec<u32> = (0..grid.nblocks())
            .map(|b| u32::from(grid.blocks[b].i0 >= 32))
            .collect();
        let p = Partition { ranks: 2, owner };
        let l = LocalGrid::new(&grid, &p, 0);
        assert_eq!((l.own, l.border, l.global.len()), (4, 2, 6));
        let cells = &l.recvs[0].cells;
        assert_eq!(cells.len(), 2 * 16 * 4);
        assert!(cells.iter().all(|&(_, c)| c % 16 < 4));
        // The direct reads of the own blocks' kernels are among them.
        for b in 0..grid.nblocks() {
            for (side, n) in side_neighbours(&grid, b) {
                if p.owner[b] == 0 && p.owner[n] == 1 {
                    for c in cells_read(&grid, b, side, n) {
                        assert!(cells.contains(&(n as u32, c)));
                    }
                }
            }
        }
        // A corner: rank 0 owns one block of four.
        let grid = BlockGrid::uniform(32, 32);
        let owner: Vec<u32> = (0..grid.nblocks())
            .map(|b| u32::from(grid.blocks[b].i0 + grid.blocks[b].j0 > 0))
            .collect();
        let p = Partition { ranks: 2, owner };
        let l = LocalGrid::new(&grid, &p, 0);
        assert_eq!((l.own, l.border, l.global.len()), (1, 1, 4));
        let diagonal = grid
            .blocks
            .iter()
            .position(|b| b.i0 == 16 && b.j0 == 16)
            .unwrap() as u32;
        let corner: Vec<u32> = l.recvs[0]
            .cells
            .iter()
            .filter(|&&(b, _)| b == diagonal)
            .map(|&(_, c)| c)
            .collect();
        assert_eq!(corner.len(), 16);
        assert!(corner.iter().all(|c| c % 16 < 4 && c / 16 < 4));
    }
}

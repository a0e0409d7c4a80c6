//! Building a block-uniform quadtree: root blocks at the coarsest level, split into four
//! children wherever the caller asks, then split further until neighbours (corners
//! included) differ by at most one level. The leaves become the grid's blocks.

use super::{
    BlockGrid, BlockInfo, Slot, BLOCK, BLOCK_ON_EDGE, COARSER_SIDES_SHIFT, FINER_SIDES_SHIFT, HALO,
    NB_SLOTS, NONE,
};
use std::collections::{HashMap, HashSet};

/// A node of the tree: level r and block position (bi, bj) among level-r blocks.
type Node = (u32, u32, u32);

/// The area of a candidate block, in finest cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    pub level: u32,
    pub i0: usize,
    pub j0: usize,
    /// Side in finest cells (16 · 2^level).
    pub size: usize,
}

fn footprint((r, bi, bj): Node) -> Footprint {
    let size = BLOCK << r;
    Footprint {
        level: r,
        i0: bi as usize * size,
        j0: bj as usize * size,
        size,
    }
}

struct Tree {
    nx: usize,
    ny: usize,
    leaves: HashSet<Node>,
    split: HashSet<Node>,
}

impl Tree {
    fn in_domain(&self, n: Node) -> bool {
        let f = footprint(n);
        f.i0 < self.nx && f.j0 < self.ny
    }

    /// A block that holds the domain edge must have the edge on a cell boundary of its
    /// level, so ghost cells and outputs line up with the finest grid.
    fn edge_misaligned(&self, n: Node) -> bool {
        let f = footprint(n);
        let cell = 1usize << n.0;
        let holds_x = f.i0 < self.nx && self.nx < f.i0 + f.size;
        let holds_y = f.j0 < self.ny && self.ny < f.j0 + f.size;
        (holds_x && !self.nx.is_multiple_of(cell)) || (holds_y && !self.ny.is_multiple_of(cell))
    }

    fn children(&self, (r, bi, bj): Node) -> impl Iterator<Item = Node> + '_ {
        (0..4u32)
            .map(move |k| (r - 1, 2 * bi + (k & 1), 2 * bj + (k >> 1)))
            .filter(|&c| self.in_domain(c))
    }

    fn split_leaf(&mut self, n: Node) {
        self.leaves.remove(&n);
        self.split.insert(n);
        let kids: Vec<Node> = self.children(n).collect();
        self.leaves.extend(kids);
    }

    /// The node at level r next to `n` in direction (dx, dy), if it lies in the domain.
    fn beside((r, bi, bj): Node, dx: i64, dy: i64) -> Option<Node> {
        let (i, j) = (bi as i64 + dx, bj as i64 + dy);
        (i >= 0 && j >= 0).then_some((r, i as u32, j as u32))
    }

    /// Children of `m` that touch the side of m facing back along (dx, dy).
    fn facing_children((r, bi, bj): Node, dx: i64, dy: i64) -> Vec<Node> {
        let xs: Vec<u32> = match dx {
            1 => vec![2 * bi],
            -1 => vec![2 * bi + 1],
            _ => vec![2 * bi, 2 * bi + 1],
        };
        let ys: Vec<u32> = match dy {
            1 => vec![2 * bj],
            -1 => vec![2 * bj + 1],
            _ => vec![2 * bj, 2 * bj + 1],
        };
        ys.iter()
            .flat_map(|&y| xs.iter().map(move |&x| (r - 1, x, y)))
            .collect()
    }

    /// Whether a leaf at `n`'s level has a neighbour two or more levels finer.
    fn unbalanced(&self, n: Node) -> bool {
        if n.0 < 2 {
            return false;
        }
        DIRECTIONS.iter().any(|&(dx, dy)| {
            let Some(m) = Self::beside(n, dx, dy) else {
                return false;
            };
            self.split.contains(&m)
                && Self::facing_children(m, dx, dy)
                    .iter()
                    .any(|c| self.split.contains(c))
        })
    }
}

const DIRECTIONS: [(i64, i64); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (-1, 1),
    (1, -1),
    (-1, -1),
];

/// Builds the grid for an nx × ny finest domain with `levels` levels. `refine` says whether
/// a candidate block should be split; blocks holding a misaligned domain edge are split
/// regardless, and the result is 2:1 balanced.
pub fn build(
    nx: usize,
    ny: usize,
    levels: usize,
    refine: &dyn Fn(&Footprint) -> bool,
) -> BlockGrid {
    assert!(levels >= 1 && nx > 0 && ny > 0);
    let top = (levels - 1) as u32;
    let root = BLOCK << top;
    let mut tree = Tree {
        nx,
        ny,
        leaves: HashSet::new(),
        split: HashSet::new(),
    };
    for bj in 0..ny.div_ceil(root) {
        for bi in 0..nx.div_ceil(root) {
            tree.leaves.insert((top, bi as u32, bj as u32));
        }
    }
    for r in (1..=top).rev() {
        let at_level: Vec<Node> = tree.leaves.iter().copied().filter(|n| n.0 == r).collect();
        for n in at_level {
            if tree.edge_misaligned(n) || refine(&footprint(n)) {
                tree.split_leaf(n);
            }
        }
    }
    balance(&mut tree);
    assemble(&tree, levels)
}

fn balance(tree: &mut Tree) {
    loop {
        let todo: Vec<Node> = tree
            .leaves
            .iter()
            .copied()
            .filter(|&n| tree.unbalanced(n))
            .collect();
        if todo.is_empty() {
            return;
        }
        for n in todo {
            if tree.leaves.contains(&n) {
                tree.split_leaf(n);
            }
        }
    }
}

/// Leaves in order (coarse levels first, then row by row) with their neighbour tables.
fn assemble(tree: &Tree, levels: usize) -> BlockGrid {
    let mut order: Vec<Node> = tree.leaves.iter().copied().collect();
    order.sort_by_key(|&(r, bi, bj)| (std::cmp::Reverse(r), bj, bi));
    let id: HashMap<Node, u32> = order
        .iter()
        .enumerate()
        .map(|(k, &n)| (n, k as u32))
        .collect();
    let mut blocks = Vec::with_capacity(order.len());
    let mut neighbours = Vec::with_capacity(order.len() * NB_SLOTS);
    for &n in &order {
        let (r, bi, bj) = n;
        let (i0, j0) = (bi * BLOCK as u32, bj * BLOCK as u32);
        let slots = neighbour_slots(tree, &id, n);
        let flags = edge_flag(tree, n) | level_sides(&slots, r, &order);
        blocks.push(BlockInfo {
            i0,
            j0,
            level: r,
            flags,
        });
        neighbours.extend(slots);
    }
    BlockGrid::assemble(tree.nx, tree.ny, levels, blocks, neighbours)
}

/// Which sides (W, E, S, N) face a coarser or a finer neighbour, as block flags.
fn level_sides(slots: &[u32; NB_SLOTS], level: u32, order: &[Node]) -> u32 {
    let mut flags = 0;
    for (side, slot) in [Slot::W0, Slot::E0, Slot::S0, Slot::N0]
        .into_iter()
        .enumerate()
    {
        let nb = slots[slot as usize];
        if nb == NONE {
            continue;
        }
        let other = order[nb as usize].0;
        if other > level {
            flags |= 1 << (COARSER_SIDES_SHIFT + side as u32);
        } else if other < level {
            flags |= 1 << (FINER_SIDES_SHIFT + side as u32);
        }
    }
    flags
}

/// Blocks whose two-cell halo reaches past the domain edge build ghost cells.
fn edge_flag(tree: &Tree, n: Node) -> u32 {
    let f = footprint(n);
    let halo = HALO << n.0;
    let near = f.i0 < halo
        || f.j0 < halo
        || f.i0 + f.size + halo > tree.nx
        || f.j0 + f.size + halo > tree.ny;
    if near {
        BLOCK_ON_EDGE
    } else {
        0
    }
}

/// The leaves next to `n` in direction (dx, dy): the same-level leaf, the coarser leaf that
/// covers that place, or the finer leaves that touch `n` (two along a side, one at a
/// corner, ordered south to north or west to east).
fn across(tree: &Tree, id: &HashMap<Node, u32>, n: Node, dx: i64, dy: i64) -> [u32; 2] {
    let Some(m) = Tree::beside(n, dx, dy) else {
        return [NONE; 2];
    };
    if let Some(&b) = id.get(&m) {
        return [b, NONE];
    }
    let parent = (m.0 + 1, m.1 / 2, m.2 / 2);
    if let Some(&b) = id.get(&parent) {
        return [b, NONE];
    }
    if tree.split.contains(&m) {
        let kids = Tree::facing_children(m, dx, dy);
        let mut out = [NONE; 2];
        for (slot, k) in kids.iter().enumerate() {
            out[slot] = id.get(k).copied().unwrap_or(NONE);
        }
        return out;
    }
    [NONE; 2]
}

fn neighbour_slots(tree: &Tree, id: &HashMap<Node, u32>, n: Node) -> [u32; NB_SLOTS] {
    let [n0, n1] = across(tree, id, n, 0, 1);
    let [s0, s1] = across(tree, id, n, 0, -1);
    let [e0, e1] = across(tree, id, n, 1, 0);
    let [w0, w1] = across(tree, id, n, -1, 0);
    let corner = |dx, dy| across(tree, id, n, dx, dy)[0];
    [
        n0,
        n1,
        s0,
        s1,
        e0,
        e1,
        w0,
        w1,
        corner(1, 1),
        corner(-1, 1),
        corner(1, -1),
        corner(-1, -1),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Slot;
    use proptest::prelude::*;

    /// Checks every invariant of a grid: leaves tile the domain once, neighbours are mutual
    /// and at most one level apart, and blocks that share an edge or corner are listed.
    fn check(g: &BlockGrid) {
        // Every finest cell of the domain is covered by exactly one block.
        let mut covered = vec![0u8; g.nx * g.ny];
        for b in &g.blocks {
            let size = BLOCK << b.level;
            let (i0, j0) = ((b.i0 as usize) << b.level, (b.j0 as usize) << b.level);
            for j in j0..(j0 + size).min(g.ny) {
                for i in i0..(i0 + size).min(g.nx) {
                    covered[i + g.nx * j] += 1;
                }
            }
        }
        assert!(
            covered.iter().all(|&c| c == 1),
            "cells covered other than once"
        );
        let sides = [(Slot::N0, Slot::S0), (Slot::E0, Slot::W0)];
        for (b, info) in g.blocks.iter().enumerate() {
            for slot in 0..NB_SLOTS {
                let nb = g.neighbours[b * NB_SLOTS + slot];
                if nb == NONE {
                    continue;
                }
                let other = &g.blocks[nb as usize];
                assert!(
                    info.level.abs_diff(other.level) <= 1,
                    "2:1 balance broken between {b} and {nb}"
                );
                assert!(
                    touches(info, other),
                    "block {nb} listed beside {b} but does not touch it"
                );
                let back = &g.neighbours[nb as usize * NB_SLOTS..(nb as usize + 1) * NB_SLOTS];
                assert!(
                    back.contains(&(b as u32)) || slot >= 8,
                    "{b} -> {nb} is not mutual"
                );
            }
            for (a, o) in sides {
                let _ = (a, o);
            }
        }
        // Every pair of blocks that touch lists each other (corners through corner slots).
        for (a, ia) in g.blocks.iter().enumerate() {
            for (b, ib) in g.blocks.iter().enumerate() {
                if a != b && touches(ia, ib) {
                    let listed = &g.neighbours[a * NB_SLOTS..(a + 1) * NB_SLOTS];
                    assert!(
                        listed.contains(&(b as u32)) || corner_only(ia, ib),
                        "{a} does not list touching {b}"
                    );
                }
            }
        }
    }

    /// (x0, y0, x1, y1) in finest cells.
    fn rect(b: &BlockInfo) -> (i64, i64, i64, i64) {
        let s = (BLOCK as i64) << b.level;
        let (x, y) = ((b.i0 as i64) << b.level, (b.j0 as i64) << b.level);
        (x, y, x + s, y + s)
    }

    fn touches(a: &BlockInfo, b: &BlockInfo) -> bool {
        let (a0, a1, a2, a3) = rect(a);
        let (b0, b1, b2, b3) = rect(b);
        a0 <= b2 && b0 <= a2 && a1 <= b3 && b1 <= a3 && !(a0 < b2 && b0 < a2 && a1 < b3 && b1 < a3)
    }

    /// Touching only at a corner point, where a finer block may sit diagonally beside a
    /// coarse block's side without being its corner neighbour.
    fn corner_only(a: &BlockInfo, b: &BlockInfo) -> bool {
        let (a0, a1, a2, a3) = rect(a);
        let (b0, b1, b2, b3) = rect(b);
        (a0 == b2 || b0 == a2) && (a1 == b3 || b1 == a3)
    }

    #[test]
    fn uniform_grid_is_one_level() {
        let g = build(40, 33, 1, &|_| true);
        assert_eq!(g.nblocks(), 3 * 3);
        check(&g);
    }

    #[test]
    fn a_refined_corner_is_balanced() {
        // Refine everything that touches the origin: a cascade from 4 levels down.
        let g = build(256, 256, 4, &|f| f.i0 == 0 && f.j0 == 0);
        check(&g);
        assert_eq!(g.blocks_per_level().len(), 4);
        assert!(g.blocks_per_level()[0] >= 4);
    }

    #[test]
    fn misaligned_edges_are_refined() {
        let g = build(100, 70, 3, &|_| false);
        check(&g);
        for b in &g.blocks {
            let (_, _, x1, y1) = rect(b);
            let cell = 1i64 << b.level;
            if x1 > 100 {
                assert_eq!(100 % cell, 0);
            }
            if y1 > 70 {
                assert_eq!(70 % cell, 0);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn random_refinement_maps_give_valid_grids(
            nx in 16usize..300, ny in 16usize..300, levels in 1usize..5, seed in any::<u64>(), density in 0u64..100,
        ) {
            // A pseudo-random refinement decision per block, from the seed.
            let refine = move |f: &Footprint| {
                let h = (f.i0 as u64 * 73_856_093) ^ (f.j0 as u64 * 19_349_663) ^ (f.level as u64 * 83_492_791) ^ seed;
                h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57 < density * 128 / 100
            };
            let g = build(nx, ny, levels, &refine);
            check(&g);
        }
    }
}

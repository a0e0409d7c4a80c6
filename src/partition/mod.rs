//! Partitions: which rank owns which block. Blocks are ordered along a space-filling curve
//! (Hilbert, the default) or by (x, y) (1D, as in the source documents), and the order is
//! cut into P contiguous pieces of equal weight.

pub mod balance;
pub mod local;

use crate::grid::{BlockGrid, BLOCK};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Hilbert,
    OneD,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Hilbert => "hilbert",
            Method::OneD => "1d",
        })
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Method, String> {
        match s {
            "hilbert" => Ok(Method::Hilbert),
            "1d" => Ok(Method::OneD),
            other => Err(format!("expected \"hilbert\" or \"1d\", found {other:?}")),
        }
    }
}

/// The owner rank of every block of a grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Partition {
    pub ranks: usize,
    pub owner: Vec<u32>,
}

impl Partition {
    /// Everything on rank 0.
    pub fn single(grid: &BlockGrid) -> Partition {
        Partition {
            ranks: 1,
            owner: vec![0; grid.nblocks()],
        }
    }

    pub fn blocks_of(&self, rank: usize) -> Vec<usize> {
        (0..self.owner.len())
            .filter(|&b| self.owner[b] as usize == rank)
            .collect()
    }
}

/// Centre of a block in finest cells, times two so that it is an integer.
fn centre2(grid: &BlockGrid, b: usize) -> (u64, u64) {
    let info = &grid.blocks[b];
    let size = (BLOCK << info.level) as u64;
    let x = ((info.i0 as u64) << info.level) * 2 + size;
    let y = ((info.j0 as u64) << info.level) * 2 + size;
    (x, y)
}

/// Position of (x, y) along the Hilbert curve that fills a 2^order square.
pub fn hilbert_index(order: u32, mut x: u64, mut y: u64) -> u64 {
    let mut d = 0u64;
    let mut s = 1u64 << (order - 1);
    while s > 0 {
        let rx = u64::from(x & s > 0);
        let ry = u64::from(y & s > 0);
        d += s * s * ((3 * rx) ^ ry);
        // Rotate the quadrant so the curve stays continuous.
        if ry == 0 {
            if rx == 1 {
                x = s - 1 - (x & (s - 1)) + (x & !(s - 1));
                y = s - 1 - (y & (s - 1)) + (y & !(s - 1));
                x &= s - 1;
                y &= s - 1;
            } else {
                x &= s - 1;
                y &= s - 1;
            }
            std::mem::swap(&mut x, &mut y);
        } else {
            x &= s - 1;
            y &= s - 1;
        }
        s >>= 1;
    }
    d
}

/// Blocks in curve order.
pub fn order(grid: &BlockGrid, method: Method) -> Vec<usize> {
    let mut blocks: Vec<usize> = (0..grid.nblocks()).collect();
    match method {
        Method::OneD => blocks.sort_by_key(|&b| centre2(grid, b)),
        Method::Hilbert => {
            let side = 2 * grid.nx.max(grid.ny).next_power_of_two() as u64;
            let order = side.trailing_zeros().max(1);
            blocks.sort_by_key(|&b| {
                let (x, y) = centre2(grid, b);
                hilbert_index(order, x, y)
            });
        }
    }
    blocks
}

/// Refuses more ranks than blocks (every rank owns at least one), naming the scenario.
pub fn check_ranks(
    grid: &BlockGrid,
    ranks: usize,
    scenario: &std::path::Path,
) -> Result<(), crate::error::InputError> {
    if ranks <= grid.nblocks() {
        return Ok(());
    }
    Err(crate::error::InputError::new(format!(
        "{ranks} ranks for a grid of {} blocks of 16 x 16 cells: every rank needs a block; \
         run on at most {} ranks, or use smaller cells",
        grid.nblocks(),
        grid.nblocks()
    ))
    .in_file(scenario)
    .at_key("domain"))
}

/// Cuts the curve into `ranks` pieces of (nearly) equal weight, none empty.
pub fn partition(
    grid: &BlockGrid,
    ranks: usize,
    method: Method,
    weight: &dyn Fn(usize) -> f64,
) -> Partition {
    assert!(ranks >= 1);
    let shares = vec![1.0 / ranks as f64; ranks];
    cut(&order(grid, method), weight, &shares, usize::MAX)
}

/// Cuts blocks in curve order into contiguous pieces, rank p taking `shares[p]` of the
/// weight (shares sum to 1) and at most `cap` blocks, no rank empty.
pub fn cut(
    ordered: &[usize],
    weight: &dyn Fn(usize) -> f64,
    shares: &[f64],
    cap: usize,
) -> Partition {
    let ranks = shares.len();
    assert!(
        ranks >= 1 && ordered.len() >= ranks,
        "fewer blocks than ranks"
    );
    let total: f64 = ordered.iter().map(|&b| weight(b)).sum();
    // Where each rank's piece ends along the curve, in weight.
    let ends: Vec<f64> = shares
        .iter()
        .scan(0.0, |acc, s| {
            *acc += s * total;
            Some(*acc)
        })
        .collect();
    // `ordered` holds every block once.
    let mut owner = vec![0u32; ordered.len()];
    let (mut rank, mut count, mut acc) = (0usize, 0usize, 0.0);
    for (k, &b) in ordered.iter().enumerate() {
        // A block goes to the piece holding its midpoint along the curve.
        let mid = acc + 0.5 * weight(b);
        acc += weight(b);
        // Past this rank's share, unless the later ranks could not hold what is left.
        let left = ordered.len() - k;
        let full = count >= cap;
        let past = mid > ends[rank] && left <= cap.saturating_mul(ranks - rank - 1);
        if rank + 1 < ranks && count > 0 && (full || past) {
            rank += 1;
            count = 0;
        }
        // Leave at least one block for every later rank.
        let later = ranks.saturating_sub(ordered.len() - k);
        if later > rank {
            rank = later;
            count = 0;
        }
        owner[b] = rank as u32;
        count += 1;
    }
    Partition { ranks, owner }
}

/// Equal weight per block: every block has 256 cells whatever its level.
pub fn per_block(_: usize) -> f64 {
    1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{quadtree, NB_SLOTS, NONE};

    #[test]
    fn hilbert_curve_visits_neighbours() {
        // Consecutive indices on the curve are grid neighbours.
        let order = 4;
        let n = 1u64 << order;
        let mut at = vec![(0, 0); (n * n) as usize];
        for y in 0..n {
            for x in 0..n {
                at[hilbert_index(order, x, y) as usize] = (x, y);
            }
        }
        for w in at.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert_eq!(a.0.abs_diff(b.0) + a.1.abs_diff(b.1), 1, "{a:?} -> {b:?}");
        }
    }

    /// Blocks with a side neighbour on another rank.
    fn border_blocks(grid: &BlockGrid, p: &Partition) -> usize {
        (0..grid.nblocks())
            .filter(|&b| {
                (0..8).any(|s| {
                    let nb = grid.neighbours[b * NB_SLOTS + s];
                    nb != NONE && p.owner[nb as usize] != p.owner[b]
                })
            })
            .count()
    }

    #[test]
    fn pieces_are_balanced_and_hilbert_is_compact() {
        let grid = BlockGrid::uniform(1024, 1024);
        for ranks in [1, 3, 16] {
            let h = partition(&grid, ranks, Method::Hilbert, &per_block);
            let counts: Vec<usize> = (0..ranks).map(|r| h.blocks_of(r).len()).collect();
            let (lo, hi) = (*counts.iter().min().unwrap(), *counts.iter().max().unwrap());
            assert!(hi - lo <= 1, "{counts:?}");
        }
        let h = partition(&grid, 16, Method::Hilbert, &per_block);
        let d = partition(&grid, 16, Method::OneD, &per_block);
        let (bh, bd) = (border_blocks(&grid, &h), border_blocks(&grid, &d));
        assert!(
            bh < bd,
            "Hilbert borders {bh} should be fewer than 1D borders {bd}"
        );
    }

    #[test]
    fn multilevel_grids_and_tiny_grids_leave_no_rank_empty() {
        let grid = quadtree::build(300, 200, 3, &|f| f.i0 < 64);
        for ranks in 1..=8 {
            let p = partition(&grid, ranks, Method::Hilbert, &per_block);
            assert!((0..ranks).all(|r| !p.blocks_of(r).is_empty()));
            // Contiguous along the curve: owners never decrease.
            let ord = order(&grid, Method::Hilbert);
            assert!(ord.windows(2).all(|w| p.owner[w[0]] <= p.owner[w[1]]));
        }
        let tiny = BlockGrid::uniform(40, 40); // 9 blocks
        let p = partition(&tiny, 9, Method::OneD, &per_block);
        assert!((0..9).all(|r| p.blocks_of(r).len() == 1));
    }
}

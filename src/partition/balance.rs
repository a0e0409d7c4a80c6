//! Dynamic load balancing: when to move blocks between ranks, and where to.
//!
//! Every `every` steps the ranks share what they measured over the last window (time busy,
//! time idle at the exchanges and the dt reduction, blocks launched), and if the slowest
//! rank was busy more than `threshold` times the mean, the Hilbert order is cut again:
//!
//! - `rule = "cost"` (ours, the default): a launched block costs 1, a dry one
//!   `DRY_BLOCK_COST`; each rank's speed is the work it did over the time it was busy, and
//!   its share of the next cut is proportional to that speed. On identical GPUs this gives
//!   every rank the same number of launched blocks in one move: the cost model is solved,
//!   not searched.
//! - `rule = "idle"` (source document 000): each block weighs its cells; a rank's share
//!   moves by ε times its idle time's deviation from the mean, over the longest loop time.
//!   It converges over several rebalances, and oscillates when ε is large.
//!
//! Both bound every rank to at least `MIN_SHARE` of the fair share and at most
//! `max_blocks` times the fair number of blocks, so no rank is ever empty and no GPU is
//! asked to hold the whole grid.

use super::{cut, Partition};

/// The cost of a block the dry-map does not launch, relative to a launched one: a thread of
/// the block scan (on an H100, 10 % wet cost 14.9 % of all wet in GPU time).
pub const DRY_BLOCK_COST: f64 = 0.02;
/// No rank's share falls below this fraction of 1/P.
pub const MIN_SHARE: f64 = 0.1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Cost,
    Idle,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Rule::Cost => "cost",
            Rule::Idle => "idle",
        })
    }
}

impl std::str::FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Rule, String> {
        match s {
            "cost" => Ok(Rule::Cost),
            "idle" => Ok(Rule::Idle),
            other => Err(format!("expected \"cost\" or \"idle\", found {other:?}")),
        }
    }
}

/// The `[load_balancing]` table of a scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Steps between checks.
    pub every: u64,
    /// Rebalance when max(busy) / mean(busy) over the window exceeds this.
    pub threshold: f64,
    pub rule: Rule,
    /// Step size of the idle rule.
    pub epsilon: f64,
    /// No rank holds more than this many times its fair number of blocks.
    pub max_blocks: f64,
    /// A move must pay for itself within this many windows, at the last move's cost.
    pub payback: f64,
    /// No move while the busiest rank's GPU works less than this share of the window.
    pub min_busy_share: f64,
}

/// What one rank measured over a window of steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Window {
    pub steps: f64,
    /// Wall time of the window's steps (s).
    pub wall_s: f64,
    /// Waiting for other ranks: ghost exchange and dt reduction (s).
    pub idle_s: f64,
    /// Blocks launched, summed over the window's steps.
    pub launched: f64,
    /// Own blocks, summed over the window's steps.
    pub blocks: f64,
    /// GPU time of the window's passes from timestamps (s); 0 where there are none.
    pub gpu_s: f64,
    /// Time the host waited for its GPU (s): the GPU's time as the host clock sees it.
    pub gpu_wait_s: f64,
}

impl Window {
    /// Time the rank's GPU worked (after `settle_busy`).
    pub fn busy_s(&self) -> f64 {
        self.gpu_s.max(1e-12)
    }

    /// Work done, in launched-block steps.
    pub fn work(&self) -> f64 {
        self.launched + DRY_BLOCK_COST * (self.blocks - self.launched)
    }
}

/// One measure of busy time for every rank: GPU timestamps where every rank has them, else
/// the host's waits for its GPU (not the wall clock, which holds the writing of outputs).
/// True when the timestamps are used.
pub fn settle_busy(windows: &mut [Window]) -> bool {
    let timed = windows.iter().all(|w| w.gpu_s > 0.0);
    if !timed {
        windows.iter_mut().for_each(|w| w.gpu_s = w.gpu_wait_s);
    }
    timed
}

/// Whether the busiest rank's GPU worked at least `min_busy_share` of the window's wall
/// time (the longest rank's). Below it a step is mostly the fixed cost of a ranked step
/// (submission boundaries, exchanges, the dt round trip), which no cut shortens, while a
/// new cut's longer borders can lengthen it: on four H200s, moves made at shares of 0.5
/// ran no faster or slower than none (docs/benchmarks-history.md, dynamic load balancing).
pub fn compute_bound(s: &Settings, windows: &[Window]) -> bool {
    busy_share(windows) >= s.min_busy_share
}

/// The busiest rank's GPU time over the longest wall time of the window.
pub fn busy_share(windows: &[Window]) -> f64 {
    let of = |f: fn(&Window) -> f64| windows.iter().map(f).collect::<Vec<_>>();
    longest(&of(Window::busy_s)) / longest(&of(|w| w.wall_s)).max(1e-300)
}

/// The largest of non-negative times (0 for none).
pub fn longest(v: &[f64]) -> f64 {
    v.iter().cloned().fold(0.0, f64::max)
}

/// max / mean: 1 when every rank is equally busy.
pub fn imbalance(busy: &[f64]) -> f64 {
    let mean = busy.iter().sum::<f64>() / busy.len() as f64;
    longest(busy) / mean.max(1e-300)
}

/// The next shares of the curve, from the current ones and what each rank measured.
pub fn next_shares(s: &Settings, shares: &[f64], windows: &[Window]) -> Vec<f64> {
    let raw: Vec<f64> = match s.rule {
        Rule::Cost => windows.iter().map(|w| w.work() / w.busy_s()).collect(),
        Rule::Idle => {
            let n = windows.len() as f64;
            let idle: Vec<f64> = windows.iter().map(|w| w.idle_s / w.steps).collect();
            let mean = idle.iter().sum::<f64>() / n;
            let longest = windows
                .iter()
                .map(|w| w.wall_s / w.steps)
                .fold(1e-300, f64::max);
            shares
                .iter()
                .zip(&idle)
                .map(|(w, l)| w + s.epsilon * (l - mean) / longest)
                .collect()
        }
    };
    bounded(&raw)
}

/// Shares summing to 1, none below `MIN_SHARE` of the fair one.
pub fn bounded(raw: &[f64]) -> Vec<f64> {
    let n = raw.len() as f64;
    let floor = MIN_SHARE / n;
    let clean: Vec<f64> = raw
        .iter()
        .map(|&r| if r.is_finite() { r.max(0.0) } else { 0.0 })
        .collect();
    let sum: f64 = clean.iter().sum();
    if sum <= 0.0 {
        return vec![1.0 / n; raw.len()];
    }
    // Lift the small shares to the floor and take it from the rest in proportion.
    let lifted: Vec<f64> = clean.iter().map(|r| (r / sum).max(floor)).collect();
    let excess: f64 = lifted.iter().sum::<f64>() - 1.0;
    let above: f64 = lifted
        .iter()
        .filter(|&&r| r > floor)
        .map(|r| r - floor)
        .sum();
    lifted
        .iter()
        .map(|&r| {
            if r > floor && above > 0.0 {
                r - excess * (r - floor) / above
            } else {
                r
            }
        })
        .collect()
}

/// The weight of each block in the next cut: per the rule, from whether it was launched.
pub fn block_weight(rule: Rule, launched: bool) -> f64 {
    match (rule, launched) {
        (Rule::Idle, _) | (Rule::Cost, true) => 1.0,
        (Rule::Cost, false) => DRY_BLOCK_COST,
    }
}

/// The new owners of every block, given the curve order and which blocks were launched.
pub fn repartition(
    s: &Settings,
    ordered: &[usize],
    launched: &[bool],
    shares: &[f64],
) -> Partition {
    let ranks = shares.len();
    let cap = ((s.max_blocks * ordered.len() as f64 / ranks as f64).ceil() as usize).max(1);
    cut(ordered, &|b| block_weight(s.rule, launched[b]), shares, cap)
}

/// Busy time each rank would have under `p`, at the speed it showed (the cost model).
pub fn predicted_busy(p: &Partition, launched: &[bool], windows: &[Window]) -> Vec<f64> {
    let mut work = vec![0.0; p.ranks];
    for (b, &r) in p.owner.iter().enumerate() {
        work[r as usize] += block_weight(Rule::Cost, launched[b]);
    }
    work.iter()
        .zip(windows)
        .map(|(w, win)| w * win.steps * win.busy_s() / win.work().max(1e-300))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::BlockGrid;
    use crate::partition::{order, Method};

    fn settings(rule: Rule) -> Settings {
        Settings {
            every: 10,
            threshold: 1.05,
            rule,
            epsilon: 0.2,
            max_blocks: 3.0,
            payback: 1.0,
            min_busy_share: 0.5,
        }
    }

    /// Every rank's window when ranks run at the given speeds (launched blocks per second).
    fn measure(p: &Partition, launched: &[bool], speed: &[f64]) -> Vec<Window> {
        let counts: Vec<(f64, f64)> = (0..p.ranks)
            .map(|r| {
                let mine = (0..p.owner.len()).filter(|&b| p.owner[b] as usize == r);
                let blocks = mine.clone().count() as f64;
                let wet = mine.filter(|&b| launched[b]).count() as f64;
                (blocks, wet)
            })
            .collect();
        let busy: Vec<f64> = counts
            .iter()
            .zip(speed)
            .map(|((blocks, wet), s)| (wet + DRY_BLOCK_COST * (blocks - wet)) / s)
            .collect();
        let loop_s = longest(&busy);
        counts
            .iter()
            .zip(&busy)
            .map(|(&(blocks, wet), &busy)| Window {
                steps: 1.0,
                wall_s: loop_s,
                idle_s: loop_s - busy,
                launched: wet,
                blocks,
                gpu_s: busy,
                gpu_wait_s: busy,
            })
            .collect()
    }

    fn converge(rule: Rule, speed: &[f64], rounds: usize) -> Vec<f64> {
        let grid = BlockGrid::uniform(512, 512);
        let ordered = order(&grid, Method::Hilbert);
        let mut launched = vec![false; grid.nblocks()];
        for &b in &ordered[..ordered.len() / 3] {
            launched[b] = true;
        }
        let s = settings(rule);
        let ranks = speed.len();
        let mut shares = vec![1.0 / ranks as f64; ranks];
        // The static start: equal blocks per rank.
        let mut p = cut(&ordered, &crate::partition::per_block, &shares, usize::MAX);
        let mut history = Vec::new();
        for _ in 0..rounds {
            let w = measure(&p, &launched, speed);
            history.push(imbalance(&w.iter().map(Window::busy_s).collect::<Vec<_>>()));
            shares = next_shares(&s, &shares, &w);
            assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(shares
                .iter()
                .all(|&x| x >= MIN_SHARE / ranks as f64 - 1e-15));
            p = repartition(&s, &ordered, &launched, &shares);
            for r in 0..ranks {
                let n = p.blocks_of(r).len();
                assert!(
                    n >= 1 && n <= (3 * grid.nblocks()).div_ceil(ranks),
                    "{n} {shares:?}"
                );
            }
        }
        history
    }

    #[test]
    fn the_cost_rule_balances_in_one_move_and_stays() {
        let h = converge(Rule::Cost, &[1.0, 1.0, 1.0, 1.0], 4);
        assert!(
            h[0] > 2.0,
            "static cut of a third-wet grid is unbalanced: {h:?}"
        );
        assert!(h[1..].iter().all(|&i| i < 1.02), "{h:?}");
        // Unequal GPUs: shares follow speed.
        let h = converge(Rule::Cost, &[1.0, 2.0, 1.0, 0.5], 3);
        assert!(h[1..].iter().all(|&i| i < 1.03), "{h:?}");
    }

    #[test]
    fn the_idle_rule_improves_but_needs_many_moves() {
        let h = converge(Rule::Idle, &[1.0, 1.0, 1.0, 1.0], 12);
        let first_balanced = h.iter().position(|&i| i < 1.1).expect("balanced at last");
        assert!(first_balanced > 3, "{h:?}");
        assert!(h[first_balanced..].iter().all(|&i| i < 1.1), "{h:?}");
    }

    #[test]
    fn shares_stay_bounded_and_sum_to_one() {
        let b = bounded(&[0.0, 5.0, f64::NAN, 1.0]);
        assert!((b.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{b:?}");
        assert!(b.iter().all(|&x| x >= MIN_SHARE / 4.0 - 1e-15), "{b:?}");
        assert_eq!(bounded(&[0.0, 0.0]), vec![0.5, 0.5]);
    }

    /// A window in which the busiest GPU worked `busy` of a `wall`-second window.
    fn window(busy: f64, wall: f64) -> Window {
        Window {
            steps: 10.0,
            wall_s: wall,
            gpu_s: busy,
            ..Default::default()
        }
    }

    #[test]
    fn no_move_while_the_step_is_mostly_fixed_cost() {
        let s = settings(Rule::Cost);
        // Four H200s, the 33 M-cell wall case: 0.2 of 0.81 ms a step on the busiest GPU.
        let overhead_bound = [window(0.20, 0.81), window(0.05, 0.81), window(0.12, 0.80)];
        assert!(!compute_bound(&s, &overhead_bound));
        let busy = [window(0.70, 0.81), window(0.20, 0.81), window(0.30, 0.80)];
        assert!(compute_bound(&s, &busy));
        let anything = Settings {
            min_busy_share: 0.0,
            ..s
        };
        assert!(compute_bound(&anything, &overhead_bound));
    }
}

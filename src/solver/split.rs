//! How a simulation's blocks divide into classes (border, internal regular, internal with
//! a level change, ghosts) and the active lists the kernels start from.

use super::*;

/// How a simulation's blocks divide: [0, border) are border blocks (beside another rank),
/// [border, own) internal ones, and from own on ghosts copied from other ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    pub own: u32,
    pub border: u32,
    /// Internal blocks that run the lean kernels (`CLASS_REGULAR`): those without a level
    /// change on any side, or none (see `SPLIT_MIN_REGULAR_BLOCKS`).
    pub regular: u32,
    /// Stage 2's last workgroup ends the step, in place of a dispatch of its own (see
    /// `END_IN_STAGE2_MAX_BLOCKS`).
    pub end_in_stage2: bool,
    /// One rank of several: a step's end plans the next dt from the lagged CFL limit alone,
    /// before the ranks agree on the new one (timestep.wgsl, src/solver/ranks.rs `settle`).
    pub plans_ahead: bool,
}

/// Blocks up to which a one-rank grid ends its steps in stage 2 (`Split::end_in_stage2`):
/// each stage-2 workgroup then marks the next step's blocks and counts itself done, which
/// lengthens every workgroup by a few round trips to memory, and saves the dispatch of the
/// dry-map and step end. On an H100 (docs/benchmarks-history.md, "The dry-map in stage 2") that won
/// 11% at 256 blocks and 3% at 1,024, and lost 3% at 2,304, 6% at 4,096 and 12% at 65,536.
const END_IN_STAGE2_MAX_BLOCKS: u32 = 1024;

/// Regular internal blocks from which the blocks at a level change get stage kernels of
/// their own. The split makes the regular blocks' kernels leaner (on an H100, 43-45
/// registers against 64-74, and 272 threads) but adds two dispatches per step, whose fixed
/// cost only a large grid repays: on an H100 (docs/benchmarks-history.md, multi-resolution) it
/// came within the noise with 7,000 regular blocks and won 3% with 28,000. A grid of one
/// level always gets the lean kernels, with no extra dispatch.
/// QUADFLOOD_LEVEL_CLASSES=split|one overrides, for measuring.
const SPLIT_MIN_REGULAR_BLOCKS: u32 = 16384;

impl Split {
    /// Own blocks [0, own) of `grid`, the first `border` of them beside other ranks.
    pub fn new(grid: &crate::grid::BlockGrid, own: u32, border: u32) -> Split {
        let levels = grid.blocks[border as usize..own as usize]
            .iter()
            .filter(|b| b.has_level_change())
            .count() as u32;
        let internal = own - border;
        let by_size = levels == 0 || internal - levels >= SPLIT_MIN_REGULAR_BLOCKS;
        let split = match env_choice("QUADFLOOD_LEVEL_CLASSES", &["split", "one"]) {
            Some("one") => levels == 0,
            Some(_) => true,
            None => by_size,
        };
        Split {
            own,
            border,
            regular: if split { internal - levels } else { 0 },
            end_in_stage2: false,
            plans_ahead: false,
        }
    }

    /// The split of a one-rank run, whose steps end in stage 2's last workgroup on small
    /// grids: stage 2 marks the next step's blocks as it goes, and no dispatch of the
    /// dry-map and the step's end follows (a rank's steps end with the CFL minimum agreed
    /// over every rank, between stage 2 and the step's end, so never there).
    /// QUADFLOOD_STEP_END=stage2|apart overrides, for testing and measuring.
    pub(super) fn one_rank(grid: &crate::grid::BlockGrid) -> Split {
        let split = Split::new(grid, grid.nblocks() as u32, 0);
        let end_in_stage2 = match env_choice("QUADFLOOD_STEP_END", &["stage2", "apart"]) {
            Some(choice) => choice == "stage2",
            None => split.own <= END_IN_STAGE2_MAX_BLOCKS,
        };
        Split {
            end_in_stage2,
            ..split
        }
    }

    /// Whether an internal block runs the kernel with the multi-resolution code: when it
    /// has a level change, or when every internal block does (no regular class).
    pub(super) fn in_levels_class(&self, info: &crate::grid::BlockInfo) -> bool {
        info.has_level_change() || self.regular == 0
    }

    /// Whether the internal blocks are numbered class by class, regular ones first (as on a
    /// grid of one class): each class's fixed list is then a range of block numbers.
    pub(super) fn classes_in_order(&self, grid: &crate::grid::BlockGrid) -> bool {
        let levels = |b: u32| self.in_levels_class(&grid.blocks[b as usize]);
        let first_levels = (self.border..self.own)
            .find(|&b| levels(b))
            .unwrap_or(self.own);
        !(first_levels..self.own).any(|b| !levels(b))
    }

    /// Internal blocks that run the `_levels` kernels (`CLASS_LEVELS`): those with a level
    /// change, or all of them when there is no regular class.
    pub fn levels_class(&self) -> u32 {
        self.own - self.border - self.regular
    }
}

/// The `active_list` buffer as the kernels expect it at the start: room for the step's
/// lists, then every internal block, regular ones first, then room for the internal lists
/// of the other parity (see `shaders/common.wgsl`).
pub(super) fn active_lists(grid: &crate::grid::BlockGrid, split: Split) -> Vec<u32> {
    let nb = grid.nblocks();
    let internal = split.border..split.own;
    let (levels, regular): (Vec<u32>, Vec<u32>) =
        internal.partition(|&b| split.in_levels_class(&grid.blocks[b as usize]));
    let mut lists = vec![0u32; 2 * nb];
    lists.extend(regular);
    lists.extend(levels);
    lists.resize(4 * nb, 0);
    lists
}

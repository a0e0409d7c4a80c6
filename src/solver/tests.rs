//! Unit tests of the solver's host side: workgroup grids, block classes, friction tables,
//! fields from storage.

use super::{
    active_lists, friction_entries, grid_2d, Split, FRICTION_PER_CELL, MAX_GROUPS_X, SCAN_THREADS,
};
use crate::gpu::shaders;
use crate::grid::CELLS_PER_BLOCK;
use crate::grid::{BlockGrid, COARSER_SIDES_SHIFT, FINER_SIDES_SHIFT};

/// Every block gets a workgroup, rows stay within the limit, and fewer workgroups than
/// rows find no block (65,536 blocks once launched 131,070).
#[test]
fn workgroup_grids_leave_fewer_idle_than_rows() {
    assert_eq!(grid_2d(0), (0, 0));
    for count in [
        1,
        4096,
        MAX_GROUPS_X,
        MAX_GROUPS_X + 1,
        65_536,
        262_144,
        4_194_304,
    ] {
        let (x, y) = grid_2d(count);
        let launched = x as u64 * y as u64;
        assert!(x <= MAX_GROUPS_X, "{count}: {x} per row");
        assert!(launched >= count as u64, "{count}: {x} x {y}");
        assert!(launched - (count as u64) < y as u64, "{count}: {x} x {y}");
    }
}

/// A uniform grid of `side`² blocks, every tenth of them flagged as facing another
/// level (alternately coarser and finer).
fn grid_with_level_changes(side: usize) -> BlockGrid {
    let mut grid = BlockGrid::uniform(16 * side, 16 * side);
    for (k, b) in grid.blocks.iter_mut().step_by(10).enumerate() {
        let shift = if k % 2 == 0 {
            COARSER_SIDES_SHIFT
        } else {
            FINER_SIDES_SHIFT
        };
        b.flags |= 1 << shift;
    }
    grid
}

/// The list of every internal block that steps launching all blocks read: regular
/// blocks first, then those at a level change, each in block order, after the two
/// regions the dry-map fills.
#[test]
fn a_large_grid_lists_its_internal_blocks_by_class() {
    let grid = grid_with_level_changes(144);
    let nb = grid.nblocks();
    let (own, border) = (nb as u32, 100u32);
    let split = Split::new(&grid, own, border);
    let changes: Vec<u32> = (border..own).filter(|b| b % 10 == 0).collect();
    assert_eq!(split.levels_class() as usize, changes.len());
    let lists = active_lists(&grid, split);
    assert_eq!(
        lists.len(),
        4 * nb,
        "two parities of moving lists, border, fixed"
    );
    let (regular, levels) =
        lists[2 * nb..3 * nb - border as usize].split_at(split.regular as usize);
    assert_eq!(levels, &changes[..]);
    let expected: Vec<u32> = (border..own).filter(|b| b % 10 != 0).collect();
    assert_eq!(regular, &expected[..]);
}

/// The kernels take block numbers for list entries only where the fixed list is the
/// range of internal blocks: on a grid of one class, not where classes interleave.
#[test]
fn classes_are_in_order_exactly_when_the_fixed_list_is_a_range() {
    let cases = [
        (BlockGrid::uniform(16 * 30, 16 * 30), 40),
        (grid_with_level_changes(20), 7),
        (grid_with_level_changes(144), 100),
    ];
    let mut seen = Vec::new();
    for (grid, border) in cases {
        let nb = grid.nblocks();
        let split = Split::new(&grid, nb as u32, border);
        let lists = active_lists(&grid, split);
        let range: Vec<u32> = (border..nb as u32).collect();
        let is_range = lists[2 * nb..3 * nb - border as usize] == range[..];
        assert_eq!(split.classes_in_order(&grid), is_range, "{nb} blocks");
        seen.push(is_range);
    }
    assert_eq!(seen, [true, true, false]);
}

/// Below SPLIT_MIN_REGULAR_BLOCKS a grid with level changes has no regular class:
/// every internal block is listed for the `_levels` kernels, in block order.
#[test]
fn a_small_grid_runs_every_internal_block_with_the_level_code() {
    let grid = grid_with_level_changes(20);
    let nb = grid.nblocks();
    let split = Split::new(&grid, nb as u32, 7);
    assert_eq!((split.regular, split.levels_class()), (0, nb as u32 - 7));
    let lists = active_lists(&grid, split);
    let all: Vec<u32> = (7..nb as u32).collect();
    assert_eq!(&lists[2 * nb..3 * nb - 7], &all[..]);
    let uniform = BlockGrid::uniform(16 * 20, 16 * 20);
    let split = Split::new(&uniform, nb as u32, 7);
    assert_eq!((split.regular, split.levels_class()), (nb as u32 - 7, 0));
}

/// The host sizes the dry-map's dispatch with SCAN_THREADS blocks per workgroup: a
/// shader with other workgroups would leave blocks unscanned, without any error.
#[test]
fn the_dry_map_kernels_have_the_workgroups_the_host_counts_on() {
    let module = shaders::validate("solver", shaders::SOLVER).unwrap();
    for name in ["scan_blocks", "scan_then_finalize", "finalize_step"] {
        let entry = module.entry_points.iter().find(|e| e.name == name).unwrap();
        assert_eq!(entry.workgroup_size, [SCAN_THREADS, 1, 1], "{name}");
    }
}

/// g n² of cell `tid` of block `b`, read as `friction_of` in flux.wgsl reads it.
fn decode_friction(table: &[u32], b: usize, tid: usize) -> f32 {
    let code = table[b];
    if code & FRICTION_PER_CELL == 0 {
        return f32::from_bits(code);
    }
    f32::from_bits(table[(code & !FRICTION_PER_CELL) as usize + tid])
}

/// Blocks whose domain cells share one n hold it once (whatever their padding holds);
/// others hold every cell's; every domain cell reads back its own g n².
#[test]
fn friction_is_stored_per_block_where_the_block_is_uniform() {
    let mut model = crate::bench::dam_break_model(40, 40);
    let nb = model.grid.nblocks();
    assert_eq!(nb, 9);
    let padded = (0..nb)
        .find(|&b| (b * CELLS_PER_BLOCK..(b + 1) * CELLS_PER_BLOCK).any(|c| !model.is_valid(c)))
        .unwrap();
    let mixed = (padded + 1) % nb;
    for c in 0..model.manning.len() {
        let b = c / CELLS_PER_BLOCK;
        model.manning[c] = match () {
            _ if !model.is_valid(c) => 0.5,
            _ if b == mixed => 0.02 + 0.001 * (c % 7) as f32,
            _ => 0.03,
        };
    }
    let g = model.numerics.gravity as f32;
    for everywhere in [false, true] {
        let table = friction_entries(&model, everywhere);
        let stored_blocks = if everywhere { nb } else { 1 };
        assert_eq!(table.len(), nb + stored_blocks * CELLS_PER_BLOCK);
        assert_eq!(table[padded] & FRICTION_PER_CELL != 0, everywhere);
        assert!(table[mixed] & FRICTION_PER_CELL != 0);
        for c in (0..model.manning.len()).filter(|&c| model.is_valid(c)) {
            let (b, tid) = (c / CELLS_PER_BLOCK, c % CELLS_PER_BLOCK);
            let n = model.manning[c];
            assert_eq!(decode_friction(&table, b, tid), g * n * n, "cell {c}");
        }
    }
}

#[test]
fn fields_from_storage_match_the_grid_cell_by_cell() {
    // Three levels, a domain that ends inside blocks, more cells than the cores divide.
    let grid = crate::grid::quadtree::build(300, 203, 3, &|f| f.i0 < 64);
    assert!(grid.levels == 3 && grid.blocks_per_level().iter().all(|&n| n > 0));
    let stored: Vec<[f32; 4]> = (0..grid.stored_cells())
        .map(|k| [k as f32, -(k as f32), 0.5 * k as f32, 7.0])
        .collect();
    let fields = super::Fields::from_stored(&grid, &stored);
    assert_eq!(fields.depth.len(), 300 * 203);
    for j in 0..203 {
        for i in 0..300 {
            let (c, e) = (i + 300 * j, stored[grid.storage_index(i, j)]);
            let got = [fields.depth[c], fields.hu[c], fields.hv[c]];
            assert_eq!(got, [e[0], e[1], e[2]], "cell ({i}, {j})");
        }
    }
}

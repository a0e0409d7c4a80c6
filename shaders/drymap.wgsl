// The dry-map: a block is launched next step when it or any of its 8 neighbours holds
// water or is forced (touches an inflow or stage edge, a source or a stage line: such a
// block can fill in a step's first stage and spill over in its second). Launched blocks are appended to
// their class's active list, whose length the end of the step turns into indirect dispatch
// arguments.
// The list order does not matter: each block's result depends only on its inputs.
//
// Two ways to the same lists: after stage 2, each own block looks at itself and its
// neighbours (scan_block: ranks, and the initial pass; a rank's border blocks wait for the
// ghosts' flags, which arrive with the next step's exchange: scan_border); or, when steps end in stage 2, each launched block marks itself and, if it holds
// water or is forced, its neighbours, as its stage-2 workgroup ends (mark_next_step), which needs no
// pass over every block. Side neighbours list each other (grid/quadtree.rs checks), so
// either way every block beside a wet one is launched. Corner slots across a level change
// are not always mutual, so on multi-level grids the two may also launch a few different
// dry blocks with no water beside them, which compute to the same bits (their cell update
// counts differ); tests/drymap.rs checks that the results agree to the bit.

// Whether block b may send water to its neighbours during the next step: it holds water,
// or its forcing (an inflow or stage edge, a source, a stage line) can give it water in
// the step's first stage, which the second stage moves on across its sides.
fn may_spill(b: u32) -> bool {
    return atomicLoad(&block_flags[b]) != 0u || is_forced(b);
}

fn is_forced(b: u32) -> bool {
    return (blocks[b].flags & BLOCK_ALWAYS_ACTIVE) != 0u;
}

fn block_is_active(b: u32) -> bool {
    if (may_spill(b)) {
        return true;
    }
    for (var s = 0u; s < NB_SLOTS; s++) {
        let nb = neighbours[b * NB_SLOTS + s];
        if (nb != NONE && may_spill(nb)) {
            return true;
        }
    }
    return false;
}

// As many threads as finalize_step has, so that scan_then_finalize can run both.
@compute @workgroup_size(FINALIZE_THREADS)
fn scan_blocks(@builtin(global_invocation_id) gid: vec3<u32>) {
    scan_block(gid.x);
}

// Appends block `b` to its class's active list when it launches next step.
fn scan_block(b: u32) {
    if (b >= params.own_blocks || b < params.border_blocks) {
        return; // ghosts belong to other ranks; border blocks: scan_border
    }
    mark_launched(b, block_is_active(b));
}

// Block b's launch mark for the step about to be taken, and its place in its class's list.
fn mark_launched(b: u32, launch: bool) {
    let parity = sim.list_parity;
    atomicStore(&block_flags[mark_base(parity) + b], select(0u, sim.launch_mark, launch));
    if (launch) {
        append_launched(b, parity);
    }
}

// A rank's border blocks (a neighbour on another rank), once the step's exchange has brought
// the ghosts' wet flags, at the start of the step's border pass: their marks, list and
// dispatch arguments. It also settles whether the step launches every block (all_active 2:
// every internal block was launched, when the step before ended: 1 if every border block
// is too, else 3). One workgroup: a rank has few border blocks.
@compute @workgroup_size(256)
fn scan_border(@builtin(local_invocation_index) lid: u32) {
    let every = sim.all_active == 1u; // rain, or skipping off
    for (var b = lid; b < params.border_blocks; b += 256u) {
        mark_launched(b, every || block_is_active(b));
    }
    storageBarrier();
    workgroupBarrier();
    if (lid != 0u) {
        return;
    }
    let count = atomicExchange(&sim.scan_count_border, 0u);
    if (sim.all_active == INTERNAL_LAUNCHED_BORDER_UNSCANNED) {
        sim.all_active = select(INTERNAL_LAUNCHED, 1u, count == params.border_blocks);
    }
    let border = select(0u, count, sim.dt > 0.0);
    sim.list_count_border = count;
    sim.dispatched_border = border;
    set_groups(3u, border);
    let ghosts = params.nblocks - params.own_blocks;
    set_groups(9u, select(0u, ghosts + border, sim.dt > 0.0));
}

fn append_launched(b: u32, parity: u32) {
    let base = moving_base(parity);
    if (b < params.border_blocks) {
        active_list[params.nblocks + atomicAdd(&sim.scan_count_border, 1u)] = b;
    } else if ((blocks[b].flags & LEVEL_CHANGE_SIDES) != 0u || params.regular_blocks == 0u) {
        active_list[base + params.nblocks - 1u - atomicAdd(&sim.scan_count_levels, 1u)] = b;
    } else {
        active_list[base + atomicAdd(&sim.scan_count, 1u)] = b;
    }
}

// The mark of the step after the one marked `mark`: 0 and 1 are skipped (never launched,
// and the mark of a step after a scan).
fn next_mark(mark: u32) -> u32 {
    return max(mark + 1u, 2u);
}

// At the end of stage 2 of block b (one rank, steps ending in stage 2): thread `slot` <
// NB_SLOTS marks that neighbour for the next step if b holds water, thread NB_SLOTS marks b
// itself if it holds water or touches an inflow or stage boundary. The first to mark a
// block appends it to the next step's list.
fn mark_next_step(b: u32, slot: u32, wet: bool) {
    // may_spill, with the wet flag this workgroup has not stored yet.
    let spills = wet || is_forced(b);
    var x = NONE;
    if (slot < NB_SLOTS && spills) {
        x = neighbours[b * NB_SLOTS + slot];
    } else if (slot == NB_SLOTS && spills) {
        x = b;
    }
    if (x >= params.own_blocks) {
        return; // none, or (were a rank's steps to end here) another rank's
    }
    let parity = 1u - sim.list_parity;
    let mark = next_mark(sim.launch_mark);
    if (atomicExchange(&block_flags[mark_base(parity) + x], mark) != mark) {
        append_launched(x, parity);
    }
}

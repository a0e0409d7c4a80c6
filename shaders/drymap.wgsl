// The dry-map: a block is launched next step when it or any of its 8 neighbours holds
// water, or when it touches an inflow or stage boundary. Launched blocks are appended to
// their class's active list, whose length the end of the step turns into indirect dispatch
// arguments.
// The list order does not matter: each block's result depends only on its inputs.

fn block_is_active(b: u32) -> bool {
    if (block_flags[b] != 0u || (blocks[b].flags & BLOCK_ALWAYS_ACTIVE) != 0u) {
        return true;
    }
    for (var s = 0u; s < NB_SLOTS; s++) {
        let nb = neighbours[b * NB_SLOTS + s];
        if (nb != NONE && block_flags[nb] != 0u) {
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
    if (b >= params.own_blocks) {
        return; // ghosts belong to other ranks
    }
    let launch = block_is_active(b);
    block_flags[params.nblocks + b] = select(0u, 1u, launch);
    if (!launch) {
        return;
    }
    if (b < params.border_blocks) {
        active_list[params.nblocks + atomicAdd(&sim.scan_count_border, 1u)] = b;
    } else if ((blocks[b].flags & LEVEL_CHANGE_SIDES) != 0u || params.regular_blocks == 0u) {
        active_list[params.nblocks - 1u - atomicAdd(&sim.scan_count_levels, 1u)] = b;
    } else {
        active_list[atomicAdd(&sim.scan_count, 1u)] = b;
    }
}

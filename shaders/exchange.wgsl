// Ghost exchange between ranks, once per step: pack the cells other ranks read into a
// staging buffer, and unpack what arrives into the ghost blocks. Index lists are built once
// on the host (src/partition/local.rs), so each direction is one gather or scatter over a
// list. The cells travel as U^{n+1} once stage 2 is done, deep enough that the receiver
// runs the next step's stage 1 on its ghosts itself (stage1_ghosts_and_border), with the blocks'
// wet flags for its border blocks' dry-map (scan_border).

struct ExchangeSizes {
    send_cells: u32,
    recv_cells: u32,
    send_flags: u32,
    recv_flags: u32,
}

// Messages lie one after another in the word buffers, each its cells (h, hu, hv: the bed
// never changes, so it does not travel; with losses also the depth the ground has taken,
// on which the share of the rain it takes as it falls depends, `rain_soaked`) and then its
// blocks' wet flags, so that the host sends and receives each as one slice. `*_index`: the state index of each cell, then the
// block of each flag; `*_place`: the word each of them starts at.
@group(2) @binding(0) var<uniform> sizes: ExchangeSizes;
@group(2) @binding(1) var<storage, read> send_index: array<u32>;
@group(2) @binding(2) var<storage, read_write> send_words: array<u32>;
@group(2) @binding(3) var<storage, read> recv_index: array<u32>;
@group(2) @binding(4) var<storage, read> recv_words: array<u32>;
@group(2) @binding(5) var<storage, read> send_place: array<u32>;
@group(2) @binding(6) var<storage, read> recv_place: array<u32>;

// The word of `losses` holding what the ground of the cell at state index `cell` has
// taken, NONE in a block that loses nothing (src/solver/loss_table.rs): the same on every
// rank, all built from one model.
fn loss_word(cell: u32) -> u32 {
    let base = losses[cell / CELLS_PER_BLOCK];
    return select(base + cell % CELLS_PER_BLOCK, NONE, base == NONE);
}

@compute @workgroup_size(256)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.send_cells) {
        let s = state_a[send_index[i]];
        let w = send_place[i];
        send_words[w] = bitcast<u32>(s.x);
        send_words[w + 1u] = bitcast<u32>(s.y);
        send_words[w + 2u] = bitcast<u32>(s.z);
        if (LOSSES) {
            let lost = loss_word(send_index[i]);
            if (lost != NONE) {
                send_words[w + 3u] = losses[lost];
            }
        }
    }
    if (i < sizes.send_flags) {
        let k = sizes.send_cells + i;
        send_words[send_place[k]] = atomicLoad(&block_flags[send_index[k]]);
    }
}

@compute @workgroup_size(256)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.recv_cells) {
        let cell = recv_index[i];
        let w = recv_place[i];
        let h = vec3<f32>(bitcast<f32>(recv_words[w]), bitcast<f32>(recv_words[w + 1u]),
                          bitcast<f32>(recv_words[w + 2u]));
        state_a[cell] = vec4<f32>(h, state_a[cell].w);
        if (LOSSES) {
            let lost = loss_word(cell);
            if (lost != NONE) {
                losses[lost] = recv_words[w + 3u];
            }
        }
    }
    if (i < sizes.recv_flags) {
        let k = sizes.recv_cells + i;
        atomicStore(&block_flags[recv_index[k]], recv_words[recv_place[k]]);
    }
}

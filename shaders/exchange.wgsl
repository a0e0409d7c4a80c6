// Ghost exchange between ranks, once per step: pack the cells other ranks read into a
// staging buffer, and unpack what arrives into the ghost blocks. Index lists are built once
// on the host (src/partition/local.rs), so each direction is one gather or scatter over a
// list. The cells travel as U^{n+1} once stage 2 is done, deep enough that the receiver
// runs the next step's stage 1 on its side ghosts itself (stage1_ghosts), with the blocks'
// wet flags for its border blocks' dry-map (scan_border).

struct ExchangeSizes {
    send_cells: u32,
    recv_cells: u32,
    send_flags: u32,
    recv_flags: u32,
}

@group(2) @binding(0) var<uniform> sizes: ExchangeSizes;
@group(2) @binding(1) var<storage, read> send_index: array<u32>;
@group(2) @binding(2) var<storage, read_write> send_cells: array<vec4<f32>>;
@group(2) @binding(3) var<storage, read> recv_index: array<u32>;
@group(2) @binding(4) var<storage, read> recv_cells: array<vec4<f32>>;
@group(2) @binding(5) var<storage, read> send_flag_index: array<u32>;
@group(2) @binding(6) var<storage, read_write> send_flags: array<u32>;
@group(2) @binding(7) var<storage, read> recv_flag_index: array<u32>;
@group(2) @binding(8) var<storage, read> recv_flags: array<u32>;

@compute @workgroup_size(256)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.send_cells) {
        send_cells[i] = state_a[send_index[i]];
    }
    if (i < sizes.send_flags) {
        send_flags[i] = atomicLoad(&block_flags[send_flag_index[i]]);
    }
}

@compute @workgroup_size(256)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.recv_cells) {
        state_a[recv_index[i]] = recv_cells[i];
    }
    if (i < sizes.recv_flags) {
        atomicStore(&block_flags[recv_flag_index[i]], recv_flags[i]);
    }
}

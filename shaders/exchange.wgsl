// Ghost exchange between ranks: pack the cells other ranks read into a staging buffer,
// and unpack what arrives into the ghost blocks. Index lists are built once on the host
// (src/partition/local.rs), so each direction is one gather or scatter over a list.
//
// After stage 1 the cells travel as U* (a block left out of the step contributes U^n, which
// equals its U*), and land in state_b; after stage 2 as U^{n+1}, landing in state_a, with
// the blocks' wet flags for the dry-map.

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
fn pack_stage1(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.send_cells) {
        let cell = send_index[i];
        send_cells[i] = select(state_a[cell], state_b[cell], staged(cell / CELLS_PER_BLOCK));
    }
}

@compute @workgroup_size(256)
fn pack_stage2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.send_cells) {
        send_cells[i] = state_a[send_index[i]];
    }
    if (i < sizes.send_flags) {
        send_flags[i] = atomicLoad(&block_flags[send_flag_index[i]]);
    }
}

@compute @workgroup_size(256)
fn unpack_stage1(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.recv_cells) {
        state_b[recv_index[i]] = recv_cells[i];
    }
}

@compute @workgroup_size(256)
fn unpack_stage2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < sizes.recv_cells) {
        state_a[recv_index[i]] = recv_cells[i];
    }
    if (i < sizes.recv_flags) {
        atomicStore(&block_flags[recv_flag_index[i]], recv_flags[i]);
    }
}

//! What a rank exchanges with its neighbours each stage: the index lists of the cells and
//! wet flags that travel, the buffers the pack kernels fill and the unpack kernels read, and
//! how the host reaches them (mapped directly, or through staging copies).

use super::{map_buffer, total, Submitted};
use crate::gpu::Gpu;
use crate::partition::local::LocalGrid;
use crate::solver::kernels::{RankKernels, EXCHANGE_RECEIVING, EXCHANGE_SENDING, EXCHANGE_WRITTEN};
use crate::solver::Simulation;

/// One rank's exchange buffers and lists, for all its neighbour ranks at once.
pub(super) struct Transfer {
    pub(super) peers: Vec<usize>,
    /// Group 0 for the pack and unpack kernels: the state buffers alone.
    pub(super) state_group: wgpu::BindGroup,
    /// Cells and flags per peer, sending and receiving.
    pub(super) send_cells: Vec<usize>,
    pub(super) recv_cells: Vec<usize>,
    pub(super) send_flags: Vec<usize>,
    pub(super) recv_flags: Vec<usize>,
    /// Group 2 for the pack kernels (the receive buffers left out) and for the unpack
    /// kernels (the send buffers left out), so that a pass binds no buffer the host has
    /// mapped or asked to map.
    pub(super) pack_group: wgpu::BindGroup,
    pub(super) unpack_group: wgpu::BindGroup,
    pub(super) send: wgpu::Buffer,
    pub(super) send_flag: wgpu::Buffer,
    pub(super) recv: wgpu::Buffer,
    pub(super) recv_flag: wgpu::Buffer,
    /// Where the host reads the strips and flags: `send` and `send_flag` themselves where
    /// they are mappable (`strips_written_to_host`), else copies of them.
    pub(super) host_strips: wgpu::Buffer,
    pub(super) host_flags: wgpu::Buffer,
    pub(super) copies_strips: bool,
    /// Where the host writes what arrives straight into `recv` and `recv_flag` (mappable
    /// buffers, unless `copies_strips`): their maps for writing, asked for after the last
    /// submission that reads them, with that submission.
    pub(super) received_maps: std::cell::RefCell<Option<Submitted>>,
}

/// Whether the pack kernels write the strips into buffers the host maps, instead of buffers
/// copied into mappable ones after each pack: where the adapter allows mappable storage
/// buffers, unless QUADFLOOD_STRIPS=copied. (On two H100s, each copy to host memory
/// lengthened the GPU's gap at its submission boundary; docs/benchmarks.md.)
fn strips_written_to_host(gpu: &Gpu) -> bool {
    let mappable = gpu
        .features
        .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
    mappable
        && crate::solver::env_choice("QUADFLOOD_STRIPS", &["copied", "direct"]) != Some("copied")
}

pub(super) fn transfer(
    gpu: &Gpu,
    sim: &Simulation,
    k: &RankKernels,
    local: &LocalGrid,
) -> Transfer {
    use wgpu::BufferUsages as U;
    let direct = strips_written_to_host(gpu);
    let concat = |lists: Vec<Vec<u32>>| -> Vec<u32> { lists.concat() };
    let send_index = concat(local.sends.iter().map(|e| local.cell_indices(e)).collect());
    let recv_index = concat(local.recvs.iter().map(|e| local.cell_indices(e)).collect());
    let send_flag_index = concat(local.sends.iter().map(|e| local.flag_blocks(e)).collect());
    let recv_flag_index = concat(local.recvs.iter().map(|e| local.flag_blocks(e)).collect());
    let sizes = [
        send_index.len() as u32,
        recv_index.len() as u32,
        send_flag_index.len() as u32,
        recv_flag_index.len() as u32,
    ];
    let storage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
    let (sent, received) = if direct {
        (U::STORAGE | U::MAP_READ, U::STORAGE | U::MAP_WRITE)
    } else {
        (storage, storage)
    };
    let cells = |n: usize| vec![[0.0f32; 4]; n.max(1)];
    let buffers = [
        gpu.buffer_with("exchange sizes", &sizes, U::UNIFORM | U::COPY_DST),
        gpu.buffer_with("send index", &send_index, storage),
        gpu.buffer_with("send cells", &cells(send_index.len()), sent),
        gpu.buffer_with("recv index", &recv_index, storage),
        gpu.buffer_with("recv cells", &cells(recv_index.len()), received),
        gpu.buffer_with("send flag index", &send_flag_index, storage),
        gpu.buffer_with(
            "send flags",
            &vec![0u32; send_flag_index.len().max(1)],
            sent,
        ),
        gpu.buffer_with("recv flag index", &recv_flag_index, storage),
        gpu.buffer_with(
            "recv flags",
            &vec![0u32; recv_flag_index.len().max(1)],
            received,
        ),
    ];
    // Stand-ins for the bindings a kernel leaves alone: one read-only, one read-write (a
    // buffer may not be both in one dispatch).
    let unused = [
        gpu.buffer_with("exchange stand-in", &cells(1), U::STORAGE),
        gpu.buffer_with("exchange stand-in, read-write", &cells(1), U::STORAGE),
    ];
    let group = |label, sends: bool| {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(b, buf)| {
                let b = b as u32;
                let other_side = if sends {
                    EXCHANGE_RECEIVING
                } else {
                    EXCHANGE_SENDING
                };
                let buf = if other_side.contains(&b) {
                    &unused[usize::from(EXCHANGE_WRITTEN.contains(&b))]
                } else {
                    buf
                };
                wgpu::BindGroupEntry {
                    binding: b,
                    resource: buf.as_entire_binding(),
                }
            })
            .collect();
        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &k.exchange_layout,
            entries: &entries,
        })
    };
    let state_entries: Vec<wgpu::BindGroupEntry> = crate::solver::kernels::EXCHANGE_STATE
        .iter()
        .map(|&b| wgpu::BindGroupEntry {
            binding: b,
            resource: sim.buffers.all[b as usize].as_entire_binding(),
        })
        .collect();
    let state_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("exchange state"),
        layout: &k.state_layout,
        entries: &state_entries,
    });
    let t = Transfer {
        state_group,
        peers: local.sends.iter().map(|e| e.rank).collect(),
        send_cells: local.sends.iter().map(|e| e.cells.len()).collect(),
        recv_cells: local.recvs.iter().map(|e| e.cells.len()).collect(),
        send_flags: local.sends.iter().map(|e| e.flags.len()).collect(),
        recv_flags: local.recvs.iter().map(|e| e.flags.len()).collect(),
        pack_group: group("exchange: pack", true),
        unpack_group: group("exchange: unpack", false),
        send: buffers[2].clone(),
        send_flag: buffers[6].clone(),
        recv: buffers[4].clone(),
        recv_flag: buffers[8].clone(),
        host_strips: if direct {
            buffers[2].clone()
        } else {
            map_buffer(gpu, "strips", 16 * send_index.len())
        },
        host_flags: if direct {
            buffers[6].clone()
        } else {
            map_buffer(gpu, "flags", 4 * send_flag_index.len())
        },
        copies_strips: !direct,
        received_maps: Default::default(),
    };
    if direct {
        let nothing_yet = gpu.queue.submit([]);
        *t.received_maps.borrow_mut() = Some(map_received(&t, nothing_yet));
    }
    t
}

/// Asks for the receive buffers the exchange fills to be mapped for the host to write, once
/// submission `index` (the last to read them) is done.
pub(super) fn map_received(t: &Transfer, index: wgpu::SubmissionIndex) -> Submitted {
    let filled = [
        (&t.recv, total(&t.recv_cells) > 0),
        (&t.recv_flag, total(&t.recv_flags) > 0),
    ];
    Submitted {
        index,
        maps: filled
            .iter()
            .filter(|(_, used)| *used)
            .map(|(buffer, _)| crate::gpu::request_write(buffer))
            .collect(),
    }
}

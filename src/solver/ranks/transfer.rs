//! What a rank exchanges with its neighbours each step: the index lists of the cells and
//! wet flags that travel, the buffers the pack kernel fills and the unpack kernel reads, and
//! how the host reaches them (mapped directly, or through a staging copy).

use super::{map_buffer, total, Submitted};
use crate::gpu::Gpu;
use crate::partition::local::{Exchange, LocalGrid};
use crate::solver::kernels::{RankKernels, EXCHANGE_RECEIVING, EXCHANGE_SENDING, EXCHANGE_WRITTEN};
use crate::solver::Simulation;

/// One rank's exchange buffers and lists, for all its neighbour ranks at once.
pub(super) struct Transfer {
    pub(super) peers: Vec<usize>,
    /// Group 0 for the pack and unpack kernels: the state buffers alone.
    pub(super) state_group: wgpu::BindGroup,
    /// Words per cell: 3, or 4 with losses (`words`).
    pub(super) cell_words: usize,
    /// Cells and flags per peer, sending and receiving.
    pub(super) send_cells: Vec<usize>,
    pub(super) recv_cells: Vec<usize>,
    pub(super) send_flags: Vec<usize>,
    pub(super) recv_flags: Vec<usize>,
    /// Group 2 for the pack kernel (the receiving buffers left out) and for the unpack
    /// kernel (the sending ones left out), so that a pass binds no buffer the host has
    /// mapped or asked to map.
    pub(super) pack_group: wgpu::BindGroup,
    pub(super) unpack_group: wgpu::BindGroup,
    /// The messages, one after another (exchange.wgsl): what the pack kernel fills and
    /// what the unpack kernel reads.
    pub(super) send: wgpu::Buffer,
    pub(super) recv: wgpu::Buffer,
    /// Where the host reads the messages: `send` itself where it is mappable
    /// (`strips_written_to_host`), else a copy of it.
    pub(super) host_strips: wgpu::Buffer,
    pub(super) copies_strips: bool,
    /// Where the host writes what arrives straight into `recv` (mappable, unless
    /// `copies_strips`): its map for writing, asked for after the last submission that
    /// reads it, with that submission.
    pub(super) received_maps: std::cell::RefCell<Option<Submitted>>,
}

/// Words of a message: `cell_words` per cell (h, hu, hv, and with losses the depth the
/// ground has taken: see exchange.wgsl), one per wet flag.
fn words(cells: usize, flags: usize, cell_words: usize) -> usize {
    cell_words * cells + flags
}

impl Transfer {
    /// Bytes of each message sent, per peer.
    pub(super) fn send_bytes(&self) -> impl Iterator<Item = usize> + '_ {
        let (c, f) = (&self.send_cells, &self.send_flags);
        (0..self.peers.len()).map(move |k| 4 * words(c[k], f[k], self.cell_words))
    }

    /// Bytes of each message received, per peer.
    pub(super) fn recv_bytes(&self) -> impl Iterator<Item = usize> + '_ {
        let (c, f) = (&self.recv_cells, &self.recv_flags);
        (0..self.peers.len()).map(move |k| 4 * words(c[k], f[k], self.cell_words))
    }

    pub(super) fn sends(&self) -> bool {
        self.send_bytes().sum::<usize>() > 0
    }

    pub(super) fn receives(&self) -> bool {
        self.recv_bytes().sum::<usize>() > 0
    }
}

/// The index list and word places of one direction's messages (see exchange.wgsl): every
/// message's cells (their storage indices), then every message's flags (their blocks).
fn message_lists(
    local: &LocalGrid,
    exchanges: &[Exchange],
    cell_words: usize,
) -> (Vec<u32>, Vec<u32>) {
    let (mut cells, mut flags) = (Vec::new(), Vec::new());
    let (mut cell_places, mut flag_places) = (Vec::new(), Vec::new());
    let mut base = 0u32;
    for e in exchanges {
        let n = e.cells.len() as u32;
        cells.extend(local.cell_indices(e));
        let stride = cell_words as u32;
        cell_places.extend((0..n).map(|j| base + stride * j));
        let blocks = local.flag_blocks(e);
        flag_places.extend((0..blocks.len() as u32).map(|j| base + stride * n + j));
        base += words(e.cells.len(), blocks.len(), cell_words) as u32;
        flags.extend(blocks);
    }
    cells.extend(flags);
    cell_places.extend(flag_places);
    (cells, cell_places)
}

/// Whether the pack kernels write the strips into buffers the host maps, instead of buffers
/// copied into mappable ones after each pack: where the adapter allows mappable storage
/// buffers, unless QUADFLOOD_STRIPS=copied. (On two H100s, each copy to host memory
/// lengthened the GPU's gap at its submission boundary; docs/benchmarks-history.md.)
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
    let cell_words = 3 + usize::from(sim.has_losses);
    let (send_index, send_place) = message_lists(local, &local.sends, cell_words);
    let (recv_index, recv_place) = message_lists(local, &local.recvs, cell_words);
    let count = |v: &[Exchange], f: fn(&Exchange) -> usize| v.iter().map(f).collect::<Vec<_>>();
    let t_counts = [
        count(&local.sends, |e| e.cells.len()),
        count(&local.recvs, |e| e.cells.len()),
        count(&local.sends, |e| e.flags.len()),
        count(&local.recvs, |e| e.flags.len()),
    ];
    let sizes: Vec<u32> = t_counts
        .iter()
        .map(|c| c.iter().sum::<usize>() as u32)
        .collect();
    let total_words =
        |cells: &[usize], flags: &[usize]| words(total(cells), total(flags), cell_words);
    let send_words = total_words(&t_counts[0], &t_counts[2]);
    let recv_words = total_words(&t_counts[1], &t_counts[3]);
    let storage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
    let (sent, received) = if direct {
        (U::STORAGE | U::MAP_READ, U::STORAGE | U::MAP_WRITE)
    } else {
        (storage, storage)
    };
    let zeros = |n: usize| vec![0u32; n.max(1)];
    let buffers = [
        gpu.buffer_with("exchange sizes", &sizes, U::UNIFORM | U::COPY_DST),
        gpu.buffer_with("send index", &send_index, storage),
        gpu.buffer_with("send words", &zeros(send_words), sent),
        gpu.buffer_with("recv index", &recv_index, storage),
        gpu.buffer_with("recv words", &zeros(recv_words), received),
        gpu.buffer_with("send places", &send_place, storage),
        gpu.buffer_with("recv places", &recv_place, storage),
    ];
    // Stand-ins for the bindings a kernel leaves alone: one read-only, one read-write (a
    // buffer may not be both in one dispatch).
    let unused = [
        gpu.buffer_with("exchange stand-in", &zeros(4), U::STORAGE),
        gpu.buffer_with("exchange stand-in, read-write", &zeros(4), U::STORAGE),
    ];
    let group = |label, sends: bool| {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(b, buf)| {
                let b = b as u32;
                let other_side: &[u32] = if sends {
                    &EXCHANGE_RECEIVING
                } else {
                    &EXCHANGE_SENDING
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
    let [send_cells, recv_cells, send_flags, recv_flags] = t_counts;
    let t = Transfer {
        state_group,
        peers: local.sends.iter().map(|e| e.rank).collect(),
        cell_words,
        send_cells,
        recv_cells,
        send_flags,
        recv_flags,
        pack_group: group("exchange: pack", true),
        unpack_group: group("exchange: unpack", false),
        send: buffers[2].clone(),
        recv: buffers[4].clone(),
        host_strips: if direct {
            buffers[2].clone()
        } else {
            map_buffer(gpu, "strips", 4 * send_words)
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
    Submitted {
        index,
        maps: if t.receives() {
            vec![crate::gpu::request_write(&t.recv)]
        } else {
            Vec::new()
        },
    }
}

//! Dynamic load balancing of a ranked run: measure each rank over a window of steps, decide
//! with `partition::balance`, and move the blocks that change owner.
//!
//! A move is a restart in memory: every rank reads its own blocks (state, edge volumes,
//! maxima, clock), sends each block to the ranks that hold it under the new partition (as
//! owner or as ghost) and did not own it before, and builds its simulation afresh from the
//! blocks it now holds, exactly as a checkpoint restarts on another number of ranks. The
//! static fields (terrain, friction, boundary tags, sources, rain) come from the model every
//! rank holds, so they need no messages. The old GPU buffers are dropped with the old
//! simulation; the pipelines are kept.

use super::pass_clock::PassClock;
use super::{local_cells, owned_lists, split_of, transfer, Ranked};
use crate::error::{Error, Result};
use crate::grid::CELLS_PER_BLOCK;
use crate::partition::balance::{self, Settings, Window};
use crate::partition::local::{holders, LocalGrid};
use crate::partition::{order, Partition};
use crate::scenario::maxima::Peak;
use crate::scenario::model::{Model, Resume};
use crate::solver::{SimRecord, Simulation};
use serde_json::json;
use std::collections::HashMap;
use std::time::Instant;

const PEAK_BYTES: usize = std::mem::size_of::<Peak>();

pub struct Balancer {
    settings: Settings,
    /// Blocks along the partition curve.
    ordered: Vec<usize>,
    shares: Vec<f64>,
    window: Window,
    /// Idle time and time waiting for the GPU at the window's start.
    window_start: (f64, f64),
    /// This rank launched all its blocks in the last step (rain, dry-block skipping off,
    /// or every block launched), so its dry-map flags do not say what runs.
    all_launched: bool,
    /// One entry per rebalance (kept on every rank; rank 0 reports it).
    pub log: Vec<serde_json::Value>,
    /// The entry whose measured imbalance after the move waits for the next window.
    pending: Option<usize>,
    /// Where rank 0 draws the partition at the start and after every move.
    maps: Option<std::path::PathBuf>,
    /// Wall time of the last move (s), the price the next one must beat.
    last_move_s: f64,
    /// GPU timestamps of the window's first steps, where the adapter has them.
    pub clock: Option<PassClock>,
}

impl Balancer {
    /// Starts from equal shares of the partition curve (`model.partition`): the run's first
    /// partition must be the equal per-block cut of that curve.
    pub fn new(settings: Settings, model: &Model, ranks: usize, gpu: &crate::gpu::Gpu) -> Balancer {
        Balancer {
            clock: PassClock::new(gpu),
            settings,
            ordered: order(&model.grid, model.partition),
            shares: vec![1.0 / ranks as f64; ranks],
            window: Window::default(),
            window_start: (0.0, 0.0),
            all_launched: false,
            log: Vec::new(),
            pending: None,
            maps: None,
            last_move_s: 0.0,
        }
    }

    /// Draws the partition into `dir` now and after every move (`partition_step_N.png`).
    pub fn draw_partitions(
        &mut self,
        dir: &std::path::Path,
        model: &Model,
        p: &Partition,
        step: u64,
    ) -> Result<()> {
        self.maps = Some(dir.to_path_buf());
        self.draw(model, p, step).map(|_| ())
    }

    fn draw(&self, model: &Model, p: &Partition, step: u64) -> Result<Option<String>> {
        let Some(dir) = &self.maps else {
            return Ok(None);
        };
        let name = format!("partition_step_{step:08}.png");
        crate::io::gridmap::write_partition_png(&dir.join(&name), &model.grid, p)
            .map_err(Error::Io)?;
        Ok(Some(name))
    }

    /// The timestamp writes around pass `k` of the current step, when it is timed.
    pub fn pass_writes(&self, k: u32) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        self.clock.as_ref()?.writes(self.window.steps as u32, k)
    }

    fn restart_window(&mut self, (idle_s, gpu_wait_s): (f64, f64)) {
        self.window = Window::default();
        self.window_start = (idle_s, gpu_wait_s);
    }
}

/// One block's moving parts, in the order they travel.
struct BlockData {
    state: Vec<[f32; 4]>,
    volume: [f32; 4],
    maxima: Vec<Peak>,
    /// The cells' lost depths and the block's lost volume, when the run has losses.
    infiltrated: Vec<f32>,
    lost: [f32; 2],
}

impl BlockData {
    fn of(snapshot: &super::Snapshot, l: usize) -> BlockData {
        let cells = l * CELLS_PER_BLOCK..(l + 1) * CELLS_PER_BLOCK;
        let r = &snapshot.resume;
        let tracked = !r.maxima.is_empty();
        let losing = !r.infiltrated.is_empty();
        BlockData {
            state: snapshot.state[cells.clone()].to_vec(),
            volume: r.block_volume[l],
            maxima: if tracked {
                r.maxima[cells.clone()].to_vec()
            } else {
                Vec::new()
            },
            infiltrated: if losing {
                r.infiltrated[cells].to_vec()
            } else {
                Vec::new()
            },
            lost: if losing { r.loss_volume[l] } else { [0.0; 2] },
        }
    }

    /// Bytes on the wire: a ghost needs its state alone, an owner everything.
    fn bytes(parts: Parts, owner: bool) -> usize {
        let state = 16 * CELLS_PER_BLOCK;
        if !owner {
            return state;
        }
        let maxima = if parts.tracked {
            PEAK_BYTES * CELLS_PER_BLOCK
        } else {
            0
        };
        let losses = if parts.losing {
            4 * CELLS_PER_BLOCK + 8
        } else {
            0
        };
        state + 16 + maxima + losses
    }

    fn write(&self, out: &mut Vec<u8>, owner: bool) {
        out.extend_from_slice(bytemuck::cast_slice(&self.state));
        if owner {
            out.extend_from_slice(bytemuck::bytes_of(&self.volume));
            out.extend_from_slice(bytemuck::cast_slice(&self.maxima));
            if !self.infiltrated.is_empty() {
                out.extend_from_slice(bytemuck::cast_slice(&self.infiltrated));
                out.extend_from_slice(bytemuck::bytes_of(&self.lost));
            }
        }
    }

    /// A block as written by `write`; a ghost's other parts arrive as zeros (the solver
    /// never reads a ghost's edge volumes or maxima).
    fn read(bytes: &[u8], parts: Parts, owner: bool) -> BlockData {
        let n = CELLS_PER_BLOCK;
        let (state, rest) = bytes.split_at(16 * n);
        let tracked_cells = if parts.tracked { n } else { 0 };
        let losing_cells = if parts.losing { n } else { 0 };
        if !owner {
            return BlockData {
                state: bytemuck::pod_collect_to_vec(state),
                volume: [0.0; 4],
                maxima: vec![Peak::default(); tracked_cells],
                infiltrated: vec![0.0; losing_cells],
                lost: [0.0; 2],
            };
        }
        let (volume, rest) = rest.split_at(16);
        let (maxima, rest) = rest.split_at(PEAK_BYTES * tracked_cells);
        let (infiltrated, rest) = rest.split_at(4 * losing_cells);
        BlockData {
            state: bytemuck::pod_collect_to_vec(state),
            volume: bytemuck::pod_read_unaligned(volume),
            maxima: bytemuck::pod_collect_to_vec(maxima),
            infiltrated: bytemuck::pod_collect_to_vec(infiltrated),
            lost: if parts.losing {
                bytemuck::pod_read_unaligned(&rest[..8])
            } else {
                [0.0; 2]
            },
        }
    }
}

/// Which optional parts a run's blocks carry.
#[derive(Clone, Copy)]
struct Parts {
    tracked: bool,
    losing: bool,
}

/// Water volume (m³) of local block `l` of a state in storage layout, summed in f64.
fn block_volume_m3(state: &[[f32; 4]], l: usize, cell_area: f64) -> f64 {
    state[l * CELLS_PER_BLOCK..(l + 1) * CELLS_PER_BLOCK]
        .iter()
        .map(|s| s[0] as f64)
        .sum::<f64>()
        * cell_area
}

impl Ranked<'_, '_> {
    /// Counts a step that took `step_s` of wall time into the balancer's window; true when
    /// a check is due. (Only the steps count: the window's first step follows the run's
    /// start-up, and outputs come between steps.)
    pub(super) fn balance_due(&mut self, record: &SimRecord, step_s: f64) -> bool {
        let own = self.sim.split.own as f64;
        let Some(b) = self.balancer.as_mut() else {
            return false;
        };
        b.all_launched = record.all_active == 1;
        b.window.steps += 1.0;
        b.window.wall_s += step_s;
        b.window.blocks += own;
        b.window.launched += if b.all_launched {
            own
        } else {
            record.active_blocks() as f64
        };
        b.window.steps >= b.settings.every as f64
    }

    /// Time waited so far for other ranks (exchanges, dt reduction) and for the GPU.
    fn waited(&self) -> (f64, f64) {
        let w = self.waits();
        (w.exchange_s + w.reduce_s, w.compute_s)
    }

    /// Shares what every rank measured; moves blocks when the busiest rank is busier than
    /// the threshold allows and the move is predicted to help. Every rank calls this in the
    /// same step.
    pub(super) fn balance(&mut self) -> Result<()> {
        let now = self.waited();
        let b = self.balancer.as_mut().expect("a balancer");
        b.window.idle_s = now.0 - b.window_start.0;
        b.window.gpu_wait_s = now.1 - b.window_start.1;
        if let Some(clock) = &b.clock {
            b.window.gpu_s = clock.per_step_s(self.sim.gpu, b.window.steps as u32) * b.window.steps;
        }
        let mut windows: Vec<Window> = self
            .comm
            .all_gather(bytemuck::bytes_of(&b.window).to_vec())
            .iter()
            .map(|w| bytemuck::pod_read_unaligned(w))
            .collect();
        let timed = balance::settle_busy(&mut windows);
        let busy: Vec<f64> = windows.iter().map(Window::busy_s).collect();
        let before = balance::imbalance(&busy);
        if let Some(k) = b.pending.take() {
            b.log[k]["imbalance_after"] = before.into();
        }
        // A NaN timing compares as nothing, and never moves anything.
        let exceeds =
            |a: f64, limit: f64| a.partial_cmp(&limit) == Some(std::cmp::Ordering::Greater);
        if !exceeds(before, b.settings.threshold) || !balance::compute_bound(&b.settings, &windows)
        {
            b.restart_window(now);
            return Ok(());
        }
        let launched = self.launched_blocks();
        let b = self.balancer.as_mut().expect("a balancer");
        let shares = balance::next_shares(&b.settings, &b.shares, &windows);
        let p = balance::repartition(&b.settings, &b.ordered, &launched, &shares);
        let predicted_busy = balance::predicted_busy(&p, &launched, &windows);
        let predicted = balance::imbalance(&predicted_busy);
        let moved = (0..p.owner.len())
            .filter(|&k| p.owner[k] != self.partition.owner[k])
            .count();
        // Under the cost rule a move must pay for itself within `payback` windows, at the
        // last move's cost. The idle rule has no model to predict with: it moves whenever
        // the imbalance passes the threshold, as in the source documents.
        let gain_s = balance::longest(&busy) - balance::longest(&predicted_busy);
        let pays = match b.settings.rule {
            balance::Rule::Cost => exceeds(gain_s * b.settings.payback, b.last_move_s),
            balance::Rule::Idle => true,
        };
        if moved == 0 || !pays {
            b.restart_window(now);
            return Ok(());
        }
        b.shares = shares.clone();
        let step = self.status.steps;
        let map = match (&self.balancer, self.comm.rank()) {
            (Some(b), 0) => b.draw(self.model, &p, step)?,
            _ => None,
        };
        let started = Instant::now();
        let report = self.migrate(p)?;
        let entry = json!({
            "map": map,
            "step": step,
            "t": self.status.t,
            "rule": self.balancer.as_ref().map(|b| b.settings.rule.to_string()),
            "weights": shares,
            "busy_s": busy,
            "busy_measured_by": if timed { "gpu timestamps" } else { "host waits on the gpu" },
            "imbalance_before": before,
            "busy_share": balance::busy_share(&windows),
            "imbalance_predicted": predicted,
            "gain_predicted_s": gain_s,
            "imbalance_after": null,
            "blocks_moved": moved,
            "bytes_moved": report.bytes,
            "seconds": self.slowest(started.elapsed().as_secs_f64()),
            "blocks_per_rank": report.blocks_per_rank,
            "cells_before": report.cells.0,
            "cells_after": report.cells.1,
            "volume_before_m3": report.volume.0,
            "volume_after_m3": report.volume.1,
            "every_block_once": report.every_block_once,
        });
        let now = self.waited();
        let b = self.balancer.as_mut().expect("a balancer");
        b.last_move_s = entry["seconds"].as_f64().unwrap_or(0.0);
        b.log.push(entry);
        b.pending = Some(b.log.len() - 1);
        b.restart_window(now);
        Ok(())
    }

    /// The largest of every rank's `v` (>= 0), the same on every rank (as f32).
    fn slowest(&self, v: f64) -> f64 {
        let bits = (v.max(0.0) as f32).to_bits();
        f32::from_bits(u32::MAX - self.comm.min_u32(u32::MAX - bits)) as f64
    }

    /// Whether the dry-map launches each block of the grid in the next step, from every
    /// rank (all of a rank's blocks where it launches all).
    fn launched_blocks(&self) -> Vec<bool> {
        let own = self.sim.split.own as usize;
        let all = self.balancer.as_ref().is_some_and(|b| b.all_launched);
        let flags: Vec<u32> = if all {
            Vec::new()
        } else {
            let nb = self.sim.nblocks as u64;
            let buffer =
                &self.sim.buffers.all[super::super::kernels::binding::BLOCK_FLAGS as usize];
            self.sim.gpu.read_buffer(buffer, 4 * nb, own)
        };
        let mine: Vec<u32> = (0..own)
            .filter(|&l| all || flags[l] != 0)
            .map(|l| self.global_ids[l])
            .collect();
        let mut launched = vec![false; self.model.grid.nblocks()];
        for bytes in self.comm.all_gather(bytemuck::cast_slice(&mine).to_vec()) {
            for &g in bytemuck::pod_collect_to_vec::<u8, u32>(&bytes).iter() {
                launched[g as usize] = true;
            }
        }
        launched
    }

    /// Moves blocks to the partition `p` and rebuilds this rank's simulation on them.
    fn migrate(&mut self, p: Partition) -> Result<Moved> {
        let me = self.comm.rank();
        let grid = &self.model.grid;
        let old = self.partition.clone();
        let snapshot = self.sim.read_snapshot();
        let parts = Parts {
            tracked: !snapshot.resume.maxima.is_empty(),
            losing: self.model.losses.any(),
        };
        let held = holders(grid, &p);
        // Sends: each own block to every rank that holds it now and did not own it.
        let local = LocalGrid::new(grid, &p, me);
        let mut peers: Vec<usize> = (0..p.ranks).filter(|&q| q != me).collect();
        let mut outgoing: Vec<Vec<u8>> = vec![Vec::new(); p.ranks];
        let mut mine: Vec<(u32, usize)> = self.global_ids[..self.sim.split.own as usize]
            .iter()
            .enumerate()
            .map(|(l, &g)| (g, l))
            .collect();
        mine.sort_unstable();
        for &(g, l) in &mine {
            let data = BlockData::of(&snapshot, l);
            for &q in &held[g as usize] {
                if q as usize != me {
                    data.write(&mut outgoing[q as usize], p.owner[g as usize] == q);
                }
            }
        }
        let bytes: usize = outgoing.iter().map(Vec::len).sum();
        // Receives: the blocks this rank now holds and another owned, in global order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); p.ranks];
        let mut wanted = local.global.clone();
        wanted.sort_unstable();
        for &g in &wanted {
            let from = old.owner[g as usize] as usize;
            if from != me {
                incoming[from].push(g);
            }
        }
        peers.retain(|&q| !outgoing[q].is_empty() || !incoming[q].is_empty());
        let sends: Vec<Vec<u8>> = peers
            .iter()
            .map(|&q| std::mem::take(&mut outgoing[q]))
            .collect();
        let got = self.comm.exchange(&peers, &sends);
        let mut arrived: HashMap<u32, BlockData> = HashMap::new();
        for (k, &q) in peers.iter().enumerate() {
            let owner = |g: u32| p.owner[g as usize] as usize == me;
            let sizes: Vec<usize> = incoming[q]
                .iter()
                .map(|&g| BlockData::bytes(parts, owner(g)))
                .collect();
            if got[k].len() != sizes.iter().sum::<usize>() {
                return Err(Error::Gpu(format!(
                    "rank {me}: rebalancing expected {} bytes from rank {q}, got {}",
                    sizes.iter().sum::<usize>(),
                    got[k].len()
                )));
            }
            let mut at = 0;
            for (&g, size) in incoming[q].iter().zip(sizes) {
                arrived.insert(g, BlockData::read(&got[k][at..at + size], parts, owner(g)));
                at += size;
            }
        }
        let area = |g: u32| {
            let level = grid.blocks[g as usize].level;
            (self.model.cell_size * (1u64 << level) as f64).powi(2)
        };
        let volume_before: Vec<(u32, f64)> = mine
            .iter()
            .map(|&(g, l)| (g, block_volume_m3(&snapshot.state, l, area(g))))
            .collect();
        // This rank's new blocks, own then ghosts, from what it kept and what arrived.
        let blocks: Vec<BlockData> = local
            .global
            .iter()
            .map(|g| match self.local_cell.get(g) {
                Some(&l) => Ok(BlockData::of(&snapshot, l as usize)),
                None => arrived.remove(g).ok_or_else(|| {
                    Error::Gpu(format!(
                        "rank {me}: block {g} did not arrive in the rebalance"
                    ))
                }),
            })
            .collect::<Result<_>>()?;
        // A rank that newly holds a culvert or weir goes on from its discharge. (Every rank
        // has the same structures; MPI refuses an all-gather of nothing.)
        let mine = &snapshot.resume.structure_flows;
        let flows = match mine.is_empty() {
            true => Vec::new(),
            false => {
                let all = self.comm.all_gather(bytemuck::cast_slice(mine).to_vec());
                super::gather::held_flows(&all, mine.len())
            }
        };
        let clock = Resume {
            structure_flows: flows,
            ..snapshot.resume.clone()
        };
        let local_model = placed_model(self.model, &local, &blocks, &clock);
        let sim = Simulation::with_kernels(
            self.sim.gpu,
            &local_model,
            split_of(&local),
            self.sim.kernels.clone(),
        )?;
        self.transfer = transfer(self.sim.gpu, &sim, &self.kernels, &local);
        self.sim = sim;
        self.global_ids = local.global.clone();
        self.local_cell = local_cells(&local);
        self.owned = (me == 0).then(|| owned_lists(self.model, &p));
        self.partition = p;
        self.initialise()?;
        // The census reads back what the GPU now holds, not what was sent.
        let after: Vec<[f32; 4]> =
            self.sim
                .gpu
                .read_buffer(&self.sim.buffers.state_a, 0, local.own * CELLS_PER_BLOCK);
        let volume_after: Vec<(u32, f64)> = (0..local.own)
            .map(|l| {
                let g = local.global[l];
                (g, block_volume_m3(&after, l, area(g)))
            })
            .collect();
        Ok(Moved {
            bytes: self.comm.sum_f64(bytes as f64) as u64,
            ..self.census(&volume_before, &volume_after)
        })
    }

    /// Cells, water volume and block count before and after a move, over every rank.
    fn census(&self, before: &[(u32, f64)], after: &[(u32, f64)]) -> Moved {
        let gather = |v: &[(u32, f64)]| -> Option<Vec<(u32, f64)>> {
            let bytes: Vec<u8> = v
                .iter()
                .flat_map(|(g, m)| [g.to_le_bytes().to_vec(), m.to_le_bytes().to_vec()].concat())
                .collect();
            let all = self.comm.gather(bytes)?;
            let mut blocks: Vec<(u32, f64)> = all
                .iter()
                .flat_map(|b| b.chunks_exact(12))
                .map(|c| {
                    let g = u32::from_le_bytes(c[..4].try_into().expect("4 bytes"));
                    (g, f64::from_le_bytes(c[4..].try_into().expect("8 bytes")))
                })
                .collect();
            blocks.sort_by_key(|b| b.0);
            Some(blocks)
        };
        let (before, after) = (gather(before), gather(after));
        let per_rank = self
            .comm
            .gather((self.sim.split.own as u64).to_le_bytes().to_vec());
        let (Some(before), Some(after), Some(per_rank)) = (before, after, per_rank) else {
            return Moved::default();
        };
        let sum = |v: &[(u32, f64)]| v.iter().map(|b| b.1).sum::<f64>();
        let once = |v: &[(u32, f64)]| v.iter().enumerate().all(|(k, b)| b.0 as usize == k);
        let cells = |v: &[(u32, f64)]| (v.len() * CELLS_PER_BLOCK) as u64;
        Moved {
            bytes: 0,
            blocks_per_rank: per_rank
                .iter()
                .map(|b| u64::from_le_bytes(b[..8].try_into().expect("8 bytes")))
                .collect(),
            cells: (cells(&before), cells(&after)),
            volume: (sum(&before), sum(&after)),
            every_block_once: once(&before)
                && once(&after)
                && after.len() == self.model.grid.nblocks(),
        }
    }
}

/// What a move did, over every rank (complete on rank 0).
#[derive(Default)]
struct Moved {
    bytes: u64,
    blocks_per_rank: Vec<u64>,
    cells: (u64, u64),
    volume: (f64, f64),
    every_block_once: bool,
}

/// The model of this rank's new blocks: static fields from the whole run's model, state,
/// maxima and clock from the blocks as they stood.
fn placed_model(model: &Model, local: &LocalGrid, blocks: &[BlockData], clock: &Resume) -> Model {
    let mut m = model.localize(&local.global, local.grid.clone());
    let state: Vec<[f32; 4]> = blocks
        .iter()
        .flat_map(|b| b.state.iter().copied())
        .collect();
    let resume = Resume {
        t: clock.t,
        steps: clock.steps,
        cell_updates: clock.cell_updates,
        dt_cfl: clock.dt_cfl,
        cfl_limit: clock.cfl_limit,
        rain: clock.rain,
        steps_planned_again: clock.steps_planned_again,
        block_volume: blocks.iter().map(|b| b.volume).collect(),
        maxima: blocks
            .iter()
            .flat_map(|b| b.maxima.iter().copied())
            .collect(),
        infiltrated: blocks
            .iter()
            .flat_map(|b| b.infiltrated.iter().copied())
            .collect(),
        loss_volume: if model.losses.any() {
            blocks.iter().map(|b| b.lost).collect()
        } else {
            Vec::new()
        },
        structure_flows: clock.structure_flows.clone(),
    };
    m.continue_from(&state, resume);
    m
}

//! The single-GPU benchmark: a uniform, fully wet circular dam break on N×N cells, timed
//! against a plain copy kernel on the same device.

use crate::error::Result;
use crate::gpu::{shaders, Gpu};
use crate::grid::BlockGrid;
use crate::scenario::model::{BcDef, BcKind, Model, Numerics, WALL_BED};
use crate::solver::{Simulation, MIN_BYTES_PER_CELL_UPDATE};
use serde_json::json;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct BenchResult {
    pub n: usize,
    pub steps: u64,
    pub seconds: f64,
    pub cell_updates_per_s: f64,
    /// Host time per step recording commands, and inside queue.submit.
    pub record_us_per_step: f64,
    pub submit_us_per_step: f64,
    pub copy_bytes_per_s: f64,
    pub effective_bytes_per_s: f64,
    pub adapter: String,
}

impl BenchResult {
    pub fn ratio(&self) -> f64 {
        self.effective_bytes_per_s / self.copy_bytes_per_s
    }

    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "n": self.n,
            "cells": self.n * self.n,
            "steps": self.steps,
            "seconds": self.seconds,
            "cell_updates_per_s": self.cell_updates_per_s,
            "host_record_us_per_step": self.record_us_per_step,
            "host_submit_us_per_step": self.submit_us_per_step,
            "bytes_per_cell_update": MIN_BYTES_PER_CELL_UPDATE,
            "effective_bytes_per_s": self.effective_bytes_per_s,
            "copy_bytes_per_s": self.copy_bytes_per_s,
            "effective_over_copy": self.ratio(),
            "adapter": self.adapter,
        })
    }

    pub fn report(&self) -> String {
        format!(
            "adapter              {}\n\
             grid                 {n}x{n} ({cells} cells), {steps} steps in {s:.3} s\n\
             cell updates/s       {cu:.3e}\n\
             host time per step   {record:.2} us recording + {submit:.2} us in queue.submit\n\
             effective bandwidth  {eff:.1} GB/s at {b} B per cell update\n\
             copy bandwidth       {copy:.1} GB/s (read + write, same device)\n\
             effective / copy     {ratio:.3}",
            self.adapter,
            n = self.n,
            cells = self.n * self.n,
            steps = self.steps,
            s = self.seconds,
            cu = self.cell_updates_per_s,
            record = self.record_us_per_step,
            submit = self.submit_us_per_step,
            eff = self.effective_bytes_per_s / 1e9,
            b = MIN_BYTES_PER_CELL_UPDATE,
            copy = self.copy_bytes_per_s / 1e9,
            ratio = self.ratio(),
        )
    }
}

/// The benchmark's grid size for this device: small on a CPU adapter.
pub fn default_n(gpu: &Gpu) -> usize {
    if gpu.is_cpu() {
        512
    } else {
        4096
    }
}

/// A flat, frictionless square with walls: 1 m of water inside a circle of radius N/4
/// cells, 0.1 m outside, so every cell is wet from the start.
pub fn dam_break_model(n: usize) -> Model {
    let grid = BlockGrid::uniform(n, n);
    let cells = n * n;
    let centre = n as f64 / 2.0;
    let radius2 = (n as f64 / 4.0).powi(2);
    let depth: Vec<f32> = (0..cells)
        .map(|c| {
            let (i, j) = ((c % n) as f64 + 0.5, (c / n) as f64 + 0.5);
            if (i - centre).powi(2) + (j - centre).powi(2) <= radius2 {
                1.0
            } else {
                0.1
            }
        })
        .collect();
    let stored = |field: Vec<f32>, pad: f32| grid.to_storage(&field, pad);
    Model {
        name: format!("bench dam break {n}x{n}"),
        cell_size: 1.0,
        origin: (0.0, 0.0),
        datum: 0.0,
        bed: stored(vec![0.0; cells], WALL_BED),
        hu: stored(vec![0.0; cells], 0.0),
        hv: stored(vec![0.0; cells], 0.0),
        depth: stored(depth, 0.0),
        manning: stored(vec![0.0; cells], 0.0),
        bc_edge: vec![BcKind::Wall as u32; 4 * n],
        bc_defs: vec![BcDef::plain(BcKind::Wall)],
        series: Vec::new(),
        rain_series: None,
        gauges: Vec::new(),
        numerics: Numerics {
            track_max_depth: false,
            ..Numerics::default()
        },
        t_start: 0.0,
        t_end: 1e9,
        output_times: Vec::new(),
        gauge_times: Vec::new(),
        write_rasters: false,
        write_png: false,
        grid,
    }
}

/// Times `steps` steps after a warm-up, and the copy kernel on a buffer of the state's size.
pub fn run(gpu: &Gpu, n: usize, steps: u64) -> Result<BenchResult> {
    let model = dam_break_model(n);
    let mut sim = Simulation::new(gpu, &model)?;
    sim.run_steps(10.min(steps))?;
    let before = sim.status().clone();
    let host_before = (sim.host_record_s, sim.host_submit_s, sim.host_steps);
    let started = Instant::now();
    sim.run_steps(steps)?;
    let seconds = started.elapsed().as_secs_f64();
    let after = sim.status().clone();
    let updates = (after.cell_updates - before.cell_updates) as f64;
    let host_steps = (sim.host_steps - host_before.2).max(1) as f64;
    let record_us_per_step = 1e6 * (sim.host_record_s - host_before.0) / host_steps;
    let submit_us_per_step = 1e6 * (sim.host_submit_s - host_before.1) / host_steps;
    let copy_bytes_per_s = copy_bandwidth(gpu, (model.grid.stored_cells() * 16) as u64);
    let cell_updates_per_s = updates / seconds;
    Ok(BenchResult {
        n,
        steps: after.steps - before.steps,
        seconds,
        cell_updates_per_s,
        record_us_per_step,
        submit_us_per_step,
        copy_bytes_per_s,
        effective_bytes_per_s: cell_updates_per_s * MIN_BYTES_PER_CELL_UPDATE as f64,
        adapter: gpu.describe(),
    })
}

/// Bytes read plus written per second by a vec4 copy kernel over `bytes` of data.
pub fn copy_bandwidth(gpu: &Gpu, bytes: u64) -> f64 {
    let d = &gpu.device;
    let usage = wgpu::BufferUsages::STORAGE;
    let make = |label| {
        d.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (make("copy src"), make("copy dst"));
    let pipeline = gpu.compute_pipeline("copy", shaders::COPY, "copy");
    let bind_group = d.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("copy"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: src.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: dst.as_entire_binding(),
            },
        ],
    });
    let groups = (bytes / 16).div_ceil(256) as u32;
    let (x, y) = (groups.min(65535), groups.div_ceil(65535));
    let pass_once = |reps: u32| {
        let mut encoder = d.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            for _ in 0..reps {
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        gpu.queue.submit([encoder.finish()]);
        d.poll(wgpu::PollType::wait_indefinitely())
            .expect("wait for the copy kernel");
    };
    pass_once(2);
    let reps = if gpu.is_cpu() { 5 } else { 50 };
    let started = Instant::now();
    pass_once(reps);
    2.0 * bytes as f64 * reps as f64 / started.elapsed().as_secs_f64()
}

//! What a run's GPU buffers start from: the model's tables (parameters, clock, friction,
//! boundary and rain definitions, forcing, sources, maxima, block flags) built on the host
//! and uploaded once.

use super::*;

pub(super) fn check_size(gpu: &Gpu, model: &Model) -> Result<()> {
    let bytes = (model.grid.stored_cells() * 16) as u64;
    let limit = gpu
        .limits
        .max_storage_buffer_binding_size
        .min(gpu.limits.max_buffer_size);
    if model.grid.stored_cells() + model.grid.nblocks() >= FRICTION_PER_CELL as usize {
        return Err(Error::Gpu(format!(
            "the grid has {} cells, more than one sub-domain can index (2^31): run it as \
             sub-domains (quadflood run --split K, or mpirun -n K)",
            model.grid.stored_cells()
        )));
    }
    if bytes > limit {
        return Err(Error::Gpu(format!(
            "the grid needs a {} MiB state buffer; {} allows {} MiB per binding: run it as \
             at least {} sub-domains (quadflood run --split K on this GPU, or mpirun -n K)",
            bytes >> 20,
            gpu.info.name,
            limit >> 20,
            bytes.div_ceil(limit) + 1
        )));
    }
    Ok(())
}

pub(super) fn params_of(model: &Model, split: Split) -> Params {
    let n = &model.numerics;
    let mut flags = 0;
    if n.skip_dry_blocks {
        flags |= FLAG_SKIP_DRY;
    }
    if n.track_maxima {
        flags |= FLAG_TRACK_MAX;
    }
    if split.end_in_stage2 {
        flags |= FLAG_END_IN_STAGE2;
    }
    if split.classes_in_order(&model.grid) {
        flags |= FLAG_CLASSES_IN_ORDER;
    }
    if split.plans_ahead {
        flags |= FLAG_PLAN_AHEAD;
    }
    if model.losses.model == Some(crate::scenario::losses::LossModel::GreenAmpt) {
        flags |= FLAG_GREEN_AMPT;
    }
    let [edge_w, edge_e, edge_s, edge_n] = model.edge_offsets();
    Params {
        nx: model.nx() as u32,
        ny: model.ny() as u32,
        nblocks: model.grid.nblocks() as u32,
        flags,
        g: n.gravity as f32,
        cfl: n.cfl as f32,
        dx: model.cell_size as f32,
        dt_max: forcing::dt_max(model) as f32,
        dry_depth: n.dry_depth as f32,
        n_series: model.series.len() as u32,
        rain_first: model.bc_defs.len() as u32,
        edge_w,
        edge_e,
        edge_s,
        edge_n,
        one: 1.0,
        own_blocks: split.own,
        border_blocks: split.border,
        arrival_depth: n.arrival_depth as f32,
        rain_count: model.rain.weights.len() as u32,
        regular_blocks: split.regular,
        peak_origin: model.peak_clock.gpu_params().0,
        peak_rate: model.peak_clock.gpu_params().1,
        cfl_margin: CFL_MARGIN,
        structure_count: model.structures.len() as u32,
        duration_depth: n.duration_depth as f32,
        debris_mid: n.debris.debris_factors()[0],
        debris_high: n.debris.debris_factors()[1],
    }
}

pub(super) fn initial_record(model: &Model, split: Split) -> SimRecord {
    let (t_hi, t_lo) = match &model.resume {
        Some(r) => r.t,
        None => split_f64(model.t_start),
    };
    let (steps, updates, rain, dt_cfl, cfl_limit) = match &model.resume {
        Some(r) => (r.steps, r.cell_updates, r.rain, r.dt_cfl, r.cfl_limit),
        None => (
            0,
            0,
            (0.0, 0.0),
            model.numerics.dt_max as f32,
            f32::INFINITY,
        ),
    };
    SimRecord {
        t_hi,
        t_lo,
        step_lo: steps as u32,
        step_hi: (steps >> 32) as u32,
        upd_lo: updates as u32,
        upd_hi: (updates >> 32) as u32,
        rain_hi: rain.0,
        rain_lo: rain.1,
        // Tells finalize_step that the initial scan ran, with nothing to advance; a
        // restart keeps its CFL step and limit.
        dt: if model.resume.is_some() {
            RESUMED_SCAN
        } else {
            -1.0
        },
        all_active: 1,
        dispatched: split.regular,
        dispatched_border: split.border,
        dispatched_levels: split.levels_class(),
        dt_min_bits: INF_BITS,
        dt_cfl,
        cfl_limit: cfl_limit.to_bits(),
        cfl_replans: model.resume.as_ref().map_or(0, |r| r.steps_planned_again),
        launch_mark: 1,
        ..Default::default()
    }
}

/// Creates every buffer, in binding order, and returns the ones the host touches again.
pub(super) fn upload(gpu: &Gpu, model: &Model, split: Split) -> (Buffers, Vec<wgpu::Buffer>) {
    use wgpu::BufferUsages as U;
    let grid = &model.grid;
    let nb = grid.nblocks();
    let state: Vec<[f32; 4]> = (0..grid.stored_cells())
        .map(|k| [model.depth[k], model.hu[k], model.hv[k], model.bed[k]])
        .collect();
    let (meta, pts) = forcing::pack_series(model);
    let (t_hi, t_lo) = initial_record(model, split).clock();
    let maxima = initial_maxima(model);
    let block_volume = match &model.resume {
        Some(r) => r.block_volume.clone(),
        None => vec![[0.0f32; 4]; nb],
    };
    // Then each block's stage-1 discharge (flux.wgsl).
    let block_volume = [block_volume, vec![[0.0f32; 4]; nb]].concat();
    let control = Control {
        target_hi: t_hi,
        target_lo: t_lo,
        pad: [0; 2],
    };
    let storage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
    let all = vec![
        gpu.buffer_with(
            "params",
            &[params_of(model, split)],
            U::UNIFORM | U::COPY_DST,
        ),
        gpu.buffer_with("control", &[control], U::UNIFORM | U::COPY_DST),
        gpu.buffer_with("sim", &[initial_record(model, split)], storage),
        gpu.buffer_with("state_a", &state, storage),
        staged_state(gpu, grid.stored_cells(), storage),
        gpu.buffer_with("friction", &friction_table(model), storage),
        gpu.buffer_with("blocks", &grid.blocks, storage),
        gpu.buffer_with("neighbours", &grid.neighbours, storage),
        gpu.buffer_with("block_flags", &initial_flags(model, split), storage),
        gpu.buffer_with("active_list", &active_lists(grid, split), storage),
        gpu.buffer_with("bc_edge", &model.bc_edge, storage),
        gpu.buffer_with("bc_defs", &bc_and_rain_defs(model), storage),
        gpu.buffer_with("series_meta", &meta, storage),
        gpu.buffer_with("series_pts", &pts, storage),
        gpu.buffer_with(
            "forcing",
            &initial_forcing(model, t_hi as f64 + t_lo as f64),
            storage,
        ),
        gpu.buffer_with("block_volume", &block_volume, storage),
        gpu.buffer_with("maxima", &maxima, storage),
        gpu.buffer_with("sources", &source_table(model), storage),
        gpu.buffer_with("losses", &loss_table::words(model), storage),
        gpu.buffer_with("structures", &structure_table::words(model), storage),
    ];
    debug_assert_eq!(all.len() as u32, binding::COUNT);
    let pick = |b: u32| all[b as usize].clone();
    let dispatch = [0, 1].map(|_| gpu.buffer_with("dispatch", &[0u32; 12], storage | U::INDIRECT));
    let buffers = Buffers {
        control: pick(binding::CONTROL),
        sim: pick(binding::SIM),
        state_a: pick(binding::STATE_A),
        state_b: pick(binding::STATE_B),
        dispatch,
        block_volume: pick(binding::BLOCK_VOLUME),
        maxima: pick(binding::MAXIMA),
        losses: pick(binding::LOSSES),
        all: Vec::new(),
    };
    (buffers, all)
}

/// Pairs of f32 a block holds in state_b: its cells' (hu, hv), then their h two to a pair
/// (`STAGED_PER_BLOCK` in shaders/common.wgsl).
pub(crate) const STAGED_PER_BLOCK: usize = CELLS_PER_BLOCK * 3 / 2;

/// U*, the stage-1 result: h, hu and hv of every cell (the bed stays in state_a), filled by
/// stage 1 before stage 2 reads it.
fn staged_state(gpu: &Gpu, cells: usize, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("state_b"),
        size: (cells.max(1) * 12) as u64,
        usage,
        mapped_at_creation: false,
    })
}

/// The value of environment variable `name` when it is one of `choices` (overrides for
/// measuring); None when unset, and with a warning when it is something else.
pub(super) fn env_choice(name: &str, choices: &[&'static str]) -> Option<&'static str> {
    let value = std::env::var(name).ok()?;
    let choice = choices.iter().copied().find(|&c| c == value);
    if choice.is_none() {
        eprintln!("quadflood: {name}={value} is none of {choices:?}: ignored");
    }
    choice
}

/// The `friction` table the stage kernel reads (see `shaders/common.wgsl`): g n² per block
/// where its cells share one value (cells outside the domain never use theirs), else per
/// cell. QUADFLOOD_FRICTION=per-cell stores every block's cells, for measuring what the
/// per-block values save.
pub(super) fn friction_table(model: &Model) -> Vec<u32> {
    let per_cell = env_choice("QUADFLOOD_FRICTION", &["per-cell"]).is_some();
    friction_entries(model, per_cell)
}

pub(super) fn friction_entries(model: &Model, per_cell_everywhere: bool) -> Vec<u32> {
    let g = model.numerics.gravity as f32;
    let gn2 = |c: usize| (g * model.manning[c] * model.manning[c]).to_bits();
    let nb = model.grid.nblocks();
    let mut per_cell = Vec::new();
    let mut table: Vec<u32> = (0..nb)
        .map(|b| {
            let cells = b * CELLS_PER_BLOCK..(b + 1) * CELLS_PER_BLOCK;
            let mut inside = cells.clone().filter(|&c| model.is_valid(c)).map(gn2);
            let first = inside.next().unwrap_or(0);
            if !per_cell_everywhere && inside.all(|v| v == first) {
                return first;
            }
            let at = nb + per_cell.len();
            per_cell.extend(cells.map(gn2));
            // Below the flag bit: check_size refuses grids whose table could reach it.
            FRICTION_PER_CELL | at as u32
        })
        .collect();
    table.append(&mut per_cell);
    table
}

/// The boundary conditions, then one entry per rain series with its share of the domain:
/// the step kernel sums `series value * share` into the domain-mean rain depth.
pub(super) fn bc_and_rain_defs(model: &Model) -> Vec<BcDef> {
    let rain = model.rain.weights.iter().map(|&(series, share)| BcDef {
        kind: BcKind::Rain as u32,
        series,
        scale: share as f32,
        offset: 0.0,
    });
    model.bc_defs.iter().copied().chain(rain).collect()
}

/// The series' forcing at time t, then a slot per culvert (its discharge, set each step).
pub(super) fn initial_forcing(model: &Model, t: f64) -> Vec<[f32; 4]> {
    let mut forcing = forcing::initial_forcing(model, t);
    let flows = model
        .resume
        .as_ref()
        .filter(|r| r.structure_flows.len() == model.structures.len())
        .map_or(vec![0.0; model.structures.len()], |r| {
            r.structure_flows.clone()
        });
    forcing.extend(flows.iter().map(|&q| [q, q, q, 0.0]));
    forcing
}

/// The `sources` table the stage kernel reads (see `shaders/common.wgsl`).
pub(super) fn source_table(model: &Model) -> Vec<[u32; 4]> {
    let nb = model.grid.nblocks();
    let mut by_block: Vec<Vec<[u32; 4]>> = vec![Vec::new(); nb];
    let mut speed = vec![0.0f64; nb];
    for s in &model.sources {
        let (b, c) = (s.cell / CELLS_PER_BLOCK, s.cell % CELLS_PER_BLOCK);
        if s.level {
            // `.z`: the inner side, with NORMAL_DEPTH_LINE where the line has a slope (`.w`)
            // or RATING_LINE where it has a rating (`.y` its curve, `.w` 1 / its length).
            let (kind, w) = if s.slope > 0.0 {
                (NORMAL_DEPTH_LINE, s.slope)
            } else if s.rating_scale > 0.0 {
                (RATING_LINE, s.rating_scale)
            } else {
                (0, 0.0)
            };
            by_block[b].push([
                c as u32 | LEVEL_ENTRY,
                s.series,
                s.inner as u32 | kind,
                w.to_bits(),
            ]);
            continue;
        }
        let width = model.cell_size * model.grid.cell_footprint(s.cell).2 as f64;
        let rate = s.fraction / (width * width);
        by_block[b].push([
            c as u32,
            s.series,
            (rate as f32).to_bits(),
            (s.fraction as f32).to_bits(),
        ]);
        let peak = model.series[s.series as usize]
            .values
            .iter()
            .cloned()
            .fold(0.0, f64::max);
        speed[b] = speed[b].max(source_speed(rate * peak, width, model.numerics.gravity));
    }
    // Culverts and weirs bound dt by the discharge they carry (structures.wgsl), not by a peak.
    for (b, entry) in structure_table::source_entries(model) {
        by_block[b].push(entry);
    }
    let entries: usize = by_block.iter().map(Vec::len).sum();
    let mut table = Vec::with_capacity(nb + entries);
    let mut next = nb as u32;
    let mut per_cell_rain = Vec::new();
    let rain_base = (nb + entries) as u32;
    for (b, (entries, speed)) in by_block.iter().zip(speed).enumerate() {
        let rain = block_rain(model, b, rain_base, &mut per_cell_rain);
        table.push([next, entries.len() as u32, (speed as f32).to_bits(), rain]);
        next += entries.len() as u32;
    }
    table.extend(by_block.into_iter().flatten());
    table.extend(per_cell_rain);
    table
}

/// A block's rain code: the series on all its cells (or NONE), or RAIN_PER_CELL plus the
/// table entry where its 256 cells' series start (four to an entry), appended to
/// `per_cell`, which the table holds from entry `base` on.
pub(super) fn block_rain(model: &Model, b: usize, base: u32, per_cell: &mut Vec<[u32; 4]>) -> u32 {
    let cells = &model.rain.cells;
    if cells.is_empty() {
        return NONE;
    }
    let block = &cells[b * CELLS_PER_BLOCK..(b + 1) * CELLS_PER_BLOCK];
    if block.iter().all(|&s| s == block[0]) {
        return block[0];
    }
    let at = base + per_cell.len() as u32;
    per_cell.extend(block.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]));
    RAIN_PER_CELL | at
}

/// The wave speed a step must respect where a source pours `rate` (m/s of depth) into a
/// cell of `width` m: in a step dt the cell fills to depth rate dt, whose gravity wave
/// must cross at most one cell, dt sqrt(g rate dt) <= width. Without this bound a dry
/// domain would take steps of dt_max while a source floods one cell.
pub(super) fn source_speed(rate: f64, width: f64, g: f64) -> f64 {
    width / forcing::fill_time(rate, width, g)
}

/// The run's maxima so far: from the checkpoint on a restart, else the initial state's.
/// A run that tracks none gets a one-element placeholder (bindings cannot be empty).
pub(super) fn initial_maxima(model: &Model) -> Vec<Peak> {
    if !model.numerics.track_maxima {
        return vec![Peak::default()];
    }
    let (mut peaks, t) = match &model.resume {
        Some(r) => (r.maxima.clone(), r.t),
        None => (first_maxima(model), split_f64(model.t_start)),
    };
    spells(model).running(&mut peaks, |k| model.depth[k], t);
    peaks
}

/// The maxima of the initial state.
fn first_maxima(model: &Model) -> Vec<Peak> {
    let dry = model.numerics.dry_depth as f32;
    let code = model.peak_clock.code(model.t_start);
    let reached = model.numerics.arrival_depth as f32;
    (0..model.depth.len())
        .map(|k| {
            let h = model.depth[k];
            let speed = if h > dry {
                model.hu[k].hypot(model.hv[k]) / h
            } else {
                0.0
            };
            let rating = crate::io::hazard::uk_rating(h, speed, model.numerics.debris);
            Peak::initial(h, speed, code, h >= reached, rating)
        })
        .collect()
}

/// How the GPU's running inundation durations turn into durations.
pub(super) fn spells(model: &Model) -> Spells {
    Spells {
        depth: model.numerics.duration_depth as f32,
        clock: model.peak_clock,
    }
}

/// Wet and launched flags: own blocks get theirs from the first scan; ghosts are wet if any
/// cell holds water, and always count as launched, since the rank runs their stage 1 itself
/// every step (a ghost its owner left out is dry among dry blocks: its U* is its U^n).
pub(super) fn initial_flags(model: &Model, split: Split) -> Vec<u32> {
    let nb = model.grid.nblocks();
    let mut flags = vec![0u32; 3 * nb];
    for g in split.own as usize..nb {
        let cells = &model.depth[g * CELLS_PER_BLOCK..(g + 1) * CELLS_PER_BLOCK];
        flags[g] = u32::from(cells.iter().any(|&h| h > 0.0));
        flags[nb + g] = 1;
    }
    flags
}

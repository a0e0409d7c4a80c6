// The discharge a run reports (maps, gauges, cross-sections): each cell's unit discharge as
// the water passing through its faces carries it, not the momentum it holds. Part of the
// flux kernel's module (flux.wgsl), run at output and sampling times only.
//
// Why: at a captured hydraulic jump the cell inside the jump holds a state between the two
// sides that no steady flow has. Its faces pass the discharge q of the flow, exactly once it
// is steady, but an HLL-type flux makes the cell's own momentum q + s (h - h_side), s a wave
// speed: 32% above q over the bump (issue 22), 7% in MacDonald's jump, in one cell at every
// resolution. The mean of the mass fluxes through a cell's two faces of each direction is
// q there, and agrees with the cell's momentum to second order where the flow is smooth.
//
// Where the faces do not tell what crosses the cell the cell's own momentum stands: in a
// cell that gains or loses water besides its faces (a source, a structure's end, a line),
// and in one that fills or drains fast, as at a wetting front (`passes_through`).

// (qx, qy) of every cell of the own blocks, from the state as it stands (state_a and the
// ghosts' copies), into the momentum half of state_b (`store_staged`'s layout), which is
// free between steps. The state, clock, time step and dry-map are the step's alone, so
// when a run reports changes none of its steps; `face_discharge_and_peaks`, run for the
// maps of an output time, also lets the maxima take in what it reports
// (`hold_reported_peaks`), while gauges read `face_discharge`, which writes nothing else:
// adding a gauge changes no map. Reported at a stop, the edges see the forcing at the
// stop's time (the step planned there is empty); at a run's start, before its first step,
// the first step's.
@compute @workgroup_size(16, 16)
fn face_discharge(ids: Invocation) {
    report_discharge(ids, false);
}

@compute @workgroup_size(16, 16)
fn face_discharge_and_peaks(ids: Invocation) {
    report_discharge(ids, true);
}

fn report_discharge(ids: Invocation, hold_peaks: bool) {
    let tid = ids.tid;
    if (tid == 0u) {
        let linear = ids.wid.x + ids.wid.y * ids.nwg.x;
        wg_block = select(NONE, linear, linear < params.own_blocks);
        wg_staged_halo = 0u;
    }
    let b = workgroupUniformLoad(&wg_block);
    if (b == NONE) {
        return;
    }
    let info = blocks[b];
    set_geometry(info, true);
    let li = i32(ids.lid.x);
    let lj = i32(ids.lid.y);
    let own = state_a[b * CELLS_PER_BLOCK + tid];
    tile[tile_index(li, lj)] = to_primitive(own);
    if (tid < 128u) {
        let l = halo_cell(tid);
        tile[tile_index(l.x, l.y)] = load_halo(0u, b, l);
    }
    workgroupBarrier();
    if ((info.flags & BLOCK_ON_EDGE) != 0u) {
        for (var t = tid; t < u32(TILE * TILE); t += CELLS_PER_BLOCK) {
            fill_ghost(0u, i32(t));
        }
    }
    workgroupBarrier();
    compute_faces(0u, b, info, tid, CELLS_PER_BLOCK, 0u, X_FACES);
    workgroupBarrier();
    let x = vec2<f32>(face[xface_index(li, lj)].x, face[xface_index(li + 1, lj)].x);
    workgroupBarrier();
    compute_faces(0u, b, info, tid, CELLS_PER_BLOCK, X_FACES, REGULAR_FACES);
    workgroupBarrier();
    let y = vec2<f32>(face[yface_index(li, lj)].x, face[yface_index(li, lj + 1)].x);
    var q = 0.5 * vec2<f32>(x.x + x.y, y.x + y.y);
    if (own.x <= params.dry_depth) {
        q = vec2<f32>(0.0);
    } else if (fed_besides_faces(sources[b], tid) || !passes_through(x, y, rain_rate(sources[b].w, tid, 1u))) {
        q = own.yz;
    }
    state_b[b * STAGED_PER_BLOCK + tid] = q;
    if (hold_peaks && (params.flags & FLAG_TRACK_MAX) != 0u && own.x > params.dry_depth) {
        hold_reported_peaks(b * CELLS_PER_BLOCK + tid, own.x, q);
    }
}

// The run's maxima of speed, depth × speed and the UK hazard rating hold what the maps of
// an output time report, so that no such map passes its maximum (tests/maxima.rs): they
// are tracked every step from the cells' momentum, which differs from the faces' discharge
// at second order in smooth flow (a dam break's speed map read 3.5791 m/s where the
// maximum held 3.5762) and by more where the faces tell better (77% of the flow in the
// cell before an outfall line).
fn hold_reported_peaks(cell: u32, depth: f32, q: vec2<f32>) {
    let m = maxima[cell];
    let speed = sqrt(q.x * q.x + q.y * q.y) / depth;
    let peaks = min(vec2<f32>(speed, depth * speed), vec2<f32>(F16_MAX));
    let speed_hazard = pack2x16float(max(unpack2x16float(m.speed_hazard), peaks));
    let rating = clamp(uk_rating(depth, speed), 0.0, F16_MAX);
    let low = max(pack2x16float(vec2<f32>(rating, 0.0)), m.hazard_duration & 0xffffu);
    let hazard_duration = (m.hazard_duration & 0xffff0000u) | low;
    if (speed_hazard != m.speed_hazard || hazard_duration != m.hazard_duration) {
        maxima[cell] = Peak(m.depth, speed_hazard, m.times, hazard_duration);
    }
}

// Whether the water a cell's faces pass (x: west and east, y: south and north, each
// eastward or northward) mostly goes through it: at most a tenth of it, less the rain
// (`rain`, m/s) falling on the cell, fills or drains the cell. Then the faces tell the
// discharge: steady or gradually varied flow, a jump that stands (straight across or not:
// the water it turns sideways passes through too), water running over a brink into an
// outfall line's dry cells, the first cells below a divide under rain. Where they do not,
// the cell fills or drains faster than the water crosses it, and its own momentum tells
// more: a wetting front's cells fill from one side, and the mean of their faces over a
// film just wetted was the speed of the step's fastest wave (7.1 m/s where the fan's tip
// runs at 6.3 and the cells' water at 3.9, tests/exact_suite/dam_break.rs).
fn passes_through(x: vec2<f32>, y: vec2<f32>, rain: f32) -> bool {
    let filling = abs((x.x - x.y) + (y.x - y.y) + rain * geo.dx);
    let through = abs(x.x) + abs(x.y) + abs(y.x) + abs(y.y);
    return filling <= 0.1 * through;
}

// Whether cell `tid` has a source, a structure's end or a line on it (rain, which falls on
// every cell alike, does not count).
fn fed_besides_faces(span: vec4<u32>, tid: u32) -> bool {
    for (var k = span.x; k < span.x + span.y; k++) {
        if ((sources[k].x & ~LEVEL_ENTRY) == tid) {
            return true;
        }
    }
    return false;
}

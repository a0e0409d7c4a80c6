#!/usr/bin/env python3
"""Ablation variants of the solver's WGSL, for timing on a GPU without a rebuild
(docs/benchmarks-history.md, "ablations"). Each variant is the solver module (shaders/*.wgsl,
concatenated as src/gpu/shaders.rs does) with parts cut away or changed; most are timing
probes, not correct solvers.

    git worktree add /tmp/k c11d9c1      # the kernel the ablations started from
    tools/kernel_variants.py /tmp/k variants/
    QUADFLOOD_SOLVER_WGSL=variants/skeleton.wgsl quadflood bench --n 4096 --profile

A variant whose text no longer matches the tree given is skipped with a note: the early
ones need that tree, those of 2026-11-25 evening (`loads_late` to `empty_stages`) commit
3ad54a4 or later. The block-index probes of 2026-11-25 17:00 UTC (`list_parallel` on) ran
on the trees docs/benchmarks-history.md names for them ("Current figures (2026-11-25, 17:00
UTC)"); `fixed_identity` needs the tree before the kernels took block numbers for list
entries.
"""
import os
import sys

root = sys.argv[1]
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
files = ["common.wgsl","dfloat.wgsl","riemann.wgsl","reconstruct.wgsl","levels.wgsl","flux.wgsl","edges.wgsl","sources.wgsl","update.wgsl","losses.wgsl","structures.wgsl","drymap.wgsl","timestep.wgsl","exchange.wgsl"]
# The solver module as src/gpu/shaders.rs assembles it, for whichever files the tree has.
files = [f for f in files if os.path.exists(os.path.join(root, "shaders", f))]
base = "".join(open(os.path.join(root,"shaders",f)).read()+"\n" for f in files)
def rep(s, old, new):
    assert old in s, old.strip().splitlines()[0]
    return s.replace(old, new)
def strip_levels(s):
    s = rep(s, """    if ((geo.coarser & (1u << side)) != 0u) {
        return virtual_halo(stage, b, nb, side, l);
    }
    if ((geo.finer & (1u << side)) != 0u) {
        return finer_halo(stage, b, side, l);
    }
""", "")
    s = rep(s, """        if (geo.finer != 0u && tid < SIDE_CELLS) {
            compute_side_face(stage, b, tid);
        }
""", "")
    s = rep(s, """    if (geo.finer == 0u) {
        return false;
    }""", "    return false;")
    return s
def strip_edge(s):
    s = rep(s, """    if ((info.flags & BLOCK_ON_EDGE) != 0u) {
        for (var t = i32(tid); t < TILE * TILE; t += 256) {""", """    if (false) {
        for (var t = i32(tid); t < TILE * TILE; t += 256) {""")
    s = rep(s, """    if ((info.flags & BLOCK_ON_EDGE) != 0u) {
        face = domain_edge_face(stage, f, face);""", """    if (false) {
        face = domain_edge_face(stage, f, face);""")
    s = rep(s, "if (stage != 0u && ((info.flags & BLOCK_ON_EDGE) != 0u || span.y > 0u)) {", "if (false) {")
    return s
def strip_extras(s):
    s = rep(s, """        let level = level_entry(b, tid);
        var rate: f32;
        if (level != NONE) {
            rate = level_rate(b, tid, stage, sources[level].y);
        } else {
            rate = inflow_rate(b, tid, stage);
        }""", "        let rate = 0.0;")
    s = rep(s, """        if (!(speed <= MAX_WAVE_SPEED) || !is_finite3(next)) {
            atomicMax(&sim.bad_block, b + 1u);
        }""", "")
    return s
def first_order(s):
    s = rep(s, """    if (m.x <= hd || c.x <= hd || p.x <= hd) {
        return vec4<f32>(0.0);
    }""", "    return vec4<f32>(0.0);")
    return s
def skeleton(s):
    s = rep(s, """    if (stage != 0u || (info.flags & BLOCK_ON_EDGE) != 0u) {
        for (var f = tid; f < REGULAR_FACES; f += 256u) {""", """    if (false) {
        for (var f = tid; f < REGULAR_FACES; f += 256u) {""")
    s = rep(s, "next = advance_cell(own, li, lj, dt, rate, friction[cell]);",
        "next = own + vec4<f32>(dt * 1e-9 * (rate + friction[cell] + tile[tile_index(li + 2, lj)].x + tile[tile_index(li, lj - 2)].x), 0.0, 0.0, 0.0);")
    return s
def nohalo(s):
    return rep(s, """    if (tid < 128u) {
        let l = halo_cell(tid);""", """    if (false) {
        let l = halo_cell(tid);""")
def uniformb(s):
    s = rep(s, """    if (tid == 0u) {
        let linear = wid.x + wid.y * nwg.x;
        var b = NONE;""", """    var b = NONE;
    {
        let linear = wid.x + wid.y * nwg.x;""")
    s = rep(s, """        wg_block = b;
        atomicStore(&wg_dt_bits, INF_BITS);
        atomicStore(&wg_wet, 0u);
    }
    let b = workgroupUniformLoad(&wg_block);
    if (b == NONE) {""", """    }
    if (tid == 0u) {
        atomicStore(&wg_dt_bits, INF_BITS);
        atomicStore(&wg_wet, 0u);
    }
    if (b == NONE) {""")
    return s
def sub(s):
    s = rep(s, """    if (stage != 1u && valid) {
        let speed = wave_speed(next);
        if (!(speed <= MAX_WAVE_SPEED) || !is_finite3(next)) {
            atomicMax(&sim.bad_block, b + 1u);
        }
        note_speed(speed);
        if (next.x > 0.0) {
            atomicOr(&wg_wet, 1u);
        }
    }""", """    var dt_bits = INF_BITS;
    var wet = false;
    if (stage != 1u && valid) {
        let speed = wave_speed(next);
        if (!(speed <= MAX_WAVE_SPEED) || !is_finite3(next)) {
            atomicMax(&sim.bad_block, b + 1u);
        }
        if (speed > 0.0) {
            dt_bits = bitcast<u32>(geo.dx / speed);
        }
        wet = next.x > 0.0;
    }
    if (stage != 1u) {
        let m = subgroupMin(dt_bits);
        let w = subgroupAny(wet);
        if (subgroupExclusiveAdd(1u) == 0u) {
            if (m != INF_BITS) {
                atomicMin(&wg_dt_bits, m);
            }
            if (w) {
                atomicOr(&wg_wet, 1u);
            }
        }
    }""")
    return s
def pre(s):
    s = rep(s, """    let own = load_cell(stage, b, tid);""", """    let own = load_cell(stage, b, tid);
    let cell_pre = b * CELLS_PER_BLOCK + tid;
    let gn2_pre = friction[cell_pre];
    var start_pre = own;
    if (stage == 2u) {
        start_pre = state_a[cell_pre];
    }""")
    s = rep(s, "next = advance_cell(own, li, lj, dt, rate, friction[cell]);", "next = advance_cell(own, li, lj, dt, rate, gn2_pre);")
    s = rep(s, "next = 0.5 * (state_a[cell] + next);", "next = 0.5 * (start_pre + next);")
    return s
PERSIST_FN = """
fn run_stage_p(stage: u32, border: bool, wid: vec3<u32>, nwg: vec3<u32>, lid: vec3<u32>, tid: u32, prefetch: bool) {
    let count = select(sim.dispatched, sim.dispatched_border, border);
    let stride = nwg.x * nwg.y;
    var k = wid.x + wid.y * nwg.x;
    if (k >= count) {
        return;
    }
    let li = i32(lid.x);
    let lj = i32(lid.y);
    var b = block_of_list(border, k);
    var own = load_cell(stage, b, tid);
    var fr = friction[b * CELLS_PER_BLOCK + tid];
    var hal = vec4<f32>(0.0);
    var hl = vec2<i32>(0, 0);
    if (tid < 128u) {
        hl = halo_cell(tid);
        let nb = neighbours[b * NB_SLOTS + side_slot(halo_side(hl))];
        if (nb != NONE) {
            hal = load_cell(stage, nb, u32((hl.x & 15) + BLOCK * (hl.y & 15)));
        }
    }
    loop {
        tile[tile_index(li, lj)] = to_primitive(own);
        if (tid < 128u) {
            tile[tile_index(hl.x, hl.y)] = to_primitive(hal);
        }
        workgroupBarrier();
        let kn = k + stride;
        var bn = NONE;
        var own_n = own;
        var fr_n = fr;
        var hal_n = hal;
        if (prefetch && kn < count) {
            bn = block_of_list(border, kn);
            own_n = load_cell(stage, bn, tid);
            fr_n = friction[bn * CELLS_PER_BLOCK + tid];
            if (tid < 128u) {
                let nb = neighbours[bn * NB_SLOTS + side_slot(halo_side(hl))];
                if (nb != NONE) {
                    hal_n = load_cell(stage, nb, u32((hl.x & 15) + BLOCK * (hl.y & 15)));
                }
            }
        }
        let cell = b * CELLS_PER_BLOCK + tid;
        let next = own + vec4<f32>(1e-9 * (fr + tile[tile_index(li + 2, lj)].x + tile[tile_index(li, lj - 2)].x), 0.0, 0.0, 0.0);
        if (stage == 1u) {
            state_b[cell] = next;
        } else {
            state_a[cell] = 0.5 * (state_a[cell] + next);
        }
        workgroupBarrier();
        k = kn;
        if (k >= count) {
            break;
        }
        if (prefetch) {
            b = bn; own = own_n; fr = fr_n; hal = hal_n;
        } else {
            b = block_of_list(border, k);
            own = load_cell(stage, b, tid);
            fr = friction[b * CELLS_PER_BLOCK + tid];
            if (tid < 128u) {
                let nb = neighbours[b * NB_SLOTS + side_slot(halo_side(hl))];
                hal = vec4<f32>(0.0);
                if (nb != NONE) {
                    hal = load_cell(stage, nb, u32((hl.x & 15) + BLOCK * (hl.y & 15)));
                }
            }
        }
    }
}
"""
def persist(cap, prefetch):
    def f(s):
        s = s + PERSIST_FN
        s = rep(s, "    run_stage(1u, false, wid, nwg, lid, tid);", "    run_stage_p(1u, false, wid, nwg, lid, tid, %s);" % prefetch)
        s = rep(s, "    run_stage(2u, false, wid, nwg, lid, tid);", "    run_stage_p(2u, false, wid, nwg, lid, tid, %s);" % prefetch)
        s = rep(s, "    set_groups(0u, internal);", "    set_groups(0u, min(internal, %du));" % cap)
        return s
    return f
def nolaunchcheck(s):
    return rep(s, "if (stage == 2u && (sim.all_active == 1u || block_flags[params.nblocks + block] == 1u)) {", "if (stage == 2u) {")
def pad2(nvec):
    def f(s):
        s = rep(s, "var<workgroup> wg_dt_bits: atomic<u32>;", "var<workgroup> wg_dt_bits: atomic<u32>;\nvar<workgroup> wg_pad: array<vec4<f32>, %d>;" % nvec)
        s = rep(s, "    tile[tile_index(li, lj)] = to_primitive(own);", "    tile[tile_index(li, lj)] = to_primitive(own);\n    if (b == 0xfffffffeu) { wg_pad[tid %% %du] = own; }" % nvec)
        return s
    return f
def kb(n):
    """A pad that brings the kernel's workgroup memory n KB above the tree's own."""
    return pad2(int(n * 1024 / 16))


SKELETON = [strip_levels, strip_edge, strip_extras, skeleton]
# The variants of 2026-11-25 evening (docs/benchmarks-history.md, "17 rows of threads"), on the
# tree of commit 3ad54a4 or later.
EARLY = """    // What the cell update needs from memory besides the tile, loaded now so that the wait
    // overlaps the halo loads instead of following the faces.
    let cell = b * CELLS_PER_BLOCK + tid;
    let span = sources[b];
    let friction_code = friction[b];
    var start = vec4<f32>(0.0); // U^n of the own cell, which stage 2 averages with
    if (stage == 2u && cell_thread) {
        start = state_a[cell];
    }
"""
UPDATE = "    // 4. Update the own cell.\n"
def loads_late(s):
    """The cell update's loads after the faces, where they were before."""
    return rep(rep(s, EARLY, ""), UPDATE, UPDATE + EARLY)
def early_regular_only(s):
    s = rep(s, "    if (stage == 2u && cell_thread) {\n        start = state_a[cell];\n    }\n",
            "    if (stage == 2u && cell_thread && kind == CLASS_REGULAR) {\n        start = state_a[cell];\n    }\n")
    return rep(s, "        if (stage == 2u) {\n            next = 0.5 * (start + next);",
               "        if (stage == 2u) {\n            if (kind != CLASS_REGULAR) {\n                start = state_a[cell];\n            }\n            next = 0.5 * (start + next);")
def park_start(s):
    """U^n kept in workgroup memory through the faces instead of registers."""
    s = rep(s, "var<workgroup> wg_block: u32;\n", "var<workgroup> wg_block: u32;\nvar<workgroup> wg_start: array<vec4<f32>, 256>;\n")
    s = rep(s, "    if (tid < 128u) {\n        let l = halo_cell(tid);",
            "    if (stage == 2u && cell_thread && kind == CLASS_REGULAR) {\n        wg_start[tid] = start;\n    }\n    if (tid < 128u) {\n        let l = halo_cell(tid);")
    return rep(s, "            if (kind != CLASS_REGULAR) {\n                start = state_a[cell];\n            }\n",
               "            if (kind != CLASS_REGULAR) {\n                start = state_a[cell];\n            } else {\n                start = wg_start[tid];\n            }\n")
def park_own(s):
    """The own cell's state kept in workgroup memory too."""
    s = rep(s, "var<workgroup> wg_start: array<vec4<f32>, 256>;\n", "var<workgroup> wg_start: array<vec4<f32>, 256>;\nvar<workgroup> wg_own: array<vec4<f32>, 256>;\n")
    s = rep(s, "        tile[tile_index(li, lj)] = to_primitive(own);\n",
            "        tile[tile_index(li, lj)] = to_primitive(own);\n        wg_own[tid] = own;\n")
    return rep(s, UPDATE, UPDATE + "    if (cell_thread) {\n        own = wg_own[tid];\n    }\n")
def paired_faces(s):
    """Each thread of a regular block computes its x-face and its y-face in one phase."""
    s = rep(s, "var<workgroup> face: array<vec4<f32>, 272>;", "var<workgroup> face: array<vec4<f32>, 544>;")
    s = rep(s, "fn yface_index(li: i32, lj: i32) -> i32 {\n    return li + BLOCK * lj;",
            "fn yface_index(li: i32, lj: i32) -> i32 {\n    return i32(X_FACES) + li + BLOCK * lj;")
    s = rep(s, "    face[select(f - X_FACES, f, f < X_FACES)] = flux;\n}\n", """    face[f] = flux;
}

fn compute_face_pair(stage: u32, info: BlockInfo, tid: u32) {
    var fx = stencil_flux(regular_stencil(tid));
    var fy = stencil_flux(regular_stencil(tid + X_FACES));
    if ((info.flags & BLOCK_ON_EDGE) != 0u) {
        fx = domain_edge_face(stage, tid, fx);
        fy = domain_edge_face(stage, tid + X_FACES, fy);
    }
    face[tid] = fx;
    face[tid + X_FACES] = fy;
}
""")
    s = rep(s, """    if (faces) {
        compute_faces(stage, b, info, tid, threads, 0u, X_FACES);
    }
    workgroupBarrier();
""", """    let fused = kind == CLASS_REGULAR;
    if (faces) {
        if (fused) {
            compute_face_pair(stage, info, tid);
        } else {
            compute_faces(stage, b, info, tid, threads, 0u, X_FACES);
        }
    }
    workgroupBarrier();
""")
    return rep(s, """    workgroupBarrier();
    if (faces) {
        compute_faces(stage, b, info, tid, threads, X_FACES, REGULAR_FACES);
    }
    workgroupBarrier();
""", """    if (!fused) {
        if (faces) {
            compute_faces(stage, b, info, tid, threads, X_FACES, REGULAR_FACES);
        }
        workgroupBarrier();
    }
""")
def empty_stages(s):
    """The regular stage kernels with no body: what recording a step costs the host alone."""
    s = rep(s, "fn stage1(ids: Invocation) { run_stage(1u, CLASS_REGULAR, ids); }", "fn stage1(ids: Invocation) { }")
    s = rep(s, "fn stage2(ids: Invocation) { run_stage(2u, CLASS_REGULAR, ids); }", "fn stage2(ids: Invocation) { }")
    return rep(s, "fn stage2_end(ids: Invocation) { stage2_then_end(CLASS_REGULAR, ids); }", "fn stage2_end(ids: Invocation) { }")

BLOCK_CHOICE = """        } else if (linear < dispatched_in(kind)) {
            b = block_of_list(kind, linear);
        }"""
LIST_PARALLEL_FN = """
// Both candidate list entries, the count and the all-active flag loaded at once.
fn block_of_list_parallel(kind: u32, linear: u32) -> u32 {
    let nb = params.nblocks;
    var fixed: u32;
    var moving: u32;
    switch (kind) {
        case CLASS_BORDER: {
            fixed = linear;
            moving = active_list[nb + linear];
        }
        case CLASS_LEVELS: {
            fixed = active_list[2u * nb + params.regular_blocks + linear];
            moving = active_list[nb - 1u - linear];
        }
        default: {
            fixed = active_list[2u * nb + linear];
            moving = active_list[linear];
        }
    }
    let b = select(moving, fixed, sim.all_active == 1u);
    return select(NONE, b, linear < dispatched_in(kind));
}
"""
def list_parallel(s):
    """The block index from one round of loads instead of two (count, then list)."""
    s = rep(s, BLOCK_CHOICE, """        } else {
            b = block_of_list_parallel(kind, linear);
        }""")
    return s + LIST_PARALLEL_FN
def block_linear(s):
    """Timing probe: block = workgroup index, no list (right only where every block of a
    one-class, one-rank grid is launched, as in the benchmark)."""
    return rep(s, BLOCK_CHOICE, """        } else {
            b = select(NONE, linear, linear < params.own_blocks);
        }""")
def all_then_linear(s):
    """Timing probe: in all-active steps the block is the workgroup index (right where the
    fixed list is the identity, as in the one-class, one-rank benchmark); the list otherwise."""
    return rep(s, BLOCK_CHOICE, """        } else if (sim.all_active == 1u) {
            b = select(NONE, linear, linear < params.own_blocks);
        } else if (linear < dispatched_in(kind)) {
            b = block_of_list(kind, linear);
        }""")
def fixed_list_only(s):
    """Timing probe: the fixed list read without the count or the all-active flag."""
    return rep(s, BLOCK_CHOICE, """        } else {
            b = select(NONE, active_list[2u * params.nblocks + linear], linear < params.own_blocks);
        }""")
def moving_list_only(s):
    """Timing probe: the step's list read without the count (right where every block of a
    one-class, one-rank grid is launched, as in the benchmark)."""
    return rep(s, BLOCK_CHOICE, """        } else {
            b = select(NONE, active_list[linear], linear < params.own_blocks);
        }""")
FIXED_PARALLEL_FN = """
// The fixed list's entry, the count and the all-active flag loaded at once: in steps that
// launch every block the block index then waits on one round of loads, not two.
fn block_of_list_fixed_first(kind: u32, linear: u32) -> u32 {
    let nb = params.nblocks;
    var fixed: u32;
    switch (kind) {
        case CLASS_BORDER: { fixed = linear; }
        case CLASS_LEVELS: { fixed = active_list[2u * nb + params.regular_blocks + linear]; }
        default: { fixed = active_list[2u * nb + linear]; }
    }
    let all = sim.all_active == 1u;
    if (linear >= dispatched_in(kind)) {
        return NONE;
    }
    if (all) {
        return fixed;
    }
    switch (kind) {
        case CLASS_BORDER: { return active_list[nb + linear]; }
        case CLASS_LEVELS: { return active_list[nb - 1u - linear]; }
        default: { return active_list[linear]; }
    }
}
"""
def fixed_parallel(s):
    """In steps that launch every block, the fixed list's entry loaded with the count."""
    s = rep(s, BLOCK_CHOICE, """        } else {
            b = block_of_list_fixed_first(kind, linear);
        }""")
    return s + FIXED_PARALLEL_FN
def fixed_identity(s):
    """Timing probe: in all-active steps the block is the class's first plus the workgroup
    index, as if blocks were numbered class by class (right in the one-class benchmark)."""
    s = rep(s, "            default: { return active_list[2u * nb + linear]; }", "            default: { return params.border_blocks + linear; }")
    return s
def staged_only_when_all(s):
    """Stage 2 loads only U* for the halo when every block was launched (a workgroup
    value set with the block index), instead of U* and U^n and a select."""
    s = rep(s, "var<workgroup> wg_block: u32;", "var<workgroup> wg_block: u32;\nvar<workgroup> wg_all_launched: u32;")
    s = rep(s, """        wg_block = b;
""", """        wg_block = b;
        wg_all_launched = sim.all_active;
""")
    s = rep(s, """    if (stage == 2u) {
        let start = state_a[i];""", """    if (stage == 2u) {
        if (wg_all_launched == 1u) {
            return state_b[i];
        }
        let start = state_a[i];""")
    return s
def staged_only_when_all_levels(s):
    """`staged_only_when_all` in the level-change kernels only, where it took stage2_levels
    from 74 to 64 registers (kernel_stats on an H100): 4 workgroups per SM instead of 3."""
    s = staged_only_when_all(s)
    s = rep(s, """        wg_all_launched = sim.all_active;
""", """        wg_all_launched = select(0u, sim.all_active, kind != CLASS_REGULAR);
""")
    return s
ORDERED_SCAN_FN = """
// The dry-map of one block per thread, each class's launched blocks appended in block
// order within the workgroup: one atomic per class and workgroup instead of one per block.
var<workgroup> wg_scan_class: array<u32, 64>;   // 0 regular, 1 border, 2 levels, 3 none
var<workgroup> wg_scan_base: array<u32, 3>;
var<workgroup> wg_scanning: u32;
fn scan_block_ordered(b: u32, lid: u32, scanning: bool) {
    var list_of = 3u;
    if (scanning && b < params.own_blocks) {
        let launch = block_is_active(b);
        block_flags[params.nblocks + b] = select(0u, 1u, launch);
        if (launch) {
            if (b < params.border_blocks) {
                list_of = 1u;
            } else if ((blocks[b].flags & LEVEL_CHANGE_SIDES) != 0u || params.regular_blocks == 0u) {
                list_of = 2u;
            } else {
                list_of = 0u;
            }
        }
    }
    wg_scan_class[lid] = list_of;
    workgroupBarrier();
    if (lid < 3u) {
        var n = 0u;
        for (var k = 0u; k < FINALIZE_THREADS; k++) {
            n += select(0u, 1u, wg_scan_class[k] == lid);
        }
        switch (lid) {
            case 0u: { wg_scan_base[0] = atomicAdd(&sim.scan_count, n); }
            case 1u: { wg_scan_base[1] = atomicAdd(&sim.scan_count_border, n); }
            default: { wg_scan_base[2] = atomicAdd(&sim.scan_count_levels, n); }
        }
    }
    workgroupBarrier();
    if (list_of < 3u) {
        var rank = 0u;
        for (var k = 0u; k < lid; k++) {
            rank += select(0u, 1u, wg_scan_class[k] == list_of);
        }
        let at = wg_scan_base[list_of] + rank;
        switch (list_of) {
            case 0u: { active_list[at] = b; }
            case 1u: { active_list[params.nblocks + at] = b; }
            default: { active_list[params.nblocks - 1u - at] = b; }
        }
    }
}
"""
def ordered_scan(s):
    """The dry-map's lists in block order within each scanning workgroup (64 blocks),
    instead of the order of one atomic per block: the stage kernels read the fixed list,
    in block order, 3.5% faster than the dry-map's on a fully wet grid (the step end of
    scan_then_finalize only; steps ending in stage 2 keep the per-block scan)."""
    s = rep(s, """    if (sim.dt != 0.0) {
        scan_block(gid.x); // an idle step (dt = 0) changed no wet flag: nothing to scan
    }
    if (last_to_finish(lid, groups.x)) {""", """    if (lid == 0u) {
        wg_scanning = select(0u, 1u, sim.dt != 0.0);
    }
    let scanning = workgroupUniformLoad(&wg_scanning) == 1u;
    scan_block_ordered(gid.x, lid, scanning);
    if (last_to_finish(lid, groups.x)) {""")
    return s + ORDERED_SCAN_FN
def promote_with_ghosts(s):
    """The all-launched promotion (fixed list, block order) for ranks with ghosts too."""
    return rep(s, """    return params.own_blocks == params.nblocks
        && sim.list_count""", """    return sim.list_count""")
def local_from_l(s):
    """The halo cell's place in its block from its tile coordinates, not the block's."""
    return rep(s, """        return finer_halo(stage, b, side, l);
    }
    return load_global(stage, nb, gi, gj);""", """        return finer_halo(stage, b, side, l);
    }
    return to_primitive(load_cell(stage, nb, u32((l.x & 15) + BLOCK * (l.y & 15))));""")

variants = {
    "base": [],
    "nolevels": [strip_levels],
    "noedge": [strip_levels, strip_edge],
    "noextras": [strip_levels, strip_edge, strip_extras],
    "firstorder": [strip_levels, strip_edge, strip_extras, first_order],
    "skeleton": SKELETON,
    "skel_nohalo": SKELETON + [nohalo],
    "skel_pad22k": SKELETON + [kb(22)],
    "skel_pad33k": SKELETON + [kb(33)],
    "pad0.8k": [kb(0.8)],
    "pad1.6k": [kb(1.6)],
    "pad3.2k": [kb(3.2)],
    "pad4.9k": [kb(4.9)],
    "pad10k": [kb(10)],
    "pad15k": [kb(15)],
    "pad19k": [kb(19)],
    "pad22k": [kb(22)],
    "pad33k": [kb(33)],
    "uniformb": [uniformb],
    "pre": [pre],
    # subgroup operations: needs a build whose device requests wgpu::Features::SUBGROUP
    "sub": [sub],
    "combo": [uniformb, sub, pre],
    "nolaunchcheck": [nolaunchcheck],
    # persistent skeletons: G workgroups loop over the blocks, the next one prefetched
    "persist528": SKELETON[:3] + [persist(528, "true")],
    "persist1056": SKELETON[:3] + [persist(1056, "true")],
    "persist1056_noprefetch": SKELETON[:3] + [persist(1056, "false")],
    "persist2112": SKELETON[:3] + [persist(2112, "true")],
    "persist_all": SKELETON[:3] + [persist(1000000, "true")],
    # 2026-11-25 evening, against the shipped kernels ("base")
    "loads_late": [loads_late],
    "early_regular_only": [early_regular_only],
    "park_start": [early_regular_only, park_start],
    "park_start_own": [early_regular_only, park_start, park_own],
    # 16 rows of threads for the regular kernels: QUADFLOOD_REGULAR_ROWS=16 on the base
    "paired_faces": [paired_faces],
    "empty_stages": [empty_stages],
    # 2026-11-25 17:00 UTC: the chain of loads before the halo (count, list, neighbours, state)
    "list_parallel": [list_parallel],
    "block_linear": [block_linear],
    "local_from_l": [local_from_l],
    "all_then_linear": [all_then_linear],
    "fixed_list_only": [fixed_list_only],
    "moving_list_only": [moving_list_only],
    "fixed_parallel": [fixed_parallel],
    "staged_only_when_all": [staged_only_when_all],
    # 2026-11-25 evening: staged_only_when_all_levels (3-level 4096² 2% faster) and
    # promote_with_ghosts (+6% on 2 GPUs) are in the shaders since 11cd393, so they apply to
    # the trees before it; ordered_scan was 2-4% slower on partly dry grids (rejected).
    "staged_only_when_all_levels": [staged_only_when_all_levels],
    "ordered_scan": [ordered_scan],
    "promote_with_ghosts": [promote_with_ghosts],
    "fixed_identity": [fixed_identity],
    "short_chain": [list_parallel, local_from_l],
    "block_linear_local": [block_linear, local_from_l],
}
for name, fs in variants.items():
    s = base
    try:
        for f in fs:
            s = f(s)
    except AssertionError as e:
        print(f"{name}: skipped, this tree lacks {e}")
        continue
    open(os.path.join(out, name + ".wgsl"), "w").write(s)
    print(name)

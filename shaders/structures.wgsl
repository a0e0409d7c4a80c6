// Culverts and weirs (src/scenario/structures.rs): each step starts by setting every
// structure's discharge from U^n at its two ends, by Boyd's equations for a culvert and
// the weir equation for a weir. The ends' cells take it as a source of their own (forcing
// slot params.n_series + structure, a depth rate of Q over the end's area, negative at the
// end water leaves), so both stages use the same Q and the water leaving one end is the
// water entering the other. The delivering end's cells give it in proportion to the water
// each holds (`source_rate`), so a dry or shallow cell among them is never drawn below
// empty: spread evenly, a levee's end along rising ground drew water from dry cells, which
// the clip at zero made (1.65e-3 of the Sagehen study's volume). The end that receives it bounds the next step as a source does
// (the depth Q pours in one step must not outrun a cell).
//
// `structures` (u32 words): per structure STRUCTURE_WORDS words — kind (0 box culvert,
// 1 circular culvert, 2 weir), width (diameter; a weir's crest length), rise, length,
// Manning's n (a weir's coefficient), loss coefficient, first and second end's invert (a
// weir's crest), as f32 bits relative to the datum, then per end its first entry and count
// in the cell list that follows all structures (local storage indices), and the smoothing
// time (s, f32 bits). `forcing`'s slot keeps the last discharge in z.

const STRUCTURE_WORDS: u32 = 13u;
const STRUCTURE_THREADS: u32 = 64u;

// An end's water, area-weighted over its cells. The heads are levels, not
// energies: a cell's velocity at a draining end is that of the water converging on it,
// not an approach velocity. (The swing that once ran a culvert backwards between still
// ponds came from the law's stiffness near a level balance: see `smoothing` below.)
// The level is the wet cells' (the lowest bed where none is wet): a dry cell on high
// ground beside a levee counted at its bed lifted the end's level over the crest, and the
// weir passed water that stood below it (exit 0; a physics hunt).
struct EndWater {
    depth: f32,     // area-weighted mean depth (m)
    level: f32,     // the wet cells' mean level (the lowest bed where none is wet)
    wet_area: f32,  // m² (the whole area where none is wet)
    area: f32,      // m²
    supply: f32,    // m³/s its cells could deliver at critical flow across one side each
}

fn structure_end(first: u32, count: u32) -> EndWater {
    var area = 0.0;
    var depth = 0.0;
    var wet_area = 0.0;
    var level = 0.0;
    var lowest = 3.0e38;
    var supply = 0.0;
    for (var k = first; k < first + count; k++) {
        let cell = structures[k];
        let s = state_a[cell];
        let width = params.dx * f32(1u << blocks[cell / CELLS_PER_BLOCK].level);
        let a = width * width;
        area += a;
        depth += a * s.x;
        if (s.x > params.dry_depth) {
            wet_area += a;
            level += a * (s.x + s.w);
        }
        lowest = min(lowest, s.w);
        supply += width * s.x * sqrt(params.g * s.x);
    }
    if (wet_area == 0.0) {
        return EndWater(depth / area, lowest, area, area, supply);
    }
    return EndWater(depth / area, level / wet_area, wet_area, area, supply);
}

fn structure_word(c: u32, k: u32) -> f32 {
    return bitcast<f32>(structures[c * STRUCTURE_WORDS + k]);
}

// Flow area and wetted perimeter at depth d in the barrel (a full one's whole wall).
fn barrel_section(circular: bool, width: f32, rise: f32, d: f32) -> vec2<f32> {
    if (!circular) {
        let depth = clamp(d, 0.0, rise);
        return vec2<f32>(width * depth, width + 2.0 * depth + select(0.0, width, depth >= rise));
    }
    let r = 0.5 * width;
    let half = acos(1.0 - clamp(d / r, 0.0, 2.0));
    return vec2<f32>(r * r * (half - sin(half) * cos(half)), width * half);
}

// Critical depth of q in the barrel: Q² T = g A³.
fn barrel_critical_depth(circular: bool, width: f32, q: f32) -> f32 {
    if (!circular) {
        return pow(q * q / (params.g * width * width), 1.0 / 3.0);
    }
    var lo = 0.0;
    var hi = width;
    for (var i = 0; i < 30; i++) {
        let d = 0.5 * (lo + hi);
        let area = barrel_section(true, width, width, d).x;
        let top = 2.0 * sqrt(max(d * (width - d), 0.0));
        if (q * q * top > params.g * area * area * area) {
            lo = d;
        } else {
            hi = d;
        }
    }
    return 0.5 * (lo + hi);
}

// Boyd's discharge (≥ 0) from the driving head, the energy difference and the tailwater
// (each in m; see culverts.rs, `boyd_discharge`).
fn boyd(c: u32, driving: f32, difference: f32, tailwater: f32) -> f32 {
    if (driving <= 0.0 || difference <= 0.0) {
        return 0.0;
    }
    let circular = structures[c * STRUCTURE_WORDS] == 1u;
    let width = structure_word(c, 1u);
    let rise = structure_word(c, 2u);
    let root_g = sqrt(params.g);
    var inlet: f32;
    if (circular) {
        inlet = min(0.421 * root_g * pow(width, 0.87) * pow(driving, 1.63),
                    0.530 * root_g * pow(width, 1.87) * pow(driving, 0.63));
    } else {
        inlet = min(0.544 * root_g * width * pow(driving, 1.5),
                    0.702 * root_g * width * pow(rise, 0.89) * pow(driving, 0.61));
    }
    var depth = rise;
    if (tailwater < rise) {
        depth = min(barrel_critical_depth(circular, width, inlet), rise);
    }
    let section = barrel_section(circular, width, rise, depth);
    if (section.x <= 0.0) {
        return 0.0;
    }
    let n = structure_word(c, 4u);
    let radius = section.x / section.y;
    let resistance = structure_word(c, 5u) / (2.0 * params.g) + n * n * structure_word(c, 3u) / pow(radius, 4.0 / 3.0);
    let outlet = section.x * sqrt(difference / max(resistance, 1e-12));
    return min(inlet, outlet);
}

struct StructureFlow {
    q: f32,         // inlet to outlet positive (m³/s)
    dt_bits: u32,   // the bound the receiving end puts on the next step
    thin: f32,      // 1 / the delivering end's mean depth (0 when dry): see source_rate
}

// The weir equation with Villemonte's submergence correction (≥ 0; see structures.rs,
// `weir_discharge`): crest length × coefficient × H^1.5, H the upstream level above the
// crest, reduced where the downstream level stands `tailwater` above it.
fn weir(c: u32, driving: f32, difference: f32, tailwater: f32) -> f32 {
    if (driving <= 0.0 || difference <= 0.0) {
        return 0.0;
    }
    let free = structure_word(c, 4u) * structure_word(c, 1u) * pow(driving, 1.5);
    if (tailwater <= 0.0) {
        return free;
    }
    let ratio = min(tailwater / driving, 1.0);
    return free * pow(1.0 - pow(ratio, 1.5), 0.385);
}

// The discharge law of structure c: Boyd's for culverts, the weir equation for weirs.
fn structure_law(c: u32, driving: f32, difference: f32, tailwater: f32) -> f32 {
    if (structures[c * STRUCTURE_WORDS] == 2u) {
        return weir(c, driving, difference, tailwater);
    }
    return boyd(c, driving, difference, tailwater);
}

// Whether two end levels (m above the datum) differ by less than their means' rounding:
// a few units in the last place of the larger.
fn level_gap_is_roundoff(a: f32, b: f32) -> bool {
    return abs(a - b) <= 8.0 * 1.1920929e-7 * max(abs(a), abs(b));
}

// Structure c's discharge from the state, and the bound its receiving end puts on dt.
fn structure_discharge(c: u32) -> StructureFlow {
    let base = c * STRUCTURE_WORDS;
    if (structures[base + 9u] == 0u || structures[base + 11u] == 0u) {
        return StructureFlow(0.0, INF_BITS, 0.0); // a rank holding only part of it
    }
    let a = structure_end(structures[base + 8u], structures[base + 9u]);
    let b = structure_end(structures[base + 10u], structures[base + 11u]);
    let invert_a = structure_word(c, 6u);
    let invert_b = structure_word(c, 7u);
    let level_a = a.level;
    let level_b = b.level;
    var q = 0.0;
    var supply = 0.0;
    if (level_gap_is_roundoff(level_a, level_b)) {
        // Levels that differ by their rounding alone stand level: the laws' discharge rises
        // as a root of the difference, infinitely steeply from zero, and a lake at rest
        // over a drowned crest on a rough bed (its ends' mean levels a few bits apart) began
        // to slosh, ±1 cm at 0.36 m/s (a hunt).
    } else if (level_a >= level_b) {
        q = structure_law(c, select(0.0, level_a - invert_a, a.depth > params.dry_depth), level_a - level_b, level_b - invert_b);
        supply = a.supply;
    } else {
        q = -structure_law(c, select(0.0, level_b - invert_b, b.depth > params.dry_depth), level_b - level_a, level_a - invert_a);
        supply = b.supply;
    }
    // An end cannot deliver more than its cells pass at critical flow: keeps them from
    // being drained below dry in a step.
    q = clamp(q, -supply, supply);
    if (sim.dt > 0.0) {
        // The discharge relaxes towards the law's over the structure's smoothing time, by
        // the implicit rule: near a level balance the laws' discharge grows as the square
        // root of the difference, and the ends' cells, drawn down and filled by the
        // structure itself within a step, would swing the flow back and forth from step to
        // step. A steady flow is the law's. (The initial scan bounds dt by the law's.)
        let r = sim.dt / max(structure_word(c, 12u), 1e-30);
        q = (forcing[params.n_series + c].z + r * q) / (1.0 + r);
        // The relaxed discharge is held to what its delivering end can pass too: relaxing
        // down from a larger one kept a culvert running from a cell gone dry, which made
        // water (0.14 m³ on a draining slope, with exit 0).
        q = clamp(q, -b.supply, a.supply);
        let balancing = balancing_discharge(a, b);
        q = clamp(q, -balancing, balancing);
    }
    let delivering = select(b.depth, a.depth, q > 0.0);
    return StructureFlow(q, structure_fill_bound(c, q), select(0.0, 1.0 / delivering, delivering > 0.0));
}

// The discharge that would bring the ends' levels together in one step of sim.dt if it
// alone moved their water: the delivering end's wet cells each give in proportion to their
// depth (its mean level falls Q dt / its wet area), the receiving end's cells each take the
// same depth (its mean level rises Q dt / its area). A larger discharge would carry the
// ends past each other within the step; near a level balance the laws' discharge rises
// infinitely steeply, and the ends swung by the law's full discharge every step (±12 m³/s
// over a drowned 16 m weir with no smoothing), or, smoothed, a lake over a rough bed kept
// a current of 0.27 m/s going over the weir and back round its ends (hunts).
fn balancing_discharge(a: EndWater, b: EndWater) -> f32 {
    var high = a;
    var low = b;
    if (b.level > a.level) {
        high = b;
        low = a;
    }
    return (high.level - low.level) / (sim.dt * (1.0 / high.wet_area + 1.0 / low.area));
}

// dt limit (as source_speed's: the fill time of the depth rate Q / area in the receiving
// end's smallest cell), as f32 bits; INF_BITS for no flow.
fn structure_fill_bound(c: u32, q: f32) -> u32 {
    if (q == 0.0) {
        return INF_BITS;
    }
    let base = c * STRUCTURE_WORDS;
    let to = select(10u, 8u, q < 0.0);
    var area = 0.0;
    var width = 1.0e30;
    for (var k = structures[base + to]; k < structures[base + to] + structures[base + to + 1u]; k++) {
        let cell = structures[k];
        let w = params.dx * f32(1u << blocks[cell / CELLS_PER_BLOCK].level);
        area += w * w;
        width = min(width, w);
    }
    let rate = abs(q) / area;
    return bitcast<u32>(pow(width / sqrt(params.g * rate), 2.0 / 3.0));
}

@compute @workgroup_size(STRUCTURE_THREADS)
fn structure_flows(@builtin(local_invocation_index) lid: u32) {
    // An idle step (the clock on its target) keeps the last step's discharges, which the
    // series record.
    if (sim.dt == 0.0) {
        return;
    }
    for (var c = lid; c < params.structure_count; c += STRUCTURE_THREADS) {
        let flow = structure_discharge(c);
        if (sim.dt > 0.0) {
            forcing[params.n_series + c] = vec4<f32>(flow.q, flow.q, flow.q, flow.thin);
        }
        atomicMin(&sim.dt_min_bits, flow.dt_bits);
    }
}

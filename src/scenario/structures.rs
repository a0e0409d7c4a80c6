//! Structures that carry water between two places of the domain, each with a discharge
//! law the GPU evaluates every step (`shaders/structures.wgsl`) from the state at both ends:
//!
//! - `[[culvert]]`: a barrel under an embankment, by Boyd's generalised head–discharge
//!   equations for culverts (Boyd 1987, in the simplified form ANUGA's Boyd box and pipe
//!   operators use): the smaller of the inlet-control discharge (unsubmerged: weir;
//!   submerged: orifice) and the outlet-control discharge (entrance and exit losses plus
//!   Manning friction along the barrel);
//! - `[[weir]]` (`weirs.rs`): a crest along a line, by the weir equation with Villemonte's
//!   submergence correction.
//!
//! `boyd_discharge` and `weir_discharge` are the same laws in f64, for tests and reports.

use super::frame::{bad, cell_at, coords, line_cells, Frame};
use crate::error::InputError;
use crate::grid::{BlockGrid, BLOCK_ALWAYS_ACTIVE};
use crate::io::vector::Want;
use crate::scenario::spec::{Coords, LeveeSpec};
use serde::Deserialize;
use std::path::Path;

/// `[[culvert]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CulvertSpec {
    pub name: Option<String>,
    /// "box" or "circular".
    pub shape: String,
    pub width: Option<f64>,
    pub height: Option<f64>,
    pub diameter: Option<f64>,
    /// The ends: the cell under a point, or the cells a line crosses.
    pub inlet: Option<[f64; 2]>,
    pub outlet: Option<[f64; 2]>,
    pub inlet_line: Option<Coords>,
    pub outlet_line: Option<Coords>,
    /// Barrel length (m); the distance between the ends' centres by default.
    pub length: Option<f64>,
    /// Manning's n of the barrel (default 0.013, concrete).
    pub manning: Option<f64>,
    /// Entrance plus exit loss coefficients (default 0.5 + 1.0).
    pub loss: Option<f64>,
    /// Invert elevations (m, the terrain's datum); the lowest bed of each end by default.
    pub inlet_invert: Option<f64>,
    pub outlet_invert: Option<f64>,
    /// Time (s) over which the discharge relaxes towards Boyd's (default `SMOOTHING`).
    pub smoothing: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Box {
        width: f64,
        height: f64,
    },
    Circular {
        diameter: f64,
    },
    /// A weir: q = coefficient H^1.5 per metre of crest (`Structure::length`), the crest at
    /// both ends' invert.
    Weir {
        coefficient: f64,
    },
}

/// One end of a structure: the stored cells it draws from or pours into, in equal depth.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct End {
    /// Stored cells (global storage indices), each once.
    pub cells: Vec<usize>,
    /// Invert (m, relative to the model's datum).
    pub invert: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    pub name: String,
    /// The culvert or weir of the scenario it is (a weir comes in stretches): culverts in
    /// order, then weirs.
    pub owner: usize,
    pub shape: Shape,
    /// Barrel length, or a weir's crest length (m).
    pub length: f64,
    pub manning: f64,
    pub loss: f64,
    /// Inlet, then outlet: positive discharge flows from the first to the second.
    pub ends: [End; 2],
    /// Time (s) over which the discharge relaxes towards the law's (0: none).
    pub smoothing: f64,
}

/// Default `smoothing` (s).
pub const SMOOTHING: f64 = 10.0;

pub(crate) fn smoothing(v: Option<f64>, key: &str) -> Result<f64, InputError> {
    match v {
        Some(s) if !(s.is_finite() && s >= 0.0) => Err(bad(
            &format!("{key}.smoothing"),
            format!("expected a time >= 0 (s), found {s}"),
        )),
        other => Ok(other.unwrap_or(SMOOTHING)),
    }
}

/// Where one end lies, in finest cells, and its centre.
struct Place {
    cells: Vec<(usize, usize)>,
    centre: [f64; 2],
}

fn place(
    point: Option<[f64; 2]>,
    line: Option<&Coords>,
    key: &str,
    end: &str,
    frame: &Frame,
    dir: &Path,
) -> Result<Place, InputError> {
    match (point, line) {
        (Some(p), None) => Ok(Place {
            cells: vec![cell_at(frame, p, &format!("{key}.{end}"))?],
            centre: p,
        }),
        (None, Some(line)) => {
            let key = format!("{key}.{end}_line");
            let points = coords(line, Want::Line, &key, dir, frame)?;
            let n = points.len() as f64;
            let centre = points
                .iter()
                .fold([0.0, 0.0], |c, p| [c[0] + p[0] / n, c[1] + p[1] / n]);
            Ok(Place {
                cells: line_cells(frame, &points, &key)?,
                centre,
            })
        }
        _ => Err(bad(
            key,
            format!("give the {end} as a point (`{end}`) or a line (`{end}_line`), one of them"),
        )),
    }
}

fn positive(v: Option<f64>, key: &str, what: &str) -> Result<Option<f64>, InputError> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => {
            Err(bad(key, format!("expected {what} > 0, found {x}")))
        }
        other => Ok(other),
    }
}

fn shape(s: &CulvertSpec, key: &str) -> Result<Shape, InputError> {
    let width = positive(s.width, &format!("{key}.width"), "a width (m)")?;
    let height = positive(s.height, &format!("{key}.height"), "a height (m)")?;
    let diameter = positive(s.diameter, &format!("{key}.diameter"), "a diameter (m)")?;
    match (s.shape.as_str(), width, height, diameter) {
        ("box", Some(width), Some(height), None) => Ok(Shape::Box { width, height }),
        ("circular", None, None, Some(diameter)) => Ok(Shape::Circular { diameter }),
        ("box", ..) => Err(bad(
            key,
            "a box culvert takes width and height (m), no diameter",
        )),
        ("circular", ..) => Err(bad(key, "a circular culvert takes diameter (m) alone")),
        (other, ..) => Err(bad(
            &format!("{key}.shape"),
            format!("expected \"box\" or \"circular\", found {other:?}"),
        )),
    }
}

/// What links two places of a scenario: its culverts, weirs and levees (with the wall
/// cells `terrain::levees` made of each levee, in its line's order).
pub(crate) struct Crossings<'a> {
    pub culverts: &'a [CulvertSpec],
    pub weirs: &'a [super::weirs::WeirSpec],
    pub levees: &'a [LeveeSpec],
    pub levee_walls: &'a [Vec<(usize, usize)>],
    pub weir_walls: &'a [Vec<(usize, usize)>],
}

/// The culverts and weirs of the scenario, their ends on `grid`'s stored cells; marks the
/// blocks holding an end as computed every step, and links each structure's cells
/// (`BlockGrid::links`).
///
/// Levees with a crest are weirs too, over the wall cells `terrain::levees` made of them.
pub(crate) fn build(
    specs: Crossings,
    frame: &Frame,
    grid: &mut BlockGrid,
    elevation: &[f64],
    datum: f64,
    dir: &Path,
) -> Result<Vec<Structure>, InputError> {
    let Crossings {
        culverts,
        weirs,
        levees,
        levee_walls,
        weir_walls,
    } = specs;
    refuse_shared_names(culverts, weirs, levees)?;
    let mut out = Vec::new();
    // Each structure is held to what its own delivering end can pass; two drawing on one
    // cell could take more than it holds, and the clip at zero would make water (a hunt:
    // three culverts with one inlet made 1e-3 of the volume). So no cell is an end twice.
    // Each claimed cell's structure: its key, and its place in `out`.
    let mut claimed: std::collections::HashMap<usize, (String, usize)> = Default::default();
    for (k, s) in culverts.iter().enumerate() {
        let culvert = culvert(k, s, frame, grid, elevation, datum, dir)?;
        let key = format!("culvert[{k}]");
        for &cell in culvert.ends.iter().flat_map(|e| &e.cells) {
            if let Some((other, _)) = claimed
                .insert(cell, (key.clone(), out.len()))
                .filter(|(o, _)| *o != key)
            {
                return Err(bad(
                    &key,
                    format!(
                        "an end shares a cell with {other}'s: two culverts drawing on one cell can take more water than it holds; give each its own cells"
                    ),
                ));
            }
        }
        link(grid, &culvert);
        out.push(culvert);
    }
    // Each weir, then each levee with stretches, is one owner: owners number the names
    // of `structures.csv` densely (`Model::structure_names`).
    let mut owners = Vec::new();
    for (k, (s, wall)) in weirs.iter().zip(weir_walls).enumerate() {
        owners.push((
            format!("weir[{k}]"),
            super::weirs::build(k, s, wall, frame, elevation, datum, dir)?,
        ));
    }
    for (k, (s, wall)) in levees.iter().zip(levee_walls).enumerate() {
        let pieces = super::weirs::levee(k, s, wall, frame, elevation, datum, dir)?;
        owners.push((format!("levee[{k}]"), pieces));
    }
    owners.retain(|(_, pieces)| !pieces.is_empty());
    let pieces = owners
        .into_iter()
        .enumerate()
        .flat_map(|(k, (key, pieces))| {
            pieces
                .into_iter()
                .map(move |p| (culverts.len() + k, key.clone(), p))
        });
    // A weir's or levee's stretch leaves to the structure before it the cells they share
    // (a culvert's end beside a weir, two stretches' ends at a bend). A stretch left with
    // no cell of its own on one side (a line's last one or two cells, slanting, whose
    // sides the stretch before took) joins that stretch: its crest and its other side's
    // cells are that stretch's. Where the cells are another structure's, it could pass
    // nothing, though water may stand over its crest: refused rather than run as a wall.
    let weirs_from = out.len();
    for (owner, key, piece) in pieces {
        let stored = piece
            .ends
            .each_ref()
            .map(|(cells, _)| stored_cells(grid, cells));
        let free = stored.each_ref().map(|cells| -> Vec<usize> {
            cells
                .iter()
                .copied()
                .filter(|k| !claimed.contains_key(k))
                .collect()
        });
        let Some(taken) = (0..2).find(|&e| free[e].is_empty()) else {
            for &cell in free.iter().flatten() {
                claimed.insert(cell, (key.clone(), out.len()));
            }
            let [(_, crest_a), (_, crest_b)] = piece.ends;
            let [a, b] = free;
            out.push(Structure {
                ends: [
                    End {
                        cells: a,
                        invert: crest_a,
                    },
                    End {
                        cells: b,
                        invert: crest_b,
                    },
                ],
                owner,
                ..piece.weir
            });
            continue;
        };
        let (other, joined) = &claimed[&stored[taken][0]];
        let joined = *joined;
        if joined + 1 != out.len() || out[joined].owner != owner {
            return Err(end_taken(&key, frame, &piece.ends[taken].0, other));
        }
        out[joined].length += piece.weir.length;
        for (e, cells) in free.into_iter().enumerate() {
            for &cell in &cells {
                claimed.insert(cell, (key.clone(), joined));
            }
            out[joined].ends[e].cells.extend(cells);
            out[joined].ends[e].cells.sort_unstable();
        }
    }
    for weir in &out[weirs_from..] {
        link(grid, weir);
    }
    Ok(out)
}

/// The refusal of a stretch of `key` whose cells on one side (`cells`, finest) are all the
/// end of `other` already.
fn end_taken(key: &str, frame: &Frame, cells: &[(usize, usize)], other: &str) -> InputError {
    let (x, y) = frame.centre(cells[0].0, cells[0].1);
    let whose = if other == key {
        "another stretch of the same line".to_string()
    } else {
        other.to_string()
    };
    bad(
        &format!("{key}.line"),
        format!(
            "near ({x:.1}, {y:.1}) every cell on one side of the crest is already an end of {whose}: water over this stretch would have nowhere of its own to go, and two structures drawing on one cell can take more than it holds; keep crests and structure ends at least 3 cells apart"
        ),
    )
}

/// Refuses two culverts or weirs of one name: `structures.csv` gave both columns that name,
/// and nothing told which was which.
fn refuse_shared_names(
    culverts: &[CulvertSpec],
    weirs: &[super::weirs::WeirSpec],
    levees: &[LeveeSpec],
) -> Result<(), InputError> {
    let named = culverts
        .iter()
        .enumerate()
        .filter_map(|(k, c)| Some((format!("culvert[{k}].name"), c.name.as_ref()?)))
        .chain(
            weirs
                .iter()
                .enumerate()
                .filter_map(|(k, w)| Some((format!("weir[{k}].name"), w.name.as_ref()?))),
        )
        .chain(levees.iter().enumerate().filter_map(|(k, l)| {
            Some((
                format!("levee[{k}].name"),
                l.name.as_ref().filter(|_| l.crest.is_some())?,
            ))
        }));
    let mut seen: std::collections::HashMap<&String, String> = Default::default();
    for (key, name) in named {
        if let Some(first) = seen.insert(name, key.clone()) {
            return Err(bad(
                &key,
                format!("{name:?} is the name of {first} too: expected a name of its own"),
            ));
        }
    }
    Ok(())
}

/// Makes a rank that holds any of the structure's cells hold all of them.
fn link(grid: &mut BlockGrid, s: &Structure) {
    let per_block = crate::grid::CELLS_PER_BLOCK;
    grid.links.push(
        s.ends
            .iter()
            .flat_map(|e| &e.cells)
            .map(|&k| ((k / per_block) as u32, (k % per_block) as u32))
            .collect(),
    );
}

fn culvert(
    k: usize,
    s: &CulvertSpec,
    frame: &Frame,
    grid: &mut BlockGrid,
    elevation: &[f64],
    datum: f64,
    dir: &Path,
) -> Result<Structure, InputError> {
    let key = format!("culvert[{k}]");
    let shape = shape(s, &key)?;
    let inlet = place(s.inlet, s.inlet_line.as_ref(), &key, "inlet", frame, dir)?;
    let outlet = place(s.outlet, s.outlet_line.as_ref(), &key, "outlet", frame, dir)?;
    let name = s
        .name
        .clone()
        .unwrap_or_else(|| format!("culvert {}", k + 1));
    let what = format!("culvert {name:?}");
    let advice = "a culvert end must lie on the domain";
    super::nodata::cells(&key, &what, &inlet.cells, frame, elevation, advice)?;
    super::nodata::cells(&key, &what, &outlet.cells, frame, elevation, advice)?;
    let distance = ((inlet.centre[0] - outlet.centre[0]).powi(2)
        + (inlet.centre[1] - outlet.centre[1]).powi(2))
    .sqrt();
    let length = positive(s.length, &format!("{key}.length"), "a length (m)")?
        .unwrap_or(distance.max(frame.dx));
    let manning = s.manning.unwrap_or(0.013);
    if !(manning.is_finite() && manning >= 0.0) {
        return Err(bad(
            &format!("{key}.manning"),
            format!("expected n >= 0, found {manning}"),
        ));
    }
    let loss = s.loss.unwrap_or(1.5);
    if !(loss.is_finite() && loss >= 0.0) {
        return Err(bad(
            &format!("{key}.loss"),
            format!("expected a loss coefficient >= 0, found {loss}"),
        ));
    }
    let mut end = |p: &Place, invert: Option<f64>, which: &str| -> Result<End, InputError> {
        let lowest = p
            .cells
            .iter()
            .map(|&(i, j)| elevation[i + frame.nx * j])
            .fold(f64::INFINITY, f64::min);
        let invert = invert.unwrap_or(lowest);
        if !invert.is_finite() {
            return Err(bad(
                &format!("{key}.{which}_invert"),
                "expected an elevation (m)",
            ));
        }
        Ok(End {
            cells: stored_cells(grid, &p.cells),
            invert: invert - datum,
        })
    };
    let ends = [
        end(&inlet, s.inlet_invert, "inlet")?,
        end(&outlet, s.outlet_invert, "outlet")?,
    ];
    if ends[0].cells.iter().any(|c| ends[1].cells.contains(c)) {
        return Err(bad(
            &key,
            "the inlet and the outlet share a cell: move them apart",
        ));
    }
    Ok(Structure {
        smoothing: smoothing(s.smoothing, &key)?,
        name,
        owner: k,
        shape,
        length,
        manning,
        loss,
        ends,
    })
}

/// The stored cells holding finest cells `cells`, each once, in a fixed order; their blocks
/// are computed every step.
pub(crate) fn stored_cells(grid: &mut BlockGrid, cells: &[(usize, usize)]) -> Vec<usize> {
    let mut stored: Vec<usize> = cells
        .iter()
        .map(|&(i, j)| {
            let b = grid.block_of_cell(i, j);
            grid.blocks[b].flags |= BLOCK_ALWAYS_ACTIVE;
            grid.storage_index(i, j)
        })
        .collect();
    stored.sort_unstable();
    stored.dedup();
    stored
}

/// What the discharge depends on at the end water comes from and the end it goes to.
#[derive(Clone, Copy, Debug)]
pub struct Heads {
    /// The upstream water level above its invert (m).
    pub driving: f64,
    /// The upstream level less the downstream one (m), ≥ 0.
    pub difference: f64,
    /// Downstream water level above the downstream invert (m).
    pub tailwater: f64,
}

/// Boyd's culvert discharge (m³/s, ≥ 0) for the given heads, gravity `g`.
pub fn boyd_discharge(c: &Structure, h: Heads, g: f64) -> f64 {
    if h.driving <= 0.0 || h.difference <= 0.0 {
        return 0.0;
    }
    let root_g = g.sqrt();
    let inlet = match c.shape {
        Shape::Box { width, height } => f64::min(
            0.544 * root_g * width * h.driving.powf(1.5),
            0.702 * root_g * width * height.powf(0.89) * h.driving.powf(0.61),
        ),
        Shape::Circular { diameter } => f64::min(
            0.421 * root_g * diameter.powf(0.87) * h.driving.powf(1.63),
            0.530 * root_g * diameter.powf(1.87) * h.driving.powf(0.63),
        ),
        Shape::Weir { .. } => return weir_discharge(c, h),
    };
    let rise = barrel_rise(c.shape);
    // The barrel flows full where the tailwater drowns it, else at critical depth.
    let depth = if h.tailwater >= rise {
        rise
    } else {
        critical_depth(c.shape, inlet, g).min(rise)
    };
    let (area, perimeter) = section(c.shape, depth);
    if area <= 0.0 {
        return 0.0;
    }
    let radius = area / perimeter;
    let resistance = c.loss / (2.0 * g) + c.manning * c.manning * c.length / radius.powf(4.0 / 3.0);
    let outlet = area * (h.difference / resistance.max(1e-12)).sqrt();
    inlet.min(outlet)
}

/// The weir equation with Villemonte's submergence correction (m³/s, ≥ 0): the crest
/// length times coefficient × H^1.5, H the upstream level above the crest (`driving`),
/// times (1 − (H_d / H)^1.5)^0.385 where the downstream level stands above the crest by
/// H_d (`tailwater`).
pub fn weir_discharge(w: &Structure, h: Heads) -> f64 {
    let Shape::Weir { coefficient } = w.shape else {
        return 0.0;
    };
    if h.driving <= 0.0 || h.difference <= 0.0 {
        return 0.0;
    }
    let free = coefficient * w.length * h.driving.powf(1.5);
    if h.tailwater <= 0.0 {
        return free;
    }
    let ratio = (h.tailwater / h.driving).min(1.0);
    free * (1.0 - ratio.powf(1.5)).powf(0.385)
}

/// The barrel's height (box) or diameter.
pub fn barrel_rise(shape: Shape) -> f64 {
    match shape {
        Shape::Box { height, .. } => height,
        Shape::Circular { diameter } => diameter,
        Shape::Weir { .. } => 0.0,
    }
}

/// Flow area and wetted perimeter at flow depth `d` in the barrel (d ≤ its rise); a full
/// barrel's perimeter is its whole wall.
pub fn section(shape: Shape, d: f64) -> (f64, f64) {
    match shape {
        Shape::Box { width, height } => {
            let d = d.clamp(0.0, height);
            let top = if d >= height { width } else { 0.0 };
            (width * d, width + 2.0 * d + top)
        }
        Shape::Circular { diameter } => {
            let r = 0.5 * diameter;
            // Half the angle the water surface subtends at the centre.
            let half = (1.0 - (d / r).clamp(0.0, 2.0)).acos();
            (r * r * (half - half.sin() * half.cos()), diameter * half)
        }
        Shape::Weir { .. } => (0.0, 0.0),
    }
}

/// Critical depth of discharge `q` in the barrel: Q² T = g A³ (T the surface width),
/// closed form for a box, by bisection for a circle.
pub fn critical_depth(shape: Shape, q: f64, g: f64) -> f64 {
    match shape {
        Shape::Box { width, .. } => (q * q / (g * width * width)).cbrt(),
        Shape::Circular { diameter } => {
            let (mut lo, mut hi) = (0.0, diameter);
            for _ in 0..60 {
                let d = 0.5 * (lo + hi);
                let (area, _) = section(shape, d);
                let top = 2.0 * (d * (diameter - d)).max(0.0).sqrt();
                if q * q * top > g * area * area * area {
                    lo = d;
                } else {
                    hi = d;
                }
            }
            0.5 * (lo + hi)
        }
        Shape::Weir { .. } => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn culvert(shape: Shape) -> Structure {
        let end = End {
            cells: vec![0],
            invert: 0.0,
        };
        Structure {
            smoothing: 0.0,
            name: "c".into(),
            owner: 0,
            shape,
            length: 20.0,
            manning: 0.013,
            loss: 1.5,
            ends: [end.clone(), end],
        }
    }

    #[test]
    fn critical_flow_has_a_froude_number_of_one() {
        let g = 9.81;
        for shape in [
            Shape::Box {
                width: 2.0,
                height: 1.5,
            },
            Shape::Circular { diameter: 1.2 },
        ] {
            for q in [0.1, 0.5, 1.0] {
                let d = critical_depth(shape, q, g);
                let (area, _) = section(shape, d);
                let top = match shape {
                    Shape::Box { width, .. } => width,
                    Shape::Circular { diameter } => 2.0 * (d * (diameter - d)).sqrt(),
                    Shape::Weir { .. } => unreachable!(),
                };
                let froude2 = q * q * top / (g * area.powi(3));
                assert!(
                    (froude2 - 1.0).abs() < 1e-9,
                    "{shape:?} q {q}: Fr² {froude2}"
                );
            }
        }
    }

    #[test]
    fn a_circle_full_and_half_full() {
        let s = Shape::Circular { diameter: 2.0 };
        let (a, p) = section(s, 2.0);
        assert!(
            (a - std::f64::consts::PI).abs() < 1e-12
                && (p - 2.0 * std::f64::consts::PI).abs() < 1e-12
        );
        let (a, p) = section(s, 1.0);
        assert!(
            (a - 0.5 * std::f64::consts::PI).abs() < 1e-12
                && (p - std::f64::consts::PI).abs() < 1e-12
        );
    }

    #[test]
    fn inlet_control_governs_a_free_outfall_and_the_tailwater_throttles() {
        let c = culvert(Shape::Box {
            width: 1.0,
            height: 1.0,
        });
        let free = Heads {
            driving: 0.5,
            difference: 2.0,
            tailwater: 0.0,
        };
        let q = boyd_discharge(&c, free, 9.81);
        assert!(
            (q - 0.544 * 9.81f64.sqrt() * 0.5f64.powf(1.5)).abs() < 1e-12,
            "{q}"
        );
        let drowned = Heads {
            driving: 0.5,
            difference: 0.01,
            tailwater: 1.2,
        };
        let q2 = boyd_discharge(&c, drowned, 9.81);
        let resistance =
            1.5 / (2.0 * 9.81) + 0.013f64.powi(2) * 20.0 / (1.0 / 4.0f64).powf(4.0 / 3.0);
        assert!((q2 - (0.01 / resistance).sqrt()).abs() < 1e-12, "{q2}");
        assert_eq!(
            boyd_discharge(
                &c,
                Heads {
                    driving: 0.0,
                    ..free
                },
                9.81
            ),
            0.0
        );
    }
}

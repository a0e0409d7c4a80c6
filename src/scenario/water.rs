//! The water at the start: levels, depths and velocities, uniform, by region or from
//! rasters, set exactly on the bed.

use super::frame::*;
use crate::error::InputError;
use crate::grid::BlockGrid;
use crate::io::georaster::{self};
use crate::scenario::fields::{Field, Shape};
use crate::scenario::model::WALL_BED;
use crate::scenario::polygon::Polygon;
use crate::scenario::spec::*;
use std::path::Path;

/// Depth such that depth + bed == level exactly in f32, so a lake at rest is at rest to the
/// last bit: the scheme then sees a flat surface with no round-off slope. Returns None when
/// no f32 depth does it (rounding ties can make every sum miss the level).
pub fn exact_depth(level: f32, bed: f32) -> Option<f32> {
    if level <= bed {
        return Some(0.0);
    }
    let h = level - bed;
    [
        h,
        h.next_up(),
        h.next_down(),
        h.next_up().next_up(),
        h.next_down().next_down(),
    ]
    .into_iter()
    .find(|&c| c >= 0.0 && c + bed == level)
}

/// Depth and bed for a water level: the bed moves by an ulp (tens of nanometres) when
/// that is what it takes for depth + bed to equal the level exactly.
pub fn depth_for_level(level: f32, bed: f32) -> (f32, f32) {
    [bed, bed.next_up(), bed.next_down()]
        .into_iter()
        .find_map(|z| exact_depth(level, z).map(|h| (h, z)))
        .unwrap_or((level - bed, bed))
}

type Water = (Vec<f32>, Vec<f32>, Vec<f32>);

/// What the initial conditions set in one cell.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Water1 {
    Level(f64),
    Depth(f64),
}

pub(crate) fn initial(
    spec: &InitialSpec,
    points: &[Option<(f64, f64)>],
    frame: &Frame,
    grid: &BlockGrid,
    datum: f64,
    bed: &mut [f32],
    dir: &Path,
) -> Result<Water, InputError> {
    let n = points.len();
    let mut depth = vec![0.0f32; n];
    let mut hu = vec![0.0f32; n];
    let mut hv = vec![0.0f32; n];
    if spec.is_dry() {
        // A catchment that starts dry (rain, inflows): no per-cell water to work out, which
        // took a fifth of loading an 8 M-cell scenario.
        return Ok((depth, hu, hv));
    }
    let water = water_spec(spec, points, frame, grid, dir)?;
    for (c, w) in water.iter().enumerate() {
        let Some((amount, u, v)) = w else { continue };
        if bed[c] >= WALL_BED * 0.5 {
            continue; // outside the domain (nodata)
        }
        depth[c] = match *amount {
            Water1::Level(level) => {
                let (h, z) = depth_for_level((level - datum) as f32, bed[c]);
                bed[c] = z;
                h
            }
            Water1::Depth(d) if d < 0.0 => {
                let (x, y) = points[c].unwrap_or_default();
                return Err(bad(
                    "initial.depth",
                    format!("negative depth {d} m at x = {x}, y = {y}"),
                ));
            }
            Water1::Depth(d) => d as f32,
        };
        refuse_impossible_water(depth[c] as f64, *u, *v, points[c])?;
        hu[c] = (depth[c] as f64 * u) as f32;
        hv[c] = (depth[c] as f64 * v) as f32;
    }
    Ok((depth, hu, hv))
}

/// Refuses water no flood holds: deeper than any terrain's relief (1e5 m), or moving so
/// fast that the solver would stop at its first step (waves past `MAX_WAVE_SPEED`).
/// `check` accepted 1e20 m of water, and the run then stopped (exit 4).
fn refuse_impossible_water(
    depth: f64,
    u: f64,
    v: f64,
    at: Option<(f64, f64)>,
) -> Result<(), InputError> {
    let (x, y) = at.unwrap_or_default();
    if depth > 1e5 {
        return Err(bad(
            "initial",
            format!("a depth of {depth} m at x = {x}, y = {y}: expected at most 1e5 m"),
        ));
    }
    let limit = super::forcing_limits::MAX_WAVE_SPEED;
    if !(u.abs() <= limit && v.abs() <= limit) {
        return Err(bad(
            "initial",
            format!(
                "a velocity of ({u}, {v}) m/s at x = {x}, y = {y}: expected at most {limit} m/s"
            ),
        ));
    }
    Ok(())
}

/// Water (a level or a depth) and velocity (u, v) the initial conditions give a cell.
pub(crate) type CellWater = (Water1, f64, f64);

/// What the initial conditions put at each point.
pub(crate) fn water_spec(
    spec: &InitialSpec,
    points: &[Option<(f64, f64)>],
    frame: &Frame,
    grid: &BlockGrid,
    dir: &Path,
) -> Result<Vec<Option<CellWater>>, InputError> {
    let n = points.len();
    let mut water: Vec<Option<Water1>> = vec![None; n];
    let mut u = vec![0.0f64; n];
    let mut v = vec![0.0f64; n];
    let everywhere = |_: f64, _: f64| true;
    apply_water(
        &mut water,
        &mut u,
        &mut v,
        points,
        &everywhere,
        spec.water_level.as_ref(),
        spec.depth.as_ref(),
        spec.u.as_ref(),
        spec.v.as_ref(),
        "initial",
    )?;
    for (k, region) in spec.regions.iter().enumerate() {
        let key = format!("initial.region[{k}]");
        let shape = region_shape(&region.shape_keys(), &key)?;
        if region.water_level.is_none() && region.depth.is_none() {
            return Err(bad(&key, "expected water_level or depth"));
        }
        let inside = |x: f64, y: f64| shape.contains(x, y);
        apply_water(
            &mut water,
            &mut u,
            &mut v,
            points,
            &inside,
            region.water_level.as_ref(),
            region.depth.as_ref(),
            region.u.as_ref(),
            region.v.as_ref(),
            &key,
        )?;
    }
    if let Some(r) = &spec.raster {
        let path = dir.join(&r.path);
        let raster = georaster::read(&path).map_err(|e| e.or_key("initial.raster.path"))?;
        let sampled = frame
            .sample(&raster, &path)
            .map_err(|e| e.or_key("initial.raster.path"))?;
        let as_level = match r.kind.as_str() {
            "level" => true,
            "depth" => false,
            other => {
                return Err(bad(
                    "initial.raster.kind",
                    format!("expected \"depth\" or \"level\", found {other:?}"),
                ))
            }
        };
        // Nodata is NaN, so a coarse cell touching any nodata keeps its other water.
        let fine: Vec<f32> = sampled.iter().map(|&v| v as f32).collect();
        let values = if n == fine.len() {
            fine
        } else {
            grid.to_storage(&fine, f32::NAN)
        };
        for (c, w) in water.iter_mut().enumerate() {
            let value = values[c] as f64;
            if !value.is_nan() && points[c].is_some() {
                *w = Some(if as_level {
                    Water1::Level(value)
                } else {
                    Water1::Depth(value)
                });
            }
        }
    }
    Ok((0..n).map(|c| water[c].map(|w| (w, u[c], v[c]))).collect())
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_water(
    water: &mut [Option<Water1>],
    u: &mut [f64],
    v: &mut [f64],
    points: &[Option<(f64, f64)>],
    inside: &dyn Fn(f64, f64) -> bool,
    level: Option<&Value>,
    depth: Option<&Value>,
    uv_u: Option<&Value>,
    uv_v: Option<&Value>,
    key: &str,
) -> Result<(), InputError> {
    if level.is_some() && depth.is_some() {
        return Err(bad(key, "give water_level or depth, not both"));
    }
    let level = level
        .map(|l| Field::parse(l, &format!("{key}.water_level")))
        .transpose()?;
    let depth = depth
        .map(|d| Field::parse(d, &format!("{key}.depth")))
        .transpose()?;
    let fu = uv_u
        .map(|f| Field::parse(f, &format!("{key}.u")))
        .transpose()?;
    let fv = uv_v
        .map(|f| Field::parse(f, &format!("{key}.v")))
        .transpose()?;
    for (c, point) in points.iter().enumerate() {
        let Some((x, y)) = *point else { continue };
        if !inside(x, y) {
            continue;
        }
        if let Some(l) = &level {
            water[c] = Some(Water1::Level(finite(l.at(x, y), key, "water_level", x, y)?));
        }
        if let Some(d) = &depth {
            water[c] = Some(Water1::Depth(finite(d.at(x, y), key, "depth", x, y)?));
        }
        if let Some(f) = &fu {
            u[c] = finite(f.at(x, y), key, "u", x, y)?;
        }
        if let Some(f) = &fv {
            v[c] = finite(f.at(x, y), key, "v", x, y)?;
        }
    }
    Ok(())
}

/// `value` of `table.field` at (x, y) when finite; the key is spelled out only for the error.
pub(crate) fn finite(
    value: f64,
    table: &str,
    field: &str,
    x: f64,
    y: f64,
) -> Result<f64, InputError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(bad(
            &format!("{table}.{field}"),
            format!("not a finite number at x = {x}, y = {y}"),
        ))
    }
}

pub(crate) fn region_shape(r: &ShapeKeys, key: &str) -> Result<Shape, InputError> {
    let need = |what: &str| bad(key, format!("a {} region needs `{what}`", r.shape));
    let given = [
        ("center", r.center.is_some()),
        ("radius", r.radius.is_some()),
        ("min", r.min.is_some()),
        ("max", r.max.is_some()),
        ("points", r.points.is_some()),
    ];
    let uses: &[&str] = match r.shape {
        "circle" => &["center", "radius"],
        "rectangle" => &["min", "max"],
        "polygon" => &["points"],
        _ => &["center", "radius", "min", "max", "points"],
    };
    if let Some((extra, _)) = given.iter().find(|(k, set)| *set && !uses.contains(k)) {
        return Err(bad(
            &format!("{key}.{extra}"),
            format!("a {} region does not use `{extra}`", r.shape),
        ));
    }
    match r.shape {
        "circle" => {
            let radius = r.radius.ok_or_else(|| need("radius"))?;
            if !(radius > 0.0 && radius.is_finite()) {
                return Err(bad(
                    &format!("{key}.radius"),
                    format!("expected a positive radius, found {radius}"),
                ));
            }
            Ok(Shape::Circle {
                centre: r.center.ok_or_else(|| need("center"))?,
                radius,
            })
        }
        "rectangle" => Ok(Shape::Rectangle {
            min: r.min.ok_or_else(|| need("min"))?,
            max: r.max.ok_or_else(|| need("max"))?,
        }),
        "polygon" => {
            let points = r.points.cloned().ok_or_else(|| need("points"))?;
            if points.len() < 3 {
                return Err(bad(&format!("{key}.points"), "expected at least 3 points"));
            }
            Ok(Shape::Polygon(Polygon::new(points)))
        }
        other => Err(bad(
            &format!("{key}.shape"),
            format!("expected \"circle\", \"rectangle\" or \"polygon\", found {other:?}"),
        )),
    }
}

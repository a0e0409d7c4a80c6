//! `[losses]`: water that soaks into the ground. Two models, as flood studies use them:
//! initial and continuing losses (TUFLOW, BG_Flood) and Green-Ampt infiltration (HEC-RAS),
//! each parameter uniform, per land-use class or from a raster. The GPU applies them
//! (`shaders/losses.wgsl`); this module turns the scenario into parameters per cell.

use super::frame::Frame;
use crate::error::InputError;
use crate::grid::{BlockGrid, NONE};
use crate::io::georaster;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `[losses]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossesSpec {
    /// "initial_continuing" or "green_ampt".
    pub model: String,
    /// Initial loss (mm), continuing loss (mm/h).
    pub initial: Option<toml::Value>,
    pub continuing: Option<toml::Value>,
    /// Green-Ampt: wetting-front suction head (mm), saturated conductivity (mm/h),
    /// moisture deficit (–).
    pub suction: Option<toml::Value>,
    pub conductivity: Option<toml::Value>,
    pub deficit: Option<toml::Value>,
    /// A raster of integer land-use classes, with `classes` giving the parameters per class.
    pub landuse: Option<PathBuf>,
    pub classes: Option<BTreeMap<String, BTreeMap<String, f64>>>,
}

/// The loss model of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossModel {
    InitialContinuing,
    GreenAmpt,
}

/// The losses a run applies: per stored cell a class, and per class two parameters in SI
/// units — initial loss (m) and continuing loss (m/s), or Green-Ampt's conductivity K
/// (m/s) and suction head times moisture deficit (m).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Losses {
    pub model: Option<LossModel>,
    pub classes: Vec<[f32; 2]>,
    /// Per stored cell; empty when the run has no losses.
    pub cells: Vec<u32>,
}

impl Losses {
    pub fn any(&self) -> bool {
        !self.cells.is_empty()
    }

    /// The two parameters of stored cell `k`, (0, 0) where none apply.
    pub fn parameters(&self, k: usize) -> [f32; 2] {
        match self.cells.get(k) {
            Some(&c) if c != NONE => self.classes[c as usize],
            _ => [0.0, 0.0],
        }
    }

    /// The losses of the blocks `global` (a rank's, in local order).
    pub fn localize(&self, global: &[u32]) -> Losses {
        Losses {
            model: self.model,
            classes: self.classes.clone(),
            cells: if self.any() {
                super::model::pick_blocks(&self.cells, global)
            } else {
                Vec::new()
            },
        }
    }
}

/// One parameter: its key, the unit the scenario gives it in and the factor to SI.
struct Parameter {
    key: &'static str,
    unit: &'static str,
    to_si: f64,
}

const MM: f64 = 1e-3;
const MM_PER_HOUR: f64 = 1e-3 / 3600.0;

fn parameters(model: LossModel) -> [Parameter; 3] {
    let p = |key, unit, to_si| Parameter { key, unit, to_si };
    match model {
        LossModel::InitialContinuing => [
            p("initial", "mm", MM),
            p("continuing", "mm/h", MM_PER_HOUR),
            p("", "", 1.0),
        ],
        LossModel::GreenAmpt => [
            p("conductivity", "mm/h", MM_PER_HOUR),
            p("suction", "mm", MM),
            p("deficit", "-", 1.0),
        ],
    }
}

fn bad(key: &str, message: impl Into<String>) -> InputError {
    InputError::new(message).at_key(format!("losses.{key}"))
}

/// The losses of `spec` on the stored cells of `grid`.
pub(crate) fn build(
    spec: &LossesSpec,
    frame: &Frame,
    grid: &BlockGrid,
    dir: &Path,
) -> Result<Losses, InputError> {
    let model = match spec.model.as_str() {
        "initial_continuing" => LossModel::InitialContinuing,
        "green_ampt" => LossModel::GreenAmpt,
        other => {
            return Err(bad(
                "model",
                format!("expected \"initial_continuing\" or \"green_ampt\", found {other:?}"),
            ))
        }
    };
    let wanted = parameters(model);
    refuse_other_model_keys(spec, &wanted)?;
    let fine = match (&spec.landuse, &spec.classes) {
        (Some(path), Some(classes)) => by_class(path, classes, &wanted, frame, dir)?,
        (None, None) => {
            let mut fields = Vec::new();
            for p in wanted.iter().filter(|p| !p.key.is_empty()) {
                fields.push(field(spec, p, frame, dir)?);
            }
            fields
        }
        _ => {
            return Err(bad(
                "classes",
                "landuse and classes go together: a land-use raster and its table of parameters per class",
            ))
        }
    };
    let [first, second] = si_pair(model, &fine);
    let stored = [grid.to_storage(&first, 0.0), grid.to_storage(&second, 0.0)];
    Ok(classify(model, &stored))
}

/// The GPU's two parameters from the scenario's, in SI units.
fn si_pair(model: LossModel, fine: &[Vec<f64>]) -> [Vec<f32>; 2] {
    let cast = |v: &Vec<f64>| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    match model {
        LossModel::InitialContinuing => [cast(&fine[0]), cast(&fine[1])],
        LossModel::GreenAmpt => {
            let psi_dtheta: Vec<f32> = fine[1]
                .iter()
                .zip(&fine[2])
                .map(|(&s, &d)| (s * d) as f32)
                .collect();
            [cast(&fine[0]), psi_dtheta]
        }
    }
}

/// The distinct parameter pairs as classes, and each cell's class.
fn classify(model: LossModel, stored: &[Vec<f32>; 2]) -> Losses {
    let mut index: std::collections::HashMap<(u32, u32), u32> = Default::default();
    let mut classes = Vec::new();
    let cells = stored[0]
        .iter()
        .zip(&stored[1])
        .map(|(&a, &b)| {
            *index.entry((a.to_bits(), b.to_bits())).or_insert_with(|| {
                classes.push([a, b]);
                classes.len() as u32 - 1
            })
        })
        .collect();
    Losses {
        model: Some(model),
        classes,
        cells,
    }
}

fn refuse_other_model_keys(spec: &LossesSpec, wanted: &[Parameter; 3]) -> Result<(), InputError> {
    let given = [
        ("initial", spec.initial.is_some()),
        ("continuing", spec.continuing.is_some()),
        ("suction", spec.suction.is_some()),
        ("conductivity", spec.conductivity.is_some()),
        ("deficit", spec.deficit.is_some()),
    ];
    for (key, present) in given {
        if present && !wanted.iter().any(|p| p.key == key) {
            return Err(bad(
                key,
                format!("is not a parameter of model {:?}", spec.model),
            ));
        }
        if present && spec.landuse.is_some() {
            return Err(bad(
                key,
                "with landuse, give every parameter in losses.classes",
            ));
        }
    }
    Ok(())
}

fn value_of<'a>(spec: &'a LossesSpec, key: &str) -> Option<&'a toml::Value> {
    match key {
        "initial" => spec.initial.as_ref(),
        "continuing" => spec.continuing.as_ref(),
        "suction" => spec.suction.as_ref(),
        "conductivity" => spec.conductivity.as_ref(),
        _ => spec.deficit.as_ref(),
    }
}

/// One parameter on every finest cell, in SI units: a number, or `{ raster = "path" }`.
fn field(
    spec: &LossesSpec,
    p: &Parameter,
    frame: &Frame,
    dir: &Path,
) -> Result<Vec<f64>, InputError> {
    let expected = format!("expected a number ({}) or {{ raster = \"path\" }}", p.unit);
    let Some(value) = value_of(spec, p.key) else {
        return Err(bad(p.key, format!("missing: {expected}")));
    };
    let n = frame.nx * frame.ny;
    if let Some(v) = value.as_float().or(value.as_integer().map(|i| i as f64)) {
        check_value(v, p).map_err(|m| bad(p.key, m))?;
        return Ok(vec![v * p.to_si; n]);
    }
    let path = value
        .as_table()
        .filter(|t| t.len() == 1)
        .and_then(|t| t.get("raster"))
        .and_then(|r| r.as_str())
        .ok_or_else(|| bad(p.key, format!("{expected}, found {value}")))?;
    let path = dir.join(path);
    let raster_key = format!("losses.{}.raster", p.key);
    let raster = georaster::read(&path).map_err(|e| e.or_key(&raster_key))?;
    let values = frame
        .sample(&raster, &path)
        .map_err(|e| e.or_key(&raster_key))?;
    values
        .iter()
        .enumerate()
        .map(|(c, &v)| {
            check_value(v, p).map_err(|m| {
                InputError::new(format!(
                    "{m} at column {}, row {} from the top",
                    c % frame.nx + 1,
                    frame.ny - c / frame.nx
                ))
                .in_file(&path)
                .at_key(format!("losses.{}", p.key))
            })?;
            Ok(v * p.to_si)
        })
        .collect()
}

fn check_value(v: f64, p: &Parameter) -> Result<(), String> {
    let within = v.is_finite() && v >= 0.0 && (p.key != "deficit" || v <= 1.0);
    if within && !representable(v * p.to_si) {
        // The GPU holds parameters as f32: a conductivity of 1e-40 mm/h became 0, and one
        // of 1e300 infinity.
        return Err(format!(
            "expected {} to be 0 or between {:.3e} and {:.3e} {}, found {v:e}",
            p.key,
            f32::MIN_POSITIVE as f64 / p.to_si,
            f32::MAX as f64 / p.to_si,
            p.unit
        ));
    }
    if within {
        return Ok(());
    }
    let range = if p.key == "deficit" {
        "between 0 and 1"
    } else {
        ">= 0"
    };
    Err(format!(
        "expected {} {range} ({}), found {v}",
        p.key, p.unit
    ))
}

/// Whether an SI value survives the GPU's f32: zero, or a normal f32.
fn representable(si: f64) -> bool {
    si == 0.0 || (f32::MIN_POSITIVE as f64..=f32::MAX as f64).contains(&si)
}

/// Every parameter on every finest cell from a land-use raster and its class table.
fn by_class(
    path: &Path,
    classes: &BTreeMap<String, BTreeMap<String, f64>>,
    wanted: &[Parameter; 3],
    frame: &Frame,
    dir: &Path,
) -> Result<Vec<Vec<f64>>, InputError> {
    let wanted: Vec<&Parameter> = wanted.iter().filter(|p| !p.key.is_empty()).collect();
    let mut table: std::collections::HashMap<i64, Vec<f64>> = Default::default();
    let mut named: std::collections::HashMap<i64, &str> = Default::default();
    for (class, values) in classes {
        let key = format!("classes.{class}");
        let id: i64 = class
            .trim()
            .parse()
            .map_err(|_| bad(&key, "expected an integer land-use class as the key"))?;
        if let Some(first) = named.insert(id, class) {
            return Err(bad(
                &key,
                format!("class {id} is given as classes.{first} too: expected each class once"),
            ));
        }
        for name in values.keys() {
            if !wanted.iter().any(|p| p.key == name) {
                return Err(bad(
                    &format!("{key}.{name}"),
                    "is not a parameter of this model",
                ));
            }
        }
        let mut row = Vec::new();
        for p in &wanted {
            let v = *values
                .get(p.key)
                .ok_or_else(|| bad(&key, format!("missing {} ({})", p.key, p.unit)))?;
            check_value(v, p).map_err(|m| bad(&format!("{key}.{}", p.key), m))?;
            row.push(v * p.to_si);
        }
        table.insert(id, row);
    }
    let path = dir.join(path);
    let raster = georaster::read(&path).map_err(|e| e.or_key("losses.landuse"))?;
    let values = frame
        .sample(&raster, &path)
        .map_err(|e| e.or_key("losses.landuse"))?;
    let mut fields = vec![Vec::with_capacity(values.len()); wanted.len()];
    for (c, &value) in values.iter().enumerate() {
        let row = table
            .get(&(value as i64))
            .filter(|_| value.fract() == 0.0)
            .ok_or_else(|| {
                InputError::new(format!(
                    "land-use class {value} at column {}, row {} from the top is not in losses.classes",
                    c % frame.nx + 1,
                    frame.ny - c / frame.nx
                ))
                .in_file(&path)
            })?;
        for (f, &v) in fields.iter_mut().zip(row) {
            f.push(v);
        }
    }
    Ok(fields)
}

/// Cumulative Green-Ampt infiltration F (m) after `t` s of ponding from F = 0, from its
/// implicit solution K t = F - S ln(1 + F / S) (S: suction head times moisture deficit),
/// by Newton's method. For tests and reports.
pub fn green_ampt_depth(k: f64, s: f64, t: f64) -> f64 {
    if s == 0.0 {
        return k * t;
    }
    // Above the root (ln(1 + u) <= u - u² / (2 (1 + u)) makes g >= 0 there), Newton's
    // method on the convex, rising g falls to the root monotonically.
    let kt = k * t;
    let mut f = kt + (kt * kt + 2.0 * kt * s).sqrt();
    for _ in 0..100 {
        let g = f - s * (1.0 + f / s).ln() - k * t;
        let dg = f / (s + f);
        let next = f - g / dg;
        if (next - f).abs() <= 1e-15 * f.max(1e-300) {
            return next;
        }
        f = next;
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn green_ampt_solves_its_implicit_equation() {
        let (k, s) = (1e-5, 0.05);
        for t in [1.0, 60.0, 3600.0, 86400.0] {
            let f = green_ampt_depth(k, s, t);
            let residual = f - s * (1.0 + f / s).ln() - k * t;
            assert!(residual.abs() < 1e-12, "t {t}: residual {residual}");
            // The rate falls towards K: F grows slower than sqrt early, like K t late.
            assert!(f > k * t);
        }
        assert_eq!(green_ampt_depth(1e-5, 0.0, 100.0), 1e-3);
    }

    #[test]
    fn equal_parameters_share_a_class() {
        let stored = [vec![0.01, 0.01, 0.0, 0.01], vec![1e-6, 1e-6, 0.0, 2e-6]];
        let l = classify(LossModel::InitialContinuing, &stored);
        assert_eq!(l.cells, vec![0, 0, 1, 2]);
        assert_eq!(l.classes.len(), 3);
        assert_eq!(l.parameters(3), [0.01, 2e-6]);
    }
}

//! A checkpoint header's values, each checked against its range before the run uses it: a
//! clock that is not a number, a CFL step of zero (which would hang the run) or counts of
//! another grid are refused, naming the key.

use crate::io::series::SeriesMark;
use crate::scenario::maxima::{Peak, PeakClock};
use crate::scenario::model::Model;
use serde_json::Value;

/// The arrays after the header.
pub struct Layout {
    pub cells: u64,
    pub blocks: u64,
    pub maxima: bool,
    /// The depth each cell and the volume each block lost to the ground follow.
    pub losses: bool,
}

impl Layout {
    pub fn maxima_bytes(&self) -> u64 {
        match self.maxima {
            true => self.cells * std::mem::size_of::<Peak>() as u64,
            false => 0,
        }
    }

    /// Bytes of the lost depths (per cell) and lost volumes (per block).
    pub fn loss_bytes(&self) -> (u64, u64) {
        match self.losses {
            true => (4 * self.cells, 8 * self.blocks),
            false => (0, 0),
        }
    }

    pub fn array_bytes(&self) -> u64 {
        let (cells, blocks) = self.loss_bytes();
        16 * self.cells + 16 * self.blocks + self.maxima_bytes() + cells + blocks
    }
}

fn bad(key: &str, expected: &str, found: &Value) -> String {
    format!("header value `{key}`: expected {expected}, found {found}")
}

fn whole(h: &Value, key: &str) -> Result<u64, String> {
    h[key]
        .as_u64()
        .ok_or_else(|| bad(key, "a whole number", &h[key]))
}

/// The arrays' sizes, which must be the scenario's grid's.
pub fn layout(h: &Value, model: &Model) -> Result<Layout, String> {
    let layout = Layout {
        cells: whole(h, "stored_cells")?,
        blocks: whole(h, "blocks")?,
        maxima: h["maxima"]
            .as_bool()
            .ok_or_else(|| bad("maxima", "true or false", &h["maxima"]))?,
        // Absent in checkpoints written before losses existed.
        losses: match &h["losses"] {
            Value::Null => false,
            v => v
                .as_bool()
                .ok_or_else(|| bad("losses", "true or false", v))?,
        },
    };
    let (cells, blocks) = (
        model.grid.stored_cells() as u64,
        model.grid.nblocks() as u64,
    );
    if (layout.cells, layout.blocks) != (cells, blocks) {
        return Err(format!(
            "it was written for another grid ({} cells in {} blocks; the scenario's has {cells} in {blocks}): restart with the scenario that wrote it",
            layout.cells, layout.blocks
        ));
    }
    Ok(layout)
}

/// The file's size against the size its header gives (a regular file's).
pub fn check_size(size: u64, expected: u64) -> Result<(), String> {
    match size.cmp(&expected) {
        std::cmp::Ordering::Less => Err(format!(
            "truncated: the file ends early ({size} of {expected} bytes)"
        )),
        std::cmp::Ordering::Greater => Err(format!(
            "damaged: {} bytes past where a checkpoint of this grid ends",
            size - expected
        )),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// The header's values a restart uses, range-checked.
pub struct Values {
    pub t: (f32, f32),
    pub steps: u64,
    pub dt_cfl: f32,
    pub cfl_limit: f32,
    pub cell_updates: u64,
    pub rain: (f32, f32),
    pub peak_clock: PeakClock,
    pub series: Vec<SeriesMark>,
    pub files: Vec<String>,
    pub label_decimals: usize,
}

/// A finite f32.
fn single(h: &Value, key: &str) -> Result<f32, String> {
    h[key]
        .as_f64()
        .map(|v| v as f32)
        .filter(|v| v.is_finite())
        .ok_or_else(|| bad(key, "a finite number", &h[key]))
}

/// A double-f32 pair (hi, lo): |lo| within hi's last bit.
fn pair(h: &Value, hi: &str, lo: &str) -> Result<(f32, f32), String> {
    let (a, b) = (single(h, hi)?, single(h, lo)?);
    if b.abs() > a.abs() * f32::EPSILON {
        return Err(bad(
            lo,
            &format!("the low part of a double-f32 pair with {hi} = {a}, under {a}·2⁻²³"),
            &h[lo],
        ));
    }
    Ok((a, b))
}

/// Steps a run may have taken: more would take centuries.
const MOST_STEPS: u64 = 1 << 53;
/// The fastest wave a run that has not stopped as unstable can hold (m/s).
const FASTEST_WAVE: f64 = 1e4;
/// Room for a restart with a smaller CFL number than the checkpoint's run had.
const CFL_MARGIN: f64 = 0.01;

pub fn values(h: &Value, model: &Model) -> Result<Values, String> {
    let t = pair(h, "t_hi", "t_lo")?;
    let clock = t.0 as f64 + t.1 as f64;
    if clock < model.t_start {
        return Err(bad(
            "t_hi",
            &format!("a time from the scenario's start ({} s) on", model.t_start),
            &h["t_hi"],
        ));
    }
    if clock >= model.t_end {
        return Err(format!(
            "header value `t_hi`: it is at t = {clock} s, at or past the scenario's end ({} s)",
            model.t_end
        ));
    }
    let steps = whole(h, "steps")?;
    if !(1..=MOST_STEPS).contains(&steps) {
        return Err(bad("steps", "from 1 to 2⁵³", &h["steps"]));
    }
    // A CFL step shorter than the fastest wave allows is no run's: one of zero or less,
    // or a tiny one on dry ground (where no scan shortens or lengthens it), never ends.
    let dt_cfl = single(h, "dt_cfl")?;
    let shortest = CFL_MARGIN * model.numerics.cfl * model.cell_size / FASTEST_WAVE;
    if (dt_cfl as f64) < shortest {
        return Err(bad(
            "dt_cfl",
            &format!(
                "a CFL step of at least {shortest:e} s (a wave of 10 km/s at a CFL number of {}, on {} m cells)",
                CFL_MARGIN * model.numerics.cfl,
                model.cell_size
            ),
            &h["dt_cfl"],
        ));
    }
    let cfl_limit = cfl_limit(h, dt_cfl)?;
    let rain = pair(h, "rain_hi", "rain_lo")?;
    if rain.0 < 0.0 {
        return Err(bad(
            "rain_hi",
            "a rain depth of zero or more",
            &h["rain_hi"],
        ));
    }
    let clock_of = &h["peak_clock"];
    let peak_clock = match (clock_of[0].as_f64(), clock_of[1].as_f64()) {
        (Some(origin), Some(quantum))
            if origin.is_finite() && quantum.is_finite() && quantum > 0.0 =>
        {
            PeakClock { origin, quantum }
        }
        _ => {
            return Err(bad(
                "peak_clock",
                "[origin, quantum] with a finite origin and a positive quantum",
                clock_of,
            ))
        }
    };
    let label_decimals = whole(h, "label_decimals")?;
    if label_decimals > 64 {
        return Err(bad("label_decimals", "at most 64", &h["label_decimals"]));
    }
    Ok(Values {
        t,
        steps,
        dt_cfl,
        cfl_limit,
        cell_updates: whole(h, "cell_updates")?,
        rain,
        peak_clock,
        series: series(h)?,
        files: files(h)?,
        label_decimals: label_decimals as usize,
    })
}

/// The CFL limit of the state (min dx / speed, s), null where no block set one. A
/// checkpoint from before the key was written has none either: its restart takes its
/// first dt from its CFL step alone, as those runs did.
fn cfl_limit(h: &Value, dt_cfl: f32) -> Result<f32, String> {
    let key = "cfl_limit";
    if h[key].is_null() {
        return Ok(f32::INFINITY);
    }
    // The CFL step is at most the limit times the CFL number (at most 1): a limit shorter
    // than the step, or not positive, is no run's.
    let limit = single(h, key)?;
    if limit <= 0.0 || limit < dt_cfl * 0.5 {
        return Err(bad(
            key,
            &format!("null or a limit of at least half the CFL step dt_cfl = {dt_cfl} s"),
            &h[key],
        ));
    }
    Ok(limit)
}

fn series(h: &Value) -> Result<Vec<SeriesMark>, String> {
    let expected = "a list of {file, bytes, crc32}";
    h["series"]
        .as_array()
        .ok_or_else(|| bad("series", expected, &h["series"]))?
        .iter()
        .map(|m| SeriesMark::from_json(m).ok_or_else(|| bad("series", expected, m)))
        .collect()
}

fn files(h: &Value) -> Result<Vec<String>, String> {
    let expected = "a list of file names";
    h["files"]
        .as_array()
        .ok_or_else(|| bad("files", expected, &h["files"]))?
        .iter()
        .map(|f| {
            f.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad("files", expected, f))
        })
        .collect()
}

/// Depths of zero or more and finite momenta and bed: what a sound run holds.
pub fn check_state(state: &[[f32; 4]]) -> Result<(), String> {
    match state
        .iter()
        .position(|s| !(s[0] >= 0.0 && s.iter().all(|v| v.is_finite())))
    {
        Some(k) => Err(format!(
            "damaged: stored cell {k} holds (h, hu, hv, bed) = {:?}",
            state[k]
        )),
        None => Ok(()),
    }
}

/// Lost depths must be numbers >= 0: a damaged one would skew the mass balance.
pub fn check_losses(infiltrated: &[f32]) -> Result<(), String> {
    match infiltrated
        .iter()
        .position(|f| !(*f >= 0.0 && f.is_finite()))
    {
        Some(k) => Err(format!(
            "damaged: stored cell {k} lost {} m to the ground",
            infiltrated[k]
        )),
        None => Ok(()),
    }
}

/// Each culvert's and weir's last discharge (absent before structures existed: none).
pub fn structure_flows(h: &Value, model: &Model) -> Result<Vec<f32>, String> {
    let key = "structure_flows";
    let flows: Vec<f32> = match &h[key] {
        Value::Null => Vec::new(),
        v => v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|x| x.as_f64().filter(|q| q.is_finite()).map(|q| q as f32))
                    .collect::<Option<Vec<f32>>>()
            })
            .ok_or_else(|| bad(key, "a list of discharges (m³/s)", v))?,
    };
    if flows.len() != model.structures.len() {
        return Err(format!(
            "it holds the discharges of {} culvert and weir structures, the scenario has {}: restart with the scenario that wrote it",
            flows.len(),
            model.structures.len()
        ));
    }
    Ok(flows)
}

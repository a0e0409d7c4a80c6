//! Checkpoints: the whole run's state in one file, written atomically, from which
//! `quadflood run --restart FILE` continues bit for bit, on any number of ranks.
//!
//! Layout: the magic line, a JSON header line, then little-endian arrays in global storage
//! layout: state (h, hu, hv, bed) per stored cell, edge volumes per block, then, when the
//! run tracks them, the maxima per cell (12 bytes, `scenario::maxima`), whose time codes
//! follow the clock named in the header.

use crate::error::InputError;
use crate::scenario::maxima::{Peak, PeakClock};
use crate::scenario::model::{Model, Resume};
use crate::solver::Snapshot;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC_STEM: &str = "quadflood checkpoint";
/// The layout's version, on the first line after MAGIC_STEM.
const FORMAT: u32 = 2;

/// A fingerprint of the grid and domain, so a checkpoint is never applied to another grid.
fn fingerprint(model: &Model) -> String {
    // FNV-1a over the block table and the frame: cheap, stable across platforms.
    let mut h: u64 = 0xcbf29ce484222325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
    };
    eat(bytemuck::cast_slice(&model.grid.blocks));
    eat(&(model.nx() as u64).to_le_bytes());
    eat(&(model.ny() as u64).to_le_bytes());
    eat(&model.cell_size.to_le_bytes());
    eat(&model.datum.to_le_bytes());
    format!("{h:016x}")
}

/// The checkpoint's file name for time t.
pub fn file_name(t: f64) -> String {
    format!("checkpoint_{}.qfck", crate::io::outputs::time_label(t))
}

/// Writes a checkpoint atomically: to a temporary file, flushed to disk, then renamed, so
/// a crash mid-write leaves the previous checkpoint whole.
pub fn write(path: &Path, model: &Model, s: &Snapshot) -> std::io::Result<()> {
    let r = &s.resume;
    let header = json!({
        "scenario": model.name,
        "grid": fingerprint(model),
        "stored_cells": s.state.len(),
        "blocks": r.block_volume.len(),
        "t": r.t.0 as f64 + r.t.1 as f64,
        "t_hi": r.t.0,
        "t_lo": r.t.1,
        "steps": r.steps,
        "dt_cfl": r.dt_cfl,
        "cell_updates": r.cell_updates,
        "rain_hi": r.rain.0,
        "rain_lo": r.rain.1,
        "maxima": !r.maxima.is_empty(),
        "peak_clock": [model.peak_clock.origin, model.peak_clock.quantum],
    });
    let tmp = path.with_extension("qfck.tmp");
    let written = (|| {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        writeln!(f, "{MAGIC_STEM} {FORMAT}")?;
        writeln!(f, "{header}")?;
        f.write_all(bytemuck::cast_slice(&s.state))?;
        f.write_all(bytemuck::cast_slice(&r.block_volume))?;
        f.write_all(bytemuck::cast_slice(&r.maxima))?;
        f.into_inner().map_err(|e| e.into_error())?.sync_all()
    })();
    if let Err(e) = written {
        // A full disk must not also keep the part-written file that filled it.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)
}

/// Reads a checkpoint into the model: its state becomes the initial state, and the run
/// resumes at the checkpoint's clock.
pub fn restore(path: &Path, model: &mut Model) -> Result<(), InputError> {
    let fail = |m: String| InputError::new(m).in_file(path);
    let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    let mut f = BufReader::new(file);
    let mut line = String::new();
    f.read_line(&mut line)
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    if line.trim_end() != format!("{MAGIC_STEM} {FORMAT}") {
        return Err(fail(match line.strip_prefix(MAGIC_STEM) {
            Some(version) => format!(
                "written by another version of quadflood (checkpoint format {}; this one reads \
                 format {FORMAT})",
                version.trim()
            ),
            None => "not a quadflood checkpoint (bad first line)".into(),
        }));
    }
    line.clear();
    f.read_line(&mut line)
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    let h: serde_json::Value =
        serde_json::from_str(&line).map_err(|e| fail(format!("damaged header: {e}")))?;
    if h["grid"] != fingerprint(model) {
        return Err(fail(format!(
            "it was written for another grid or terrain (scenario {}): restart with the scenario that wrote it",
            h["scenario"]
        )));
    }
    let cells = model.grid.stored_cells();
    let nb = model.grid.nblocks();
    let tracked = h["maxima"].as_bool() == Some(true);
    let mut read = |n: usize| -> Result<Vec<u8>, InputError> {
        let mut v = vec![0u8; n];
        f.read_exact(&mut v)
            .map_err(|_| fail("truncated: the file ends early".into()))?;
        Ok(v)
    };
    let state: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&read(16 * cells)?);
    let block_volume: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&read(16 * nb)?);
    let maxima: Vec<Peak> = if tracked {
        bytemuck::pod_collect_to_vec(&read(std::mem::size_of::<Peak>() * cells)?)
    } else {
        Vec::new()
    };
    if model.numerics.track_maxima && !tracked {
        return Err(fail(
            "it holds no maxima but the scenario tracks them: set output.maxima = false".into(),
        ));
    }
    let f32_of = |k: &str| {
        h[k].as_f64()
            .map(|v| v as f32)
            .ok_or_else(|| fail(format!("header lacks {k}")))
    };
    let u64_of = |k: &str| {
        h[k].as_u64()
            .ok_or_else(|| fail(format!("header lacks {k}")))
    };
    let resume = Resume {
        t: (f32_of("t_hi")?, f32_of("t_lo")?),
        steps: u64_of("steps")?,
        dt_cfl: f32_of("dt_cfl")?,
        cell_updates: u64_of("cell_updates")?,
        rain: (f32_of("rain_hi")?, f32_of("rain_lo")?),
        block_volume,
        maxima: if model.numerics.track_maxima {
            on_clock(
                maxima,
                &peak_clock_of(&h).ok_or_else(|| fail("header lacks peak_clock".into()))?,
                &model.peak_clock,
            )
        } else {
            Vec::new()
        },
    };
    let t = resume.t.0 as f64 + resume.t.1 as f64;
    if t >= model.t_end {
        return Err(fail(format!(
            "it is at t = {t} s, at or past the scenario's end ({} s)",
            model.t_end
        )));
    }
    model.continue_from(&state, resume);
    Ok(())
}

/// The checkpoint times of a run: the first stop (output or gauge time) at or after each
/// multiple of `every` seconds from the start. Checkpoints add no stops of their own, so a
/// run gives the same bits with or without them.
pub fn times(model: &Model, stops: &[f64], every: f64) -> Vec<f64> {
    let mut due = Vec::new();
    let mut next = model.t_start + every;
    for &t in stops {
        if t >= next && t < model.t_end {
            due.push(t);
            while next <= t {
                next += every;
            }
        }
    }
    due
}

/// Keeps the last `keep` checkpoints in `dir`, removing older ones.
pub fn prune(dir: &Path, keep: usize) -> std::io::Result<()> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "qfck")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("checkpoint_"))
        })
        .collect();
    found.sort();
    let excess = found.len().saturating_sub(keep);
    for p in &found[..excess] {
        std::fs::remove_file(p)?;
    }
    Ok(())
}

fn peak_clock_of(header: &serde_json::Value) -> Option<PeakClock> {
    Some(PeakClock {
        origin: header["peak_clock"][0].as_f64()?,
        quantum: header["peak_clock"][1].as_f64()?,
    })
}

/// The maxima's time codes on the restarted scenario's clock: its end may have moved.
fn on_clock(maxima: Vec<Peak>, from: &PeakClock, to: &PeakClock) -> Vec<Peak> {
    if from == to {
        return maxima;
    }
    maxima.iter().map(|p| p.on_clock(from, to)).collect()
}

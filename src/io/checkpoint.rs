//! Checkpoints: the whole run's state in one file, written atomically, from which
//! `quadflood run --restart FILE` continues bit for bit, on any number of ranks.
//!
//! Layout (format 4): the magic line, a JSON header line, then little-endian arrays in
//! global storage layout: state (h, hu, hv, bed) per stored cell, edge volumes per block,
//! then, when the run tracks them, the maxima per cell (16 bytes, `scenario::maxima`),
//! whose time codes follow the clock named in the header; when the run has losses, the
//! depth each cell has lost (f32) and the volume each block has lost (double-f32); last,
//! the CRC-32 (4 bytes) of
//! every byte before it. The header holds the clock and counters, a fingerprint of the
//! grid, terrain, friction and forcing (`fingerprint`), what each series file held
//! (`io::series`) and the files the run had written.
//!
//! A restart trusts nothing it reads: every read is bounded, the checksum covers the whole
//! file, the fingerprint must be the scenario's, and every header value is range-checked
//! (`header`). Anything else is refused with exit code 2, naming the file and the cause.

mod fingerprint;
mod header;

pub use fingerprint::Fingerprint;

use crate::error::InputError;
use crate::io::elapsed::Resolution;
use crate::io::series::SeriesMark;
use crate::scenario::maxima::{Peak, PeakClock};
use crate::scenario::model::{Model, Resume};
use crate::solver::Snapshot;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC_STEM: &str = "quadflood checkpoint";
/// The layout's version, on the first line after MAGIC_STEM.
const FORMAT: u32 = 4;
/// Longest header line read (it lists every file the run wrote).
const MOST_HEADER_BYTES: u64 = 16 << 20;
/// Longest first line read.
const MOST_MAGIC_BYTES: u64 = 64;

/// What a checkpoint records beside the state: for the run that continues from it.
#[derive(Clone, Debug)]
pub struct Restart {
    pub file: PathBuf,
    /// What each series file held.
    pub series: Vec<SeriesMark>,
    /// The result files the run had written (file names in its output folder).
    pub files: Vec<String>,
    /// Decimals of the output times in map names (`io::names::TimeLabels`).
    pub label_decimals: usize,
    /// How the whole run's titles write times: from the scenario's start and all its output
    /// times, not the restart's.
    pub title_times: Resolution,
    /// Every output time of the whole run, before the checkpoint too (`event.nc` holds them
    /// all, from the maps in the output folder).
    pub output_times: Vec<f64>,
    /// The scenario's, which the checkpoint's matched.
    pub fingerprint: Fingerprint,
}

/// What a run adds to a checkpoint beside the state.
pub struct Record<'a> {
    pub fingerprint: &'a Fingerprint,
    pub series: &'a [SeriesMark],
    pub files: &'a [String],
    pub label_decimals: usize,
}

/// The checkpoint's file name for the time labelled `label`.
pub fn file_name(label: &str) -> String {
    format!("checkpoint_{label}.qfck")
}

/// A writer that keeps the CRC-32 of what passes through it.
struct Summed<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a checkpoint atomically: to a temporary file, synced to disk, then renamed (and
/// the folder synced), so a crash mid-write leaves the previous checkpoint whole.
pub fn write(path: &Path, model: &Model, s: &Snapshot, record: &Record) -> std::io::Result<()> {
    let r = &s.resume;
    let header = json!({
        "scenario": model.name,
        "fingerprint": record.fingerprint.json(),
        "stored_cells": s.state.len(),
        "blocks": r.block_volume.len(),
        "t": r.t.0 as f64 + r.t.1 as f64,
        "t_hi": r.t.0,
        "t_lo": r.t.1,
        "steps": r.steps,
        "dt_cfl": r.dt_cfl,
        // null where no block set a limit (JSON has no infinity).
        "cfl_limit": r.cfl_limit.is_finite().then_some(r.cfl_limit),
        "cell_updates": r.cell_updates,
        "rain_hi": r.rain.0,
        "rain_lo": r.rain.1,
        "maxima": !r.maxima.is_empty(),
        "losses": !r.infiltrated.is_empty(),
        // Each culvert's and weir's last discharge: its smoothing goes on from it.
        "structure_flows": r.structure_flows,
        "peak_clock": [model.peak_clock.origin, model.peak_clock.quantum],
        "label_decimals": record.label_decimals,
        "series": record.series.iter().map(SeriesMark::json).collect::<Vec<_>>(),
        "files": record.files,
    });
    crate::io::durable::replace(path, |tmp| -> std::io::Result<()> {
        let file = std::fs::File::create(tmp)?;
        let mut f = Summed {
            inner: std::io::BufWriter::new(file),
            crc: crc32fast::Hasher::new(),
        };
        writeln!(f, "{MAGIC_STEM} {FORMAT}")?;
        writeln!(f, "{header}")?;
        f.write_all(bytemuck::cast_slice(&s.state))?;
        f.write_all(bytemuck::cast_slice(&r.block_volume))?;
        f.write_all(bytemuck::cast_slice(&r.maxima))?;
        f.write_all(bytemuck::cast_slice(&r.infiltrated))?;
        f.write_all(bytemuck::cast_slice(&r.loss_volume))?;
        let crc = f.crc.finalize();
        let mut file = f.inner;
        file.write_all(&crc.to_le_bytes())?;
        file.into_inner().map_err(|e| e.into_error())?.sync_all()
    })?;
    match path.parent() {
        Some(dir) => crate::io::durable::sync_dir(dir),
        None => Ok(()),
    }
}

/// Reads one line of at most `most` bytes (without its end); None if no line ends there.
fn bounded_line(f: &mut impl BufRead, most: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    f.take(most).read_until(b'\n', &mut line)?;
    Ok(line.pop().filter(|&b| b == b'\n').map(|_| line))
}

/// Reads a checkpoint into the model: its state becomes the initial state, and the run
/// resumes at the checkpoint's clock. Returns what the run needs beside the state.
pub fn restore(path: &Path, model: &mut Model) -> Result<Restart, InputError> {
    let fail = |m: String| InputError::new(m).in_file(path);
    let cannot = |e: std::io::Error| fail(format!("cannot read: {e}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let mut f = BufReader::new(file);
    let mut crc = crc32fast::Hasher::new();
    let magic = bounded_line(&mut f, MOST_MAGIC_BYTES).map_err(cannot)?;
    check_magic(magic.as_deref()).map_err(fail)?;
    let text = bounded_line(&mut f, MOST_HEADER_BYTES)
        .map_err(cannot)?
        .ok_or_else(|| {
            fail(format!(
                "damaged: its header does not end within {} MiB",
                MOST_HEADER_BYTES >> 20
            ))
        })?;
    let h: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| fail(format!("damaged header: {e}")))?;
    let magic = format!("{MAGIC_STEM} {FORMAT}\n");
    crc.update(magic.as_bytes());
    crc.update(&text);
    crc.update(b"\n");
    let layout = header::layout(&h, model).map_err(fail)?;
    let header_bytes = (magic.len() + text.len() + 1) as u64;
    if let Some(size) = size {
        header::check_size(size, header_bytes + layout.array_bytes() + 4).map_err(fail)?;
    }
    let mut read = |n: u64| -> Result<Vec<u8>, InputError> {
        let mut v = Vec::new();
        (&mut f).take(n).read_to_end(&mut v).map_err(cannot)?;
        if (v.len() as u64) < n {
            return Err(fail("truncated: the file ends early".into()));
        }
        crc.update(&v);
        Ok(v)
    };
    let state: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&read(16 * layout.cells)?);
    let block_volume: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&read(16 * layout.blocks)?);
    let maxima: Vec<Peak> = bytemuck::pod_collect_to_vec(&read(layout.maxima_bytes())?);
    let (cell_bytes, block_bytes) = layout.loss_bytes();
    let infiltrated: Vec<f32> = bytemuck::pod_collect_to_vec(&read(cell_bytes)?);
    let loss_volume: Vec<[f32; 2]> = bytemuck::pod_collect_to_vec(&read(block_bytes)?);
    let mut stored = [0u8; 4];
    f.read_exact(&mut stored)
        .map_err(|_| fail("truncated: the file ends early".into()))?;
    if u32::from_le_bytes(stored) != crc.finalize() {
        return Err(fail(
            "damaged: its CRC-32 does not match its contents (a byte changed since it was written)"
                .into(),
        ));
    }
    let fingerprint = Fingerprint::of(model);
    if let Some(what) = fingerprint.differences(&h["fingerprint"]) {
        return Err(fail(format!(
            "{what}: restart with the scenario (and --set options) that wrote it"
        )));
    }
    let values = header::values(&h, model).map_err(fail)?;
    header::check_state(&state).map_err(fail)?;
    if model.numerics.track_maxima && !layout.maxima {
        return Err(fail(
            "it holds no maxima but the scenario tracks them: set output.maxima = false".into(),
        ));
    }
    if model.losses.any() != layout.losses {
        return Err(fail(format!(
            "it was written by a run {} losses, and the scenario has {}: restart with the scenario that wrote it",
            if layout.losses { "with" } else { "without" },
            if model.losses.any() { "[losses]" } else { "none" }
        )));
    }
    header::check_losses(&infiltrated).map_err(fail)?;
    let resume = Resume {
        t: values.t,
        steps: values.steps,
        dt_cfl: values.dt_cfl,
        cfl_limit: values.cfl_limit,
        cell_updates: values.cell_updates,
        rain: values.rain,
        steps_planned_again: 0,
        block_volume,
        maxima: if model.numerics.track_maxima {
            on_clock(maxima, &values.peak_clock, &model.peak_clock)
        } else {
            Vec::new()
        },
        infiltrated,
        loss_volume,
        structure_flows: header::structure_flows(&h, model).map_err(fail)?,
    };
    let title_times = Resolution::for_run(
        model.t_start,
        model.t_end,
        &model.output_times,
        model.time_reference.as_ref(),
    );
    let output_times = model.output_times.clone();
    model.continue_from(&state, resume);
    Ok(Restart {
        file: path.to_path_buf(),
        series: values.series,
        files: values.files,
        label_decimals: values.label_decimals,
        title_times,
        output_times,
        fingerprint,
    })
}

fn check_magic(line: Option<&[u8]>) -> Result<(), String> {
    let line = line.map(String::from_utf8_lossy).unwrap_or_default();
    if line == format!("{MAGIC_STEM} {FORMAT}") {
        return Ok(());
    }
    Err(match line.strip_prefix(MAGIC_STEM) {
        Some(version) => format!(
            "written by another version of quadflood (checkpoint format {}; this one reads \
             format {FORMAT})",
            version.trim()
        ),
        None => "not a quadflood checkpoint (bad first line)".into(),
    })
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

/// The time a checkpoint file holds, from its header alone (bounded reads).
fn time_of(path: &Path) -> Option<f64> {
    let mut f = BufReader::new(std::fs::File::open(path).ok()?);
    check_magic(bounded_line(&mut f, MOST_MAGIC_BYTES).ok()?.as_deref()).ok()?;
    let text = bounded_line(&mut f, MOST_HEADER_BYTES).ok()??;
    let h: serde_json::Value = serde_json::from_slice(&text).ok()?;
    h["t"].as_f64().filter(|t| t.is_finite())
}

/// Keeps the `keep` newest checkpoints in `dir` by the time each holds, removing older
/// ones; files whose time cannot be read are left alone. Returns the names removed.
pub fn prune(dir: &Path, keep: usize) -> std::io::Result<Vec<String>> {
    let mut dated: Vec<(f64, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("checkpoint_") && n.ends_with(".qfck"))
        })
        .filter_map(|p| time_of(&p).map(|t| (t, p)))
        .collect();
    dated.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut removed = Vec::new();
    for (_, p) in dated.iter().skip(keep) {
        std::fs::remove_file(p)?;
        removed.extend(p.file_name().map(|n| n.to_string_lossy().into_owned()));
    }
    Ok(removed)
}

/// The maxima's time codes on the restarted scenario's clock: its end may have moved.
fn on_clock(maxima: Vec<Peak>, from: &PeakClock, to: &PeakClock) -> Vec<Peak> {
    if from == to {
        return maxima;
    }
    maxima.iter().map(|p| p.on_clock(from, to)).collect()
}

//! The run's own record in its output folder: before it steps, the scenario as resolved
//! (`resolved_scenario.toml`), the log (`run.log`: the run's provenance, then every
//! message the run prints, so a run that dies keeps its log) and the maps of the model as
//! built (`check/`); after its last output, the whole event in one NetCDF (`event.nc`).

use super::RunOptions;
use crate::error::{Error, Result};
use crate::io::names::TimeLabels;
use crate::io::outputs;
use crate::scenario::model::Model;
use std::path::Path;

/// Writes the record of the run's inputs; returns why `event.nc`, on by default, will not
/// be written (said, and noted in `summary.json`), if it will not.
pub(super) fn inputs(dir: &Path, model: &Model, opts: &RunOptions) -> Result<Option<String>> {
    let io = |path: &Path, e: std::io::Error| Error::Io(format!("{}: {e}", path.display()));
    let scenario = dir.join(crate::io::names::RESOLVED_SCENARIO);
    crate::io::durable::write_bytes(&scenario, model.resolved_scenario.as_bytes())
        .map_err(|e| io(&scenario, e))?;
    let log = dir.join(crate::io::names::RUN_LOG);
    let mut header = opts.provenance.log_header();
    if let Some(r) = &opts.restart {
        header = format!("\n--- restarted from {} ---\n{header}", r.file.display());
    }
    crate::console::open_log(&log, &header).map_err(|e| io(&log, e))?;
    let left_out = match event_possible(dir, model, opts) {
        Err(e) if !model.netcdf_asked => {
            let why = e.to_string();
            crate::say!("note: event.nc will not be written ({why})");
            Some(why)
        }
        other => other.map(|()| None)?,
    };
    if model.write_check {
        let maps = outputs::Maps::new(model);
        crate::io::check_files::write(dir, model, &maps).map_err(|e| io(dir, e))?;
    }
    Ok(left_out)
}

/// Every output time of the whole run: a restart's too, from before its checkpoint.
#[cfg(feature = "gdal")]
fn all_output_times<'a>(model: &'a Model, opts: &'a RunOptions) -> &'a [f64] {
    opts.restart
        .as_ref()
        .map_or(&model.output_times, |r| &r.output_times)
}

/// Whether `event.nc` can be written at the end, checked before the run steps: room for it
/// on the disk, and on a restart the maps of the output times before the checkpoint.
#[cfg(feature = "gdal")]
fn event_possible(dir: &Path, model: &Model, opts: &RunOptions) -> Result<()> {
    if !model.write_netcdf {
        return Ok(());
    }
    let times = all_output_times(model, opts);
    crate::io::netcdf::room_for(dir, model, times).map_err(|e| Error::Io(e.to_string()))?;
    if let Some(r) = &opts.restart {
        let labels = TimeLabels {
            decimals: r.label_decimals,
        };
        let earlier: Vec<f64> = times
            .iter()
            .copied()
            .filter(|&t| t <= model.t_start)
            .collect();
        if let Some(missing) = crate::io::netcdf::missing_map(dir, model, &earlier, &labels) {
            return Err(crate::error::InputError::new(
                "event.nc holds every output time, and this folder lacks the maps of those before the checkpoint: restart into the run's own --out, or set output.netcdf = false",
            )
            .in_file(&missing)
            .into());
        }
    }
    Ok(())
}

#[cfg(not(feature = "gdal"))]
fn event_possible(_: &Path, _: &Model, _: &RunOptions) -> Result<()> {
    Ok(())
}

/// `event.nc`, from the maps of every output time in `dir`.
#[cfg(feature = "gdal")]
pub(super) fn event(
    dir: &Path,
    model: &Model,
    opts: &RunOptions,
    labels: &TimeLabels,
) -> Result<()> {
    if !model.write_netcdf {
        return Ok(());
    }
    let times = all_output_times(model, opts);
    crate::io::netcdf::write_event(dir, model, times, labels)
        .map(|_| ())
        .map_err(|e| Error::Io(format!("{}: {e}", dir.display())))
}

#[cfg(not(feature = "gdal"))]
pub(super) fn event(_: &Path, _: &Model, _: &RunOptions, _: &TimeLabels) -> Result<()> {
    Ok(())
}

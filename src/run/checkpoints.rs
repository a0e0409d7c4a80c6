//! Checkpoints as the run goes (`--checkpoint-every`), and the clean stop a signal asks
//! for (`crate::interrupt`): series flushed, the maps of earlier output times finished, a
//! checkpoint of the moment where the run writes them, and a message saying how to go on.

use super::{io_err, targets, timed, Files, Run, WallClock};
use crate::error::{Error, Result};
use crate::io::checkpoint::{self, Record};
use crate::io::names::TimeLabels;
use crate::io::writer::BackgroundWriter;
use crate::solver::{Snapshot, Stepper};
use std::path::PathBuf;

/// The checkpoints a run writes.
pub(super) struct Due {
    times: Vec<f64>,
    labels: TimeLabels,
}

impl Due {
    pub(super) fn new(
        model: &crate::scenario::model::Model,
        stops: &[f64],
        every: Option<f64>,
    ) -> Due {
        let times = every
            .map(|every| checkpoint::times(model, stops, every))
            .unwrap_or_default();
        let labels = TimeLabels::for_times(&times, 1);
        Due { times, labels }
    }

    /// At the stop `target`: a checkpoint, where one is due, handed to the writer.
    pub(super) fn at<'s>(
        &self,
        target: f64,
        sim: &mut dyn Stepper,
        run: &Run<'s>,
        files: &mut Option<Files<'s>>,
        writer: &mut BackgroundWriter<'s>,
        clock: &mut WallClock,
    ) -> Result<()> {
        if !self.times.contains(&target) {
            return Ok(());
        }
        // Every rank takes part in reading the state; rank 0 gets it and hands it over.
        if let (Some(snapshot), Some(f)) = (timed(&mut clock.reading, || sim.snapshot()), files) {
            let name = checkpoint::file_name(&self.labels.label(target));
            writer.write(job(run, f, snapshot, name)?)?;
        }
        Ok(())
    }

    /// The run stopped for a signal (every rank calls this together): the series
    /// flushed, the maps of earlier output times finished, and, where the run writes
    /// checkpoints, one of this moment. The error says where the run stopped and how to go
    /// on; its exit code is 128 + the signal's number.
    pub(super) fn stopped<'s>(
        &self,
        sim: &mut dyn Stepper,
        run: &Run<'s>,
        files: &mut Option<Files<'s>>,
        writer: &mut BackgroundWriter<'s>,
    ) -> Error {
        // On a rank the signal did not reach, another rank's.
        let signal = crate::interrupt::requested().unwrap_or(15);
        let (t, steps) = (sim.status().t, sim.status().steps);
        let snapshot = run.opts.checkpoint_every.and_then(|_| sim.snapshot());
        let saved = match files.as_mut() {
            Some(f) => self.save(run, f, writer, snapshot, t),
            None => Ok(None),
        };
        // Every rank waits for rank 0's files here, so that none ends the run sooner.
        sim.stop_requested();
        match saved {
            Err(e) => e,
            Ok(checkpoint) => Error::Stopped {
                signal,
                message: match files {
                    Some(_) => message(run, t, steps, checkpoint),
                    None => format!(
                        "stopped with every rank at t = {t:.3} s (step {steps}); rank 0 says how to go on"
                    ),
                },
            },
        }
    }

    fn save<'s>(
        &self,
        run: &Run<'s>,
        f: &mut Files<'s>,
        writer: &mut BackgroundWriter<'s>,
        snapshot: Option<Snapshot>,
        t: f64,
    ) -> Result<Option<PathBuf>> {
        f.series.flush()?;
        writer.finish()?;
        let Some(snapshot) = snapshot else {
            return Ok(None);
        };
        // Between output times: a name of its own, whatever the checkpoints' times.
        let name = checkpoint::file_name(&self.labels.label_apart(t, &self.times));
        let path = f.writing.out.dir.join(&name);
        let write = job(run, f, snapshot, name)?;
        write()?;
        Ok(Some(path))
    }
}

/// A checkpoint of `snapshot` as `name`, to write away from the time loop: the series are
/// flushed here and synced there, so the checkpoint records what is on disk; then the last
/// two checkpoints are kept, by time.
fn job<'s>(
    run: &Run<'s>,
    f: &mut Files<'s>,
    snapshot: Snapshot,
    name: String,
) -> Result<impl FnOnce() -> Result<()> + Send + 's> {
    f.series.flush()?;
    let marks = f.series.marks();
    let handles = f.series.sync_handles()?;
    let (model, writing, label_decimals) = (run.model, f.writing, run.labels.decimals);
    Ok(move || {
        let dir = &writing.out.dir;
        crate::io::series::sync(&handles)?;
        let mut files = writing.out.run_files().map_err(|e| io_err(dir, e))?;
        files.push(name.clone());
        files.sort();
        files.dedup();
        let record = Record {
            fingerprint: writing
                .fingerprint
                .as_ref()
                .expect("a fingerprint where checkpoints are written"),
            series: &marks,
            files: &files,
            label_decimals,
        };
        checkpoint::write(&dir.join(&name), model, &snapshot, &record)
            .map_err(|e| Error::Io(format!("{e} (the previous checkpoint, if any, is intact)")))?;
        checkpoint::prune(dir, 2).map_err(|e| io_err(dir, e))?;
        Ok(())
    })
}

/// Where a stopped run stands and how to go on.
fn message(run: &Run, t: f64, steps: u64, checkpoint: Option<PathBuf>) -> String {
    let model = run.model;
    let recorded_to = targets(model)
        .into_iter()
        .rfind(|&s| s <= t)
        .unwrap_or(model.t_start);
    let dir = run.opts.out_dir.display();
    let go_on = match checkpoint {
        Some(path) => format!(
            "to go on from there, run the same scenario (and --set options) with --out {dir} --restart {}",
            path.display()
        ),
        None => "no checkpoint was written: with --checkpoint-every SECONDS a stopped run can go on with --restart".into(),
    };
    format!(
        "the run stopped at t = {t:.3} s (step {steps}); the series in {dir} hold every sample to t = {recorded_to} s and the maps every output time to then; no maxima maps or summary.json were written, as the run did not finish; {go_on}"
    )
}

//! Output files written on a thread of their own, so that the GPU steps on while maps are
//! encoded and written. The run waits only when an output time comes round before the last
//! one's files are done (one output is written while the next waits in line), and at its
//! end. The maps of one output time are written side by side.

use crate::error::{Error, Result};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Instant;

type Job<'a> = Box<dyn FnOnce() -> Result<()> + Send + 'a>;

/// Maps larger than this many cells are written one after another: each one side by side
/// holds its values as f64 (8 bytes a cell) while it is encoded.
const PARALLEL_MAX_CELLS: usize = 1 << 26;

pub struct BackgroundWriter<'scope> {
    jobs: Option<SyncSender<Job<'scope>>>,
    thread: Option<ScopedJoinHandle<'scope, Result<()>>>,
    /// Seconds the run spent waiting for the writer.
    pub waited_s: f64,
}

impl<'scope> BackgroundWriter<'scope> {
    pub fn new<'env>(scope: &'scope Scope<'scope, 'env>) -> BackgroundWriter<'scope> {
        // A rendezvous channel: the run hands a job over only once the writer is free, so
        // at most one output's fields wait in memory beside the one being written.
        let (jobs, queue) = sync_channel::<Job<'scope>>(0);
        let thread = scope.spawn(move || queue.into_iter().try_for_each(|job| job()));
        BackgroundWriter {
            jobs: Some(jobs),
            thread: Some(thread),
            waited_s: 0.0,
        }
    }

    /// Hands `job` to the writer, waiting while it writes an earlier one. An earlier job's
    /// error comes back here (or from `finish`).
    pub fn write(&mut self, job: impl FnOnce() -> Result<()> + Send + 'scope) -> Result<()> {
        let start = Instant::now();
        let jobs = self
            .jobs
            .as_ref()
            .expect("jobs are handed over before finish");
        let sent = jobs.send(Box::new(job));
        self.waited_s += start.elapsed().as_secs_f64();
        match sent {
            Ok(()) => Ok(()),
            // The writer stops only at a failed job.
            Err(_) => self
                .finish()
                .and(Err(Error::Io("the output writer stopped".into()))),
        }
    }

    /// Waits until every job handed over is written.
    pub fn finish(&mut self) -> Result<()> {
        self.jobs.take();
        let start = Instant::now();
        let result = match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(Error::Io("the output writer panicked".into()))),
            None => Ok(()),
        };
        self.waited_s += start.elapsed().as_secs_f64();
        result
    }
}

/// A map writer: writes one file, returns its path.
pub type MapTask<'a> = Box<dyn FnOnce() -> std::io::Result<PathBuf> + Send + 'a>;

/// Runs the tasks side by side on grids of up to `PARALLEL_MAX_CELLS` cells, one after
/// another above; the paths in the tasks' order, or the first error.
pub fn write_maps(cells: usize, tasks: Vec<MapTask<'_>>) -> std::io::Result<Vec<PathBuf>> {
    if cells > PARALLEL_MAX_CELLS {
        return tasks.into_iter().map(|task| task()).collect();
    }
    std::thread::scope(|s| {
        let running: Vec<_> = tasks.into_iter().map(|task| s.spawn(task)).collect();
        running
            .into_iter()
            .map(|t| t.join().expect("a map writer panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn jobs_run_in_order_and_all_are_done_at_finish() {
        let log = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            let mut w = BackgroundWriter::new(s);
            for k in 0..5 {
                let log = &log;
                w.write(move || {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    log.lock().unwrap().push(k);
                    Ok(())
                })
                .unwrap();
            }
            w.finish().unwrap();
            assert_eq!(*log.lock().unwrap(), vec![0, 1, 2, 3, 4]);
        });
    }

    #[test]
    fn a_failed_job_is_reported_and_stops_the_writer() {
        let ran_after = AtomicUsize::new(0);
        std::thread::scope(|s| {
            let mut w = BackgroundWriter::new(s);
            w.write(|| Err(Error::Io("disk full: depth_0000010.0s.tif".into())))
                .unwrap();
            let ran_after = &ran_after;
            // Either this hand-over or finish reports the failure, never both nor neither.
            let second = w.write(move || {
                ran_after.fetch_add(1, Ordering::SeqCst);
                Ok(())
            });
            let end = w.finish();
            let errors: Vec<String> = [second, end]
                .into_iter()
                .filter_map(|r| r.err().map(|e| e.to_string()))
                .collect();
            assert!(errors.iter().any(|e| e.contains("disk full")), "{errors:?}");
        });
        assert_eq!(ran_after.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn maps_come_back_in_order_with_the_first_error() {
        let tasks: Vec<MapTask> = (0..4)
            .map(|k| Box::new(move || Ok(PathBuf::from(format!("map{k}")))) as MapTask)
            .collect();
        let paths = write_maps(100, tasks).unwrap();
        assert_eq!(
            paths,
            (0..4)
                .map(|k| PathBuf::from(format!("map{k}")))
                .collect::<Vec<_>>()
        );
        for cells in [100, PARALLEL_MAX_CELLS + 1] {
            let tasks: Vec<MapTask> = vec![
                Box::new(|| Ok(PathBuf::from("a"))),
                Box::new(|| Err(std::io::Error::other("no space"))),
            ];
            assert!(write_maps(cells, tasks).is_err());
        }
    }
}

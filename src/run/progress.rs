//! Progress on the terminal while a run steps.

use super::Progress;
use crate::scenario::model::Model;
use crate::solver::Status;
use std::io::IsTerminal;
use std::time::Instant;

/// Progress on the terminal: a bar when stderr is a terminal, a line every few seconds
/// when it is not (logs, CI).
pub(super) struct Reporter {
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
    t_start: f64,
    t_end: f64,
    started: Instant,
    last_line: Instant,
    last_steps: u64,
    last_time: Instant,
    steps_per_s: f64,
}

impl Reporter {
    pub(super) fn new(model: &Model, mode: Progress) -> Reporter {
        let terminal = std::io::stderr().is_terminal();
        let bar = (mode == Progress::Auto && terminal).then(|| {
            let bar = indicatif::ProgressBar::new(1000);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40.cyan/blue} {msg} ETA {eta}")
                    .expect("a valid progress template"),
            );
            bar
        });
        Reporter {
            bar,
            plain: mode == Progress::Auto && !terminal,
            t_start: model.t_start,
            t_end: model.t_end,
            started: Instant::now(),
            last_line: Instant::now(),
            last_steps: 0,
            last_time: Instant::now(),
            steps_per_s: 0.0,
        }
    }

    pub(super) fn update(&mut self, s: &Status) {
        let now = Instant::now();
        let dt_wall = now.duration_since(self.last_time).as_secs_f64();
        if dt_wall > 0.2 {
            self.steps_per_s = (s.steps - self.last_steps) as f64 / dt_wall;
            self.last_steps = s.steps;
            self.last_time = now;
        }
        let fraction = ((s.t - self.t_start) / (self.t_end - self.t_start)).clamp(0.0, 1.0);
        let message = format!("t = {:.1} s  {:.0} steps/s", s.t, self.steps_per_s);
        if let Some(bar) = &self.bar {
            bar.set_position((fraction * 1000.0) as u64);
            bar.set_message(message);
        } else if self.plain && now.duration_since(self.last_line).as_secs_f64() > 5.0 {
            let elapsed = self.started.elapsed().as_secs_f64();
            let eta = if fraction > 0.0 {
                elapsed * (1.0 - fraction) / fraction
            } else {
                0.0
            };
            crate::say!("[{:5.1}%] {message}  ETA {:.0} s", fraction * 100.0, eta);
            self.last_line = now;
        }
    }

    /// The time loop's end; the last maps may take a while yet, so say so.
    pub(super) fn finish(&mut self, s: &Status) {
        let had_bar = self.bar.take().map(|bar| bar.finish_and_clear()).is_some();
        if had_bar || self.plain {
            crate::say!(
                "done: t = {:.3} s after {} steps in {:.1} s; writing the last results",
                s.t,
                s.steps,
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    /// The loop stopped short of the end: the bar goes, with no word of results.
    pub(super) fn abandon(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

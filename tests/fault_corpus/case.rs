//! One case of the corpus: its generator, its folder, the processes it ran and what failed.

use super::proc::{self, Limits, Outcome, Running};
use super::rng::Rng;
use super::verdict::{self, Bound};
use std::path::{Path, PathBuf};

pub struct Case {
    pub class: &'static str,
    pub k: usize,
    pub rng: Rng,
    pub dir: PathBuf,
    /// The corpus's folder, where references shared by cases live.
    pub root: PathBuf,
    pub long: bool,
    /// What was drawn.
    pub what: Vec<String>,
    /// How each process ended (`Outcome::label`), for the summary table.
    pub runs: Vec<String>,
    pub failures: Vec<String>,
    /// Each process, described, for the report of a failed case.
    pub log: Vec<String>,
    /// The latest simulated time its runs reach (s), for `known`.
    pub clock: f64,
    /// A run the case would rather not have seen, though no assertion fails (exit 4 on
    /// sound input): listed after the table.
    pub notable: Option<String>,
}

impl Case {
    pub fn note(&mut self, what: impl Into<String>) {
        self.what.push(what.into());
    }

    pub fn fail(&mut self, why: impl Into<String>) {
        self.failures.push(why.into());
    }

    /// Writes a file into the case's folder; returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn record(&mut self, o: &Outcome) {
        self.runs.push(o.label());
        self.log.push(o.describe());
    }

    /// Runs quadflood to its end, recording how it ended.
    pub fn quadflood(&mut self, args: &[String], limits: &Limits) -> Outcome {
        let o = proc::run(args, limits);
        self.record(&o);
        o
    }

    pub fn start(&mut self, args: &[String], limits: &Limits) -> Running {
        proc::start(args, limits)
    }

    pub fn finish(&mut self, running: Running) -> Outcome {
        let o = running.wait();
        self.record(&o);
        o
    }

    /// The end is a documented one (`verdict::documented`); a failure's message names one
    /// of `names`.
    pub fn judge(&mut self, o: &Outcome, names: &[String]) {
        if let Some(why) = verdict::documented(o, names) {
            self.fail(format!(
                "{}: {why}",
                o.args.first().map_or("", String::as_str)
            ));
        }
    }

    pub fn expect_whole(&mut self, out: &Path, killed: bool) {
        self.expect_whole_but(out, killed, &[]);
    }

    /// As `expect_whole`, but for the files named in `damaged`, which the case itself
    /// damaged and a refused run leaves as they were.
    pub fn expect_whole_but(&mut self, out: &Path, killed: bool, damaged: &[String]) {
        for why in verdict::whole_files(out, killed) {
            // "NAME is not whole: ..." or "NAME: not a file" (a folder in its place).
            let about = |d: &String| {
                why.strip_prefix(d.as_str())
                    .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with(':'))
            };
            if !damaged.iter().any(about) {
                self.fail(why);
            }
        }
    }

    pub fn expect_sound(&mut self, out: &Path, bound: &Bound) {
        for why in verdict::sound(out, bound) {
            self.fail(why);
        }
    }

    /// A run of sound input exited 0 with a sound result, or stopped as the documentation
    /// allows (then listed as notable).
    pub fn expect_run_of_sound_input(&mut self, o: &Outcome, out: &Path, bound: &Bound) {
        match o.code {
            Some(0) => self.expect_sound(out, bound),
            Some(2) => self.fail("a sound scenario was refused"),
            Some(4) => self.notable = Some(o.stderr.trim().to_string()),
            _ => {}
        }
    }
}

/// A path as an argument.
pub fn arg(p: &Path) -> String {
    proc::path(p)
}

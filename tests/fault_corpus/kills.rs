//! Runs stopped at random moments: SIGKILL (no warning), SIGTERM (a batch scheduler's time
//! limit) or SIGINT (Ctrl-C), after a random delay or just after a random file appears,
//! up to three times, each time going on from the newest checkpoint. Whatever was left at
//! each stop must be whole (a temporary file only after SIGKILL), a clean stop must exit
//! 128 + the signal saying where it stopped, and the run finally continued to its end must
//! write the maps and series of the uninterrupted reference run, byte for byte.

use super::case::{arg, Case};
use super::proc::{Limits, GPU};
use super::reference::{self, Reference};
use std::path::Path;
use std::time::Duration;

const SIGNALS: [(i32, &str); 3] = [
    (libc::SIGKILL, "KILL"),
    (libc::SIGTERM, "TERM"),
    (libc::SIGINT, "INT"),
];

/// No address-space limit: the run is started straight, so that a signal reaches
/// quadflood and not a shell that has yet to exec it.
fn limits() -> Limits {
    Limits {
        time: GPU,
        ..Limits::default()
    }
}

fn run_args(r: &Reference, out: &Path) -> Vec<String> {
    let mut args = vec![
        "run".to_string(),
        arg(&r.scenario),
        "--out".into(),
        arg(out),
        "--quiet".into(),
    ];
    args.extend([
        "--checkpoint-every".to_string(),
        reference::EVERY.to_string(),
    ]);
    if let Some(newest) = reference::checkpoints(out).pop() {
        args.extend(["--restart".to_string(), arg(&newest)]);
    }
    args
}

/// When to send the signal: a delay after the start, or a moment after a file of the
/// run's appears.
fn moment(c: &mut Case, r: &Reference) -> (Duration, Option<String>) {
    if c.rng.percent(30) {
        return (
            Duration::from_secs_f64(c.rng.float(0.0, 1.1 * r.wall)),
            None,
        );
    }
    let mut files: Vec<String> = r.results.iter().map(|f| f.0.clone()).collect();
    files.extend(
        r.checkpoints
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned()),
    );
    let file = c.rng.pick(&files).clone();
    (Duration::from_secs_f64(c.rng.float(0.0, 0.03)), Some(file))
}

/// One interrupted run; returns false if it ran to its end before the signal.
fn interrupt(c: &mut Case, r: &Reference, out: &Path) -> bool {
    let (number, name) = *c.rng.pick(&SIGNALS);
    let (delay, after) = moment(c, r);
    c.note(format!(
        "SIG{name} {:.3} s after {}",
        delay.as_secs_f64(),
        after.as_deref().unwrap_or("the start")
    ));
    let args = run_args(r, out);
    let mut running = c.start(&args, &limits());
    let appeared = |file: &Option<String>| file.as_ref().is_none_or(|f| out.join(f).exists());
    while !appeared(&after) && !running.finished() && running.elapsed() < GPU {
        std::thread::sleep(Duration::from_millis(1));
    }
    let since = running.elapsed();
    while running.elapsed() < since + delay && !running.finished() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = !running.finished();
    if sent {
        running.signal(number);
    }
    let o = c.finish(running);
    let killed = o.signal.is_some();
    match (o.code, o.signal) {
        (Some(0), _) => {}
        // Before quadflood's handler is installed, a signal ends it as it would any program.
        (None, Some(s)) if sent && s == number => {}
        (Some(code), _) if sent && code == 128 + number => {
            c.judge(&o, &[]);
            if !o.said(&format!("SIG{name}")) {
                c.fail(format!("stopped by SIG{name} without naming it"));
            }
            if out.join("summary.json").exists() {
                c.fail("a stopped run left a summary.json, as a finished run does");
            }
        }
        _ => {
            c.judge(&o, &[]);
            c.fail(format!(
                "SIG{name}: an end other than 0, 128 + {number} or the signal"
            ));
        }
    }
    c.expect_whole(out, killed);
    sent
}

pub fn case(c: &mut Case) {
    let r = match reference::get(&c.root) {
        Ok(r) => r,
        Err(e) => return c.fail(e),
    };
    let out = c.dir.join("out");
    for _ in 0..1 + c.rng.below(3) {
        if !interrupt(c, r, &out) {
            break;
        }
    }
    let restart = reference::checkpoints(&out).pop();
    c.note(match &restart {
        Some(p) => format!("went on from {}", p.file_name().unwrap().to_string_lossy()),
        None => "started again".into(),
    });
    let o = c.quadflood(&run_args(r, &out), &limits());
    c.judge(&o, &[]);
    if o.code != Some(0) {
        return c.fail("the run did not go on to its end");
    }
    c.expect_whole(&out, false);
    if let Some(d) = reference::difference(&r.results, &reference::results(&out)) {
        c.fail(d);
    }
}

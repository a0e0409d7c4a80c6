//! A fault corpus: hundreds of cases drawn from a seed, in classes that each attack one way
//! a run can go wrong (forcing on dry land, kills at random moments and restarts, a full
//! disk, damaged and foreign checkpoints, colliding names, hostile rasters and series).
//! Every case asserts that quadflood does not panic, does not hang, never exits 0 with a
//! result it cannot vouch for (mass error over 1e-5, water deeper than the forcing can
//! make, counted inflow or rain not the series'), leaves no file under a final name that is
//! not whole, and that a failure exits with its documented code and a message naming the
//! file, key or time. docs/development.md describes each class.
//!
//! Environment: `QUADFLOOD_FAULT_CORPUS=long` runs the nightly corpus (ten times the
//! cases); `QUADFLOOD_FAULT_SEED=S` draws another corpus; `QUADFLOOD_FAULT_CLASS=name`
//! runs one class; `QUADFLOOD_FAULT_CASE=class:k` runs one case (as a failure's report
//! says); `QUADFLOOD_FAULT_WORKERS=n` runs n cases at once (default: the CPU count).

mod fault_corpus {
    pub mod case;
    pub mod checkpoints;
    pub mod dry_forcing;
    pub mod full_disk;
    pub mod kills;
    pub mod known;
    pub mod names;
    pub mod proc;
    pub mod rasters;
    pub mod reference;
    pub mod rng;
    pub mod series_csv;
    pub mod tiny;
    pub mod verdict;
}

mod common;

use fault_corpus::case::Case;
use fault_corpus::rng::Rng;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const DEFAULT_SEED: u64 = 0xc0_7b05_f00d_2201;
/// Failed cases reported in full; the others are counted.
const FAILURES_SHOWN: usize = 6;

/// A class of cases: its name, its case count in the default and the long corpus, whether
/// its cases run the GPU (those start first, so that the cheap ones fill the gaps), and
/// the case itself.
struct Class {
    name: &'static str,
    cases: (usize, usize),
    gpu: bool,
    run: fn(&mut Case),
}

const CLASSES: &[Class] = &[
    Class {
        name: "dry_forcing",
        cases: (20, 300),
        gpu: true,
        run: fault_corpus::dry_forcing::case,
    },
    Class {
        name: "kills",
        cases: (6, 60),
        gpu: true,
        run: fault_corpus::kills::case,
    },
    Class {
        name: "full_disk",
        cases: (10, 100),
        gpu: true,
        run: fault_corpus::full_disk::case,
    },
    Class {
        name: "names",
        cases: (6, 60),
        gpu: true,
        run: fault_corpus::names::case,
    },
    Class {
        name: "checkpoints",
        cases: (130, 1300),
        gpu: false,
        run: fault_corpus::checkpoints::case,
    },
    Class {
        name: "rasters",
        cases: (160, 1600),
        gpu: false,
        run: fault_corpus::rasters::case,
    },
    Class {
        name: "series_csv",
        cases: (160, 1600),
        gpu: false,
        run: fault_corpus::series_csv::case,
    },
];

fn env_number(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={v:?}: expected a number")))
}

/// The cases to run, as (class, case number), GPU classes first and interleaved.
fn schedule(long: bool) -> Vec<(usize, usize)> {
    if let Ok(one) = std::env::var("QUADFLOOD_FAULT_CASE") {
        let (name, k) = one.split_once(':').expect("QUADFLOOD_FAULT_CASE=class:k");
        let class = CLASSES
            .iter()
            .position(|c| c.name == name)
            .expect("a class name");
        return vec![(class, k.parse().expect("a case number"))];
    }
    let only = std::env::var("QUADFLOOD_FAULT_CLASS").ok();
    let chosen = |c: &Class| only.as_deref().is_none_or(|o| o == c.name);
    let count = |c: &Class| if long { c.cases.1 } else { c.cases.0 };
    let mut order = Vec::new();
    for gpu in [true, false] {
        let classes: Vec<usize> = (0..CLASSES.len())
            .filter(|&i| CLASSES[i].gpu == gpu && chosen(&CLASSES[i]))
            .collect();
        let most = classes
            .iter()
            .map(|&i| count(&CLASSES[i]))
            .max()
            .unwrap_or(0);
        for k in 0..most {
            order.extend(
                classes
                    .iter()
                    .filter(|&&i| k < count(&CLASSES[i]))
                    .map(|&i| (i, k)),
            );
        }
    }
    order
}

/// One case's result.
struct Row {
    class: usize,
    k: usize,
    runs: Vec<String>,
    failure: Option<String>,
    /// Failures a known defect explains (`fault_corpus::known`).
    known: Vec<String>,
    notable: Option<String>,
    wall: Duration,
}

fn run_case(class: usize, k: usize, seed: u64, long: bool, root: &std::path::Path) -> Row {
    let c = &CLASSES[class];
    let dir = root.join(format!("{}-{k:05}", c.name));
    std::fs::create_dir_all(&dir).unwrap();
    let mut case = Case {
        class: c.name,
        k,
        rng: Rng::new(seed, c.name, k as u64),
        dir: dir.clone(),
        root: root.to_path_buf(),
        long,
        what: Vec::new(),
        runs: Vec::new(),
        failures: Vec::new(),
        log: Vec::new(),
        clock: 0.0,
        notable: None,
    };
    let started = Instant::now();
    (c.run)(&mut case);
    let mut known = Vec::new();
    let failures = std::mem::take(&mut case.failures);
    for f in failures {
        match fault_corpus::known::explained(&case, &f) {
            Some(defect) => known.push(format!("{}:{k} ({}): {f}", c.name, defect.name)),
            None => case.failures.push(f),
        }
    }
    let failure = (!case.failures.is_empty()).then(|| report(&case, seed));
    if failure.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Row {
        class,
        k,
        runs: case.runs,
        failure,
        known,
        notable: case
            .notable
            .map(|n| format!("{}:{k} ({}): {n}", c.name, case.what.join("; "))),
        wall: started.elapsed(),
    }
}

fn report(case: &Case, seed: u64) -> String {
    let mut s = format!(
        "{}:{} (seed {seed:#x}; rerun alone with QUADFLOOD_FAULT_CASE={}:{}): {}\n",
        case.class,
        case.k,
        case.class,
        case.k,
        case.what.join("; ")
    );
    for f in &case.failures {
        writeln!(s, "  FAILED: {f}").unwrap();
    }
    for l in &case.log {
        writeln!(s, "  {l}").unwrap();
    }
    writeln!(s, "  files kept in {}", case.dir.display()).unwrap();
    s
}

/// Cases, processes by how they ended, failures and time, per class.
fn table(rows: &[Row], wall: Duration, workers: usize) -> String {
    let mut columns: Vec<String> = rows.iter().flat_map(|r| r.runs.iter().cloned()).collect();
    columns.sort_by_key(|c| (c.parse::<i32>().unwrap_or(1000), c.clone()));
    columns.dedup();
    let mut s = format!(
        "{:<14} {:>6} {:>6} {:>6}",
        "class", "cases", "failed", "known"
    );
    for c in &columns {
        write!(s, " {:>6}", format!("[{c}]")).unwrap();
    }
    writeln!(s, " {:>9}", "time").unwrap();
    let mut total = 0;
    for (i, class) in CLASSES.iter().enumerate() {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.class == i).collect();
        if mine.is_empty() {
            continue;
        }
        total += mine.len();
        let mut by_end: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &mine {
            for run in &r.runs {
                *by_end.entry(run.as_str()).or_default() += 1;
            }
        }
        let failed = mine.iter().filter(|r| r.failure.is_some()).count();
        let time: Duration = mine.iter().map(|r| r.wall).sum();
        let known = mine.iter().filter(|r| !r.known.is_empty()).count();
        write!(
            s,
            "{:<14} {:>6} {:>6} {:>6}",
            class.name,
            mine.len(),
            failed,
            known
        )
        .unwrap();
        for c in &columns {
            write!(s, " {:>6}", by_end.get(c.as_str()).copied().unwrap_or(0)).unwrap();
        }
        writeln!(s, " {:>8.1}s", time.as_secs_f64()).unwrap();
    }
    writeln!(
        s,
        "{total} cases in {:.1} s on {workers} workers; known: failed by a known defect (listed below); [n]: processes that exited with code n (KILL: killed by the case, hang: past its time limit)",
        wall.as_secs_f64()
    )
    .unwrap();
    s
}

#[test]
fn fault_corpus() {
    let long = std::env::var("QUADFLOOD_FAULT_CORPUS").is_ok_and(|v| v == "long");
    let seed = env_number("QUADFLOOD_FAULT_SEED").unwrap_or(DEFAULT_SEED);
    let workers = env_number("QUADFLOOD_FAULT_WORKERS").map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get()),
        |n| n as usize,
    );
    let order = schedule(long);
    let root = tempfile::Builder::new()
        .prefix("quadflood-fault-corpus-")
        .tempdir()
        .unwrap();
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Row>> = Mutex::default();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&(class, k)) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let row = run_case(class, k, seed, long, root.path());
                    rows.lock().unwrap().push(row);
                }
            });
        }
    });
    let mut rows = rows.into_inner().unwrap();
    rows.sort_by_key(|r| (r.class, r.k));
    let mut summary = format!(
        "fault corpus, seed {seed:#x}{}:\n",
        if long { ", long" } else { "" }
    );
    summary += &table(&rows, started.elapsed(), workers);
    for n in rows.iter().filter_map(|r| r.notable.as_ref()) {
        writeln!(summary, "notable: {n}").unwrap();
    }
    for k in rows.iter().flat_map(|r| &r.known) {
        writeln!(summary, "known: {k}").unwrap();
    }
    for k in fault_corpus::known::KNOWN {
        writeln!(summary, "known defect: {} (its test: {})", k.name, k.test).unwrap();
    }
    // Straight to the terminal: the table belongs in CI's log even when every case passes
    // (the test harness keeps a passing test's eprintln! to itself).
    let _ = std::io::Write::write_all(&mut std::io::stderr(), summary.as_bytes());
    let failures: Vec<&String> = rows.iter().filter_map(|r| r.failure.as_ref()).collect();
    common::fail_if_any(&failures, rows.len(), root, FAILURES_SHOWN);
}

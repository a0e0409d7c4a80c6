//! Ranks agree or stop (issue 22): ranks given different scenarios, `--set` values, input
//! files or run options end together with exit code 2 and a message that names what
//! differs, before any file is written, instead of writing maps that are half one run and
//! half another (or panicking in the gather of the first output).

mod common;

use common::agreement::scenario_in;

use quadflood::comm::agree::agree;
use quadflood::error::Error;
use quadflood::scenario::digest::RunDigest;
use quadflood::scenario::model::Model;
use std::path::Path;

fn load(path: &Path, sets: &[&str]) -> Model {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    quadflood::scenario::load_with(path, &sets).unwrap_or_else(|e| panic!("{e}"))
}

/// Each rank's digest (its model and options) agreed over three ranks on threads: what
/// each rank was told.
fn agree_on_threads(digests: &[RunDigest]) -> Vec<quadflood::error::Result<()>> {
    common::on_ranks(digests.len(), |c| {
        agree(c, &digests[quadflood::comm::Comm::rank(c)])
    })
}

fn options(checkpoint_every: &str) -> Vec<(&'static str, String)> {
    vec![("--checkpoint-every", checkpoint_every.to_string())]
}

/// Every rank refuses, with exit code 2 and a message holding each of `expect`.
fn all_refuse(results: &[quadflood::error::Result<()>], expect: &[&str]) {
    for (rank, r) in results.iter().enumerate() {
        match r {
            Err(e @ Error::Input(_)) => {
                assert_eq!(e.exit_code(), 2);
                let text = e.to_string();
                for x in expect {
                    assert!(text.contains(x), "rank {rank}: lacks {x:?}: {text}");
                }
            }
            other => panic!("rank {rank}: expected an input error, got {other:?}"),
        }
    }
}

#[test]
fn ranks_on_threads_that_disagree_stop_naming_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let path = scenario_in(dir.path(), 0.0);
    let same = load(&path, &[]);
    let digest = |m: &Model, every: &str| RunDigest::of(m, &options(every));
    let base = digest(&same, "none");
    // The same run everywhere: every rank goes on.
    let results = agree_on_threads(&[base.clone(), base.clone(), base.clone()]);
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");

    let later = digest(&load(&path, &["time.end=6"]), "none");
    let results = agree_on_threads(&[base.clone(), base.clone(), later]);
    all_refuse(&results, &["`time.end` differs between ranks 0 and 2"]);

    let deeper = digest(&load(&path, &["initial.water_level=0.5"]), "none");
    let results = agree_on_threads(&[base.clone(), deeper, base.clone()]);
    all_refuse(
        &results,
        &["`initial.water_level` differs between ranks 0 and 1"],
    );

    // A key one rank sets and the others do not.
    let extra = digest(&load(&path, &["time.gauge_interval=1"]), "none");
    let results = agree_on_threads(&[base.clone(), base.clone(), extra]);
    all_refuse(
        &results,
        &["`time.gauge_interval`", "rank 2", "not on rank 0"],
    );

    // The same scenario text, but another terrain file behind the same name (a node with
    // a stale copy).
    let other = scenario_in(&dir.path().join("stale"), 0.25);
    let stale = digest(&load(&other, &[]), "none");
    let results = agree_on_threads(&[base.clone(), stale, base.clone()]);
    all_refuse(&results, &["terrain", "rank 1", "terrain.path"]);

    // A grid of another size: refused, not a panic in the first gather.
    let wider = digest(&load(&path, &["terrain.cell_size=2"]), "none");
    let results = agree_on_threads(&[base.clone(), base.clone(), wider]);
    all_refuse(
        &results,
        &["`terrain.cell_size` is set on rank 2 but not on rank 0"],
    );

    // Run options the scenario does not hold.
    let checkpoints = digest(&same, "2");
    let results = agree_on_threads(&[base.clone(), checkpoints, base]);
    all_refuse(
        &results,
        &["`--checkpoint-every` differs between ranks 0 and 1"],
    );
}

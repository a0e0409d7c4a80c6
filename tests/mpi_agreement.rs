//! Ranks agree or stop (issue 22), through mpirun: ranks given different `--set` values,
//! input files or run options end together with exit code 2 and a message that names what
//! differs, before any file is written (they wrote maps half of one run and half of the
//! other, or panicked in the gather of the first output). Skipped where mpirun is absent.
#![cfg(feature = "mpi")]

mod common;

use common::agreement::scenario_in;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn have_mpirun() -> bool {
    Command::new("mpirun")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A launcher that gives rank 1 the extra arguments in RANK1_ARGS and, when
/// RANK1_SCENARIO is set, another scenario file.
fn launcher(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("per-rank.sh");
    let script = format!(
        "#!/bin/sh\nbin=\"{}\"\nrank=\"${{OMPI_COMM_WORLD_RANK:-$PMI_RANK}}\"\n\
         if [ \"$rank\" = \"1\" ]; then\n  command=\"$1\"; shift; scenario=\"$1\"; shift\n  \
         exec \"$bin\" \"$command\" \"${{RANK1_SCENARIO:-$scenario}}\" \"$@\" $RANK1_ARGS\nfi\n\
         exec \"$bin\" \"$@\"\n",
        env!("CARGO_BIN_EXE_quadflood")
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

struct Ended {
    code: Option<i32>,
    stderr: String,
    took: Duration,
}

/// `mpirun -n 2 quadflood run SCENARIO --out OUT --quiet`, rank 1 as `env` says.
fn two_ranks(dir: &Path, scenario: &Path, out: &Path, env: &[(&str, &str)]) -> Ended {
    let start = Instant::now();
    let mut cmd = Command::new("timeout");
    cmd.args([
        "120",
        "mpirun",
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        "2",
    ])
    .arg(launcher(dir))
    .args([
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ])
    .env("XDG_RUNTIME_DIR", "/tmp")
    .env("RANK1_ARGS", "");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    Ended {
        code: o.status.code(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        took: start.elapsed(),
    }
}

/// A case: its name, rank 1's environment, and what the message must say.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);

fn no_results(out: &Path) -> bool {
    !out.exists() || common::result_files(out).is_empty()
}

#[test]
fn ranks_under_mpirun_that_disagree_stop_with_exit_2_before_writing() {
    if !have_mpirun() {
        eprintln!("mpirun not found: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = scenario_in(d, 0.0);
    let stale = scenario_in(&d.join("stale"), 0.25);
    let stale = stale.to_str().unwrap();
    let cases: [Case; 4] = [
        // Panicked in the gather of the first output (src/solver/ranks.rs).
        (
            "end",
            &[("RANK1_ARGS", "--set time.end=6")],
            "`time.end` differs between ranks 0 and 1",
        ),
        // Ran on and wrote maps half of one run and half of the other, exit 0.
        (
            "level",
            &[("RANK1_ARGS", "--set initial.water_level=0.5")],
            "`initial.water_level` differs",
        ),
        (
            "terrain",
            &[("RANK1_SCENARIO", stale)],
            "the terrain read by rank 1",
        ),
        (
            "checkpoints",
            &[("RANK1_ARGS", "--checkpoint-every 2")],
            "`--checkpoint-every` differs",
        ),
    ];
    for (name, env, expect) in cases {
        let out = d.join(format!("out-{name}"));
        let e = two_ranks(d, &path, &out, env);
        println!("{name}: {:?}, exit {:?}", e.took, e.code);
        assert_eq!(e.code, Some(2), "{name}: {}", e.stderr);
        assert!(
            e.stderr.contains(expect),
            "{name}: lacks {expect:?}: {}",
            e.stderr
        );
        assert!(!e.stderr.contains("panicked"), "{name}: {}", e.stderr);
        assert!(no_results(&out), "{name}: results were written");
    }
    // Agreed, the same run goes on as before.
    let out = d.join("out-same");
    let e = two_ranks(d, &path, &out, &[]);
    assert_eq!(e.code, Some(0), "{}", e.stderr);
    assert!(!no_results(&out));
}

/// Past the agreement (a test hook skips it), ranks that gather different grids end
/// every rank with a message instead of a panic in the gather.
#[test]
fn a_gather_of_the_wrong_size_ends_every_rank_without_a_panic() {
    if !have_mpirun() {
        eprintln!("mpirun not found: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = scenario_in(d, 0.0);
    let e = two_ranks(
        d,
        &path,
        &d.join("out"),
        &[
            ("RANK1_ARGS", "--set time.end=6"),
            ("QUADFLOOD_TEST_SKIP_AGREEMENT", "1"),
        ],
    );
    println!("{:?} {:?}\n{}", e.took, e.code, e.stderr);
    assert!(!e.stderr.contains("panicked"), "{}", e.stderr);
    assert!(e.code.is_some_and(|c| c != 0 && c != 124), "{:?}", e.code);
    assert!(
        e.stderr.contains("do not run the same model"),
        "{}",
        e.stderr
    );
}

//! Every run records where its results came from: `summary.json` names the build, the
//! command line and its overrides, the start time, the host and the adapter; `run.log`
//! holds that and everything the run printed; `resolved_scenario.toml` is the scenario as resolved,
//! complete enough to run again to the same results.

use std::path::Path;
use std::process::Command;

const DAM: &str = r#"
name = "provenance"
[domain]
cell_size = 1.0
nx = 32
ny = 16

[terrain]
type = "flat"

[initial]
depth = 0.1
[[initial.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [12.0, 16.0]
depth = 1.0

[time]
end = 20.0
output_interval = 5.0
"#;

fn quadflood(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quadflood"))
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), text)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_run_records_its_build_command_inputs_and_log() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("dam.toml");
    std::fs::write(&scenario, DAM).unwrap();
    let out = dir.path().join("out");
    let before = std::time::SystemTime::now();
    let args = [
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "time.end=10",
    ];
    let (ok, stderr) = quadflood(&args);
    assert!(ok, "{stderr}");

    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let p = &summary["provenance"];
    assert_eq!(p["quadflood_version"], env!("CARGO_PKG_VERSION"));
    let commit = p["git_commit"].as_str().unwrap();
    assert!(!commit.is_empty(), "{p}");
    let command: Vec<&str> = p["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&command[1..], &args[..], "{p}");
    assert_eq!(p["overrides"], serde_json::json!(["time.end=10"]));
    assert!(!p["host"].as_str().unwrap().is_empty());
    assert!(p["adapter"].as_str().unwrap().contains("Vulkan"), "{p}");
    // The start, to the second, between the test's clock before and after the run.
    let started = p["started_utc"].as_str().unwrap();
    let at = |t: std::time::SystemTime| quadflood::provenance::utc_iso8601(t);
    let after = std::time::SystemTime::now() + std::time::Duration::from_secs(1);
    assert!(
        at(before).as_str() <= started && started <= at(after).as_str(),
        "{started} not between {} and {}",
        at(before),
        at(after)
    );
    assert_eq!(summary["t_end_s"], 10.0, "the override took effect");

    // The log opens with the provenance and keeps what the run printed, from the first
    // line (said before the output folder was claimed) to the last.
    let log = read(&out.join("run.log"));
    assert!(log.starts_with("quadflood "), "{log}");
    assert!(log.contains(commit) && log.contains("time.end=10"), "{log}");
    for line in stderr
        .lines()
        .filter(|l| l.contains("cells of") || l.contains("results in"))
    {
        assert!(log.contains(line), "{line:?} missing from run.log:\n{log}");
    }

    // The resolved scenario runs again, on its own, to the same maps.
    let copy = out.join("resolved_scenario.toml");
    let again = dir.path().join("again");
    let (ok, stderr) = quadflood(&[
        "run",
        copy.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let maps: Vec<String> = summary["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .filter(|f| f.starts_with("depth_") || f.starts_with("max_"))
        .collect();
    assert!(maps.len() >= 3, "{maps:?}");
    for map in &maps {
        let a = std::fs::read(out.join(map)).unwrap();
        let b = std::fs::read(again.join(map)).unwrap();
        assert!(
            a == b,
            "{map} differs when the resolved scenario is run again"
        );
    }
    let files: Vec<&str> = summary["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        files.contains(&"run.log") && files.contains(&"resolved_scenario.toml"),
        "{files:?}"
    );
}

#[test]
fn a_second_run_into_the_folder_starts_a_new_log() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("dam.toml");
    std::fs::write(&scenario, DAM).unwrap();
    let out = dir.path().join("out");
    let run = |end: &str| {
        let set = format!("time.end={end}");
        let (ok, stderr) = quadflood(&[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--set",
            &set,
        ]);
        assert!(ok, "{stderr}");
    };
    run("5");
    run("10");
    let log = read(&out.join("run.log"));
    assert_eq!(log.matches("started ").count(), 1, "{log}");
    assert!(
        log.contains("time.end=10") && !log.contains("time.end=5"),
        "{log}"
    );
}

#[test]
fn a_log_of_the_users_own_in_the_folder_is_neither_cleared_nor_written_to() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("dam.toml");
    std::fs::write(&scenario, DAM).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let theirs = "slurm: job 42 started\n";
    std::fs::write(out.join("run.log"), theirs).unwrap();
    let (ok, stderr) = quadflood(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("run.log") && stderr.contains("no quadflood run wrote"),
        "{stderr}"
    );
    assert_eq!(read(&out.join("run.log")), theirs);
    assert!(!out.join("summary.json").exists());
}

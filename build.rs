//! Records the git commit the binary is built from, for each run's provenance
//! (`summary.json`, `run.log`). A build outside a git checkout says "unknown".

use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) if !hash.is_empty() => {
            // Uncommitted changes to tracked files make the binary something no commit is.
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{hash}-modified")
            } else {
                hash
            }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=QUADFLOOD_GIT_COMMIT={commit}");
    // Again when HEAD moves or the index changes (a commit, a checkout, a staged edit).
    // Paths from `--git-path`, which knows linked worktrees; only those that exist, since
    // cargo runs a build script on every build while a path it watches is missing (a
    // branch's ref lives in packed-refs once git packs it).
    let mut watched = vec!["HEAD".to_string(), "index".into(), "packed-refs".into()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            if std::path::Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    // And when a source changes, so that "-modified" stays true of the binary.
    for dir in ["build.rs", "Cargo.toml", "src", "shaders"] {
        println!("cargo:rerun-if-changed={dir}");
    }
}

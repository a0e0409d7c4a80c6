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
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={git_dir}/{f}");
        }
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={git_dir}/{head_ref}");
        }
    }
    // And when a source changes, so that "-modified" stays true of the binary.
    for dir in ["build.rs", "Cargo.toml", "src", "shaders"] {
        println!("cargo:rerun-if-changed={dir}");
    }
}

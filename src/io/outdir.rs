//! The output folder of a run, claimed for it alone: locked against a second run (an
//! exclusive `flock` on `.quadflood.lock`, which the kernel releases when the process
//! ends, however it ends), and cleared of an earlier run's files before this run writes
//! its own, so no file in it can be taken for this run's that this run did not write. A
//! restart keeps what its checkpoint's run had written up to the checkpoint.

use crate::error::{Error, InputError, Result};
use crate::io::check_files::{CHECK_DIR, CHECK_MAPS, LOSSES_MAP, LOSSES_SECOND_MAP};
use crate::io::checkpoint::Restart;
use crate::io::names::{RESOLVED_SCENARIO, RESOLVED_SCENARIO_START, RUN_LOG, RUN_LOG_START};
use crate::io::series::Series;
use crate::scenario::model::Model;
use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const LOCK_NAME: &str = ".quadflood.lock";

pub struct OutDir {
    pub dir: PathBuf,
    /// Held for the run's life: the lock goes with the file's last descriptor.
    _lock: File,
}

impl OutDir {
    /// Claims `dir`: creates it, locks it, checks a restart's series against its
    /// checkpoint (refusing, exit code 2, before anything in the folder changes), clears
    /// an earlier run's files, and returns the series files to append to.
    pub fn claim(
        dir: &Path,
        model: &Model,
        restart: Option<&Restart>,
        say: bool,
    ) -> Result<(OutDir, Series)> {
        let io = |e: std::io::Error| Error::Io(format!("{}: {e}", dir.display()));
        if dir.exists() && !dir.is_dir() {
            return Err(InputError::new(format!(
                "--out {}: expected a folder (new or one quadflood wrote), found a file",
                dir.display()
            ))
            .into());
        }
        std::fs::create_dir_all(dir).map_err(io)?;
        let lock = lock(dir)?;
        refuse_foreign(dir)?;
        refuse_inputs_in_the_way(dir, model)?;
        let (keep, series) = match restart {
            Some(r) => (kept_by(dir, r), resume_series(dir, model, r)?),
            None => (HashSet::new(), Series::create(dir, model).map_err(io)?),
        };
        // A fresh run's series were just written under their own names: keep them.
        let mut keep = keep;
        keep.extend(series.file_names());
        let cleared = clear(dir, &keep).map_err(io)?;
        if say && cleared > 0 {
            let whose = match restart {
                Some(_) => "written after the checkpoint",
                None => "of an earlier run (results, series, checkpoints)",
            };
            crate::say!("{}: removed {cleared} files {whose}", dir.display());
        }
        Ok((
            OutDir {
                dir: dir.to_path_buf(),
                _lock: lock,
            },
            series,
        ))
    }

    /// This run's files in the folder (for its summary and checkpoints), sorted: after
    /// `claim` every run file there is this run's.
    pub fn run_files(&self) -> std::io::Result<Vec<String>> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.') && crate::io::names::is_run_file(n))
            .collect();
        let check = self.dir.join(CHECK_DIR);
        if check.is_dir() {
            for e in std::fs::read_dir(&check)?.filter_map(|e| e.ok()) {
                let n = e.file_name().to_string_lossy().into_owned();
                if !n.starts_with('.') && is_check_file(&n) {
                    names.push(format!("{CHECK_DIR}/{n}"));
                }
            }
        }
        names.sort();
        Ok(names)
    }
}

/// Refuses (exit 2) a folder where the run would write over one of its own inputs: a
/// hydrograph named `mass_balance.csv`, or another run's `gauge_x.csv` that drives this
/// one, read from the folder it writes into, was replaced by this run's own file.
fn refuse_inputs_in_the_way(dir: &Path, model: &Model) -> Result<()> {
    let Ok(out) = dir.canonicalize() else {
        return Ok(());
    };
    for (key, file) in &model.input_files {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        let folder = file.parent().and_then(|p| {
            let p = if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            };
            p.canonicalize().ok()
        });
        if let (Some(name), Some(folder)) = (name, folder) {
            if folder == out && crate::io::names::is_run_file(&name) {
                return Err(InputError::new(format!(
                    "{key} names {}, which this run would write over in its output folder {}: \
                     move the input, or give --out another folder",
                    file.display(),
                    dir.display()
                ))
                .into());
            }
        }
    }
    Ok(())
}

/// The series of the checkpoint's run, continued; a refusal names the checkpoint, whose
/// record of them does not match the folder or the scenario.
fn resume_series(dir: &Path, model: &Model, r: &Restart) -> Result<Series> {
    Series::resume(dir, model, &r.series).map_err(|e| match e {
        Error::Input(i) if i.file.is_none() => i.in_file(&r.file).into(),
        Error::Input(mut i) => {
            i.message = format!("{} (restarting from {})", i.message, r.file.display());
            i.into()
        }
        other => other,
    })
}

/// An exclusive lock on the folder's lock file, which then names this process.
fn lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_NAME);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    if let Err(e) = try_lock(&file) {
        if e.kind() != std::io::ErrorKind::WouldBlock {
            // Some network file systems lock nothing: say so and go on.
            crate::say!(
                "note: {}: cannot lock it ({e}); make sure no other run writes into {}",
                path.display(),
                dir.display()
            );
            return Ok(file);
        }
        let mut holder = String::new();
        let _ = (&file).take(256).read_to_string(&mut holder);
        let holder = match holder.trim() {
            "" => "another quadflood run".to_string(),
            h => format!("another quadflood run, {h}"),
        };
        return Err(InputError::new(format!(
            "the output folder is in use by {holder}: wait for it to end, or choose another --out"
        ))
        .in_file(dir)
        .into());
    }
    let me = format!(
        "pid {} on {}\n",
        std::process::id(),
        crate::provenance::hostname()
    );
    let written = file.set_len(0).and_then(|()| file.write_all(me.as_bytes()));
    written.map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    Ok(file)
}

#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    match unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> std::io::Result<()> {
    Ok(())
}

/// What a restart keeps: what the checkpoint's run had written, and the checkpoint.
fn kept_by(dir: &Path, r: &Restart) -> HashSet<String> {
    let mut keep: HashSet<String> = r.files.iter().cloned().collect();
    let same_dir = |a: &Path| a.canonicalize().ok() == dir.canonicalize().ok();
    if let (Some(parent), Some(name)) = (r.file.parent(), r.file.file_name()) {
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        if same_dir(parent) {
            keep.insert(name.to_string_lossy().into_owned());
        }
    }
    keep
}

/// Refuses (exit code 2) a folder holding a file under the name of the run's log or
/// resolved scenario that a run did not write (a batch job's own `run.log`): clearing it
/// would delete the user's file, and writing on would mix the two.
fn refuse_foreign(dir: &Path) -> Result<()> {
    for (name, start) in [
        (RUN_LOG, RUN_LOG_START),
        (RESOLVED_SCENARIO, RESOLVED_SCENARIO_START),
    ] {
        let path = dir.join(name);
        let Ok(file) = File::open(&path) else {
            continue;
        };
        let mut head = Vec::new();
        let _ = file.take(start.len() as u64).read_to_end(&mut head);
        if head != start.as_bytes() {
            return Err(InputError::new(format!(
                "the output folder holds a {name} that no quadflood run wrote, and a run writes its own there: move it, or choose another --out"
            ))
            .in_file(&path)
            .into());
        }
    }
    Ok(())
}

/// Whether `name` in `check/` is a map the run writes there (or its temporary).
fn is_check_file(name: &str) -> bool {
    let inner = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(crate::io::durable::TEMPORARY_SUFFIX))
        .unwrap_or(name);
    inner.rsplit_once('.').is_some_and(|(stem, ext)| {
        let map = CHECK_MAPS.contains(&stem) || [LOSSES_MAP, LOSSES_SECOND_MAP].contains(&stem);
        map && ["tif", "asc", "prj"].contains(&ext)
    })
}

/// Removes the run files in `dir` not in `keep` (and every temporary of ours), and the
/// check maps, which each run writes again; returns how many went.
fn clear(dir: &Path, keep: &HashSet<String>) -> std::io::Result<usize> {
    let mut cleared = 0;
    let check = dir.join(CHECK_DIR);
    if check.is_dir() {
        for entry in std::fs::read_dir(&check)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_check_file(&name) && entry.file_type()?.is_file() {
                std::fs::remove_file(entry.path())?;
            }
        }
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !crate::io::names::is_run_file(&name) || keep.contains(&name) {
            continue;
        }
        if entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
            cleared += usize::from(!name.starts_with('.'));
        }
    }
    Ok(cleared)
}

#[cfg(test)]
mod tests {
    /// The loss maps are the run's own as much as the others: a later run clears them and
    /// the summary lists them (they were left out of both).
    #[test]
    fn check_files_are_the_maps_a_run_writes_there() {
        for name in [
            "bed.tif",
            "forcing_cells.asc",
            "losses.tif",
            "losses.asc",
            "losses_2.asc",
            "losses_2.prj",
        ] {
            assert!(super::is_check_file(name), "{name}");
        }
        for name in ["notes.txt", "losses_3.asc", "bed.csv"] {
            assert!(!super::is_check_file(name), "{name}");
        }
    }
}

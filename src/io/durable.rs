//! Files that are whole or absent: every output is written under a temporary name beside
//! its final one and renamed only once its writer has reported success, so a full disk, a
//! failed encoder or a killed run never leaves a part-written file under a name that looks
//! finished. (Series files grow as the run goes; `io::series` appends them in whole rows.)

use std::path::{Path, PathBuf};

/// The temporary name `path` is written under: hidden, beside it, on the same file system
/// (so the rename is atomic), and recognised by `io::names` as one of ours to clear away.
pub fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}{TEMPORARY_SUFFIX}"))
}

pub const TEMPORARY_SUFFIX: &str = ".tmp";

/// Writes `path` through `write`, which writes the temporary file it is given. On success
/// the file takes its final name; on failure it is removed and the error names `path`.
pub fn replace<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> std::io::Result<()> {
    let tmp = temporary(path);
    if let Err(e) = write(&tmp) {
        // A full disk must not also keep the part-written file that filled it.
        let _ = std::fs::remove_file(&tmp);
        return Err(std::io::Error::other(format!("{}: {e}", path.display())));
    }
    std::fs::rename(&tmp, path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// `replace` with bytes.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, |tmp| std::fs::write(tmp, bytes))
}

/// Makes a rename in `dir` survive a crash of the machine (not only of the process).
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_writer_leaves_neither_the_file_nor_its_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.asc");
        std::fs::write(&path, "the earlier map").unwrap();
        let e = replace(&path, |tmp| {
            std::fs::write(tmp, "half")?;
            Err(std::io::Error::other("File too large"))
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("map.asc") && e.contains("too large"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "the earlier map");
        assert!(!temporary(&path).exists());
        write_bytes(&path, b"whole").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
        assert_eq!(
            temporary(&path).file_name().unwrap(),
            std::ffi::OsStr::new(".map.asc.tmp")
        );
    }
}

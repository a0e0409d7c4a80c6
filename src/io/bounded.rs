//! Reads with a size bound. A path can name an endless device (`/dev/zero`), a pipe or a
//! sparse file of terabytes: every input is read to at most what its format can hold, and
//! past that the read stops at once with an error that names the file.

use crate::error::InputError;
use std::io::Read;
use std::path::Path;

/// Largest scenario file (TOML): polygons typed out run to megabytes, not more.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;
/// Largest CSV series: ten million rows of time and value.
pub const MAX_SERIES_BYTES: u64 = 256 << 20;
/// Longest line of a CSV series.
pub const MAX_SERIES_LINE: usize = 64 << 10;
/// Largest `.prj` (a CRS in WKT is a few kilobytes).
pub const MAX_PRJ_BYTES: u64 = 64 << 10;
/// Largest vector file (GeoJSON, KML, GeoPackage, ...) a line or polygon is read from.
pub const MAX_VECTOR_BYTES: u64 = 2 << 30;

fn mib(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

/// The error for a file past its bound: `what` says what such a file may hold.
pub fn too_large(path: &Path, max: u64, what: &str) -> InputError {
    InputError::new(format!(
        "the file is larger than {} ({what}): is it the file you meant?",
        mib(max)
    ))
    .in_file(path)
}

/// The first `max + 1` bytes at most of `path`; `Ok(None)` when the file holds more than
/// `max`. A regular file's size is looked at first, so a huge one is refused unread.
fn read_at_most(path: &Path, max: u64) -> Result<Option<Vec<u8>>, InputError> {
    let fail = |e: std::io::Error| InputError::new(format!("cannot read: {e}")).in_file(path);
    let file = std::fs::File::open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if meta.is_dir() {
        return Err(InputError::new("cannot read: it is a folder, not a file").in_file(path));
    }
    if meta.is_file() && meta.len() > max {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(fail)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// The whole of a text file of at most `max` bytes; `what` says what such a file may
/// hold, for the error.
pub fn read_text(path: &Path, max: u64, what: &str) -> Result<String, InputError> {
    let bytes = read_at_most(path, max)?.ok_or_else(|| too_large(path, max, what))?;
    String::from_utf8(bytes).map_err(|e| {
        InputError::new(format!(
            "cannot read: not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to() + 1
        ))
        .in_file(path)
    })
}

/// At most the first `n` bytes of a file, as text (a cut character at the end is
/// dropped, an invalid one replaced).
pub fn read_prefix(path: &Path, n: u64) -> Result<String, InputError> {
    let fail = |e: std::io::Error| InputError::new(format!("cannot read: {e}")).in_file(path);
    let file = std::fs::File::open(path).map_err(fail)?;
    if file.metadata().map_err(fail)?.is_dir() {
        return Err(InputError::new("cannot read: it is a folder, not a file").in_file(path));
    }
    let mut bytes = Vec::new();
    file.take(n).read_to_end(&mut bytes).map_err(fail)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Checks that a file handed to GDAL is a file of at most `max` bytes (or a folder, as some
/// formats are): GDAL's readers cannot be bounded, and some read a device such as
/// /dev/zero without end.
pub fn gdal_input(path: &Path, max: u64, what: &str) -> Result<(), InputError> {
    let meta = std::fs::metadata(path).map_err(|e| {
        InputError::new(format!("cannot read: {}", plain_io_error(&e))).in_file(path)
    })?;
    if meta.is_dir() {
        return Ok(());
    }
    if !meta.is_file() {
        return Err(InputError::new(
            "not a regular file (a device, pipe or socket): quadflood reads its inputs from files",
        )
        .in_file(path));
    }
    if meta.len() > max {
        return Err(too_large(path, max, what));
    }
    Ok(())
}

/// An I/O error's text without its "(os error N)" tail.
fn plain_io_error(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(k) => text[..k].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_their_bound() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.txt");
        std::fs::write(&small, "abc").unwrap();
        assert_eq!(read_text(&small, 3, "three bytes").unwrap(), "abc");
        let e = read_text(&small, 2, "two bytes").unwrap_err().to_string();
        assert!(e.contains("small.txt") && e.contains("larger than"), "{e}");
        let zero = Path::new("/dev/zero");
        let e = read_text(zero, 1 << 20, "a test").unwrap_err().to_string();
        assert!(
            e.contains("/dev/zero") && e.contains("larger than 1 MiB"),
            "{e}"
        );
        assert_eq!(read_prefix(zero, 10).unwrap().len(), 10);
        let e = gdal_input(zero, 1 << 20, "a test").unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let e = gdal_input(&dir.path().join("absent"), 1, "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot read: No such file or directory"), "{e}");
        std::fs::write(&small, [b'a', 0xff, b'b']).unwrap();
        let e = read_text(&small, 10, "text").unwrap_err().to_string();
        assert!(e.contains("not UTF-8") && e.contains("byte 2"), "{e}");
    }
}

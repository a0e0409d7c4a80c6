//! ESRI ASCII grids (.asc): the simplest raster every GIS reads.
//!
//! Errors name the file and either the header key or the line, so a user can fix a grid
//! by hand. Data rows may wrap across lines: we count values, not lines.
//!
//! One concept kept whole: the reader and the writer, which must agree to the last digit,
//! with the tests that hold them to it (the last third of the file).

use crate::error::InputError;
use std::io::{BufWriter, Write};
use std::path::Path;

/// A georeferenced raster held in f64. Row 0 is the SOUTH (bottom) row and x grows east;
/// ESRI ASCII files store the north row first, so reading and writing flip the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Raster {
    pub ncols: usize,
    pub nrows: usize,
    /// Lower-left corner of the lower-left cell.
    pub xll: f64,
    pub yll: f64,
    pub cellsize: f64,
    pub nodata: Option<f64>,
    pub data: Vec<f64>,
}

impl Raster {
    pub fn new(
        ncols: usize,
        nrows: usize,
        xll: f64,
        yll: f64,
        cellsize: f64,
        nodata: Option<f64>,
        fill: f64,
    ) -> Self {
        Raster {
            ncols,
            nrows,
            xll,
            yll,
            cellsize,
            nodata,
            data: vec![fill; ncols * nrows],
        }
    }

    pub fn get(&self, col: usize, row: usize) -> f64 {
        self.data[col + self.ncols * row]
    }

    pub fn set(&mut self, col: usize, row: usize, v: f64) {
        self.data[col + self.ncols * row] = v;
    }

    /// NaN counts as nodata too.
    pub fn is_nodata(&self, v: f64) -> bool {
        self.header().is_nodata(v)
    }

    pub fn header(&self) -> GridHeader {
        GridHeader {
            ncols: self.ncols,
            nrows: self.nrows,
            xll: self.xll,
            yll: self.yll,
            cellsize: self.cellsize,
            nodata: self.nodata,
        }
    }
}

/// Where a raster lies and its nodata value: a `Raster` without its values, for maps
/// whose values are computed as they are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridHeader {
    pub ncols: usize,
    pub nrows: usize,
    pub xll: f64,
    pub yll: f64,
    pub cellsize: f64,
    pub nodata: Option<f64>,
}

impl GridHeader {
    /// NaN counts as nodata too.
    pub fn is_nodata(&self, v: f64) -> bool {
        v.is_nan() || self.nodata == Some(v)
    }
}

const HEADER_KEYS: [&str; 8] = [
    "ncols",
    "nrows",
    "xllcorner",
    "xllcenter",
    "yllcorner",
    "yllcenter",
    "cellsize",
    "nodata_value",
];

/// Whitespace-separated words with their 1-based line numbers.
struct Tokens<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    words: std::str::SplitWhitespace<'a>,
    /// The line of the last word read; at the end of the file, the last line.
    line: usize,
    peeked: Option<(usize, &'a str)>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens {
            lines: text.lines().enumerate(),
            words: "".split_whitespace(),
            line: 0,
            peeked: None,
        }
    }

    fn next(&mut self) -> Option<(usize, &'a str)> {
        if let Some(t) = self.peeked.take() {
            return Some(t);
        }
        loop {
            if let Some(w) = self.words.next() {
                return Some((self.line, w));
            }
            let (n, l) = self.lines.next()?;
            self.line = n + 1;
            self.words = l.split_whitespace();
        }
    }

    fn peek(&mut self) -> Option<(usize, &'a str)> {
        if self.peeked.is_none() {
            self.peeked = self.next();
        }
        self.peeked
    }
}

/// One header entry as written: lower-case key, line, the value's text and its number.
struct Entry<'a> {
    key: String,
    line: usize,
    raw: &'a str,
    value: f64,
}

struct Header {
    ncols: usize,
    nrows: usize,
    xll: f64,
    yll: f64,
    cellsize: f64,
    nodata: Option<f64>,
}

/// The header lies in a grid's first bytes, in lines no longer than this.
const HEADER_BYTES: u64 = 64 << 10;
const MAX_HEADER_LINE: usize = 1024;
/// Bytes a value may take in the file, with the blanks around it: the file's size is
/// bounded by its header's ncols × nrows.
const MAX_VALUE_BYTES: u64 = 64;

pub fn read_ascii_grid(path: &Path) -> Result<Raster, InputError> {
    let text = read_bounded(path)?;
    // A UTF-8 byte order mark, as Windows editors save text: "ncols" behind it was not
    // found.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut tokens = Tokens::new(text);
    let entries = read_header_entries(&mut tokens, path)?;
    let h = check_header(&entries, path)?;
    let mut data = read_values(&mut tokens, &h, text.len(), path)?;
    flip_rows(&mut data, h.ncols);
    Ok(Raster {
        ncols: h.ncols,
        nrows: h.nrows,
        xll: h.xll,
        yll: h.yll,
        cellsize: h.cellsize,
        nodata: h.nodata,
        data,
    })
}

/// The file's text, read only as far as its header says it can reach: a path to an endless
/// device or a huge file ends at once, with an error naming it.
fn read_bounded(path: &Path) -> Result<String, InputError> {
    let head = crate::io::bounded::read_prefix(path, HEADER_BYTES)?;
    let first = head.split('\n').next().unwrap_or("");
    if first.len() > MAX_HEADER_LINE {
        return Err(InputError::new(format!(
            "line 1 is longer than {MAX_HEADER_LINE} bytes: expected an ESRI ASCII grid header \
             (ncols, nrows, xllcorner, yllcorner, cellsize, one per line)"
        ))
        .in_file(path));
    }
    // Whole lines only, when the file goes on past the prefix.
    let lines = match head.rfind('\n') {
        Some(k) if head.len() as u64 >= HEADER_BYTES => &head[..k + 1],
        _ => &head,
    };
    let lines = lines.strip_prefix('\u{feff}').unwrap_or(lines);
    let h = check_header(&read_header_entries(&mut Tokens::new(lines), path)?, path)?;
    let values = (h.ncols as u64).saturating_mul(h.nrows as u64);
    let max = HEADER_BYTES.saturating_add(values.saturating_mul(MAX_VALUE_BYTES));
    crate::io::bounded::read_text(
        path,
        max,
        &format!(
            "its header's {} x {} values at {MAX_VALUE_BYTES} bytes each at most",
            h.ncols, h.nrows
        ),
    )
}

/// Reads `key value` pairs until the first word that is not a header key.
fn read_header_entries<'a>(
    tokens: &mut Tokens<'a>,
    path: &Path,
) -> Result<Vec<Entry<'a>>, InputError> {
    let fail = |key: &str, m: String| InputError::new(m).in_file(path).at_key(key);
    let mut entries: Vec<Entry> = Vec::new();
    while let Some((line, word)) = tokens.peek() {
        let key = word.to_ascii_lowercase();
        if !HEADER_KEYS.contains(&key.as_str()) {
            // A word that is neither a key nor a number ("nan" parses) is a misspelt key.
            if word.parse::<f64>().is_err() && word.starts_with(|c: char| c.is_alphabetic()) {
                return Err(InputError::new(format!(
                    "line {line}: expected a header key ({}) or the first value, found {word:?}",
                    HEADER_KEYS.join(", ")
                ))
                .in_file(path));
            }
            break;
        }
        tokens.next();
        // The value must sit on the key's line: otherwise we would eat the first data value.
        let raw = match tokens.peek() {
            Some((l, raw)) if l == line => raw,
            _ => {
                return Err(fail(
                    &key,
                    format!("line {line}: expected a value after the key"),
                ))
            }
        };
        tokens.next();
        let value = raw.parse::<f64>().map_err(|_| {
            fail(
                &key,
                format!("line {line}: expected a number, found {raw:?}"),
            )
        })?;
        if let Some((l, extra)) = tokens.peek().filter(|(l, _)| *l == line) {
            return Err(fail(
                &key,
                format!("line {l}: expected one value, found another: {extra:?}"),
            ));
        }
        if let Some(first) = entries.iter().find(|e| e.key == key) {
            return Err(fail(
                &key,
                format!("line {line}: given twice (first on line {})", first.line),
            ));
        }
        entries.push(Entry {
            key,
            line,
            raw,
            value,
        });
    }
    Ok(entries)
}

/// Turns the header entries into sizes and georeferencing, checking each.
fn check_header(entries: &[Entry], path: &Path) -> Result<Header, InputError> {
    let fail = |key: &str, m: String| InputError::new(m).in_file(path).at_key(key);
    let find = |key: &str| entries.iter().find(|e| e.key == key);
    let required = |key: &str| find(key).ok_or_else(|| fail(key, "missing from the header".into()));
    let count = |key: &str| -> Result<usize, InputError> {
        let e = required(key)?;
        if e.value < 1.0 || e.value.fract() != 0.0 || e.value > u32::MAX as f64 {
            return Err(fail(
                key,
                format!(
                    "line {}: expected a positive whole number, found {}",
                    e.line, e.raw
                ),
            ));
        }
        Ok(e.value as usize)
    };
    let (ncols, nrows) = (count("ncols")?, count("nrows")?);
    if ncols.checked_mul(nrows).is_none() {
        return Err(fail(
            "nrows",
            format!("ncols × nrows = {ncols} × {nrows} is too large"),
        ));
    }
    let cs = required("cellsize")?;
    if !(cs.value > 0.0 && cs.value.is_finite()) {
        return Err(fail(
            "cellsize",
            format!(
                "line {}: expected a positive number, found {}",
                cs.line, cs.raw
            ),
        ));
    }
    let corner = |corner: &str, centre: &str| -> Result<f64, InputError> {
        let (e, shift) = match (find(corner), find(centre)) {
            (Some(_), Some(c)) => {
                let m = format!("line {}: give {corner} or {centre}, not both", c.line);
                return Err(fail(centre, m));
            }
            (Some(e), None) => (e, 0.0),
            // A centre names the middle of the lower-left cell; we keep its corner.
            (None, Some(e)) => (e, cs.value / 2.0),
            (None, None) => {
                return Err(fail(
                    corner,
                    format!("missing from the header (or {centre})"),
                ))
            }
        };
        if !e.value.is_finite() {
            let m = format!("line {}: expected a finite number, found {}", e.line, e.raw);
            return Err(fail(&e.key, m));
        }
        Ok(e.value - shift)
    };
    Ok(Header {
        ncols,
        nrows,
        xll: corner("xllcorner", "xllcenter")?,
        yll: corner("yllcorner", "yllcenter")?,
        cellsize: cs.value,
        nodata: find("nodata_value").map(|e| e.value),
    })
}

/// Reads exactly ncols × nrows values in file order (north row first).
fn read_values(
    tokens: &mut Tokens,
    h: &Header,
    text_len: usize,
    path: &Path,
) -> Result<Vec<f64>, InputError> {
    let fail = |m: String| InputError::new(m).in_file(path);
    let n = h.ncols * h.nrows;
    // A header can claim more values than the file could hold: size by the text instead.
    let mut data = Vec::with_capacity(n.min(text_len / 2 + 1));
    while data.len() < n {
        let (row, found) = (data.len() / h.ncols + 1, data.len() % h.ncols);
        let Some((line, word)) = tokens.next() else {
            return Err(fail(format!(
                "line {}: expected {} values in row {row} of {}, found {found} before the end of the file",
                tokens.line, h.ncols, h.nrows
            )));
        };
        let v = word.parse::<f64>().map_err(|_| {
            fail(format!(
                "line {line}: expected a number (row {row}, value {}), found {word:?}",
                found + 1
            ))
        })?;
        data.push(v);
    }
    if let Some((line, word)) = tokens.next() {
        return Err(fail(format!(
            "line {line}: expected {n} values (ncols {} × nrows {}), found more: {word:?}",
            h.ncols, h.nrows
        )));
    }
    Ok(data)
}

/// Reverses the order of the rows in place (north-first ↔ south-first).
fn flip_rows(data: &mut [f64], ncols: usize) {
    let nrows = data.len() / ncols;
    for r in 0..nrows / 2 {
        let (top, bottom) = data.split_at_mut((nrows - 1 - r) * ncols);
        top[r * ncols..(r + 1) * ncols].swap_with_slice(&mut bottom[..ncols]);
    }
}

/// Writes the raster north row first. Values go out as f32 text (the shortest that reads
/// back to the same f32); nodata cells go out as the nodata value's own f64 text, so they
/// still match it exactly when read back.
pub fn write_ascii_grid(path: &Path, r: &Raster) -> std::io::Result<()> {
    crate::io::durable::replace(path, |tmp| {
        write_ascii_values(tmp, &r.header(), |col, row| r.get(col, row))
    })
}

/// `write_ascii_grid` of the values `value(col, row)` (row 0 south), computed row by row
/// as they are written, to `path` itself: the caller gives it a temporary name.
pub fn write_ascii_values(
    path: &Path,
    r: &GridHeader,
    value: impl Fn(usize, usize) -> f64,
) -> std::io::Result<()> {
    let mut f = BufWriter::with_capacity(1 << 16, std::fs::File::create(path)?);
    writeln!(f, "ncols {}", r.ncols)?;
    writeln!(f, "nrows {}", r.nrows)?;
    writeln!(f, "xllcorner {}", r.xll)?;
    writeln!(f, "yllcorner {}", r.yll)?;
    writeln!(f, "cellsize {}", r.cellsize)?;
    let nodata_text = r.nodata.map(|v| v.to_string());
    if let Some(nd) = &nodata_text {
        writeln!(f, "NODATA_value {nd}")?;
    }
    let mut line = Vec::new();
    let mut digits = zmij::Buffer::new();
    for row in (0..r.nrows).rev() {
        line.clear();
        for col in 0..r.ncols {
            if col > 0 {
                line.push(b' ');
            }
            let v = value(col, row);
            match &nodata_text {
                Some(nd) if r.is_nodata(v) => line.extend_from_slice(nd.as_bytes()),
                _ => push_f32(&mut line, v as f32, &mut digits),
            }
        }
        line.push(b'\n');
        f.write_all(&line)?;
    }
    f.flush()
}

/// Appends `v` as `format!("{v}")` writes it (the shortest text that reads back to the
/// same f32, never in exponent form), from zmij's digits: std's formatting machinery took
/// most of the time of writing a large map.
fn push_f32(out: &mut Vec<u8>, v: f32, digits: &mut zmij::Buffer) {
    if !v.is_finite() {
        out.extend_from_slice(v.to_string().as_bytes());
        return;
    }
    let text = digits.format_finite(v).as_bytes();
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e' || b == b'E') {
        Some(e) => (&text[..e], parse_exponent(&text[e + 1..])),
        None => (text, 0),
    };
    // The value is 0.d1d2...dn × 10^before_point: the significant digits without leading
    // zeros (an f32 has at most 39 digits before its point).
    let mut significant = [0u8; 64];
    let (mut n, mut before_point, mut past_point) = (0, exponent, false);
    for &b in mantissa {
        if b == b'.' {
            past_point = true;
            continue;
        }
        before_point += i32::from(!past_point);
        if n == 0 && b == b'0' {
            before_point -= 1;
        } else {
            significant[n] = b;
            n += 1;
        }
    }
    while n > 0 && significant[n - 1] == b'0' {
        n -= 1;
    }
    if exact_digits(v).is_some_and(|exact| exact == n + 1) {
        // Midway between two shortest candidates: std rounds the tie up, zmij to even.
        // Rare: the value's exact decimal is one digit longer than the shortest.
        out.extend_from_slice(v.to_string().as_bytes());
        return;
    }
    let significant = &significant[..n];
    if negative {
        out.push(b'-');
    }
    if significant.is_empty() {
        out.push(b'0');
    } else if before_point <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-before_point) as usize));
        out.extend_from_slice(significant);
    } else if (before_point as usize) < n {
        let (whole, fraction) = significant.split_at(before_point as usize);
        out.extend_from_slice(whole);
        out.push(b'.');
        out.extend_from_slice(fraction);
    } else {
        out.extend_from_slice(significant);
        out.extend(std::iter::repeat_n(b'0', before_point as usize - n));
    }
}

/// Significant digits of the exact decimal value of `v` (finite), where there are at most
/// 38 of them; None for longer expansions.
fn exact_digits(v: f32) -> Option<usize> {
    let bits = v.to_bits();
    let (biased, fraction) = ((bits >> 23) & 0xff, bits & 0x7f_ffff);
    let (mut m, mut q) = match biased {
        0 => (fraction as u128, -149i32),
        _ => ((fraction | 0x80_0000) as u128, biased as i32 - 150),
    };
    if m == 0 {
        return Some(0);
    }
    if q < 0 {
        let twos = m.trailing_zeros().min(q.unsigned_abs());
        m >>= twos;
        q += twos as i32;
    }
    // v = m 2^q; with q < 0, v = m 5^-q / 10^-q, whose significant digits are m 5^-q's.
    let mut n = match q {
        0.. => m.checked_shl(q as u32).filter(|&n| n >> q == m)?,
        _ => 5u128
            .checked_pow(q.unsigned_abs())
            .and_then(|p| p.checked_mul(m))?,
    };
    while n % 10 == 0 {
        n /= 10;
    }
    Some(n.ilog10() as usize + 1)
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        Some((b'+', rest)) => (1, rest),
        _ => (1, text),
    };
    sign * digits.iter().fold(0i32, |e, &d| 10 * e + (d - b'0') as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn display_of(v: f32) -> String {
        let mut out = Vec::new();
        push_f32(&mut out, v, &mut zmij::Buffer::new());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn values_are_written_as_std_displays_them() {
        let special = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1.5e-7,
            123456.79,
            1e20,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            f32::EPSILON,
            1.4e-45,
            -9999.0,
            16777216.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for v in special {
            assert_eq!(display_of(v), v.to_string(), "{:e}", v);
        }
        // Every power of two and a spread of bit patterns over the whole range.
        let mut bits = 0x9E37_79B9u32;
        for k in 0..400_000u32 {
            bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let v = f32::from_bits(if k < 254 { (k + 1) << 23 } else { bits });
            assert_eq!(display_of(v), v.to_string(), "bits {:#x}", v.to_bits());
        }
    }

    /// Every f32 (minutes on two cores): `cargo test --release --lib every_f32 -- --ignored`.
    #[test]
    #[ignore]
    fn every_f32_is_written_as_std_displays_it() {
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get()) as u64;
        std::thread::scope(|s| {
            for t in 0..threads {
                s.spawn(move || {
                    let mut digits = zmij::Buffer::new();
                    let (mut out, mut std) = (Vec::new(), String::new());
                    let span = (1u64 << 32) / threads;
                    for bits in t * span..(t + 1) * span {
                        let v = f32::from_bits(bits as u32);
                        out.clear();
                        push_f32(&mut out, v, &mut digits);
                        std.clear();
                        use std::fmt::Write;
                        write!(std, "{v}").unwrap();
                        assert_eq!(out, std.as_bytes(), "bits {bits:#x}");
                    }
                });
            }
        });
    }
    use std::path::PathBuf;

    const HEAD: &str = "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Raster::new(4, 3, 500000.25, 4100000.5, 2.5, Some(-9999.0), 0.0);
        for (c, v) in r.data.iter_mut().enumerate() {
            *v = (c as f32 * 0.1 + 1.0 / 3.0) as f64; // values that need every f32 digit
        }
        r.set(3, 2, -9999.0);
        r.set(2, 2, f64::NAN); // NaN is nodata: it goes out as the nodata value
        let out = dir.path().join("rt.asc");
        write_ascii_grid(&out, &r).unwrap();
        let back = read_ascii_grid(&out).unwrap();
        assert_eq!((back.ncols, back.nrows), (4, 3));
        assert_eq!(
            (back.xll, back.yll, back.cellsize),
            (r.xll, r.yll, r.cellsize)
        );
        assert_eq!(back.nodata, Some(-9999.0));
        for (c, (a, b)) in r.data.iter().zip(&back.data).enumerate() {
            if r.is_nodata(*a) {
                assert_eq!(*b, -9999.0, "cell {c}");
            } else {
                assert_eq!(*a as f32, *b as f32, "cell {c}");
            }
        }
        // Without nodata the header has no NODATA_value line.
        let plain = Raster::new(2, 1, 0.0, 0.0, 1.0, None, 1.5);
        write_ascii_grid(&out, &plain).unwrap();
        assert!(!std::fs::read_to_string(&out).unwrap().contains("NODATA"));
        assert_eq!(read_ascii_grid(&out).unwrap(), plain);
    }

    #[test]
    fn odd_nodata_values_still_match_after_a_round_trip() {
        // -3.4028234663852886e38 (f32::MIN as f64) is a common GDAL nodata value.
        let dir = tempfile::tempdir().unwrap();
        let nd = f32::MIN as f64;
        let r = Raster::new(2, 2, 0.0, 0.0, 1.0, Some(nd), nd);
        let out = dir.path().join("nd.asc");
        write_ascii_grid(&out, &r).unwrap();
        let back = read_ascii_grid(&out).unwrap();
        assert!(back.data.iter().all(|&v| back.is_nodata(v)));
    }

    #[test]
    fn the_first_file_row_is_the_north_row() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "o.asc", &format!("{HEAD}1 2 3\n4 5 6\n"));
        let r = read_ascii_grid(&p).unwrap();
        assert_eq!(r.get(0, 1), 1.0, "north-west");
        assert_eq!(r.get(2, 1), 3.0, "north-east");
        assert_eq!(r.get(0, 0), 4.0, "south-west");
        assert_eq!(r.data, vec![4.0, 5.0, 6.0, 1.0, 2.0, 3.0]);
        // Writing puts row 0 (south) last.
        let mut s = Raster::new(2, 3, 0.0, 0.0, 1.0, None, 0.0);
        s.set(0, 0, 7.0);
        s.set(1, 2, 9.0);
        let out = dir.path().join("w.asc");
        write_ascii_grid(&out, &s).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let rows: Vec<&str> = text.lines().skip(5).collect();
        assert_eq!(rows, ["0 9", "0 0", "7 0"]);
    }

    /// Saved by a Windows editor, with a byte order mark and CRLF: "ncols" behind the mark
    /// was reported missing from the header.
    #[test]
    fn a_grid_with_a_byte_order_mark_reads() {
        let dir = tempfile::tempdir().unwrap();
        let text =
            "\u{feff}ncols 2\r\nnrows 1\r\nxllcorner 0\r\nyllcorner 0\r\ncellsize 1\r\n5 6\r\n";
        let r = read_ascii_grid(&write(dir.path(), "bom.asc", text)).unwrap();
        assert_eq!(r.data, vec![5.0, 6.0]);
    }

    #[test]
    fn centre_coordinates_any_case_and_wrapped_rows() {
        let dir = tempfile::tempdir().unwrap();
        let text = "NCOLS 2\nNRows 2\nXLLCENTER 10.5\nyllCenter 20.5\nCellSize 1\nNODATA_VALUE -1\n1\n2 3\n  4\n\n";
        let r = read_ascii_grid(&write(dir.path(), "c.asc", text)).unwrap();
        assert_eq!((r.xll, r.yll, r.nodata), (10.0, 20.0, Some(-1.0)));
        assert_eq!(r.data, vec![3.0, 4.0, 1.0, 2.0]);
    }

    #[test]
    fn a_large_grid_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Raster::new(600, 400, 0.0, 0.0, 1.0, Some(-9999.0), 0.0);
        for (c, v) in r.data.iter_mut().enumerate() {
            *v = ((c % 977) as f32 * 0.37).sin() as f64;
        }
        let out = dir.path().join("big.asc");
        write_ascii_grid(&out, &r).unwrap();
        let back = read_ascii_grid(&out).unwrap();
        assert_eq!((back.ncols, back.nrows), (r.ncols, r.nrows));
        let same = |(a, b): (&f64, &f64)| *a as f32 == *b as f32;
        assert!(
            r.data.iter().zip(&back.data).all(same),
            "values differ in f32"
        );
    }

    /// (file name, contents, what the message must say).
    const BAD: [(&str, &str, &str); 16] = [
        (
            "short.asc",
            "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5\n",
            "line 7: expected 3 values in row 2 of 2, found 2",
        ),
        (
            "empty_rows.asc",
            "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n",
            "line 5: expected 3 values in row 1 of 2, found 0",
        ),
        (
            "word.asc",
            "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 x 6\n",
            "line 7: expected a number (row 2, value 2), found \"x\"",
        ),
        (
            "long.asc",
            "ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1\n\n2\n",
            "line 8: expected 1 values (ncols 1 × nrows 1), found more",
        ),
        (
            "cell.asc",
            "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize -5\n1 2\n",
            "`cellsize`: line 5: expected a positive number, found -5",
        ),
        (
            "cols.asc",
            "ncols 0\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n",
            "`ncols`: line 1: expected a positive whole number, found 0",
        ),
        (
            "rows.asc",
            "ncols 2\nnrows 1.5\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n",
            "`nrows`: line 2: expected a positive whole number, found 1.5",
        ),
        (
            "no_rows.asc",
            "ncols 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n",
            "`nrows`: missing from the header",
        ),
        (
            "no_x.asc",
            "ncols 2\nnrows 1\nyllcorner 0\ncellsize 1\n1 2\n",
            "`xllcorner`: missing from the header (or xllcenter)",
        ),
        (
            "no_cell.asc",
            "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\n1 2\n",
            "`cellsize`: missing from the header",
        ),
        (
            "text.asc",
            "ncols 2\nnrows 1\nxllcorner west\nyllcorner 0\ncellsize 1\n1 2\n",
            "`xllcorner`: line 3: expected a number, found \"west\"",
        ),
        (
            "bare.asc",
            "ncols 2\nnrows 1\nxllcorner 0\nyllcorner\n0\ncellsize 1\n1 2\n",
            "`yllcorner`: line 4: expected a value after the key",
        ),
        (
            "twice.asc",
            "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nncols 3\n1 2\n",
            "`ncols`: line 6: given twice (first on line 1)",
        ),
        (
            "both.asc",
            "ncols 2\nnrows 1\nxllcorner 0\nxllcenter 0.5\nyllcorner 0\ncellsize 1\n1 2\n",
            "`xllcenter`: line 4: give xllcorner or xllcenter, not both",
        ),
        (
            "extra.asc",
            "ncols 2 3\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n",
            "`ncols`: line 1: expected one value, found another: \"3\"",
        ),
        (
            "key.asc",
            "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ndx 1\n1 2\n",
            "line 5: expected a header key",
        ),
    ];

    #[test]
    fn every_error_names_the_file_and_the_key_or_line() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text, expect) in BAD {
            let p = write(dir.path(), name, text);
            let e = read_ascii_grid(&p).unwrap_err();
            assert_eq!(e.file.as_deref(), Some(p.as_path()), "{name}");
            let shown = e.to_string();
            assert!(
                shown.contains(name) && shown.contains(expect),
                "{name}: {shown}"
            );
            assert!(
                e.key.is_some() || e.message.starts_with("line "),
                "{name}: {shown}"
            );
        }
        let p = dir.path().join("missing.asc");
        let e = read_ascii_grid(&p).unwrap_err().to_string();
        assert!(
            e.contains("missing.asc") && e.contains("cannot read: No such file or directory"),
            "{e}"
        );
    }
}

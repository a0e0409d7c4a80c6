//! ESRI ASCII grids (.asc): the simplest raster every GIS reads.

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

/// Header values, by lower-case key.
struct Header {
    ncols: usize,
    nrows: usize,
    xll: f64,
    yll: f64,
    cellsize: f64,
    nodata: Option<f64>,
}

fn parse_header(tokens: &mut Tokens, path: &Path) -> Result<Header, InputError> {
    let fail = |key: &str, m: String| InputError::new(m).in_file(path).at_key(key);
    let mut values: Vec<(String, f64, String)> = Vec::new();
    while let Some((line, word)) = tokens.peek() {
        let key = word.to_ascii_lowercase();
        if !HEADER_KEYS.contains(&key.as_str()) {
            break; // the first value ("nan" included)
        }
        tokens.next();
        let (_, raw) = tokens
            .next()
            .ok_or_else(|| fail(&key, format!("line {line}: expected a value")))?;
        let v = raw.parse::<f64>().map_err(|_| {
            fail(
                &key,
                format!("line {line}: expected a number, found {raw:?}"),
            )
        })?;
        values.push((key, v, raw.to_string()));
    }
    let get = |names: &[&str]| {
        values
            .iter()
            .find(|(k, _, _)| names.contains(&k.as_str()))
            .map(|(_, v, _)| *v)
    };
    let count = |key: &str| -> Result<usize, InputError> {
        let v = get(&[key]).ok_or_else(|| fail(key, "missing from the header".into()))?;
        if v < 1.0 || v.fract() != 0.0 {
            return Err(fail(
                key,
                format!("expected a positive whole number, found {v}"),
            ));
        }
        Ok(v as usize)
    };
    let (ncols, nrows) = (count("ncols")?, count("nrows")?);
    let cellsize =
        get(&["cellsize"]).ok_or_else(|| fail("cellsize", "missing from the header".into()))?;
    if !(cellsize > 0.0 && cellsize.is_finite()) {
        return Err(fail(
            "cellsize",
            format!("expected a positive number, found {cellsize}"),
        ));
    }
    let corner = |corner: &str, centre: &str| -> Result<f64, InputError> {
        match (get(&[corner]), get(&[centre])) {
            (Some(v), _) => Ok(v),
            (None, Some(c)) => Ok(c - cellsize / 2.0),
            (None, None) => Err(fail(
                corner,
                format!("missing from the header (or {centre})"),
            )),
        }
    };
    Ok(Header {
        ncols,
        nrows,
        xll: corner("xllcorner", "xllcenter")?,
        yll: corner("yllcorner", "yllcenter")?,
        cellsize,
        nodata: get(&["nodata_value"]),
    })
}

/// Whitespace-separated words with their line numbers.
struct Tokens<'a> {
    words: std::iter::Peekable<Box<dyn Iterator<Item = (usize, &'a str)> + 'a>>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        let it: Box<dyn Iterator<Item = (usize, &'a str)>> = Box::new(
            text.lines()
                .enumerate()
                .flat_map(|(n, l)| l.split_whitespace().map(move |w| (n + 1, w))),
        );
        Tokens {
            words: it.peekable(),
        }
    }
    fn peek(&mut self) -> Option<(usize, &'a str)> {
        self.words.peek().copied()
    }
    fn next(&mut self) -> Option<(usize, &'a str)> {
        self.words.next()
    }
}

pub fn read_ascii_grid(path: &Path) -> Result<Raster, InputError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::new(format!("cannot read: {e}")).in_file(path))?;
    let mut tokens = Tokens::new(&text);
    let h = parse_header(&mut tokens, path)?;
    let mut r = Raster::new(h.ncols, h.nrows, h.xll, h.yll, h.cellsize, h.nodata, 0.0);
    for file_row in 0..h.nrows {
        for col in 0..h.ncols {
            let (line, word) = tokens.next().ok_or_else(|| {
                InputError::new(format!(
                    "expected {} values in {} rows; the file ends in row {} after {col} values",
                    h.ncols * h.nrows,
                    h.nrows,
                    file_row + 1
                ))
                .in_file(path)
            })?;
            let v = word.parse::<f64>().map_err(|_| {
                InputError::new(format!("line {line}: expected a number, found {word:?}"))
                    .in_file(path)
            })?;
            r.set(col, h.nrows - 1 - file_row, v);
        }
    }
    if let Some((line, _)) = tokens.next() {
        return Err(InputError::new(format!(
            "line {line}: more values than ncols × nrows = {}",
            h.ncols * h.nrows
        ))
        .in_file(path));
    }
    Ok(r)
}

pub fn write_ascii_grid(path: &Path, r: &Raster) -> std::io::Result<()> {
    let mut f = BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "ncols {}", r.ncols)?;
    writeln!(f, "nrows {}", r.nrows)?;
    writeln!(f, "xllcorner {}", r.xll)?;
    writeln!(f, "yllcorner {}", r.yll)?;
    writeln!(f, "cellsize {}", r.cellsize)?;
    if let Some(nd) = r.nodata {
        writeln!(f, "NODATA_value {nd}")?;
    }
    let mut line = String::new();
    for row in (0..r.nrows).rev() {
        line.clear();
        for col in 0..r.ncols {
            if col > 0 {
                line.push(' ');
            }
            // f32 Display is the shortest text that reads back to the same f32.
            line.push_str(&(r.get(col, row) as f32).to_string());
        }
        line.push('\n');
        f.write_all(line.as_bytes())?;
    }
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn round_trip_and_orientation() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "a.asc", "ncols 3\nNROWS 2\nxllcorner 10\nyllcorner 20\ncellsize 5\nnodata_value -9999\n1 2 3\n4 5 -9999\n");
        let r = read_ascii_grid(&p).unwrap();
        assert_eq!(
            (r.ncols, r.nrows, r.xll, r.yll, r.cellsize),
            (3, 2, 10.0, 20.0, 5.0)
        );
        assert_eq!(r.get(0, 1), 1.0, "the first file row is the north row");
        assert_eq!(r.get(0, 0), 4.0);
        assert!(r.is_nodata(r.get(2, 0)));
        let out = dir.path().join("b.asc");
        write_ascii_grid(&out, &r).unwrap();
        assert_eq!(read_ascii_grid(&out).unwrap(), r);
        let mut precise = r.clone();
        precise.set(1, 1, 0.1f32 as f64);
        write_ascii_grid(&out, &precise).unwrap();
        assert_eq!(read_ascii_grid(&out).unwrap().get(1, 1) as f32, 0.1f32);
    }

    #[test]
    fn centre_coordinates_and_wrapped_rows() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "c.asc",
            "ncols 2\nnrows 2\nxllcenter 0.5\nyllcenter 0.5\ncellsize 1\n1\n2 3\n4\n",
        );
        let r = read_ascii_grid(&p).unwrap();
        assert_eq!((r.xll, r.yll), (0.0, 0.0));
        assert_eq!(r.data, vec![3.0, 4.0, 1.0, 2.0]);
    }

    #[test]
    fn errors_name_the_file_and_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                "short.asc",
                "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5\n",
                "file ends in row 2",
            ),
            (
                "word.asc",
                "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 x\n",
                "line 6: expected a number",
            ),
            (
                "cell.asc",
                "ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize -5\n1 2\n",
                "`cellsize`: expected a positive number",
            ),
            (
                "cols.asc",
                "ncols 0\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n",
                "`ncols`",
            ),
            (
                "long.asc",
                "ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n",
                "more values",
            ),
        ];
        for (name, text, expect) in cases {
            let p = write(dir.path(), name, text);
            let e = read_ascii_grid(&p).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(expect), "{name}: {e}");
        }
        let e = read_ascii_grid(&dir.path().join("missing.asc"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("missing.asc") && e.contains("cannot read"),
            "{e}"
        );
    }
}

//! The time series a run writes as it goes: one CSV per gauge and cross-section, and the
//! mass balance. Rows wait in memory and are appended in whole rows at every output time,
//! at every checkpoint (then also synced to disk), when a signal stops the run, at its
//! end, and whenever a file's waiting rows pass `FLUSH_BYTES`; a write that fails is cut
//! back, so a file never ends mid-row. A checkpoint records each file's length and CRC-32;
//! a restart checks them, cuts each file back to that length and appends, so that a run
//! stopped and restarted writes the same bytes as one never stopped.

use crate::balance::Balance;
use crate::error::InputError;
use crate::scenario::model::Model;
use crate::scenario::reference::TimeReference;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Rows a file holds in memory before it is appended to anyway.
const FLUSH_BYTES: usize = 64 << 10;

/// What a series file held when a checkpoint was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeriesMark {
    pub file: String,
    pub bytes: u64,
    pub crc32: u32,
}

impl SeriesMark {
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({ "file": self.file, "bytes": self.bytes, "crc32": self.crc32 })
    }

    pub fn from_json(v: &serde_json::Value) -> Option<SeriesMark> {
        Some(SeriesMark {
            file: v["file"].as_str()?.to_string(),
            bytes: v["bytes"].as_u64()?,
            crc32: u32::try_from(v["crc32"].as_u64()?).ok()?,
        })
    }
}

/// One series file, appended in whole rows.
struct SeriesFile {
    name: String,
    path: PathBuf,
    file: File,
    waiting: Vec<u8>,
    /// Bytes in the file, and their CRC-32.
    written: u64,
    crc: crc32fast::Hasher,
}

impl SeriesFile {
    /// A new file holding `header`, which comes into being whole (`io::durable`).
    fn create(dir: &Path, name: &str, header: &str) -> std::io::Result<SeriesFile> {
        let path = dir.join(name);
        let text = format!("{header}\n");
        crate::io::durable::write_bytes(&path, text.as_bytes())?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| named(&path, e))?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(text.as_bytes());
        Ok(SeriesFile {
            name: name.into(),
            path,
            file,
            waiting: Vec::new(),
            written: text.len() as u64,
            crc,
        })
    }

    /// The file as `mark` recorded it, if it still begins so and starts with `header`:
    /// its first `mark.bytes` bytes, read with that bound.
    fn check(dir: &Path, mark: &SeriesMark, header: &str) -> Result<Vec<u8>, InputError> {
        let path = dir.join(&mark.file);
        let fail = |m: String| InputError::new(m).in_file(&path);
        let file = File::open(&path).map_err(|e| {
            fail(format!(
                "cannot read it ({e}); a restart continues the series the checkpoint's run wrote: restart into that run's output folder, or copy its .csv files here"
            ))
        })?;
        let mut kept = Vec::new();
        file.take(mark.bytes)
            .read_to_end(&mut kept)
            .map_err(|e| fail(format!("cannot read it: {e}")))?;
        if (kept.len() as u64) < mark.bytes {
            return Err(fail(format!(
                "it holds {} bytes, fewer than the {} the checkpoint recorded: it is not the series the checkpoint's run wrote",
                kept.len(),
                mark.bytes
            )));
        }
        if crc32fast::hash(&kept) != mark.crc32 {
            return Err(fail(
                "its first rows are not the ones the checkpoint recorded (the file was changed since): restart into the output folder of the run that wrote the checkpoint".into(),
            ));
        }
        if !kept.starts_with(format!("{header}\n").as_bytes()) {
            return Err(fail(format!(
                "it was written for another gauge or section than the scenario's (its header is not {:?})",
                header.lines().next().unwrap_or_default()
            )));
        }
        Ok(kept)
    }

    /// Continues a file `check` passed: cut back to what the checkpoint recorded.
    fn resume(dir: &Path, name: &str, kept: &[u8]) -> std::io::Result<SeriesFile> {
        let path = dir.join(name);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|e| named(&path, e))?;
        file.set_len(kept.len() as u64)
            .and_then(|()| file.seek(std::io::SeekFrom::End(0)).map(|_| ()))
            .map_err(|e| named(&path, e))?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(kept);
        Ok(SeriesFile {
            name: name.into(),
            path,
            file,
            waiting: Vec::new(),
            written: kept.len() as u64,
            crc,
        })
    }

    fn push(&mut self, row: std::fmt::Arguments) -> std::io::Result<()> {
        self.waiting.write_fmt(row)?;
        self.waiting.push(b'\n');
        if self.waiting.len() > FLUSH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends the waiting rows. A failed append is cut back to the rows before it (a
    /// full disk may have taken part of them), so the file ends with a whole row.
    fn flush(&mut self) -> std::io::Result<()> {
        if self.waiting.is_empty() {
            return Ok(());
        }
        if let Err(e) = self.file.write_all(&self.waiting) {
            let _ = self.file.set_len(self.written);
            return Err(named(&self.path, e));
        }
        self.crc.update(&self.waiting);
        self.written += self.waiting.len() as u64;
        self.waiting.clear();
        Ok(())
    }

    fn mark(&self) -> SeriesMark {
        SeriesMark {
            file: self.name.clone(),
            bytes: self.written,
            crc32: self.crc.clone().finalize(),
        }
    }
}

fn named(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// A name as one header line: a gauge called "a\nb" must not start a row.
fn one_line(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Each series file's name and first lines, in the order the run records them: gauges,
/// cross-sections, the mass balance.
fn layout(model: &Model) -> Vec<(String, String)> {
    // With a reference date, each time in seconds is followed by its date.
    let time = match model.time_reference {
        Some(_) => "time_s,time_utc",
        None => "time_s",
    };
    let gauge_names: Vec<String> = model.gauges.iter().map(|g| g.name.clone()).collect();
    let section_names: Vec<String> = model.sections.iter().map(|s| s.name.clone()).collect();
    let gauges = model
        .gauges
        .iter()
        .zip(crate::io::names::distinct_stems(&gauge_names))
        .map(|(g, stem)| {
            let header = format!(
                "# gauge {} at x = {} m, y = {} m\n{time},h_m,u_m_s,v_m_s,eta_m",
                one_line(&g.name),
                g.x,
                g.y
            );
            (format!("gauge_{stem}.csv"), header)
        });
    let sections = model
        .sections
        .iter()
        .zip(crate::io::names::distinct_stems(&section_names))
        .map(|(s, stem)| {
            let header = format!(
                "# cross-section {}: discharge positive to the left of the line's direction\n{time},discharge_m3s",
                one_line(&s.name)
            );
            (format!("section_{stem}.csv"), header)
        });
    // The losses' column only where the scenario has losses: other runs' files stay as
    // they were.
    let losses = if model.losses.any() {
        "infiltrated_m3,"
    } else {
        ""
    };
    let balance = (
        BALANCE.to_string(),
        format!("{time},inflow_m3,outflow_m3,rain_m3,{losses}storage_m3,error_m3,error_rel"),
    );
    let structures = (!model.structures.is_empty()).then(|| {
        let columns: Vec<String> = model
            .structure_names()
            .iter()
            .map(|n| format!("{}_m3s", one_line(n).replace(',', ";")))
            .collect();
        (
            STRUCTURES.to_string(),
            format!(
                "# discharge of each culvert and weir, positive from its inlet (a weir: from the left of its line) to its outlet\n{time},{}",
                columns.join(",")
            ),
        )
    });
    gauges
        .chain(sections)
        .chain(structures)
        .chain([balance])
        .collect()
}

const STRUCTURES: &str = "structures.csv";

const BALANCE: &str = "mass_balance.csv";

/// Every series file of a run.
pub struct Series {
    gauges: Vec<SeriesFile>,
    sections: Vec<SeriesFile>,
    /// Each culvert's and weir's discharge over time, when the scenario has any.
    structures: Option<SeriesFile>,
    /// Mass balance over time (m³): what came in, went out, fell as rain, is stored, and
    /// the error storage - (initial + in - out + rain).
    balance: SeriesFile,
    /// Storage at the start of the run (on a restart: of the run that was restarted).
    initial: Option<f64>,
    /// Dates the rows' times, in a column after the seconds.
    reference: Option<TimeReference>,
    /// The balance has a column of losses to the ground.
    losses: bool,
}

impl Series {
    /// New files in `dir`.
    pub fn create(dir: &Path, model: &Model) -> std::io::Result<Series> {
        let files = layout(model)
            .iter()
            .map(|(name, header)| SeriesFile::create(dir, name, header))
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Series::of(model, files, None))
    }

    /// The files a checkpoint's run wrote, each checked against its mark and only then
    /// cut back to it: a refusal (exit code 2) leaves every file as it was.
    pub fn resume(
        dir: &Path,
        model: &Model,
        marks: &[SeriesMark],
    ) -> Result<Series, crate::error::Error> {
        let expected = layout(model);
        if let Some(extra) = marks
            .iter()
            .find(|m| expected.iter().all(|e| e.0 != m.file))
        {
            return Err(InputError::new(format!(
                "the checkpoint's run wrote {}, which this scenario does not: restart with the scenario (gauges and cross-sections) that wrote the checkpoint",
                extra.file
            ))
            .into());
        }
        let kept = expected
            .iter()
            .map(|(name, header)| match marks.iter().find(|m| &m.file == name) {
                Some(mark) => SeriesFile::check(dir, mark, header),
                None => Err(InputError::new(format!(
                    "the checkpoint's run wrote no {name}: restart with the scenario (gauges and cross-sections) that wrote the checkpoint"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let initial = initial_storage(&kept[kept.len() - 1]);
        let files = expected
            .iter()
            .zip(&kept)
            .map(|((name, _), kept)| SeriesFile::resume(dir, name, kept))
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Series::of(model, files, initial))
    }

    fn of(model: &Model, mut files: Vec<SeriesFile>, initial: Option<f64>) -> Series {
        let balance = files.pop().expect("the mass balance");
        let structures = match model.structures.is_empty() {
            true => None,
            false => files.pop(),
        };
        let sections = files.split_off(model.gauges.len());
        Series {
            gauges: files,
            sections,
            structures,
            balance,
            initial,
            reference: model.time_reference,
            losses: model.losses.any(),
        }
    }

    /// The files' names.
    pub fn file_names(&self) -> Vec<String> {
        self.all().map(|f| f.name.clone()).collect()
    }

    /// Each gauge's name and its file's.
    pub fn gauge_files<'m>(&self, model: &'m Model) -> Vec<(&'m str, String)> {
        model
            .gauges
            .iter()
            .zip(&self.gauges)
            .map(|(g, f)| (g.name.as_str(), f.name.clone()))
            .collect()
    }

    /// One sample per gauge; `cells` holds (h, hu, hv) in gauge order.
    pub fn record_gauges(
        &mut self,
        model: &Model,
        t: f64,
        cells: &[[f32; 3]],
    ) -> std::io::Result<()> {
        let dry = model.numerics.dry_depth as f32;
        let date = self.date(t);
        for ((f, g), s) in self.gauges.iter_mut().zip(&model.gauges).zip(cells) {
            let (h, hu, hv) = (s[0], s[1], s[2]);
            let (u, v) = if h > dry {
                (hu / h, hv / h)
            } else {
                (0.0, 0.0)
            };
            let k = model.grid.storage_index(g.cell.0, g.cell.1);
            let eta = h as f64 + model.bed[k] as f64 + model.datum;
            f.push(format_args!("{t}{date},{h},{u},{v},{eta}"))?;
        }
        Ok(())
    }

    /// One discharge per section.
    pub fn record_sections(&mut self, t: f64, discharges: &[f64]) -> std::io::Result<()> {
        let date = self.date(t);
        for (f, q) in self.sections.iter_mut().zip(discharges) {
            f.push(format_args!("{t}{date},{q}"))?;
        }
        Ok(())
    }

    /// One discharge (m³/s) per culvert and weir (`Model::structure_names`).
    pub fn record_structures(&mut self, t: f64, discharges: &[f64]) -> std::io::Result<()> {
        let date = self.date(t);
        let Some(f) = self.structures.as_mut() else {
            return Ok(());
        };
        let row: Vec<String> = discharges.iter().map(|q| q.to_string()).collect();
        f.push(format_args!("{t}{date},{}", row.join(",")))
    }

    /// A row of the balance at time t: `b` as the run counted it, less the initial water,
    /// which the file keeps (the first row's storage).
    pub fn record_balance(&mut self, t: f64, b: &Balance) -> std::io::Result<()> {
        let b = Balance {
            initial: *self.initial.get_or_insert(b.storage),
            ..*b
        };
        let date = self.date(t);
        let losses = match self.losses {
            true => format!(",{}", b.losses),
            false => String::new(),
        };
        self.balance.push(format_args!(
            "{t}{date},{},{},{}{losses},{},{},{}",
            b.inflow,
            b.outflow,
            b.rain,
            b.storage,
            b.excess(),
            b.error_rel()
        ))
    }

    /// The date column's cell of time `t`, with its comma; nothing without a reference.
    fn date(&self, t: f64) -> String {
        self.reference
            .map_or_else(String::new, |r| format!(",{}", r.utc(t)))
    }

    /// Storage at the start of the run (on a restart: of the run that was restarted).
    pub fn initial(&self) -> Option<f64> {
        self.initial
    }

    fn all_mut(&mut self) -> impl Iterator<Item = &mut SeriesFile> {
        self.gauges
            .iter_mut()
            .chain(&mut self.sections)
            .chain(self.structures.as_mut())
            .chain([&mut self.balance])
    }

    fn all(&self) -> impl Iterator<Item = &SeriesFile> {
        self.gauges
            .iter()
            .chain(&self.sections)
            .chain(self.structures.as_ref())
            .chain([&self.balance])
    }

    /// Appends every waiting row.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.all_mut().try_for_each(SeriesFile::flush)
    }

    /// What each file holds (after `flush`), for a checkpoint.
    pub fn marks(&self) -> Vec<SeriesMark> {
        self.all().map(SeriesFile::mark).collect()
    }

    /// Handles to sync the files to disk with, away from the time loop's thread.
    pub fn sync_handles(&self) -> std::io::Result<Vec<(PathBuf, File)>> {
        self.all()
            .map(|f| Ok((f.path.clone(), f.file.try_clone()?)))
            .collect()
    }
}

/// Syncs the files behind `handles` to disk (before a checkpoint that records them).
pub fn sync(handles: &[(PathBuf, File)]) -> std::io::Result<()> {
    handles
        .iter()
        .try_for_each(|(path, f)| f.sync_data().map_err(|e| named(path, e)))
}

/// The first row's storage in a balance file's text.
fn initial_storage(text: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(text).ok()?;
    let mut lines = text.lines();
    let column = lines.next()?.split(',').position(|c| c == "storage_m3")?;
    lines.next()?.split(',').nth(column)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_append_is_cut_back_to_whole_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = SeriesFile::create(dir.path(), "s.csv", "time_s,q").unwrap();
        f.push(format_args!("1,2")).unwrap();
        f.flush().unwrap();
        let mark = f.mark();
        assert_eq!(mark.bytes, "time_s,q\n1,2\n".len() as u64);
        assert_eq!(mark.crc32, crc32fast::hash(b"time_s,q\n1,2\n"));
        // A file opened read-only stands in for one the disk refuses to grow.
        f.file = File::open(dir.path().join("s.csv")).unwrap();
        f.push(format_args!("3,4")).unwrap();
        assert!(f.flush().unwrap_err().to_string().contains("s.csv"));
        assert_eq!(f.mark(), mark);
        let kept = SeriesFile::check(dir.path(), &mark, "time_s,q").unwrap();
        assert_eq!(kept, b"time_s,q\n1,2\n");
        let other = SeriesMark {
            crc32: mark.crc32 ^ 1,
            ..mark.clone()
        };
        let e = SeriesFile::check(dir.path(), &other, "time_s,q").unwrap_err();
        assert!(e.to_string().contains("s.csv") && e.to_string().contains("changed"));
    }

    #[test]
    fn resuming_cuts_the_file_back_to_the_mark() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = SeriesFile::create(dir.path(), "s.csv", "time_s,q").unwrap();
        f.push(format_args!("1,2")).unwrap();
        f.flush().unwrap();
        let mark = f.mark();
        f.push(format_args!("3,4")).unwrap();
        f.flush().unwrap();
        let kept = SeriesFile::check(dir.path(), &mark, "time_s,q").unwrap();
        let mut g = SeriesFile::resume(dir.path(), "s.csv", &kept).unwrap();
        g.push(format_args!("3,4")).unwrap();
        g.flush().unwrap();
        assert_eq!(f.mark(), g.mark());
        let text = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
        assert_eq!(text, "time_s,q\n1,2\n3,4\n");
    }
}

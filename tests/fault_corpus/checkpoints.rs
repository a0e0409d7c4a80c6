//! Damaged and foreign checkpoints: the reference run's checkpoints with bytes flipped, cut
//! short or extended, a first line or a header value changed (the checksum made to match,
//! as a forger would), restarted with another scenario, replaced by something that is no
//! checkpoint, or restarted into a folder whose series were changed or are missing. Each is
//! refused (exit 2) naming the file, or, where the change cannot matter, runs to the
//! reference's result (or at least a sound one).

use super::case::{arg, Case};
use super::proc::Limits;
use super::reference::{self, Reference};
use super::rng::Rng;
use super::tiny::Series;
use super::verdict::Bound;
use std::path::{Path, PathBuf};

/// What a case expects of its restart.
enum Expect {
    /// Exit 2, the message naming one of these.
    Refused(Vec<String>),
    /// Refused as above, or run to a sound result.
    RefusedOrSound(Vec<String>),
    /// Run to the reference's files, byte for byte.
    Same,
}

/// What the reference run's water can reach: its inflow and rain piled on one cell.
fn bound() -> Bound {
    let inflow = Series {
        times: vec![0.0, 8.0, 40.0],
        values: vec![0.0, 5.0, 1.0],
    };
    let rain = Series {
        times: vec![0.0, 10.0, 30.0],
        values: vec![0.0, 120.0, 0.0],
    };
    let area = 96.0 * 64.0;
    Bound {
        head: None,
        // 0.003 x + 0.2 sin(y/7) at the lowest cell centre is above this.
        lowest_bed: -0.2,
        brought: inflow.integral(0.0, 40.0) + rain.integral(0.0, 40.0) / 3.6e6 * area,
        finest_area: 4.0,
        inflow: None,
        rain: Some(rain.integral(0.0, 40.0) / 3.6e6 * area),
    }
}

/// The checkpoint's first line, header and the bytes after it.
fn split(bytes: &[u8]) -> Option<(String, serde_json::Value, Vec<u8>)> {
    let first = bytes.iter().position(|&b| b == b'\n')?;
    let second = first + 1 + bytes[first + 1..].iter().position(|&b| b == b'\n')?;
    Some((
        String::from_utf8(bytes[..first].to_vec()).ok()?,
        serde_json::from_slice(&bytes[first + 1..second]).ok()?,
        bytes[second + 1..].to_vec(),
    ))
}

/// A checkpoint from its parts, its CRC-32 (the last four bytes) made to match.
fn join(first: &str, header: &str, rest: &[u8]) -> Vec<u8> {
    let mut bytes = format!("{first}\n{header}\n").into_bytes();
    bytes.extend_from_slice(rest);
    seal(&mut bytes);
    bytes
}

fn seal(bytes: &mut [u8]) {
    if bytes.len() >= 4 {
        let body = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
    }
}

const HOSTILE: &[&str] = &[
    "0",
    "-1",
    "1",
    "0.5",
    "-0.0",
    "1e308",
    "-1e308",
    "1e-300",
    "18446744073709551615",
    "-9223372036854775808",
    "4294967296",
    "null",
    "true",
    "\"text\"",
    "\"\"",
    "[]",
    "{}",
    "[0.0, 0.0]",
    "[1e308, -1]",
    "{\"a\": 1}",
    "\"../../x\"",
    "[[[[[[[[[[1]]]]]]]]]]",
];

/// Every path to a value in the header (keys, then indices).
fn value_paths(v: &serde_json::Value, at: &mut Vec<String>, into: &mut Vec<Vec<String>>) {
    match v {
        serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| {
            at.push(k.clone());
            into.push(at.clone());
            value_paths(x, at, into);
            at.pop();
        }),
        serde_json::Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| {
            at.push(i.to_string());
            into.push(at.clone());
            value_paths(x, at, into);
            at.pop();
        }),
        _ => {}
    }
}

fn at_path<'v>(v: &'v mut serde_json::Value, path: &[String]) -> &'v mut serde_json::Value {
    path.iter().fold(v, |v, k| match v {
        serde_json::Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
        _ => &mut v[k.as_str()],
    })
}

/// A header value changed to a hostile one, or removed; the checksum made to match.
fn forge(rng: &mut Rng, bytes: &[u8]) -> (Vec<u8>, String) {
    let (first, mut header, rest) = split(bytes).expect("the reference's checkpoint");
    let mut paths = Vec::new();
    value_paths(&header, &mut Vec::new(), &mut paths);
    let path = rng.pick(&paths).clone();
    let key = path.join(".");
    if rng.percent(15) {
        let (last, parent) = path.split_last().unwrap();
        match at_path(&mut header, parent) {
            serde_json::Value::Object(m) => {
                m.remove(last);
            }
            serde_json::Value::Array(a) => {
                a.remove(last.parse::<usize>().unwrap());
            }
            _ => {}
        }
        return (
            join(&first, &header.to_string(), &rest),
            format!("header {key} removed"),
        );
    }
    let value = *rng.pick(HOSTILE);
    *at_path(&mut header, &path) = serde_json::from_str(value).unwrap();
    (
        join(&first, &header.to_string(), &rest),
        format!("header {key} = {value}"),
    )
}

fn flip(rng: &mut Rng, bytes: &mut [u8]) -> String {
    let header_end = bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(1)
        .map_or(64, |(i, _)| i);
    let mut at = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let k = match rng.percent(50) {
            true => rng.below(header_end + 1),
            false => rng.below(bytes.len()),
        };
        bytes[k] ^= 1 + rng.below(255) as u8;
        at.push(k);
    }
    format!("bytes flipped at {at:?} of {}", bytes.len())
}

/// The scenario changed in what the checkpoint's state depends on: (its text, or --set
/// arguments, and what changed).
fn foreign(rng: &mut Rng) -> (Option<String>, Vec<String>, String) {
    let sets: &[(&str, &[&str])] = &[
        ("domain.nx", &["40", "47", "49", "64"]),
        ("domain.ny", &["16", "33", "48"]),
        ("domain.cell_size", &["2.5", "1.0", "2.0000001"]),
        (
            "domain.origin",
            &["[1.0, 0.0]", "[0.0, -2.0]", "[1e6, 1e6]"],
        ),
        ("refinement.levels", &["1", "3"]),
        (
            "terrain.expression",
            &[
                "\"0.003*x + 0.2*sin(y/8)\"",
                "\"0.003*x + 0.2*sin(y/7) + 0.001\"",
            ],
        ),
        ("friction.manning", &["0.031", "0.0", "0.3"]),
        ("boundary.east", &["\"wall\""]),
        ("boundary.north", &["\"open\""]),
        (
            "rain.rate",
            &[
                "5.0",
                "{ time = [0.0, 10.0, 30.0], value = [0.0, 121.0, 0.0] }",
            ],
        ),
    ];
    if rng.percent(70) {
        let (key, values) = rng.pick(sets);
        let set = format!("{key}={}", rng.pick(values));
        return (
            None,
            vec!["--set".into(), set.clone()],
            format!("foreign: --set {set}"),
        );
    }
    let (text, what) = match rng.below(3) {
        0 => (
            reference::SCENARIO.replace(
                "value = [0.0, 5.0, 1.0]",
                &format!("value = [0.0, {:?}, 1.0]", rng.int(1, 80) as f64 / 10.0),
            ),
            "another inflow hydrograph",
        ),
        1 => (
            format!(
                "{}\n[[source]]\npoint = [50.0, 30.0]\ndischarge = 0.1\n",
                reference::SCENARIO
            ),
            "a source added",
        ),
        _ => (
            format!(
                "{}\n[[levee]]\nline = [[20.0, 2.0], [20.0, 40.0]]\n",
                reference::SCENARIO
            ),
            "a levee added",
        ),
    };
    (Some(text), Vec::new(), format!("foreign: {what}"))
}

/// Something that is no checkpoint; None for a FIFO made here (no writer: an open that
/// waits for one must not hang the run).
fn not_a_checkpoint(rng: &mut Rng, c: &Case, out: &Path, r: &Reference) -> (PathBuf, String) {
    let choices: Vec<PathBuf> = vec![
        r.scenario.clone(),
        out.join("depth_0000010.0s.asc"),
        out.join("summary.json"),
        out.join("mass_balance.csv"),
        c.write("empty.qfck", b""),
        c.write("magic.qfck", b"quadflood checkpoint 3\n"),
        c.write("magic_only.qfck", b"quadflood checkpoint 3"),
        c.dir.clone(),
        c.dir.join("missing.qfck"),
        PathBuf::from("/dev/null"),
        PathBuf::from("/dev/zero"),
        c.write(
            "random.qfck",
            &(0..rng.int(1, 5000))
                .map(|_| rng.next() as u8)
                .collect::<Vec<u8>>(),
        ),
    ];
    let path = rng.pick(&choices).clone();
    let what = format!("not a checkpoint: {}", path.display());
    (path, what)
}

/// A named pipe that `cat` fills with `bytes` once the run opens it: a checkpoint with no
/// size to check, read as it comes. Returns its path and the `cat`, to end after the run.
fn pipe(c: &Case, bytes: &[u8]) -> Option<(PathBuf, std::process::Child)> {
    let fifo = c.dir.join("pipe.qfck");
    let source = c.write("piped", bytes);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return None;
    }
    let cat = std::process::Command::new("bash")
        .args(["-c", "cat \"$0\" > \"$1\""])
        .arg(&source)
        .arg(&fifo)
        .spawn()
        .ok()?;
    Some((fifo, cat))
}

/// A series file of the restart's folder changed: (what, whether the restart may go on).
fn tamper(rng: &mut Rng, out: &Path, header: &serde_json::Value) -> (String, String, bool) {
    let marks = header["series"].as_array().unwrap();
    let mark = rng.pick(marks);
    let name = mark["file"].as_str().unwrap().to_string();
    let bytes = mark["bytes"].as_u64().unwrap() as usize;
    let path = out.join(&name);
    let mut text = std::fs::read(&path).unwrap();
    let (what, fine) = match rng.below(6) {
        0 => {
            text.truncate(rng.below(bytes));
            ("cut short before the checkpoint's mark", false)
        }
        1 => {
            let k = rng.below(bytes);
            text[k] ^= 1 + rng.below(255) as u8;
            ("a byte before the mark changed", false)
        }
        2 => {
            std::fs::remove_file(&path).unwrap();
            return (name, "removed".into(), false);
        }
        3 => {
            std::fs::remove_file(&path).unwrap();
            std::fs::create_dir(&path).unwrap();
            return (name, "replaced by a folder".into(), false);
        }
        4 => {
            text.extend((0..rng.int(1, 300)).map(|_| rng.next() as u8));
            ("random bytes appended", true)
        }
        _ => {
            for b in text.iter_mut().skip(bytes) {
                *b = b'9';
            }
            ("rows after the mark changed", true)
        }
    };
    std::fs::write(&path, text).unwrap();
    (name, what.into(), fine)
}

pub fn case(c: &mut Case) {
    let r = match reference::get(&c.root) {
        Ok(r) => r,
        Err(e) => return c.fail(e),
    };
    let out = c.dir.join("out");
    reference::copy_folder(&r.out, &out);
    let original = out.join(r.checkpoints[c.rng.below(2)].file_name().unwrap());
    let name = original.file_name().unwrap().to_string_lossy().into_owned();
    let bytes = std::fs::read(&original).unwrap();
    let header = split(&bytes).unwrap().1;
    let mut scenario = r.scenario.clone();
    let mut extra: Vec<String> = Vec::new();
    let mut target = out.clone();
    let mut feeder = None;
    let mut damaged = vec![name.clone()];
    let written = |c: &Case, rng: &mut Rng, bytes: &[u8]| -> (PathBuf, String) {
        match rng.percent(50) {
            true => {
                std::fs::write(&original, bytes).unwrap();
                (original.clone(), name.clone())
            }
            false => (c.write("changed.qfck", bytes), "changed.qfck".into()),
        }
    };
    let mut rng = Rng::new(c.rng.next(), "checkpoints", 0);
    let (file, expect) = match rng.below(100) {
        0..=19 => {
            let mut b = bytes.clone();
            c.note(flip(&mut rng, &mut b));
            let (file, name) = written(c, &mut rng, &b);
            (file, Expect::Refused(vec![name]))
        }
        20..=31 => {
            let cut = rng.below(bytes.len());
            c.note(format!("cut to {cut} of {} bytes", bytes.len()));
            let (file, name) = written(c, &mut rng, &bytes[..cut]);
            (file, Expect::Refused(vec![name]))
        }
        32..=37 => {
            let mut b = bytes.clone();
            let n = rng.int(1, 100) as usize;
            b.extend((0..n).map(|_| rng.next() as u8));
            if rng.percent(50) {
                seal(&mut b);
            }
            c.note(format!("{n} bytes appended"));
            let (file, name) = written(c, &mut rng, &b);
            (file, Expect::Refused(vec![name]))
        }
        38..=43 => {
            let (_, h, rest) = split(&bytes).unwrap();
            let first = rng
                .pick(&[
                    "quadflood checkpoint 2",
                    "quadflood checkpoint 4",
                    "quadflood checkpoint",
                    "quadflood checkpoint -1",
                    "quadflood checkpoint 99999999999999999999",
                    "QUADFLOOD CHECKPOINT 3",
                    "quadflood checkpoint 3 ",
                    "\u{feff}quadflood checkpoint 3",
                ])
                .to_string();
            c.note(format!("first line {first:?}"));
            let (file, name) = written(c, &mut rng, &join(&first, &h.to_string(), &rest));
            (file, Expect::Refused(vec![name]))
        }
        44..=63 => {
            let (b, what) = forge(&mut rng, &bytes);
            c.note(what);
            let (file, name) = written(c, &mut rng, &b);
            (file, Expect::RefusedOrSound(vec![name]))
        }
        64..=78 => {
            let (text, sets, what) = foreign(&mut rng);
            c.note(what);
            if let Some(text) = text {
                scenario = c.write("foreign.toml", text.as_bytes());
            }
            extra = sets;
            (
                original.clone(),
                Expect::Refused(vec![name.clone(), arg(&scenario)]),
            )
        }
        85..=86 if rng.percent(50) => {
            let mut b = bytes.clone();
            let damaged = rng.percent(50);
            if damaged {
                c.note(flip(&mut rng, &mut b));
            }
            match pipe(c, &b) {
                Some((fifo, cat)) => {
                    c.note("read through a named pipe");
                    feeder = Some(cat);
                    let expect = match damaged {
                        true => Expect::Refused(vec!["pipe.qfck".into()]),
                        false => Expect::Same,
                    };
                    (fifo, expect)
                }
                None => (original.clone(), Expect::Same),
            }
        }
        79..=86 => {
            let (file, what) = not_a_checkpoint(&mut rng, c, &out, r);
            c.note(what);
            let named = file
                .file_name()
                .map_or(arg(&file), |n| n.to_string_lossy().into_owned());
            (file, Expect::Refused(vec![named]))
        }
        87..=94 => {
            let (csv, what, fine) = tamper(&mut rng, &out, &header);
            c.note(format!("{csv} {what}"));
            damaged.push(csv.clone());
            match fine {
                true => (original.clone(), Expect::Same),
                false => (original.clone(), Expect::Refused(vec![csv])),
            }
        }
        95..=96 => {
            c.note("restarted into an empty folder");
            target = c.dir.join("fresh");
            (
                original.clone(),
                Expect::Refused(vec![
                    "gauge_".into(),
                    "section_".into(),
                    "mass_balance".into(),
                ]),
            )
        }
        97 => {
            let t = reference::checkpoint_time(&name).unwrap();
            let end = t - rng.float(0.0, 1.0) * t;
            c.note(format!("time.end = {end} before the checkpoint's {t} s"));
            extra = vec!["--set".into(), format!("time.end={end:?}")];
            (original.clone(), Expect::Refused(vec![name.clone()]))
        }
        98 => {
            let set = rng
                .pick(&[
                    "numerics.gravity=9.8",
                    "numerics.limiter=\"van-albada\"",
                    "time.cfl=0.3",
                    "time.dt_max=0.5",
                    "output.png=true",
                    "time.end=44.0",
                ])
                .to_string();
            c.note(format!("restarted with --set {set}"));
            extra = vec!["--set".into(), set];
            (original.clone(), Expect::RefusedOrSound(vec![name.clone()]))
        }
        _ => {
            c.note("unchanged");
            (original.clone(), Expect::Same)
        }
    };
    let mut args = vec![
        "run".to_string(),
        arg(&scenario),
        "--out".into(),
        arg(&target),
        "--quiet".into(),
        "--restart".into(),
        arg(&file),
    ];
    args.extend(extra);
    let o = c.quadflood(&args, &Limits::gpu());
    if let Some(mut cat) = feeder {
        let _ = cat.kill();
        let _ = cat.wait();
    }
    let names = match &expect {
        Expect::Refused(n) | Expect::RefusedOrSound(n) => n.clone(),
        Expect::Same => vec![],
    };
    c.judge(&o, &names);
    match (expect, o.code) {
        (Expect::Refused(_), Some(2)) | (Expect::RefusedOrSound(_), Some(2)) => {}
        (Expect::Refused(_), _) => c.fail("not refused"),
        (Expect::RefusedOrSound(_), Some(0)) => c.expect_sound(&target, &bound()),
        (Expect::Same, Some(0)) => {
            if let Some(d) = reference::difference(&r.results, &reference::results(&target)) {
                c.fail(d);
            }
        }
        (_, _) => c.fail("the restart did not run to its end"),
    }
    c.expect_whole_but(&target, false, &damaged);
}

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
        // A depth: the verdict multiplies it by the domain's area.
        rain: Some(rain.integral(0.0, 40.0) / 3.6e6),
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
        // Not 3: this 96 m x 64 m domain has room for no coarser block, so its grid, and
        // so the restart, is the reference's.
        ("refinement.levels", &["1"]),
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
                // Any peak but the reference's 5.0 (drawn, it made the same scenario).
                &format!("value = [0.0, {:?}, 1.0]", {
                    let peak = rng.int(1, 79);
                    (peak + (peak >= 50) as i64) as f64 / 10.0
                }),
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

/// Something that is no checkpoint.
fn not_a_checkpoint(c: &mut Case, out: &Path, r: &Reference) -> (PathBuf, String) {
    let random: Vec<u8> = (0..c.rng.int(1, 5000))
        .map(|_| c.rng.next() as u8)
        .collect();
    let choices: Vec<PathBuf> = vec![
        r.scenario.clone(),
        out.join("depth_0000010.0s.asc"),
        out.join("summary.json"),
        out.join("mass_balance.csv"),
        c.write("empty.qfck", b""),
        c.write("magic.qfck", b"quadflood checkpoint 4\n"),
        c.write("magic_only.qfck", b"quadflood checkpoint 4"),
        c.dir.clone(),
        c.dir.join("missing.qfck"),
        PathBuf::from("/dev/null"),
        PathBuf::from("/dev/zero"),
        c.write("random.qfck", &random),
    ];
    let path = c.rng.pick(&choices).clone();
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

/// The reference's folder copied for this case, and the checkpoint picked from it.
struct Start<'r> {
    r: &'r Reference,
    out: PathBuf,
    original: PathBuf,
    name: String,
    bytes: Vec<u8>,
    header: serde_json::Value,
}

/// A restart to try, and what it must do.
struct Plan {
    file: PathBuf,
    expect: Expect,
    scenario: PathBuf,
    extra: Vec<String>,
    target: PathBuf,
    /// The `cat` that feeds a named pipe, ended after the run.
    feeder: Option<std::process::Child>,
    /// Files the case damaged on purpose, which a refused restart leaves so.
    damaged: Vec<String>,
}

/// Writes changed checkpoint bytes over the original or beside it; returns its path and
/// the name a refusal must give.
fn put(c: &mut Case, s: &Start, bytes: &[u8]) -> (PathBuf, String) {
    match c.rng.percent(50) {
        true => {
            std::fs::write(&s.original, bytes).unwrap();
            (s.original.clone(), s.name.clone())
        }
        false => (c.write("changed.qfck", bytes), "changed.qfck".into()),
    }
}

/// Bytes flipped, cut, appended, or the first line changed: refused.
fn damaged_bytes(c: &mut Case, s: &Start, plan: &mut Plan, draw: usize) {
    let mut b = s.bytes.clone();
    match draw {
        0..=19 => {
            let what = flip(&mut c.rng, &mut b);
            c.note(what);
        }
        20..=31 => {
            b.truncate(c.rng.below(s.bytes.len()));
            c.note(format!("cut to {} of {} bytes", b.len(), s.bytes.len()));
        }
        32..=37 => {
            let n = c.rng.int(1, 100) as usize;
            b.extend((0..n).map(|_| c.rng.next() as u8));
            if c.rng.percent(50) {
                seal(&mut b);
            }
            c.note(format!("{n} bytes appended"));
        }
        _ => {
            let (_, h, rest) = split(&s.bytes).unwrap();
            let first = *c.rng.pick(&[
                "quadflood checkpoint 3",
                "quadflood checkpoint 5",
                "quadflood checkpoint",
                "quadflood checkpoint -1",
                "quadflood checkpoint 99999999999999999999",
                "QUADFLOOD CHECKPOINT 4",
                "quadflood checkpoint 4 ",
                "\u{feff}quadflood checkpoint 4",
            ]);
            c.note(format!("first line {first:?}"));
            b = join(first, &h.to_string(), &rest);
        }
    }
    let (file, name) = put(c, s, &b);
    plan.file = file;
    plan.expect = Expect::Refused(vec![name]);
}

/// A header value forged: refused, or (a value the run does not depend on) run soundly.
fn forged(c: &mut Case, s: &Start, plan: &mut Plan) {
    let (b, what) = forge(&mut c.rng, &s.bytes);
    c.note(what);
    let (file, name) = put(c, s, &b);
    plan.file = file;
    plan.expect = Expect::RefusedOrSound(vec![name]);
}

fn foreign_scenario(c: &mut Case, s: &Start, plan: &mut Plan) {
    let (text, sets, what) = foreign(&mut c.rng);
    c.note(what);
    if let Some(text) = text {
        plan.scenario = c.write("foreign.toml", text.as_bytes());
    }
    plan.extra = sets;
    plan.expect = Expect::Refused(vec![s.name.clone(), arg(&plan.scenario)]);
}

/// No checkpoint at all, or one read through a named pipe.
fn no_checkpoint(c: &mut Case, s: &Start, plan: &mut Plan) {
    if c.rng.percent(25) {
        let mut b = s.bytes.clone();
        let damaged = c.rng.percent(50);
        if damaged {
            let what = flip(&mut c.rng, &mut b);
            c.note(what);
        }
        if let Some((fifo, cat)) = pipe(c, &b) {
            c.note("read through a named pipe");
            plan.file = fifo;
            plan.feeder = Some(cat);
            plan.expect = match damaged {
                true => Expect::Refused(vec!["pipe.qfck".into()]),
                false => Expect::Same,
            };
        }
        return;
    }
    let (file, what) = not_a_checkpoint(c, &s.out, s.r);
    c.note(what);
    let named = file
        .file_name()
        .map_or(arg(&file), |n| n.to_string_lossy().into_owned());
    plan.file = file;
    plan.expect = Expect::Refused(vec![named]);
}

/// The series in the restart's folder changed, or an empty folder.
fn changed_folder(c: &mut Case, s: &Start, plan: &mut Plan, draw: usize) {
    if draw >= 95 {
        c.note("restarted into an empty folder");
        plan.target = c.dir.join("fresh");
        plan.expect = Expect::Refused(
            ["gauge_", "section_", "mass_balance"]
                .map(String::from)
                .to_vec(),
        );
        return;
    }
    let (csv, what, fine) = tamper(&mut c.rng, &s.out, &s.header);
    c.note(format!("{csv} {what}"));
    plan.damaged.push(csv.clone());
    if !fine {
        plan.expect = Expect::Refused(vec![csv]);
    }
}

/// An end before the checkpoint (refused), settings the state does not depend on, or
/// nothing changed.
fn changed_settings(c: &mut Case, s: &Start, plan: &mut Plan, draw: usize) {
    match draw {
        97 => {
            let t = reference::checkpoint_time(&s.name).unwrap();
            let end = t - c.rng.float(0.0, 1.0) * t;
            c.note(format!("time.end = {end} before the checkpoint's {t} s"));
            plan.extra = vec!["--set".into(), format!("time.end={end:?}")];
            plan.expect = Expect::Refused(vec![s.name.clone()]);
        }
        98 => {
            let set = *c.rng.pick(&[
                "numerics.gravity=9.8",
                "numerics.limiter=\"minmod\"",
                "time.cfl=0.3",
                "time.dt_max=0.5",
                "output.png=true",
                "time.end=44.0",
            ]);
            c.note(format!("restarted with --set {set}"));
            plan.extra = vec!["--set".into(), set.into()];
            plan.expect = Expect::RefusedOrSound(vec![s.name.clone()]);
        }
        _ => c.note("unchanged"),
    }
}

pub fn case(c: &mut Case) {
    let r = match reference::get(&c.root) {
        Ok(r) => r,
        Err(e) => return c.fail(e),
    };
    let out = c.dir.join("out");
    reference::copy_folder(&r.out, &out);
    let original = out.join(r.checkpoints[c.rng.below(2)].file_name().unwrap());
    let bytes = std::fs::read(&original).unwrap();
    let s = Start {
        r,
        name: original.file_name().unwrap().to_string_lossy().into_owned(),
        header: split(&bytes).unwrap().1,
        bytes,
        original,
        out,
    };
    let mut plan = Plan {
        file: s.original.clone(),
        expect: Expect::Same,
        scenario: r.scenario.clone(),
        extra: Vec::new(),
        target: s.out.clone(),
        feeder: None,
        damaged: vec![s.name.clone()],
    };
    let draw = c.rng.below(100);
    match draw {
        0..=43 => damaged_bytes(c, &s, &mut plan, draw),
        44..=63 => forged(c, &s, &mut plan),
        64..=78 => foreign_scenario(c, &s, &mut plan),
        79..=86 => no_checkpoint(c, &s, &mut plan),
        87..=96 => changed_folder(c, &s, &mut plan, draw),
        _ => changed_settings(c, &s, &mut plan, draw),
    }
    restart(c, r, plan);
}

/// Runs the restart and judges it by the plan.
fn restart(c: &mut Case, r: &Reference, mut plan: Plan) {
    let mut args = [
        "run",
        &arg(&plan.scenario),
        "--out",
        &arg(&plan.target),
        "--quiet",
        "--restart",
        &arg(&plan.file),
    ]
    .map(String::from)
    .to_vec();
    args.extend(plan.extra);
    let o = c.quadflood(&args, &Limits::gpu());
    if let Some(mut cat) = plan.feeder.take() {
        let _ = cat.kill();
        let _ = cat.wait();
    }
    let names = match &plan.expect {
        Expect::Refused(n) | Expect::RefusedOrSound(n) => n.clone(),
        Expect::Same => vec![],
    };
    c.judge(&o, &names);
    match (plan.expect, o.code) {
        (Expect::Refused(_) | Expect::RefusedOrSound(_), Some(2)) => {}
        (Expect::Refused(_), _) => c.fail("not refused"),
        (Expect::RefusedOrSound(_), Some(0)) => c.expect_sound(&plan.target, &bound()),
        (Expect::Same, Some(0)) => {
            if let Some(d) = reference::difference(&r.results, &reference::results(&plan.target)) {
                c.fail(d);
            }
        }
        (_, _) => c.fail("the restart did not run to its end"),
    }
    c.expect_whole_but(&plan.target, false, &plan.damaged);
}

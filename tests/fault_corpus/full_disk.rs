//! A full disk, stood in for by a file-size limit (`ulimit -f`, SIGXFSZ ignored so that a
//! write past it fails with EFBIG as one would with ENOSPC), from 1 KiB up: under GeoTIFF
//! or ESRI maps, quick-looks, the animation, series and checkpoints, in a run from the
//! start or a restart. The run ends with exit 0 and a sound result, or exit 1 naming a file
//! in the output folder; either way every file under a final name is whole, no temporary is
//! left, and a failed run leaves no summary.json.

use super::case::{arg, Case};
use super::proc::Limits;
use super::tiny;

pub fn case(c: &mut Case) {
    let tiny = loop {
        let tiny = tiny::dry_forcing(&mut c.rng);
        if tiny.refused.is_none() {
            break tiny;
        }
    };
    c.clock = tiny.end;
    let scenario = c.write("scenario.toml", tiny.toml.as_bytes());
    let out = c.dir.join("out");
    let mut args: Vec<String> = ["run", &arg(&scenario), "--out", &arg(&out), "--quiet"]
        .map(String::from)
        .to_vec();
    for set in ["output.png", "output.animation"] {
        args.extend(["--set".into(), format!("{set}={}", c.rng.percent(40))]);
    }
    let format = if c.rng.percent(50) {
        "geotiff"
    } else {
        "ascii"
    };
    args.extend(["--set".into(), format!("output.format=\"{format}\"")]);
    let every = tiny.span / c.rng.int(2, 5) as f64;
    if c.rng.percent(50) {
        args.extend(["--checkpoint-every".into(), format!("{every}")]);
    }
    let kib = c.rng.log_float(1.0, 256.0).round() as u64;
    c.note(format!(
        "{}; {format}; at most {kib} KiB a file: {}",
        tiny.what,
        args[5..].join(" ")
    ));
    if c.rng.percent(20) {
        // The disk fills during a restart: a first run writes checkpoints freely.
        let mut first = args.clone();
        if !first.contains(&"--checkpoint-every".to_string()) {
            first.extend(["--checkpoint-every".into(), format!("{every}")]);
        }
        let o = c.quadflood(&first, &Limits::gpu());
        c.judge(&o, &[arg(&c.dir)]);
        if let Some(oldest) = super::reference::checkpoints(&out).first() {
            c.note(format!(
                "the disk fills on a restart from {}",
                oldest.display()
            ));
            args.extend(["--restart".into(), arg(oldest)]);
        }
    }
    let limits = Limits {
        file_kib: Some(kib),
        ..Limits::gpu()
    };
    let o = c.quadflood(&args, &limits);
    c.judge(&o, &[arg(&out)]);
    match o.code {
        Some(0) => c.expect_sound(&out, &tiny.bound),
        Some(1) => {
            if out.join("summary.json").exists() {
                c.fail("a failed run left a summary.json");
            }
            if !(o.said("too large") || o.said("GDAL") || o.said("space")) {
                c.fail("the message does not say the disk is full");
            }
        }
        Some(4) => c.notable = Some(o.stderr.trim().to_string()),
        _ => c.fail("expected exit 0, or 1 for a full disk"),
    }
    c.expect_whole(&out, false);
}

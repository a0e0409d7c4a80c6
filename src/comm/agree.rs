//! Ranks agree or stop. Every rank of a run loads its scenario and input files itself, and
//! is given its own command line: ranks told different things would step different
//! models together and write maps half of one and half of the other (or fail in a gather
//! whose sizes differ). So at start-up every rank shares the digest of its run
//! (`scenario::digest`); where any differs, every rank stops with the same message, which
//! names the first key, input or option that differs and the ranks it differs between.

use crate::comm::Comm;
use crate::error::{InputError, Result};
use crate::scenario::digest::{RunDigest, INPUT_PREFIX, KEY_PREFIX, OPTION_PREFIX};

/// The first bytes of a rank's digest message (and its layout's version).
const MAGIC: &[u8; 8] = b"qfagree1";

/// Shares this rank's digest with every rank: Ok on every rank when all agree, else the
/// same input error (exit code 2) on every rank. Every rank must call this, first.
pub fn agree(comm: &dyn Comm, digest: &RunDigest) -> Result<()> {
    let all = comm.all_gather(encode(digest));
    let ranks: Vec<Option<Vec<(String, u64)>>> = all.iter().map(|b| decode(b)).collect();
    match first_difference(&ranks) {
        Some(message) => Err(InputError::new(message).into()),
        None => Ok(()),
    }
}

fn encode(d: &RunDigest) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((d.entries.len() as u32).to_le_bytes());
    for (name, value) in &d.entries {
        out.extend((name.len() as u32).to_le_bytes());
        out.extend(name.as_bytes());
        out.extend(value.to_le_bytes());
    }
    out
}

/// A rank's entries; None for bytes this build cannot read (another build, or garbage).
fn decode(bytes: &[u8]) -> Option<Vec<(String, u64)>> {
    let mut at = bytes.strip_prefix(MAGIC)?;
    let mut take = |n: usize| -> Option<&[u8]> {
        let (head, rest) = (at.get(..n)?, at.get(n..)?);
        at = rest;
        Some(head)
    };
    let count = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
    let mut entries = Vec::with_capacity(count.min(bytes.len()));
    for _ in 0..count {
        let n = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let name = String::from_utf8(take(n)?.to_vec()).ok()?;
        let value = u64::from_le_bytes(take(8)?.try_into().ok()?);
        entries.push((name, value));
    }
    Some(entries)
}

/// Where entries of a class are reported: the build first, then scenario keys and options
/// (the most precise), then what was read and built from them.
fn class(name: &str) -> usize {
    if name.starts_with(KEY_PREFIX) {
        1
    } else if name.starts_with(OPTION_PREFIX) {
        2
    } else if name.starts_with(INPUT_PREFIX) && !name.ends_with("build") {
        3
    } else {
        0
    }
}

/// The message for the first entry that differs between rank 0 and another, if any.
fn first_difference(ranks: &[Option<Vec<(String, u64)>>]) -> Option<String> {
    if let Some(r) = ranks.iter().position(Option::is_none) {
        return Some(format!(
            "rank {r} sent a start-up digest this quadflood cannot read: is every rank the same quadflood build?"
        ));
    }
    let ranks: Vec<&Vec<(String, u64)>> = ranks.iter().flatten().collect();
    let value = |r: usize, name: &str| ranks[r].iter().find(|e| e.0 == name).map(|e| e.1);
    // Every name any rank holds, in order of class, then as the first rank holding it
    // lists it.
    let mut names: Vec<(usize, usize, &str)> = Vec::new();
    for entries in &ranks {
        for (k, (name, _)) in entries.iter().enumerate() {
            if !names.iter().any(|n| n.2 == name) {
                names.push((class(name), k, name));
            }
        }
    }
    names.sort_by_key(|n| (n.0, n.1));
    let differing = names
        .iter()
        .flat_map(|&(_, _, name)| (1..ranks.len()).map(move |r| (name, r)))
        .filter(|&(name, r)| value(0, name) != value(r, name))
        .map(|(name, r)| describe(name, r, value(0, name).is_some(), value(r, name).is_some()))
        .collect::<Vec<_>>();
    let first = differing.first()?;
    Some(match differing.len() {
        1 => first.clone(),
        2 => format!("{first} (and 1 more difference)"),
        n => format!("{first} (and {} more differences)", n - 1),
    })
}

/// The message for `name` differing between rank 0 and rank `r` (held by each or not).
fn describe(name: &str, r: usize, on_0: bool, on_r: bool) -> String {
    let same = "every rank must be given the same scenario, --set overrides and options";
    if let Some(key) = name.strip_prefix(KEY_PREFIX) {
        return match (on_0, on_r) {
            (true, false) => format!("`{key}` is set on rank 0 but not on rank {r}: {same}"),
            (false, true) => format!("`{key}` is set on rank {r} but not on rank 0: {same}"),
            _ => format!("`{key}` differs between ranks 0 and {r}: {same}"),
        };
    }
    if let Some(flag) = name.strip_prefix(OPTION_PREFIX) {
        return format!("`{flag}` differs between ranks 0 and {r}: {same}");
    }
    let what = name.strip_prefix(INPUT_PREFIX).unwrap_or(name);
    if what == "the quadflood build" {
        return format!(
            "rank {r} runs another quadflood build than rank 0: run one build on every rank"
        );
    }
    format!(
        "{what} read by rank {r} differs from rank 0's, though their scenarios agree: the files named by {} must be the same on every node",
        sources_of(what)
    )
}

/// The scenario keys an input is read from, for the message.
fn sources_of(what: &str) -> &'static str {
    match what {
        "the terrain" => "terrain.path (and [[levee]] lines)",
        "the friction" => "friction.raster or friction.landuse",
        "the losses" => "losses.landuse or the losses rasters",
        "the initial water" => "initial.raster (or --restart)",
        "the boundaries and forcing" => "each series `csv`, rain.rasters and vector file",
        "the gauges and cross-sections" => "each cross-section's vector file",
        "the restart state" => "--restart",
        _ => "the scenario",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[(&str, u64)]) -> Option<Vec<(String, u64)>> {
        Some(list.iter().map(|(n, v)| (n.to_string(), *v)).collect())
    }

    #[test]
    fn digests_round_trip_and_garbage_is_named() {
        let d = RunDigest {
            entries: vec![("key time.end".into(), 7), ("option --x".into(), u64::MAX)],
        };
        assert_eq!(decode(&encode(&d)), Some(d.entries.clone()));
        assert_eq!(decode(b"qfagree1\xff\xff\xff\xff"), None);
        assert_eq!(decode(b""), None);
        let m = first_difference(&[Some(d.entries.clone()), None]).unwrap();
        assert!(m.contains("rank 1"), "{m}");
    }

    #[test]
    fn keys_come_before_options_and_options_before_inputs() {
        let zero = entries(&[("input the terrain", 1), ("key a.b", 1), ("option --o", 1)]);
        let one = entries(&[("input the terrain", 2), ("key a.b", 1), ("option --o", 2)]);
        let two = entries(&[("input the terrain", 1), ("key a.b", 3), ("option --o", 1)]);
        let m = first_difference(&[zero.clone(), one.clone(), two]).unwrap();
        assert!(m.starts_with("`a.b` differs between ranks 0 and 2"), "{m}");
        assert!(m.contains("and 2 more differences"), "{m}");
        let m = first_difference(&[zero.clone(), one]).unwrap();
        assert!(m.starts_with("`--o` differs between ranks 0 and 1"), "{m}");
        assert_eq!(first_difference(&[zero.clone(), zero.clone()]), None);
    }
}

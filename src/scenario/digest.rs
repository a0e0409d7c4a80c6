//! Digests of everything that shapes a run's results, each under a name that says what it
//! is: every scenario key as resolved (the file with its `--set` overrides), what was read
//! from the input files, and the run's options. Ranks compare theirs at start-up
//! (`comm::agree`) and can then say which key or input differs, not merely that one does.

use crate::scenario::model::Model;

/// A 64-bit digest, fed eight bytes at a time: stable across machines and runs (unlike
/// std's hasher), and a single changed word always changes it (each step is a bijection
/// of the state).
#[derive(Clone, Copy)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0x243f_6a88_85a3_08d3)
    }
}

impl Digest {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;

    fn word(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(23) ^ w).wrapping_mul(Self::K);
    }

    /// Feeds `bytes`, with their length (so that ("ab", "c") and ("a", "bc") differ).
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.word(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.word(u64::from_le_bytes(tail));
        self
    }

    pub fn pod<T: bytemuck::Pod>(&mut self, values: &[T]) -> &mut Self {
        self.bytes(bytemuck::cast_slice(values))
    }

    pub fn text(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }

    pub fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 31;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^ (h >> 29)
    }
}

/// One digest per scenario key, by its dotted path (`time.end`, `gauge[0].x`): the leaves
/// of the scenario as parsed, after `--set`.
pub fn scenario_keys(table: &toml::Table) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for (key, value) in table {
        leaves(key, value, &mut out);
    }
    out
}

fn leaves(path: &str, value: &toml::Value, out: &mut Vec<(String, u64)>) {
    match value {
        toml::Value::Table(t) if !t.is_empty() => {
            for (key, v) in t {
                leaves(&format!("{path}.{key}"), v, out);
            }
        }
        toml::Value::Array(items) if items.iter().any(|v| v.is_table()) => {
            for (k, v) in items.iter().enumerate() {
                leaves(&format!("{path}[{k}]"), v, out);
            }
        }
        // Numbers by their bits, so that 1 and 1.0 (the same to the scenario) may differ
        // only where TOML itself tells them apart.
        leaf => out.push((
            path.to_string(),
            Digest::default().text(&leaf.to_string()).finish(),
        )),
    }
}

/// What a run's ranks must hold alike, entry by entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDigest {
    /// (what, digest), in a fixed order: this build, the scenario's keys, the inputs as
    /// read and built, then the run's options.
    pub entries: Vec<(String, u64)>,
}

/// How an entry is named in messages: scenario keys and options in backquotes, inputs by
/// what they are (see `comm::agree`).
pub const KEY_PREFIX: &str = "key ";
pub const INPUT_PREFIX: &str = "input ";
pub const OPTION_PREFIX: &str = "option ";

impl RunDigest {
    /// The digest of a run of `model` with the given options (flag, value as given).
    pub fn of(model: &Model, options: &[(&str, String)]) -> RunDigest {
        let mut entries = vec![build()];
        entries.extend(
            model
                .scenario_keys
                .iter()
                .map(|(k, d)| (format!("{KEY_PREFIX}{k}"), *d)),
        );
        entries.extend(
            inputs(model)
                .into_iter()
                .map(|(what, d)| (format!("{INPUT_PREFIX}{what}"), d)),
        );
        entries.extend(Self::of_options(options).entries.into_iter().skip(1));
        RunDigest { entries }
    }

    /// The digest of options alone (a benchmark's, before its model is built).
    pub fn of_options(options: &[(&str, String)]) -> RunDigest {
        let mut entries = vec![build()];
        entries.extend(options.iter().map(|(flag, value)| {
            (
                format!("{OPTION_PREFIX}{flag}"),
                Digest::default().text(value).finish(),
            )
        }));
        RunDigest { entries }
    }
}

fn build() -> (String, u64) {
    (
        format!("{INPUT_PREFIX}the quadflood build"),
        Digest::default().text(env!("CARGO_PKG_VERSION")).finish(),
    )
}

/// Digests of the model's parts, each named by what was read or built for it.
fn inputs(m: &Model) -> Vec<(&'static str, u64)> {
    let debug = |d: &mut Digest, v: &dyn std::fmt::Debug| {
        d.text(&format!("{v:?}"));
    };
    let mut terrain = Digest::default();
    terrain
        .pod(&m.grid.blocks)
        .pod(&[m.grid.nx as u64, m.grid.ny as u64, m.grid.levels as u64])
        .pod(&[m.cell_size, m.origin.0, m.origin.1, m.datum])
        .text(m.crs.as_deref().unwrap_or(""))
        .pod(&m.bed);
    let mut water = Digest::default();
    water.pod(&m.depth).pod(&m.hu).pod(&m.hv);
    let mut forcing = Digest::default();
    forcing.pod(&m.bc_edge).pod(&m.bc_defs);
    for s in &m.series {
        forcing.text(&s.name).pod(&s.times).pod(&s.values);
    }
    forcing.pod(&m.rain.cells);
    debug(&mut forcing, &m.rain.weights);
    debug(&mut forcing, &m.sources);
    let mut probes = Digest::default();
    debug(&mut probes, &m.gauges);
    debug(&mut probes, &m.sections);
    let mut run = Digest::default();
    debug(&mut run, &m.numerics);
    run.pod(&[m.t_start, m.t_end])
        .pod(&m.output_times)
        .pod(&m.gauge_times);
    debug(&mut run, &m.peak_clock);
    debug(
        &mut run,
        &(
            m.write_rasters,
            m.write_png,
            m.write_animation,
            m.raster_format,
            m.partition,
            m.balance,
        ),
    );
    let mut restart = Digest::default();
    if let Some(r) = &m.resume {
        debug(
            &mut restart,
            &(r.t, r.steps, r.cell_updates, r.dt_cfl.to_bits(), r.rain),
        );
        restart
            .pod(&r.block_volume)
            .pod(&r.maxima)
            .pod(&r.infiltrated)
            .pod(&r.loss_volume)
            .pod(&r.structure_flows);
    }
    vec![
        ("the terrain", terrain.finish()),
        ("the friction", Digest::default().pod(&m.manning).finish()),
        ("the losses", losses_digest(m)),
        ("the initial water", water.finish()),
        ("the boundaries and forcing", forcing.finish()),
        ("the gauges and cross-sections", probes.finish()),
        ("the times, numerics and outputs", run.finish()),
        ("the restart state", restart.finish()),
    ]
}

fn losses_digest(m: &Model) -> u64 {
    let mut d = Digest::default();
    d.pod(&m.losses.cells).pod(&m.losses.classes);
    d.text(&format!("{:?}", m.losses.model));
    d.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_word_changes_the_digest() {
        let base: Vec<u64> = (0..1000).collect();
        let d0 = Digest::default().pod(&base).finish();
        for k in [0, 1, 500, 999] {
            for bit in [0, 17, 63] {
                let mut v = base.clone();
                v[k] ^= 1 << bit;
                assert_ne!(Digest::default().pod(&v).finish(), d0, "word {k} bit {bit}");
            }
        }
        assert_ne!(
            Digest::default().text("ab").text("c").finish(),
            Digest::default().text("a").text("bc").finish()
        );
    }

    #[test]
    fn keys_are_named_by_their_dotted_paths() {
        let table: toml::Table =
            toml::from_str("[time]\nend = 6.0\n[[gauge]]\nname = \"g\"\nx = 1\ny = [1, 2]\n")
                .unwrap();
        let names: Vec<String> = scenario_keys(&table).into_iter().map(|e| e.0).collect();
        assert_eq!(
            names,
            ["gauge[0].name", "gauge[0].x", "gauge[0].y", "time.end"]
        );
    }
}

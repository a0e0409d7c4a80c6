//! What a checkpoint must be restarted with: a CRC-32 of each part of the model that the
//! state depends on — the grid, terrain, friction and forcing — so that a checkpoint is
//! never continued with another one, and the refusal says which part differs. CRC-32
//! catches accidents (another scenario file, an edited input), not forgery.

use crate::scenario::model::Model;

/// The parts, in the order a refusal lists them: (header key, what the message calls it).
const PARTS: [(&str, &str); 8] = [
    ("grid", "the grid"),
    ("terrain", "the terrain"),
    ("friction", "the friction or the losses"),
    ("boundaries", "the boundary conditions"),
    (
        "series",
        "the time series (inflow, stage and rain rates) and rating curves",
    ),
    ("sources", "the sources"),
    ("rain", "where the rain falls"),
    (
        "numerics",
        "the numerics (numerics.gravity, numerics.dry_depth or numerics.limiter)",
    ),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// One CRC-32 per entry of `PARTS`.
    crc: [u32; PARTS.len()],
}

/// A CRC-32 fed field by field.
struct Crc(crc32fast::Hasher);

impl Crc {
    fn new() -> Crc {
        Crc(crc32fast::Hasher::new())
    }
    fn bytes(&mut self, b: &[u8]) -> &mut Crc {
        // The length first, so that fields cannot trade bytes.
        self.0.update(&(b.len() as u64).to_le_bytes());
        self.0.update(b);
        self
    }
    fn f64s(&mut self, v: &[f64]) -> &mut Crc {
        self.bytes(bytemuck::cast_slice(v))
    }
    fn done(&mut self) -> u32 {
        std::mem::replace(&mut self.0, crc32fast::Hasher::new()).finalize()
    }
}

impl Fingerprint {
    pub fn of(model: &Model) -> Fingerprint {
        let mut c = Crc::new();
        let grid = c
            .bytes(bytemuck::cast_slice(&model.grid.blocks))
            .bytes(&(model.nx() as u64).to_le_bytes())
            .bytes(&(model.ny() as u64).to_le_bytes())
            .f64s(&[model.cell_size, model.origin.0, model.origin.1])
            .done();
        let terrain = c
            .bytes(bytemuck::cast_slice(&model.bed))
            .f64s(&[model.datum])
            .done();
        c.bytes(bytemuck::cast_slice(&model.manning));
        // Only where the run has losses, so that the checkpoints of runs without them
        // keep their fingerprint.
        if model.losses.any() {
            c.bytes(bytemuck::cast_slice(&model.losses.cells))
                .bytes(bytemuck::cast_slice(&model.losses.classes))
                .bytes(&[u8::from(
                    model.losses.model == Some(crate::scenario::losses::LossModel::GreenAmpt),
                )]);
        }
        let friction = c.done();
        let boundaries = c
            .bytes(bytemuck::cast_slice(&model.bc_edge))
            .bytes(bytemuck::cast_slice(&model.bc_defs))
            .done();
        for s in &model.series {
            c.f64s(&s.times).f64s(&s.values);
        }
        let series = c.done();
        for s in &model.sources {
            c.bytes(&(s.cell as u64).to_le_bytes())
                .bytes(&s.series.to_le_bytes())
                .f64s(&[s.fraction])
                .bytes(&[u8::from(s.level)]);
        }
        // Only where the run has culverts or weirs, so that other runs' checkpoints keep
        // their fingerprint.
        if !model.structures.is_empty() {
            c.bytes(format!("{:?}", model.structures).as_bytes());
        }
        let sources = c.done();
        c.bytes(bytemuck::cast_slice(&model.rain.cells));
        for (series, share) in &model.rain.weights {
            c.bytes(&series.to_le_bytes()).f64s(&[*share]);
        }
        let rain = c.done();
        // What the scheme computes with: a restart with another gravity or limiter went on
        // unsaid, and could continue the run bit for bit no more (a hunt). The Courant
        // number and dt_max may change: a run restarted with a smaller step is a choice.
        let n = &model.numerics;
        let numerics = c
            .f64s(&[n.gravity, n.dry_depth])
            .bytes(format!("{:?}", n.limiter).as_bytes())
            .done();
        Fingerprint {
            crc: [
                grid, terrain, friction, boundaries, series, sources, rain, numerics,
            ],
        }
    }

    pub fn json(&self) -> serde_json::Value {
        PARTS
            .iter()
            .zip(self.crc)
            .map(|((key, _), crc)| (key.to_string(), format!("{crc:08x}").into()))
            .collect::<serde_json::Map<_, _>>()
            .into()
    }

    /// What differs between this (the scenario's) and a checkpoint header's fingerprint,
    /// as a clause ("the terrain and the friction differ from the scenario's"); None when
    /// nothing does. Another grid is named alone: every field on it differs too.
    pub fn differences(&self, recorded: &serde_json::Value) -> Option<String> {
        let differ: Vec<(&str, &str)> = PARTS
            .iter()
            .zip(self.crc)
            .filter(|((key, _), crc)| recorded[*key].as_str() != Some(&format!("{crc:08x}")))
            // Checkpoints from before the numerics had a part of their own.
            .filter(|((key, _), _)| !(*key == "numerics" && recorded[*key].is_null()))
            .map(|(part, _)| *part)
            .collect();
        match differ.as_slice() {
            [] => None,
            [("grid", _), ..] => {
                Some("it was written for another grid (extent, cell size or refinement)".into())
            }
            [(_, one)] => Some(format!("{one} differs from the scenario's")),
            [most @ .., (_, last)] => {
                let most: Vec<&str> = most.iter().map(|p| p.1).collect();
                Some(format!(
                    "{} and {last} differ from the scenario's",
                    most.join(", ")
                ))
            }
        }
    }
}

//! WGSL sources, assembled at build time. WGSL has no `#include`, so each module is the
//! concatenation of the files it needs; `shaders/` mirrors the kernels one file each.

macro_rules! shader {
    ($($file:literal),+ $(,)?) => {
        concat!($(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/", $file)), "\n"),+)
    };
}

/// Every solver kernel: `init_speeds`, `stage1`, `stage2`, `scan_blocks`, `finalize_step`,
/// `scan_then_finalize` and the exchange kernels.
pub const SOLVER: &str = shader!(
    "common.wgsl",
    "dfloat.wgsl",
    "riemann.wgsl",
    "reconstruct.wgsl",
    "levels.wgsl",
    "flux.wgsl",
    "edges.wgsl",
    "sources.wgsl",
    "update.wgsl",
    "discharge.wgsl",
    "losses.wgsl",
    "structures.wgsl",
    "drymap.wgsl",
    "timestep.wgsl",
    "exchange.wgsl",
);

/// The plain copy kernel the benchmark measures bandwidth with.
pub const COPY: &str = shader!("copy.wgsl");

/// The test kernel that measures drift of the double-f32 clock.
pub const CLOCK_CHECK: &str = shader!("dfloat.wgsl", "clock_check.wgsl");

/// All modules with their names, for validation.
pub const ALL: [(&str, &str); 3] = [
    ("solver", SOLVER),
    ("copy", COPY),
    ("clock_check", CLOCK_CHECK),
];

/// Parses and validates a module with naga, returning naga's own message on failure.
pub fn validate(name: &str, source: &str) -> Result<naga::Module, String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| format!("{name}: {}", e.emit_to_string(source)))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| format!("{name}: {}", e.emit_to_string(source)))?;
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shader_parses_and_validates() {
        for (name, source) in ALL {
            if let Err(message) = validate(name, source) {
                panic!("{message}");
            }
        }
    }

    #[test]
    fn solver_has_its_entry_points() {
        let module = validate("solver", SOLVER).unwrap();
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        for expected in [
            "init_speeds",
            "stage1",
            "stage2",
            "stage1_levels",
            "stage2_levels",
            "stage1_ghosts_and_border",
            "stage2_border",
            "scan_blocks",
            "scan_border",
            "finalize_step",
            "scan_then_finalize",
            "replan_step",
            "pack",
            "unpack",
            "face_discharge",
            "face_discharge_and_peaks",
        ] {
            assert!(names.contains(&expected), "missing entry point {expected}");
        }
    }
}

//! The run's numerics, load balancing and output formats.

use super::frame::*;
use crate::error::InputError;
use crate::scenario::limits;
use crate::scenario::model::{Limiter, Numerics, RasterFormat};
use crate::scenario::spec::*;

pub(crate) fn balance_settings(
    b: &crate::scenario::spec::LoadBalancingSpec,
) -> Result<crate::partition::balance::Settings, InputError> {
    let every = b.every.unwrap_or(100);
    if every == 0 {
        return Err(bad(
            "load_balancing.every",
            "expected at least 1 step, found 0",
        ));
    }
    let within = |key: &str, v: f64, lo: f64, hi: f64, what: &str| {
        if v.is_finite() && v >= lo && v < hi {
            Ok(v)
        } else {
            Err(bad(key, format!("expected {what}, found {v}")))
        }
    };
    Ok(crate::partition::balance::Settings {
        every,
        threshold: within(
            "load_balancing.threshold",
            b.threshold.unwrap_or(1.1),
            1.0,
            f64::INFINITY,
            "a number >= 1 (max over mean busy time)",
        )?,
        rule: b
            .rule
            .as_deref()
            .unwrap_or("cost")
            .parse()
            .map_err(|m: String| bad("load_balancing.rule", m))?,
        epsilon: within(
            "load_balancing.epsilon",
            b.epsilon.unwrap_or(0.2),
            0.0,
            1.0,
            "a number in [0, 1)",
        )?,
        max_blocks: within(
            "load_balancing.max_blocks",
            b.max_blocks.unwrap_or(4.0),
            1.0,
            f64::INFINITY,
            "a number >= 1 (times the fair number of blocks)",
        )?,
        payback: within(
            "load_balancing.payback",
            b.payback.unwrap_or(1.0),
            f64::MIN_POSITIVE,
            f64::INFINITY,
            "a number > 0 (windows)",
        )?,
        min_busy_share: within(
            "load_balancing.min_busy_share",
            b.min_busy_share.unwrap_or(0.75),
            0.0,
            1.0,
            "a number in [0, 1) (share of the window's wall time)",
        )?,
    })
}

pub(crate) fn raster_format(output: &OutputSpec) -> Result<RasterFormat, InputError> {
    let default = if cfg!(feature = "gdal") {
        "geotiff"
    } else {
        "ascii"
    };
    match output.format.as_deref().unwrap_or(default) {
        "geotiff" if cfg!(feature = "gdal") => Ok(RasterFormat::GeoTiff),
        "geotiff" => Err(bad(
            "output.format",
            "this build has no GDAL (feature `gdal`): use \"ascii\"",
        )),
        "ascii" => Ok(RasterFormat::Ascii),
        other => Err(bad(
            "output.format",
            format!("expected \"geotiff\" or \"ascii\", found {other:?}"),
        )),
    }
}

/// Whether the run writes `event.nc`: by default wherever it can (GDAL, and the maps it is
/// assembled from).
pub(crate) fn netcdf(output: &OutputSpec) -> Result<bool, InputError> {
    #[cfg(feature = "gdal")]
    let writer = crate::io::netcdf::available();
    #[cfg(not(feature = "gdal"))]
    let writer = false;
    match output.netcdf {
        None => Ok(writer && output.rasters),
        Some(false) => Ok(false),
        Some(true) if !writer => Err(bad(
            "output.netcdf",
            "this build has no GDAL with its netCDF driver, which writes NetCDF: set it to false",
        )),
        Some(true) if !output.rasters => Err(bad(
            "output.netcdf",
            "event.nc is assembled from the maps of the output times: set output.rasters = true too",
        )),
        Some(true) => Ok(true),
    }
}

pub(crate) fn numerics(spec: &Spec) -> Result<Numerics, InputError> {
    let d = Numerics::default();
    let n = &spec.numerics;
    let cfl = limits::check_cfl(spec.time.cfl.unwrap_or(d.cfl))?;
    let dt_max = spec.time.dt_max.unwrap_or(d.dt_max);
    if !(dt_max > 0.0 && dt_max.is_finite()) {
        return Err(bad(
            "time.dt_max",
            format!("expected a positive time step (s), found {dt_max}"),
        ));
    }
    let t = &spec.time;
    limits::check_steps(t.start, t.end, dt_max, t.dt_max.is_some())?;
    let gravity = n.gravity.unwrap_or(d.gravity);
    if !(gravity > 0.0 && gravity.is_finite()) {
        return Err(bad(
            "numerics.gravity",
            format!("expected g > 0 (m/s²), found {gravity}"),
        ));
    }
    let dry_depth = n.dry_depth.unwrap_or(d.dry_depth);
    if !(dry_depth > 0.0 && dry_depth < 1.0) {
        return Err(bad(
            "numerics.dry_depth",
            format!("expected 0 < dry_depth < 1 m, found {dry_depth}"),
        ));
    }
    let arrival_depth = spec.output.arrival_depth.unwrap_or(d.arrival_depth);
    if !(arrival_depth > 0.0 && arrival_depth.is_finite()) {
        return Err(bad(
            "output.arrival_depth",
            format!("expected a depth > 0 m, found {arrival_depth}"),
        ));
    }
    let duration_depth = spec.output.duration_depth.unwrap_or(arrival_depth);
    // A block the solver leaves out holds no cell deeper than dry_depth: none of its
    // cells may count as flooded.
    if !(duration_depth > dry_depth && duration_depth.is_finite()) {
        return Err(bad(
            "output.duration_depth",
            format!(
                "expected a depth above numerics.dry_depth ({dry_depth} m), found {duration_depth}"
            ),
        ));
    }
    let debris = match spec.output.debris.as_deref() {
        None => d.debris,
        Some(name) => crate::io::hazard::LandUse::parse(name).ok_or_else(|| {
            bad(
                "output.debris",
                format!("expected \"urban\", \"woodland\" or \"pasture\", found {name:?}"),
            )
        })?,
    };
    let max_mass_error = n.max_mass_error.unwrap_or(d.max_mass_error);
    if !(max_mass_error > 0.0 && max_mass_error < 1.0) {
        return Err(bad(
            "numerics.max_mass_error",
            format!("expected a relative error between 0 and 1, found {max_mass_error}"),
        ));
    }
    let limiter = match n.limiter.as_deref().unwrap_or("van-albada") {
        "minmod" => Limiter::Minmod,
        "van-albada" => Limiter::VanAlbada,
        other => {
            return Err(bad(
                "numerics.limiter",
                format!("expected \"minmod\" or \"van-albada\", found {other:?}"),
            ))
        }
    };
    Ok(Numerics {
        gravity,
        cfl,
        dt_max,
        dry_depth,
        limiter,
        skip_dry_blocks: n.skip_dry_blocks.unwrap_or(d.skip_dry_blocks),
        track_maxima: spec.output.maxima,
        arrival_depth,
        duration_depth,
        debris,
        max_mass_error,
    })
}

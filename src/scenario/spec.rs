//! The scenario file as written by the user (TOML). Every key is documented in
//! `docs/scenario.md`; unknown keys are errors, so a typo never passes silently.

use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub name: Option<String>,
    pub description: Option<String>,
    pub domain: Option<DomainSpec>,
    pub terrain: TerrainSpec,
    pub refinement: Option<RefinementSpec>,
    #[serde(default)]
    pub initial: InitialSpec,
    #[serde(default)]
    pub friction: FrictionSpec,
    #[serde(default)]
    pub boundary: BoundarySpec,
    pub rain: Option<RainSpec>,
    /// Losses to the ground: initial and continuing, or Green-Ampt.
    pub losses: Option<super::losses::LossesSpec>,
    #[serde(default, rename = "gauge")]
    pub gauges: Vec<GaugeSpec>,
    /// Discharges into the domain away from its edges: at a point, along a line, or over a
    /// polygon.
    #[serde(default, rename = "source")]
    pub sources: Vec<SourceSpec>,
    /// Embankments, walls and road crests along lines: the terrain raised to a crest, or
    /// taken out of the domain (a wall).
    #[serde(default, rename = "levee")]
    pub levees: Vec<LeveeSpec>,
    /// Barrels linking two places: discharge by Boyd's culvert equations.
    #[serde(default, rename = "culvert")]
    pub culverts: Vec<super::structures::CulvertSpec>,
    /// Crests along lines: discharge by the weir equation.
    #[serde(default, rename = "weir")]
    pub weirs: Vec<super::weirs::WeirSpec>,
    /// Lines across which the discharge is recorded at gauge times.
    #[serde(default, rename = "cross_section")]
    pub sections: Vec<SectionSpec>,
    pub time: TimeSpec,
    #[serde(default)]
    pub numerics: NumericsSpec,
    #[serde(default)]
    pub output: OutputSpec,
    #[serde(default)]
    pub parallel: ParallelSpec,
    /// Moving blocks between ranks as the flood moves (runs over several ranks).
    pub load_balancing: Option<LoadBalancingSpec>,
}

/// Runs over several ranks (`mpirun -n P quadflood run ...`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParallelSpec {
    /// "hilbert" (default) or "1d".
    pub partition: Option<String>,
}

/// `[load_balancing]`: see `partition::balance`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadBalancingSpec {
    /// false turns balancing off and keeps the table (default true).
    pub enabled: Option<bool>,
    /// Steps between checks (default 100).
    pub every: Option<u64>,
    /// Rebalance when the busiest rank's time over the mean passes this (default 1.1).
    pub threshold: Option<f64>,
    /// "cost" (default) or "idle" (the source documents' rule).
    pub rule: Option<String>,
    /// Step size of the idle rule, in [0, 1) (default 0.2).
    pub epsilon: Option<f64>,
    /// No rank holds more than this many times its fair number of blocks (default 4).
    pub max_blocks: Option<f64>,
    /// A move must pay for itself within this many windows (default 1).
    pub payback: Option<f64>,
    /// No move while the busiest GPU works less than this share of a window (default 0.75).
    pub min_busy_share: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainSpec {
    pub cell_size: f64,
    pub nx: usize,
    pub ny: usize,
    #[serde(default)]
    pub origin: [f64; 2],
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TerrainSpec {
    Flat {
        #[serde(default)]
        elevation: f64,
    },
    Slope {
        #[serde(default)]
        elevation: f64,
        #[serde(default)]
        slope_x: f64,
        #[serde(default)]
        slope_y: f64,
    },
    /// z = elevation + depth (r²/radius² − 1): a paraboloid, lowest at the centre.
    Bowl {
        center: [f64; 2],
        radius: f64,
        depth: f64,
        #[serde(default)]
        elevation: f64,
    },
    Expression {
        expression: String,
    },
    Raster {
        path: PathBuf,
        /// Model cell size (m): a finer raster is averaged down to it, a coarser one
        /// interpolated. Default: the raster's own cell size.
        cell_size: Option<f64>,
    },
}

/// A number, or an expression in x and y (metres).
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "a number, or an expression in x and y in quotes (\"1.5 - 0.01*x\")"
)]
pub enum Value {
    Number(f64),
    Expression(String),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialSpec {
    pub water_level: Option<Value>,
    pub depth: Option<Value>,
    pub u: Option<Value>,
    pub v: Option<Value>,
    #[serde(default, rename = "region")]
    pub regions: Vec<RegionSpec>,
    pub raster: Option<InitialRaster>,
}

impl InitialSpec {
    /// No water and no velocity anywhere: nothing to check or place.
    pub fn is_dry(&self) -> bool {
        self.water_level.is_none()
            && self.depth.is_none()
            && self.u.is_none()
            && self.v.is_none()
            && self.regions.is_empty()
            && self.raster.is_none()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionSpec {
    pub shape: String,
    pub center: Option<[f64; 2]>,
    pub radius: Option<f64>,
    pub min: Option<[f64; 2]>,
    pub max: Option<[f64; 2]>,
    pub points: Option<Vec<[f64; 2]>>,
    pub water_level: Option<Value>,
    pub depth: Option<Value>,
    pub u: Option<Value>,
    pub v: Option<Value>,
}

/// Multi-resolution: which blocks are refined to which level (0 = finest).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefinementSpec {
    /// Number of levels; 1 is a uniform grid.
    pub levels: Option<usize>,
    /// Level used where no criterion asks for finer; default: the coarsest.
    pub default_level: Option<u32>,
    #[serde(default, rename = "region")]
    pub regions: Vec<RefineRegion>,
    /// Refine a block while its terrain relief (max − min, m) exceeds this.
    pub relief: Option<f64>,
    /// Refine to the finest level where the terrain slope (m/m) exceeds this.
    pub slope: Option<f64>,
    /// Refine to the finest level within this distance (m) of inflow and stage edges.
    pub near_inflow: Option<f64>,
    /// ... of gauges.
    pub near_gauges: Option<f64>,
    /// ... of initially wet cells.
    pub near_water: Option<f64>,
    /// Refine to the finest level where at least this area (m²) drains through a cell:
    /// along the channels the terrain's flow paths gather into.
    pub channels: Option<f64>,
}

/// A shape forced to a level.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefineRegion {
    pub shape: String,
    pub center: Option<[f64; 2]>,
    pub radius: Option<f64>,
    pub min: Option<[f64; 2]>,
    pub max: Option<[f64; 2]>,
    pub points: Option<Vec<[f64; 2]>>,
    pub level: u32,
}

/// The keys that describe a shape, wherever they appear.
pub struct ShapeKeys<'a> {
    pub shape: &'a str,
    pub center: Option<[f64; 2]>,
    pub radius: Option<f64>,
    pub min: Option<[f64; 2]>,
    pub max: Option<[f64; 2]>,
    pub points: Option<&'a Vec<[f64; 2]>>,
}

impl RegionSpec {
    pub fn shape_keys(&self) -> ShapeKeys<'_> {
        ShapeKeys {
            shape: &self.shape,
            center: self.center,
            radius: self.radius,
            min: self.min,
            max: self.max,
            points: self.points.as_ref(),
        }
    }
}

impl RefineRegion {
    pub fn shape_keys(&self) -> ShapeKeys<'_> {
        ShapeKeys {
            shape: &self.shape,
            center: self.center,
            radius: self.radius,
            min: self.min,
            max: self.max,
            points: self.points.as_ref(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialRaster {
    pub path: PathBuf,
    /// "depth" or "level".
    pub kind: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrictionSpec {
    pub manning: Option<f64>,
    /// A raster of Manning n.
    pub raster: Option<PathBuf>,
    /// A raster of integer land-use classes, with `classes` giving n per class.
    pub landuse: Option<PathBuf>,
    pub classes: Option<std::collections::BTreeMap<String, f64>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundarySpec {
    pub default: Option<String>,
    pub west: Option<String>,
    pub east: Option<String>,
    pub south: Option<String>,
    pub north: Option<String>,
    #[serde(default, rename = "segment")]
    pub segments: Vec<SegmentSpec>,
    /// Stage, outfall, open and normal-depth lines anywhere in the domain, not only on its
    /// edges.
    #[serde(default, rename = "line")]
    pub lines: Vec<BoundaryLineSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundaryLineSpec {
    pub name: Option<String>,
    /// "stage" (the water level held at `level`), "outfall" (water that reaches the
    /// line leaves the domain), "open" (zero gradient: the line's cells take the state
    /// of their neighbour inside the domain), "normal_depth" (water leaves as uniform
    /// flow on `slope`) or "rating" (water leaves as `rating` gives for its level).
    #[serde(rename = "type")]
    pub kind: String,
    pub line: Coords,
    /// Stage: water level (m, the terrain's datum).
    pub level: Option<SeriesSpec>,
    /// Normal depth: the friction slope (m/m).
    pub slope: Option<f64>,
    /// Rating: the discharge (m³/s, the whole line) at each water level.
    pub rating: Option<RatingSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentSpec {
    /// "west", "east", "south" or "north"; or drawn as `line` instead
    /// (`segment_lines::resolve` sets it, with `from` and `to`, from the line).
    pub edge: Option<String>,
    /// The segment as a polyline along one edge, inline or a vector feature.
    pub line: Option<Coords>,
    #[serde(rename = "type")]
    pub kind: String,
    pub from: Option<f64>,
    pub to: Option<f64>,
    /// Inflow discharge (m³/s).
    pub discharge: Option<SeriesSpec>,
    /// Stage: water level (m, same datum as the terrain).
    pub level: Option<SeriesSpec>,
    /// Normal depth: the friction slope (m/m, > 0).
    pub slope: Option<f64>,
    /// Rating: the discharge (m³/s, the whole segment) at each water level.
    pub rating: Option<RatingSpec>,
}

impl SegmentSpec {
    /// The edge's name ("" only before `segment_lines::resolve`).
    pub fn edge_name(&self) -> &str {
        self.edge.as_deref().unwrap_or("")
    }
}

/// A rating curve Q(level): a table, or two columns of a CSV file.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "{ level = [...], discharge = [...] }, or { csv = \"file\", level_column = \"...\", discharge_column = \"...\", unit = \"m3/s\" } (no other keys)"
)]
pub enum RatingSpec {
    Table(RatingTable),
    Csv(RatingCsv),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingTable {
    /// Water levels (m, the terrain's datum), strictly increasing.
    pub level: Vec<f64>,
    /// Discharge (m³/s) at each level.
    pub discharge: Vec<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingCsv {
    pub csv: PathBuf,
    pub level_column: Option<String>,
    pub discharge_column: Option<String>,
    /// Required: the discharge's unit, "m3/s" or "l/s" (levels are in m).
    pub unit: Option<String>,
}

/// A constant, a table, or two columns of a CSV file.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "a number, { time = [...], value = [...] }, or { csv = \"file\", time_column = \"...\", value_column = \"...\", time_unit = \"s\", unit = \"...\" } (no other keys)"
)]
pub enum SeriesSpec {
    Constant(f64),
    Table(SeriesTable),
    Csv(SeriesCsv),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesTable {
    pub time: Vec<f64>,
    pub value: Vec<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesCsv {
    pub csv: PathBuf,
    pub time_column: Option<String>,
    pub value_column: Option<String>,
    /// Required: "s", "min", "h", "day", or "datetime" (ISO 8601 date-times, with
    /// `time.reference`).
    pub time_unit: Option<String>,
    /// Required: the value's unit, e.g. "m3/s", "m" or "mm/h".
    pub unit: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RainSpec {
    /// mm/h on every cell outside the zones.
    pub rate: Option<SeriesSpec>,
    /// Gridded rain (radar, a forecast), in place of `rate`.
    pub rasters: Option<RainRasters>,
    /// Areas with a rain series of their own; a later zone wins where zones overlap.
    #[serde(default, rename = "zone")]
    pub zones: Vec<RainZoneSpec>,
}

/// A sequence of rain-rate rasters on a grid of their own, each valid at its time;
/// rates are interpolated linearly between them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RainRasters {
    pub paths: Vec<String>,
    pub times: Vec<f64>,
    /// Required: "s", "min", "h" or "day".
    pub time_unit: Option<String>,
    /// Required: "mm/h", "mm/min" or "m/s".
    pub unit: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RainZoneSpec {
    pub name: Option<String>,
    pub polygon: Coords,
    /// mm/h.
    pub rate: SeriesSpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    pub name: Option<String>,
    /// m³/s, spread evenly over the cells the source covers.
    pub discharge: SeriesSpec,
    pub point: Option<[f64; 2]>,
    pub line: Option<Coords>,
    pub polygon: Option<Coords>,
}

/// Vertices written out, or a feature of a vector file (GeoJSON, Shapefile, ...) chosen by
/// its `name` attribute; a file with one feature needs no name.
#[derive(Clone, Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "a list of [x, y] points, or { vector = \"file.geojson\", feature = \"name\" }"
)]
pub enum Coords {
    Points(Vec<[f64; 2]>),
    Vector {
        vector: String,
        feature: Option<String>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeveeSpec {
    pub name: Option<String>,
    pub line: Coords,
    /// Crest elevation (m, the terrain's datum); without it the line is a wall that water
    /// never crosses.
    pub crest: Option<f64>,
    /// q = coefficient H^1.5 (m^0.5/s) over the crest; 1.7 by default, as a weir's.
    pub coefficient: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionSpec {
    pub name: String,
    /// A polyline; discharge counts positive to the left of its direction.
    pub line: Coords,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaugeSpec {
    pub name: String,
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSpec {
    #[serde(default)]
    pub start: f64,
    pub end: f64,
    pub cfl: Option<f64>,
    pub dt_max: Option<f64>,
    pub output_interval: Option<f64>,
    pub output_times: Option<Vec<f64>>,
    pub gauge_interval: Option<f64>,
    /// The date and time of t = 0 (ISO 8601, a string or a TOML date-time): series may
    /// then give dates, and outputs carry dates beside seconds.
    pub reference: Option<toml::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumericsSpec {
    pub gravity: Option<f64>,
    pub limiter: Option<String>,
    pub dry_depth: Option<f64>,
    pub skip_dry_blocks: Option<bool>,
    /// The relative mass error at which a run stops (default 1e-4).
    pub max_mass_error: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    #[serde(default = "yes")]
    pub rasters: bool,
    #[serde(default = "yes")]
    pub png: bool,
    /// An animated GIF of the depth at the output times (with `png`).
    #[serde(default = "yes")]
    pub animation: bool,
    /// Track the run's maxima: depth, speed, hazard (depth x speed), arrival time and time
    /// of maximum depth.
    #[serde(default = "yes", alias = "max_depth")]
    pub maxima: bool,
    /// Depth (m) at which a cell counts as reached, for the arrival-time map.
    pub arrival_depth: Option<f64>,
    /// Depth (m) from which a cell counts as flooded, for the inundation duration map
    /// (default: `arrival_depth`).
    pub duration_depth: Option<f64>,
    /// Land use of the UK hazard rating's debris factors: "urban" (default), "woodland"
    /// or "pasture".
    pub debris: Option<String>,
    /// "geotiff" (default with GDAL) or "ascii".
    pub format: Option<String>,
    /// Maps of the model as built, in `check/`: the bed, Manning's n, block levels, and the
    /// cells boundaries and sources act on. By default with the other maps (`rasters`).
    pub check: Option<bool>,
    /// The whole event in one CF NetCDF (`event.nc`): on by default where GDAL is and the
    /// maps are written.
    pub netcdf: Option<bool>,
}

fn yes() -> bool {
    true
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec {
            rasters: true,
            png: true,
            animation: true,
            maxima: true,
            arrival_depth: None,
            duration_depth: None,
            debris: None,
            format: None,
            check: None,
            netcdf: None,
        }
    }
}

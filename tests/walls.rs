//! Walls inside the domain (a levee without a crest, nodata) and edges that pass no water
//! (an inflow at 0, a rating edge below its curve) meet water as the domain's own wall
//! edges do.

mod common;

/// A dam break in a channel 8 cells wide (the first 8 of `ny` rows, `nx` long): water at
/// `dam` behind x = 20 m, at `ahead` beyond (0: dry), Manning's `n`, and `extra`.
fn dam_break(nx: usize, ny: usize, dam: f64, ahead: f64, n: f64, extra: &str) -> String {
    format!(
        r#"
[domain]
cell_size = 1.0
nx = {nx}
ny = {ny}

[terrain]
type = "flat"
elevation = 0.0

[initial]
water_level = 0.0

[[initial.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [{nx}.0, 8.0]
water_level = {ahead}

[[initial.region]]
shape = "rectangle"
min = [0.0, 0.0]
max = [20.0, 8.0]
water_level = {dam}

[friction]
manning = {n}

{extra}
[time]
end = 12.0
"#
    )
}

/// The dam break's front running into a wall across the channel 50 m downstream: `wall`
/// makes the wall ("edge": the domain ends there; "levee": a levee inside a longer channel;
/// "inflow", "rating": the east edge, passing nothing).
fn channel_towards(wall: &str) -> String {
    let east = |kind: &str| format!("[[boundary.segment]]\nedge = \"east\"\n{kind}\n");
    let (nx, extra) = match wall {
        "edge" => (50, String::new()),
        "levee" => (64, "[[levee]]\nline = [[50.5, 0.5], [50.5, 7.5]]\n".into()),
        "inflow" => (50, east("type = \"inflow\"\ndischarge = 0.0")),
        _ => (
            50,
            east("type = \"rating\"\nrating = { level = [2.0, 3.0], discharge = [0.0, 10.0] }"),
        ),
    };
    dam_break(nx, 8, 1.0, 0.0, 0.0, &extra)
}

/// The front reaches the wall at about 6 s and is thrown back as a bore. A wall inside
/// the domain, an inflow edge at 0 and a rating edge below its curve once met it as a dry
/// bank, pushing back with the water's hydrostatic pressure alone: the water ran on into
/// the wall's cell (4.97 m/s there at most, against 3.46 at a wall edge), piled 12%
/// deeper at 10 s, and its bore came back late (hunts 9 and 11).
#[test]
fn a_front_meets_walls_and_closed_edges_as_it_meets_a_wall_edge() {
    let at = |wall: &str, t: f64| {
        let model = common::model(&channel_towards(wall));
        let nx = model.grid.nx;
        let (f, _) = common::run_to(&model, t);
        // Row 4, the 10 cells before the wall.
        (40..50)
            .map(|i| (f.depth[i + 4 * nx], f.hu[i + 4 * nx]))
            .collect::<Vec<_>>()
    };
    for (wall, t) in ["levee", "inflow", "rating"]
        .into_iter()
        .flat_map(|w| [7.0, 10.0, 12.0].map(|t| (w, t)))
    {
        let edge = at("edge", t);
        let inside = at(wall, t);
        for (k, (e, w)) in edge.iter().zip(&inside).enumerate() {
            println!(
                "{wall}, t = {t} s, cell {}: depth {:.4} against {:.4}, discharge {:.4} against {:.4}",
                40 + k,
                w.0,
                e.0,
                w.1,
                e.1
            );
            assert!(
                (e.0 - w.0).abs() <= 1e-3 * e.0.max(0.01) && (e.1 - w.1).abs() <= 1e-3 * e.1.abs().max(0.01),
                "{wall}, t = {t} s, cell {}: depth {} and discharge {} there, {} and {} beside the wall edge",
                40 + k, w.0, w.1, e.0, e.1
            );
        }
    }
}

/// The dam break running along the channel into water 0.5 m deep, between the domain's
/// south and north edges, or between the south edge and a levee (`levee`; dry beyond it).
fn channel_along(levee: bool) -> String {
    match levee {
        true => dam_break(
            64,
            12,
            1.3,
            0.5,
            0.03,
            "[[levee]]\nline = [[0.5, 8.5], [63.5, 8.5]]",
        ),
        false => dam_break(64, 8, 1.3, 0.5, 0.03, ""),
    }
}

/// The levee's face takes the water's hydrostatic pressure exactly, as the wall edge does:
/// the two channels agree bit for bit. Solved against the water's mirror by HLLC, the
/// pressure of water moving along the levee only came out an ulp off, a push across the
/// channel every step (4.2e-7 apart after 10 s; a review).
#[test]
fn a_flow_along_a_wall_inside_the_domain_is_the_flow_along_a_wall_edge() {
    let run = |levee: bool| common::run_to(&common::model(&channel_along(levee)), 10.0).0;
    let (edge, inside) = (run(false), run(true));
    let cells = 64 * 8;
    let along = (0..cells).map(|c| edge.hu[c].abs()).fold(0.0f32, f32::max);
    let apart = (0..cells)
        .map(|c| {
            (edge.hv[c] - inside.hv[c])
                .abs()
                .max((edge.depth[c] - inside.depth[c]).abs())
        })
        .fold(0.0f32, f32::max);
    println!("largest discharge along the channel {along}; largest difference {apart}");
    assert!(along > 0.1, "the dam break did not run: {along}");
    assert_eq!(
        apart, 0.0,
        "the levee's channel differs from the walled one by {apart}"
    );
}

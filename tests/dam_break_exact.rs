//! Dam breaks along x against their exact solutions (Ritter: dry bed; Stoker: wet bed).
//! The L1 depth error must fall as the grid is refined, and stay under a bound.

mod common;

use quadflood::exact::{Ritter, Stoker};

const LENGTH: f64 = 200.0;
const DAM: f64 = 100.0;
const H_LEFT: f64 = 1.0;
const T: f64 = 10.0;
const G: f64 = 9.81;

/// A channel one block wide, walls all round (the waves stay clear of the ends until T).
fn channel(n: usize, h_right: f64) -> String {
    let dx = LENGTH / n as f64;
    let right = if h_right > 0.0 {
        format!("water_level = {h_right}")
    } else {
        String::new()
    };
    format!(
        r#"
[domain]
cell_size = {dx}
nx = {n}
ny = 16

[terrain]
type = "flat"

[initial]
{right}

[[initial.region]]
shape = "rectangle"
min = [0.0, -1.0]
max = [{DAM}, 1e9]
water_level = {H_LEFT}

[time]
end = {T}
cfl = 0.5
"#
    )
}

/// L1 norm of the depth error along the channel (m²), from the middle row.
fn l1_error(n: usize, h_right: f64, exact: &dyn Fn(f64) -> f64) -> f64 {
    let model = common::model(&channel(n, h_right));
    let (f, status) = common::run_to(&model, T);
    assert_eq!(status.t, T);
    let dx = LENGTH / n as f64;
    let row = 8 * n;
    (0..n)
        .map(|i| (f.depth[row + i] as f64 - exact((i as f64 + 0.5) * dx)).abs() * dx)
        .sum()
}

/// The L1 error of a discontinuous solution can at best fall in proportion to dx: the jump
/// is smeared over a few cells whatever the order of the scheme. We ask for that rate (each
/// halving of dx cuts the error by 40% or more) and bound the finest error by C·dx, with
/// C = 0.6 m: a 0.3 m jump (Stoker's shock) smeared over 4 cells costs 0.3 × 2 dx.
fn converges(name: &str, h_right: f64, exact: &dyn Fn(f64) -> f64) {
    let grids = [100, 200, 400, 800];
    let errors: Vec<f64> = grids.iter().map(|&n| l1_error(n, h_right, exact)).collect();
    for (n, e) in grids.iter().zip(&errors) {
        println!("{name}: n = {n:4}, L1 depth error {e:.5} m²");
    }
    for k in 1..errors.len() {
        assert!(
            errors[k] < 0.6 * errors[k - 1],
            "{name}: error did not fall from n = {} to {}",
            grids[k - 1],
            grids[k]
        );
    }
    let dx = LENGTH / *grids.last().unwrap() as f64;
    let finest = *errors.last().unwrap();
    assert!(
        finest < 0.6 * dx,
        "{name}: L1 error {finest} m² at dx = {dx} m exceeds 0.6 dx"
    );
}

#[test]
fn ritter_dry_bed() {
    let r = Ritter {
        g: G,
        h_left: H_LEFT,
        x_dam: DAM,
    };
    converges("Ritter", 0.0, &|x| r.depth(x, T));
}

#[test]
fn stoker_wet_bed() {
    let s = Stoker::new(G, H_LEFT, 0.1, DAM);
    converges("Stoker", 0.1, &|x| s.depth(x, T));
}

//! Where water gathers on a terrain: the area draining through each cell, for refining the
//! grid along channels (`refinement.channels`).
//!
//! Flow directions come from a priority flood (Barnes et al. 2014, "Priority-flood: an
//! optimal depression-filling and watershed-labeling algorithm"): cells are taken from the
//! lowest outlet inwards, lowest (filled) elevation first, and each drains to the cell it
//! was reached from, so depressions and flats drain too and every cell has a path to an
//! outlet. Outlets are the domain's edge cells and cells beside nodata.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Area (m²) draining through each cell of an `nx` × `ny` terrain (row-major, NaN for
/// nodata, which drains nothing), the cell's own area included.
pub fn upstream_area(nx: usize, ny: usize, elevation: &[f64], cell_area: f64) -> Vec<f64> {
    let order = flood_order(nx, ny, elevation);
    let mut area: Vec<f64> = elevation
        .iter()
        .map(|z| if z.is_nan() { 0.0 } else { cell_area })
        .collect();
    // Each cell is reached after the cell it drains to: in reverse, every upstream cell
    // has given its area before its receiver passes the sum on.
    for &(cell, receiver) in order.iter().rev() {
        if receiver != OUTLET {
            area[receiver as usize] += area[cell as usize];
        }
    }
    area
}

/// The receiver of an outlet, which drains out of the domain.
const OUTLET: u32 = u32::MAX;

/// Terrain cells in the order the flood reaches them, each with the cell it drains to
/// (`OUTLET`), as u32 indices: a large DEM's order is 8 bytes a cell.
fn flood_order(nx: usize, ny: usize, z: &[f64]) -> Vec<(u32, u32)> {
    let n = nx * ny;
    let mut seen = vec![false; n];
    // (filled elevation, arrival count, cell, receiver): the count breaks ties first in,
    // first out, so a flat drains along the way the flood crossed it.
    let mut heap = BinaryHeap::new();
    let mut count = 0u64;
    let key = |v: f64| (Reverse(ordered(v)), v.to_bits());
    for c in 0..n {
        let (i, j) = (c % nx, c / nx);
        let outlet = i == 0
            || j == 0
            || i + 1 == nx
            || j + 1 == ny
            || neighbours(i, j, nx, ny).any(|m| z[m].is_nan());
        if !z[c].is_nan() && outlet {
            seen[c] = true;
            let (k, bits) = key(z[c]);
            heap.push((k, Reverse(count), bits, c as u32, OUTLET));
            count += 1;
        }
    }
    let mut order = Vec::with_capacity(n);
    while let Some((_, _, level, c, receiver)) = heap.pop() {
        order.push((c, receiver));
        let c = c as usize;
        for m in neighbours(c % nx, c / nx, nx, ny) {
            if seen[m] || z[m].is_nan() {
                continue;
            }
            seen[m] = true;
            let filled = z[m].max(f64::from_bits(level));
            let (k, bits) = key(filled);
            heap.push((k, Reverse(count), bits, m as u32, c as u32));
            count += 1;
        }
    }
    order
}

/// The 8 neighbours of (i, j) inside the grid.
fn neighbours(i: usize, j: usize, nx: usize, ny: usize) -> impl Iterator<Item = usize> {
    (-1i64..=1)
        .flat_map(|dj| (-1i64..=1).map(move |di| (di, dj)))
        .filter(|&d| d != (0, 0))
        .filter_map(move |(di, dj)| {
            let (a, b) = (i as i64 + di, j as i64 + dj);
            (a >= 0 && b >= 0 && (a as usize) < nx && (b as usize) < ny)
                .then(|| a as usize + nx * b as usize)
        })
}

/// Elevations as keys that sort as the numbers do, negative ones included.
fn ordered(v: f64) -> u64 {
    let bits = v.to_bits();
    match bits >> 63 {
        1 => !bits,
        _ => bits | 1 << 63,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valley_gathers_its_slopes_into_its_floor() {
        // A V-shaped valley draining south: the floor column carries everything.
        let (nx, ny) = (9, 12);
        let z: Vec<f64> = (0..nx * ny)
            .map(|c| {
                let (i, j) = ((c % nx) as f64, (c / nx) as f64);
                (i - 4.0).abs() + 0.1 * j
            })
            .collect();
        let a = upstream_area(nx, ny, &z, 1.0);
        let total = (nx * ny) as f64;
        // The floor's lowest interior cell drains most of the valley; a ridge cell only
        // itself.
        assert!(a[4 + nx] > 0.5 * total, "floor {} of {total}", a[4 + nx]);
        assert_eq!(a[nx * 6], 1.0, "the west edge is an outlet of one cell");
        // Areas are conserved: every cell's area ends at exactly one outlet.
        let outlets: f64 = (0..nx * ny)
            .filter(|&c| {
                let (i, j) = (c % nx, c / nx);
                i == 0 || j == 0 || i + 1 == nx || j + 1 == ny
            })
            .map(|c| a[c])
            .sum();
        assert!(
            (outlets - total).abs() < 1e-9,
            "outlets gather {outlets} of {total}"
        );
    }

    #[test]
    fn a_pit_drains_over_its_rim() {
        // A bowl with a notch on its east side: the pit's water leaves by the notch.
        let (nx, ny) = (7, 7);
        let mut z: Vec<f64> = (0..nx * ny)
            .map(|c| {
                let (i, j) = ((c % nx) as f64 - 3.0, (c / nx) as f64 - 3.0);
                i * i + j * j
            })
            .collect();
        z[6 + nx * 3] = 1.0;
        z[5 + nx * 3] = 1.5;
        let a = upstream_area(nx, ny, &z, 2.0);
        assert!(a[3 + nx * 3] >= 2.0);
        assert!(
            a[6 + nx * 3] >= 2.0 * 25.0,
            "the notch drains the bowl: {}",
            a[6 + nx * 3]
        );
    }

    #[test]
    fn keys_sort_as_elevations_do() {
        let v = [-1e3, -2.5, -0.0, 0.0, 1e-9, 3.0, 1e6];
        for w in v.windows(2) {
            assert!(ordered(w[0]) <= ordered(w[1]), "{w:?}");
        }
    }

    #[test]
    fn nodata_drains_nothing_and_its_border_is_an_outlet() {
        // A cone falling towards a nodata hole in its middle, far from the edges: the
        // hole's rim gathers the cone (the water leaves the domain there), the hole itself
        // drains nothing.
        let (nx, ny) = (21, 21);
        let mut z: Vec<f64> = (0..nx * ny)
            .map(|c| {
                let (i, j) = ((c % nx) as f64 - 10.0, (c / nx) as f64 - 10.0);
                (i * i + j * j).sqrt()
            })
            .collect();
        z[10 + nx * 10] = f64::NAN;
        let a = upstream_area(nx, ny, &z, 1.0);
        assert_eq!(a[10 + nx * 10], 0.0);
        let rim: f64 = [
            (9, 10),
            (11, 10),
            (10, 9),
            (10, 11),
            (9, 9),
            (11, 11),
            (9, 11),
            (11, 9),
        ]
        .iter()
        .map(|&(i, j)| a[i + nx * j])
        .sum();
        // Everything inside the inscribed circle of the domain (radius 10) is nearer the
        // hole than any edge, downhill all the way.
        assert!(
            rim > 250.0,
            "the rim gathers {rim} of {} cells",
            nx * ny - 1
        );
    }
}

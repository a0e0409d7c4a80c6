//! Polygons asked, cell by cell, whether they hold a point. A polygon from a GIS (a
//! catchment, a storm cell) has tens of thousands of vertices and a grid millions of cells:
//! testing every edge for every cell took minutes (20 000 vertices over 10^6 cells ran past
//! five minutes in `check`). Edges are filed by horizontal band, so a point meets only the
//! edges that span its height; the answer is the even-odd rule's, bit for bit.

/// A polygon (its vertices, the last joined to the first) and its edges by band.
pub struct Polygon {
    points: Vec<[f64; 2]>,
    /// Lowest and highest vertex, and the height of a band.
    y0: f64,
    y1: f64,
    band: f64,
    /// Per band, the edges (index of their first vertex) whose height range meets it.
    edges: Vec<Vec<u32>>,
}

/// At most this many edge entries per edge across all bands: long edges spanning many
/// bands get fewer, wider bands instead of a quadratic index.
const ENTRIES_PER_EDGE: usize = 8;

impl Polygon {
    pub fn new(points: Vec<[f64; 2]>) -> Polygon {
        let n = points.len();
        let (y0, y1) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p[1]), hi.max(p[1]))
            });
        let mut bands = n.clamp(1, 1 << 16);
        loop {
            let band = (y1 - y0) / bands as f64;
            let mut p = Polygon {
                points: Vec::new(),
                y0,
                y1,
                band,
                edges: Vec::new(),
            };
            let spans: Vec<(usize, usize)> = (0..n)
                .map(|k| {
                    let (a, b) = (points[k][1], points[(k + n - 1) % n][1]);
                    (p.band_of(a.min(b), bands), p.band_of(a.max(b), bands))
                })
                .collect();
            let entries: usize = spans.iter().map(|(lo, hi)| hi - lo + 1).sum();
            if entries <= ENTRIES_PER_EDGE * n.max(1) || bands == 1 {
                p.edges = vec![Vec::new(); bands];
                for (k, &(lo, hi)) in spans.iter().enumerate() {
                    for list in &mut p.edges[lo..=hi] {
                        list.push(k as u32);
                    }
                }
                p.points = points;
                return p;
            }
            bands = (bands / 2).max(1);
        }
    }

    pub fn points(&self) -> &[[f64; 2]] {
        &self.points
    }

    /// The band holding height y, of `bands` (clamped to the first and last).
    fn band_of(&self, y: f64, bands: usize) -> usize {
        let b = (y - self.y0) / self.band;
        if b.is_nan() || b < 0.0 {
            0
        } else {
            (b as usize).min(bands - 1)
        }
    }

    /// Whether (x, y) lies inside, by the even-odd rule.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        if !(y >= self.y0 && y <= self.y1) {
            return false;
        }
        let n = self.points.len();
        let mut inside = false;
        for &k in &self.edges[self.band_of(y, self.edges.len())] {
            let k = k as usize;
            let [xa, ya] = self.points[k];
            let [xb, yb] = self.points[(k + n - 1) % n];
            if (ya > y) != (yb > y) && x < xa + (y - ya) * (xb - xa) / (yb - ya) {
                inside = !inside;
            }
        }
        inside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The even-odd rule over every edge, as the polygon answered before it had bands.
    fn every_edge(points: &[[f64; 2]], x: f64, y: f64) -> bool {
        let n = points.len();
        let mut inside = false;
        for k in 0..n {
            let [xa, ya] = points[k];
            let [xb, yb] = points[(k + n - 1) % n];
            if (ya > y) != (yb > y) && x < xa + (y - ya) * (xb - xa) / (yb - ya) {
                inside = !inside;
            }
        }
        inside
    }

    #[test]
    fn bands_answer_as_every_edge_does() {
        let star: Vec<[f64; 2]> = (0..997)
            .map(|k| {
                let a = k as f64 * 0.0063;
                let r = if k % 2 == 0 {
                    40.0
                } else {
                    13.0 + (k % 7) as f64
                };
                [50.0 + r * a.cos(), 50.0 + r * a.sin()]
            })
            .collect();
        let zigzag: Vec<[f64; 2]> = (0..400)
            .map(|k| [k as f64 * 0.25, if k % 2 == 0 { 0.0 } else { 100.0 }])
            .chain([[100.0, 120.0], [0.0, 120.0]])
            .collect();
        let square = vec![[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        for points in [star, zigzag, square] {
            let p = Polygon::new(points.clone());
            for i in 0..300 {
                for j in 0..300 {
                    // Points on vertices' heights and between.
                    let (x, y) = (i as f64 * 0.4 - 10.0, j as f64 * 0.5 - 10.0);
                    assert_eq!(p.contains(x, y), every_edge(&points, x, y), "({x}, {y})");
                }
            }
            for v in &points {
                assert_eq!(p.contains(v[0], v[1]), every_edge(&points, v[0], v[1]));
            }
        }
    }
}

//! A film sliding down a frictionless incline. However the film spreads, the bed pushes
//! its water down the slope at exactly g S: integrated over the water, the momentum
//! equation is d/dt ∫ h u = −g ∫ h ∂z/∂x = −g S ∫ h (pressure forces cancel), so from rest
//! the centre of mass moves ½ g S t² down the slope until water reaches an end.
//!
//! A film 5 mm deep and 4 cells long touches dry cells from the start, and its spreading
//! edges stay thin: issue 22 found such cells pushed downhill by their own pressure,
//! g h²/6 per cell width for water at rest, instead of by g h S, leaving films behind a
//! receding shoreline. Target: the centre of mass within 10% of ½ g S t² after 1 s
//! (about 5 cells), and the mass error ≤ 1e-5 (walls at both ends).

use crate::harness::{profile, Channel, End, Run, G};

#[test]
fn a_film_slides_down_an_incline_at_g_s() {
    let (length, cells, slope, depth) = (20.0, 200, 0.1, 0.005);
    let (start, end) = (4.0, 4.4);
    let channel = Channel::new(length, cells, End::Wall, End::Wall);
    let film = |x: f64| {
        [
            slope * (length - x),
            if x > start && x < end { depth } else { 0.0 },
            0.0,
        ]
    };
    let mut run = Run::new(channel.model(&film));
    let centre = |h: &[f64]| {
        let x = channel.centres();
        h.iter().zip(&x).map(|(h, x)| h * x).sum::<f64>() / h.iter().sum::<f64>()
    };
    let x0 = centre(&profile(&run.fields(), cells).0);
    let t = 1.0;
    run.advance_to(t);
    let fields = run.fields();
    let (h, _) = profile(&fields, cells);
    let moved = centre(&h) - x0;
    let exact = 0.5 * G * slope * t * t;
    let mass = run.mass_error(&fields);
    println!(
        "film on an incline: centre of mass moved {moved:.4} m in {t} s, exact {exact:.4} m \
         ({:+.1}%); mass error {mass:.1e}",
        100.0 * (moved - exact) / exact
    );
    assert!(
        (moved - exact).abs() <= 0.1 * exact,
        "the film's centre of mass moved {moved:.4} m, not {exact:.4} m"
    );
    assert!(mass <= 1e-5, "mass error {mass:.2e}");
}

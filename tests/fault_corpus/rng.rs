//! SplitMix64: small, fast, and the same on every machine, so that a case is reproduced
//! from its class, number and the corpus's seed alone.

pub struct Rng(u64);

impl Rng {
    /// The generator of case `k` of the class named `class`.
    pub fn new(seed: u64, class: &str, k: u64) -> Rng {
        let salt = class.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        let mut r = Rng(seed ^ salt ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next();
        r
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in lo..=hi.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    /// A number in [lo, hi).
    pub fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in [lo, hi) spread evenly over its orders of magnitude (lo > 0).
    pub fn log_float(&mut self, lo: f64, hi: f64) -> f64 {
        self.float(lo.ln(), hi.ln()).exp()
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

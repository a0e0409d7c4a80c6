//! Host work shared among the machine's cores: building a grid of 10^8 cells evaluates
//! terrain and averages fields cell by cell, which one core does in many seconds.

/// `out[k] = f(k)` for every k, in contiguous chunks on one thread per core. The result is
/// the same as a serial loop's: each element depends only on its index.
pub fn fill<T, F>(out: &mut [T], f: F)
where
    T: Send,
    F: Fn(usize) -> T + Sync,
{
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = out.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (c, part) in out.chunks_mut(chunk).enumerate() {
            let f = &f;
            scope.spawn(move || {
                for (k, v) in part.iter_mut().enumerate() {
                    *v = f(c * chunk + k);
                }
            });
        }
    });
}

/// The values `f(k)` for k in 0..n, computed as [`fill`] does.
pub fn map<T, F>(n: usize, f: F) -> Vec<T>
where
    T: Send + Default + Clone,
    F: Fn(usize) -> T + Sync,
{
    let mut out = vec![T::default(); n];
    fill(&mut out, f);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn map_matches_a_serial_loop() {
        for n in [0, 1, 7, 1000, 4097] {
            let serial: Vec<u64> = (0..n as u64).map(|k| k * k + 3).collect();
            assert_eq!(super::map(n, |k| (k * k + 3) as u64), serial);
        }
    }
}

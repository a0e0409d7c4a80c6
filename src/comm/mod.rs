//! Communication between ranks. The solver talks to a [`Comm`]; [`Solo`] is a single rank,
//! [`threads::ThreadComm`] runs several ranks as threads of one process (tests, and several
//! GPUs without MPI), and `mpi::MpiComm` (feature `mpi`) uses the MPI library.

pub mod agree;
pub mod threads;

#[cfg(feature = "mpi")]
pub mod mpi;

/// What ranks need from each other. Every rank calls the collectives in the same order.
pub trait Comm {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// Sends `sends[k]` to `peers[k]` and returns what each peer sent back, in order.
    fn exchange(&self, peers: &[usize], sends: &[Vec<u8>]) -> Vec<Vec<u8>>;
    /// The minimum over ranks (f32 bits of positive numbers order like the numbers).
    fn min_u32(&self, v: u32) -> u32;
    fn sum_f64(&self, v: f64) -> f64;
    /// Every rank's bytes, at rank 0 (None elsewhere).
    fn gather(&self, data: Vec<u8>) -> Option<Vec<Vec<u8>>>;
    /// Every rank's bytes, in rank order, on every rank.
    fn all_gather(&self, data: Vec<u8>) -> Vec<Vec<u8>>;
    /// Ends every rank of the run, with the given exit code.
    fn abort(&self, code: i32) -> !;
    /// Whether the ranks are threads of one process (and may poll one device together).
    fn threads_of_one_process(&self) -> bool {
        false
    }
}

/// One rank alone.
pub struct Solo;

impl Comm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn exchange(&self, peers: &[usize], _: &[Vec<u8>]) -> Vec<Vec<u8>> {
        assert!(peers.is_empty(), "a single rank has no peers");
        Vec::new()
    }
    fn min_u32(&self, v: u32) -> u32 {
        v
    }
    fn sum_f64(&self, v: f64) -> f64 {
        v
    }
    fn gather(&self, data: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        Some(vec![data])
    }
    fn all_gather(&self, data: Vec<u8>) -> Vec<Vec<u8>> {
        vec![data]
    }
    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
}

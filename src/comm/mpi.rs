//! MPI through rsmpi: one rank per GPU. Only this file talks to the MPI library.

use super::Comm;
use crate::gpu::select::NodePlace;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

pub struct MpiComm {
    world: SimpleCommunicator,
    /// This rank's place among the ranks on its node, which decides the GPU it drives
    /// (`gpu::select`). MPI knows it under every launcher (mpirun, srun).
    node_place: NodePlace,
    _universe: mpi::environment::Universe,
}

/// Whether the process was started by an MPI launcher with more than one rank.
pub fn launched_with_several_ranks() -> bool {
    several_ranks_in(&|name| std::env::var(name).ok())
}

/// `launched_with_several_ranks` over the variables `var` reads. mpirun (Open MPI, MPICH,
/// Intel MPI) exports the world size; Slurm's srun with PMIx exports the task's PMIX_RANK
/// but no size, so there the step's task count tells.
fn several_ranks_in(var: &dyn Fn(&str) -> Option<String>) -> bool {
    let more_than_one = |name: &str| {
        var(name)
            .and_then(|v| v.trim().parse::<usize>().ok())
            .is_some_and(|n| n > 1)
    };
    let world_size = [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "PMIX_SIZE",
        "MPI_LOCALNRANKS",
    ];
    let under_srun = ["PMIX_RANK", "PMI_RANK"].iter().any(|k| var(k).is_some());
    world_size.iter().any(|k| more_than_one(k))
        || (under_srun && more_than_one("SLURM_STEP_NUM_TASKS"))
}

impl MpiComm {
    /// Starts MPI; None if it cannot be started.
    pub fn init() -> Option<MpiComm> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        let node = world.split_shared(world.rank());
        let node_place = NodePlace {
            local_rank: node.rank() as usize,
            local_size: node.size() as usize,
        };
        Some(MpiComm {
            world,
            node_place,
            _universe: universe,
        })
    }

    pub fn node_place(&self) -> NodePlace {
        self.node_place
    }

    /// The name of this rank's node, as MPI gives it.
    pub fn node_name(&self) -> String {
        mpi::environment::processor_name().unwrap_or_default()
    }

    /// A panic on any rank ends every rank at once, rather than leaving the others waiting
    /// in a collective until the job's time limit.
    pub fn abort_on_panic(&self) {
        let (rank, size) = (self.rank(), self.size());
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            eprintln!("quadflood: rank {rank} of {size} panicked; ending every rank");
            SimpleCommunicator::world().abort(101);
        }));
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, peers: &[usize], sends: &[Vec<u8>]) -> Vec<Vec<u8>> {
        mpi::request::scope(|scope| {
            let requests: Vec<_> = peers
                .iter()
                .zip(sends)
                .map(|(&p, data)| {
                    self.world
                        .process_at_rank(p as i32)
                        .immediate_send(scope, &data[..])
                })
                .collect();
            // Messages between two ranks arrive in the order they were sent.
            let got = peers
                .iter()
                .map(|&p| self.world.process_at_rank(p as i32).receive_vec::<u8>().0)
                .collect();
            for r in requests {
                r.wait();
            }
            got
        })
    }

    fn min_u32(&self, v: u32) -> u32 {
        let mut out = 0u32;
        self.world
            .all_reduce_into(&v, &mut out, SystemOperation::min());
        out
    }

    fn sum_f64(&self, v: f64) -> f64 {
        let mut out = 0.0f64;
        self.world
            .all_reduce_into(&v, &mut out, SystemOperation::sum());
        out
    }

    fn gather(&self, data: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        let root = self.world.process_at_rank(0);
        if self.rank() != 0 {
            root.send(&data[..]);
            return None;
        }
        let mut all = vec![data];
        all.extend(
            (1..self.size()).map(|r| self.world.process_at_rank(r as i32).receive_vec::<u8>().0),
        );
        Some(all)
    }

    fn all_gather(&self, data: Vec<u8>) -> Vec<Vec<u8>> {
        // Rank 0 gathers and broadcasts: lengths first, then the bytes end to end.
        let root = self.world.process_at_rank(0);
        let all = self.gather(data);
        let mut lengths: Vec<u64> = match &all {
            Some(a) => a.iter().map(|d| d.len() as u64).collect(),
            None => vec![0; self.size()],
        };
        root.broadcast_into(&mut lengths[..]);
        let mut bytes = all.map_or_else(
            || vec![0u8; lengths.iter().sum::<u64>() as usize],
            |a| a.concat(),
        );
        root.broadcast_into(&mut bytes[..]);
        let mut at = 0;
        lengths
            .iter()
            .map(|&n| {
                let part = bytes[at..at + n as usize].to_vec();
                at += n as usize;
                part
            })
            .collect()
    }

    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

#[cfg(test)]
mod tests {
    use super::several_ranks_in;

    fn several(pairs: &[(&str, &str)]) -> bool {
        let var = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        several_ranks_in(&var)
    }

    #[test]
    fn launchers_are_recognised_by_their_variables() {
        assert!(several(&[("OMPI_COMM_WORLD_SIZE", "4")]));
        assert!(several(&[("PMI_SIZE", "2"), ("PMI_RANK", "1")]));
        assert!(!several(&[("OMPI_COMM_WORLD_SIZE", "1")]));
        assert!(!several(&[]));
        // srun --mpi=pmix: a rank but no world size.
        assert!(several(&[
            ("PMIX_RANK", "3"),
            ("SLURM_STEP_NUM_TASKS", "8")
        ]));
        assert!(!several(&[
            ("PMIX_RANK", "0"),
            ("SLURM_STEP_NUM_TASKS", "1")
        ]));
        // A batch script's own shell, with no launcher: one rank whatever the allocation.
        assert!(!several(&[
            ("SLURM_STEP_NUM_TASKS", "8"),
            ("SLURM_NTASKS", "8")
        ]));
    }
}

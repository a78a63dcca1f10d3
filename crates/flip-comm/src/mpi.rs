//! The [`Communicator`] over MPI (the `mpi` crate, OpenMPI from the system packages). MPI is
//! initialised with `MPI_THREAD_SERIALIZED` and every call goes through one lock, so solver
//! calls made from rayon workers never overlap.

use crate::Communicator;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::{Threading, Universe};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator as _, CommunicatorCollectives, Root};
use mpi::Count;
use std::sync::{Arc, Mutex};

/// `MPI_COMM_WORLD`, behind a lock.
pub struct MpiComm {
    world: Mutex<SimpleCommunicator>,
    rank: u32,
    ranks: u32,
}

// SAFETY: the communicator is a handle MPI allows any thread to use under
// `MPI_THREAD_SERIALIZED`, and the lock serialises every call.
unsafe impl Send for MpiComm {}
// SAFETY: as above.
unsafe impl Sync for MpiComm {}

/// The MPI environment of a process: finalised when dropped (keep it for the whole run).
pub struct MpiRuntime {
    _universe: Universe,
    /// The world communicator.
    pub comm: Arc<MpiComm>,
}

/// Initialises MPI (once per process); `None` when it is already initialised or refuses
/// serialised threading.
pub fn init() -> Option<MpiRuntime> {
    let (universe, level) = mpi::initialize_with_threading(Threading::Serialized)?;
    if level < Threading::Serialized {
        return None;
    }
    let world = universe.world();
    let comm = MpiComm {
        rank: world.rank() as u32,
        ranks: world.size() as u32,
        world: Mutex::new(world),
    };
    Some(MpiRuntime {
        _universe: universe,
        comm: Arc::new(comm),
    })
}

impl MpiComm {
    /// Ends every rank of the job with `code` (a rank that failed alone would leave the
    /// others waiting in a collective).
    pub fn abort(&self, code: i32) -> ! {
        self.world().abort(code)
    }

    fn world(&self) -> std::sync::MutexGuard<'_, SimpleCommunicator> {
        self.world
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Communicator for MpiComm {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn sum(&self, values: &mut [f64]) {
        // Gather every rank's values and add them in rank order: bit-reproducible for a
        // given rank count, whatever algorithm MPI's reduction would pick.
        let n = values.len();
        let mut all = vec![0.0; n * self.ranks as usize];
        self.world().all_gather_into(&values[..], &mut all[..]);
        values.fill(0.0);
        for part in all.chunks_exact(n.max(1)).take(self.ranks as usize) {
            values.iter_mut().zip(part).for_each(|(v, p)| *v += p);
        }
    }

    fn max(&self, values: &mut [f64]) {
        let send = values.to_vec();
        self.world()
            .all_reduce_into(&send[..], values, SystemOperation::max());
    }

    fn exchange_bytes(&self, peer: u32, send: &[u8], recv: &mut [u8]) {
        let world = self.world();
        let p = world.process_at_rank(peer as i32);
        mpi::point_to_point::send_receive_into(send, &p, recv, &p);
    }

    fn all_gather_bytes(&self, send: &[u8], recv: &mut [u8], counts: &[usize]) {
        let (counts, displs) = partition(counts);
        let mut part = PartitionMut::new(recv, &counts[..], &displs[..]);
        self.world().all_gather_varcount_into(send, &mut part);
    }

    fn gather_bytes(&self, root: u32, send: &[u8], recv: &mut [u8], counts: &[usize]) {
        let world = self.world();
        let root_process = world.process_at_rank(root as i32);
        if self.rank == root {
            let (counts, displs) = partition(counts);
            let mut part = PartitionMut::new(recv, &counts[..], &displs[..]);
            root_process.gather_varcount_into_root(send, &mut part);
        } else {
            root_process.gather_varcount_into(send);
        }
    }

    fn scatter_bytes(&self, root: u32, send: &[u8], counts: &[usize], recv: &mut [u8]) {
        let world = self.world();
        let root_process = world.process_at_rank(root as i32);
        if self.rank == root {
            let (counts, displs) = partition(counts);
            let part = Partition::new(send, &counts[..], &displs[..]);
            root_process.scatter_varcount_into_root(&part, recv);
        } else {
            root_process.scatter_varcount_into(recv);
        }
    }
}

/// MPI's counts and displacements of blocks of `counts` bytes in rank order.
fn partition(counts: &[usize]) -> (Vec<Count>, Vec<Count>) {
    let displs = crate::displacements(counts);
    (
        counts.iter().map(|&c| count(c)).collect(),
        displs.iter().map(|&d| count(d)).collect(),
    )
}

/// A byte count or offset as MPI's `int`.
///
/// # Panics
/// Beyond 2 GiB (MPI's counts are `int`s).
fn count(bytes: usize) -> Count {
    Count::try_from(bytes).expect("an MPI message or offset of at most 2 GiB")
}

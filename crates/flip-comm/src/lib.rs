//! Communication between the ranks of a decomposed run: the [`Communicator`] trait with a
//! back end over threads ([`threads`]) and one over MPI (`mpi`, feature `mpi`), the slab
//! layout of a run, and halo exchange and gathers written once over a communicator
//! ([`Distribution`]). The plugin host hands a [`Distribution`] to solvers as the ABI's
//! distributed suite; the scheduler uses it to migrate particles between slabs.

use bytemuck::{cast_slice, cast_slice_mut, Pod};
use flip_abi::SlabLayout;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the suite needs from the message-passing layer: reductions over f64 and byte
/// transport (typed through [`CommExt`]). Every call is collective.
pub trait Communicator: Send + Sync {
    /// This rank's index.
    fn rank(&self) -> u32;
    /// Number of ranks.
    fn ranks(&self) -> u32;
    /// Element-wise global sum, in place (rank-ordered, so reproducible).
    fn sum(&self, values: &mut [f64]);
    /// Element-wise global maximum, in place.
    fn max(&self, values: &mut [f64]);
    /// Sends `send` to `peer` while receiving `recv` from it (a paired exchange).
    fn exchange_bytes(&self, peer: u32, send: &[u8], recv: &mut [u8]);
    /// Concatenates every rank's `send` (rank `r` sends `counts[r]` bytes) into `recv`.
    fn all_gather_bytes(&self, send: &[u8], recv: &mut [u8], counts: &[usize]);
    /// Concatenates every rank's `send` into `recv` on rank `root` (rank `r` sends
    /// `counts[r]` bytes; `recv` and `counts` are read on the root only).
    fn gather_bytes(&self, root: u32, send: &[u8], recv: &mut [u8], counts: &[usize]);
    /// Rank `root` sends each rank `r` the `counts[r]` bytes at its place (rank order) in
    /// `send` (read on the root only); every rank receives `recv.len()` bytes, its count.
    fn scatter_bytes(&self, root: u32, send: &[u8], counts: &[usize], recv: &mut [u8]);
}

/// The byte transport of a [`Communicator`] typed by `T: Pod` (ids travel as integers, f32
/// as f32); counts are in elements. Every communicator, `dyn Communicator` included, has it.
pub trait CommExt: Communicator {
    /// Sends `send` to `peer` while receiving `recv` from it (a paired exchange).
    fn exchange<T: Pod>(&self, peer: u32, send: &[T], recv: &mut [T]) {
        self.exchange_bytes(peer, cast_slice(send), cast_slice_mut(recv));
    }

    /// Concatenates every rank's `send` (rank `r` sends `counts[r]` values) into `recv`.
    fn all_gather<T: Pod>(&self, send: &[T], recv: &mut [T], counts: &[usize]) {
        let bytes = in_bytes::<T>(counts);
        self.all_gather_bytes(cast_slice(send), cast_slice_mut(recv), &bytes);
    }

    /// Concatenates every rank's `send` into `recv` on rank `root` (rank `r` sends
    /// `counts[r]` values; `recv` and `counts` are read on the root only).
    fn gather<T: Pod>(&self, root: u32, send: &[T], recv: &mut [T], counts: &[usize]) {
        let bytes = in_bytes::<T>(counts);
        self.gather_bytes(root, cast_slice(send), cast_slice_mut(recv), &bytes);
    }

    /// Rank `root` sends each rank `r` the `counts[r]` values at its place (rank order) in
    /// `send` (read on the root only); every rank receives `recv.len()` values, its count.
    fn scatter<T: Pod>(&self, root: u32, send: &[T], counts: &[usize], recv: &mut [T]) {
        let bytes = in_bytes::<T>(counts);
        self.scatter_bytes(root, cast_slice(send), &bytes, cast_slice_mut(recv));
    }

    /// Every rank's `value`, in rank order, on every rank.
    fn all_gather_one<T: Pod>(&self, value: T) -> Vec<T> {
        let ranks = self.ranks() as usize;
        let mut all = vec![T::zeroed(); ranks];
        self.all_gather(&[value], &mut all, &vec![1; ranks]);
        all
    }

    /// Sends `send` to `peer` while receiving whatever length `peer` sends (its length first,
    /// then the values: two paired exchanges).
    fn exchange_any<T: Pod>(&self, peer: u32, send: &[T]) -> Vec<T> {
        let mut len = [0u64];
        self.exchange(peer, &[send.len() as u64], &mut len);
        let mut recv = vec![T::zeroed(); to_usize(len[0])];
        self.exchange(peer, send, &mut recv);
        recv
    }
}

impl<C: Communicator + ?Sized> CommExt for C {}

/// `counts` values of `T` as byte counts.
fn in_bytes<T>(counts: &[usize]) -> Vec<usize> {
    counts.iter().map(|&c| c * size_of::<T>()).collect()
}

/// A length received as `u64`.
fn to_usize(n: u64) -> usize {
    usize::try_from(n).expect("a received length fits in memory")
}

/// Running offsets of `counts` (where each rank's block starts in rank order).
pub fn displacements(counts: &[usize]) -> Vec<usize> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

/// Communication counters of a run (for `bench step --mpi`).
#[derive(Debug, Default)]
pub struct CommStats {
    /// Point-to-point messages sent by halo exchanges.
    pub halo_messages: AtomicU64,
    /// Bytes sent by halo exchanges.
    pub halo_bytes: AtomicU64,
    /// Collective reductions and gathers.
    pub collectives: AtomicU64,
    /// Wall time spent in communication calls, in nanoseconds.
    pub comm_ns: AtomicU64,
}

impl CommStats {
    /// Adds the time since `start` to the communication time.
    pub fn add_time(&self, start: std::time::Instant) {
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.comm_ns.fetch_add(ns, Ordering::Relaxed);
    }
}

/// Layers `0..n` cut into `ranks` slabs of whole layers (the first `n % ranks` one larger):
/// `(first, count)` of `rank`.
pub fn slab_of(n: usize, ranks: usize, rank: usize) -> (usize, usize) {
    let (base, extra) = (n / ranks, n % ranks);
    (
        rank * base + rank.min(extra),
        base + usize::from(rank < extra),
    )
}

/// The slab layout of `rank` on a grid of `dims` with `ghost` layers on each interior side.
pub fn slab_layout(dims: [usize; 3], ranks: usize, rank: usize, ghost: usize) -> SlabLayout {
    let axis = if dims[2] > 1 { 2 } else { 1 };
    let (first, owned) = slab_of(dims[axis], ranks, rank);
    let below = first.min(ghost);
    let above = (dims[axis] - first - owned).min(ghost);
    SlabLayout {
        axis: axis as u32,
        owned: owned as u32,
        ghost_lo: below as u32,
        ghost_hi: above as u32,
        first: first as u32,
        reserved: 0,
        global_dims: dims.map(|d| d as u32),
    }
}

/// A grid too thin for its ranks.
#[derive(Debug, thiserror::Error)]
#[error("a grid of {dims:?} cells cut into {ranks} slabs leaves a slab thinner than the {ghost} ghost layers it needs; use fewer ranks or a larger grid")]
pub struct DistributionError {
    /// Grid cells per axis.
    pub dims: [usize; 3],
    /// Ranks.
    pub ranks: usize,
    /// Ghost layers per side.
    pub ghost: usize,
}

/// One rank's distributed context: the communicator, its slab, the counters.
pub struct Distribution {
    comm: Arc<dyn Communicator>,
    layout: SlabLayout,
    layouts: Vec<SlabLayout>,
    /// Traffic so far.
    pub stats: Arc<CommStats>,
}

impl std::fmt::Debug for Distribution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Distribution")
            .field("layout", &self.layout)
            .finish_non_exhaustive()
    }
}

/// Ghost layers a distributed solve's slab carries on each interior side (fewer where a slab
/// is thinner): one is all a matrix product reads; MGPCG builds its finest levels from the six
/// its coarsening reads, instead of gathering the whole matrix.
pub const SOLVE_GHOST_LAYERS: usize = 6;

impl Distribution {
    /// This rank's part of a grid of `dims` for a distributed solve:
    /// [`SOLVE_GHOST_LAYERS`] ghost layers, or as many as the thinnest slab owns.
    ///
    /// # Errors
    /// [`DistributionError`] when a slab would own no layer.
    pub fn for_solve(
        comm: Arc<dyn Communicator>,
        dims: [usize; 3],
    ) -> Result<Self, DistributionError> {
        let ranks = comm.ranks() as usize;
        let axis = if dims[2] > 1 { 2 } else { 1 };
        let thinnest = dims[axis] / ranks.max(1);
        Self::new(comm, dims, SOLVE_GHOST_LAYERS.min(thinnest).max(1))
    }

    /// This rank's part of a grid of `dims` with `ghost` layers.
    ///
    /// # Errors
    /// [`DistributionError`] when a slab would own fewer layers than the ghost width.
    pub fn new(
        comm: Arc<dyn Communicator>,
        dims: [usize; 3],
        ghost: usize,
    ) -> Result<Self, DistributionError> {
        let ranks = comm.ranks() as usize;
        let layouts: Vec<_> = (0..ranks)
            .map(|r| slab_layout(dims, ranks, r, ghost))
            .collect();
        let thinnest = layouts.iter().map(|l| l.owned as usize).min().unwrap_or(0);
        if thinnest < ghost.max(1) {
            return Err(DistributionError { dims, ranks, ghost });
        }
        Ok(Self {
            layout: layouts[comm.rank() as usize],
            layouts,
            comm,
            stats: Arc::default(),
        })
    }

    /// This rank's slab.
    pub fn layout(&self) -> &SlabLayout {
        &self.layout
    }

    /// The communicator.
    pub fn comm(&self) -> &Arc<dyn Communicator> {
        &self.comm
    }

    /// Fills the `layers` ghost layers nearest the owned ones from the neighbours. Pairs
    /// (even, odd) exchange first, then (odd, even), so no rank waits on a chain.
    pub fn halo_exchange(&self, field: &mut [f64], layers: usize) {
        let l = &self.layout;
        let layer = l.layer_len();
        let n = layers * layer;
        let owned = l.owned_range();
        let rank = self.comm.rank();
        let start = std::time::Instant::now();
        let mut recv = vec![0.0; n];
        for phase in 0..2u32 {
            // In phase 0 an even rank talks to its upper neighbour; in phase 1 to its lower.
            let upper = rank.is_multiple_of(2) == (phase == 0);
            let held = if upper { l.ghost_hi } else { l.ghost_lo };
            if held == 0 || n == 0 {
                continue;
            }
            let (peer, ghosts, sent) = if upper {
                (rank + 1, owned.end..owned.end + n, owned.end - n..owned.end)
            } else {
                (
                    rank - 1,
                    owned.start - n..owned.start,
                    owned.start..owned.start + n,
                )
            };
            self.comm.exchange(peer, &field[sent], &mut recv);
            field[ghosts].copy_from_slice(&recv);
            self.stats.halo_messages.fetch_add(1, Ordering::Relaxed);
            self.stats
                .halo_bytes
                .fetch_add((n * size_of::<f64>()) as u64, Ordering::Relaxed);
        }
        self.stats.add_time(start);
    }

    /// Every rank's owned cells of `local`, at their global indices in `global`.
    pub fn all_gather(&self, local: &[f64], global: &mut [f64]) {
        let counts: Vec<usize> = self
            .layouts
            .iter()
            .map(|l| l.owned as usize * l.layer_len())
            .collect();
        // Slabs are in rank order, so the concatenation is the global field.
        let start = std::time::Instant::now();
        self.comm
            .all_gather(&local[self.layout.owned_range()], global, &counts);
        self.stats.collectives.fetch_add(1, Ordering::Relaxed);
        self.stats.add_time(start);
    }

    /// Every rank's `local` concatenated in rank order into `global`; returns the length, or
    /// `None` (on every rank) when it exceeds `global`'s.
    pub fn all_gather_blocks(&self, local: &[f64], global: &mut [f64]) -> Option<usize> {
        let start = std::time::Instant::now();
        let lens = self.comm.all_gather_one(local.len() as u64);
        let counts: Vec<usize> = lens.into_iter().map(to_usize).collect();
        let total = counts.iter().sum::<usize>();
        let fits = total <= global.len();
        if fits {
            self.comm.all_gather(local, &mut global[..total], &counts);
        }
        self.stats.collectives.fetch_add(2, Ordering::Relaxed);
        self.stats.add_time(start);
        fits.then_some(total)
    }

    /// Every rank's `local` concatenated in rank order into `global` on rank `root`: the
    /// length there (0 elsewhere), or `None` on the root when it exceeds `global`'s.
    pub fn gather_blocks(&self, root: u32, local: &[f64], global: &mut [f64]) -> Option<usize> {
        let start = std::time::Instant::now();
        let ranks = self.comm.ranks() as usize;
        let is_root = self.comm.rank() == root;
        let mut lens = vec![0u64; if is_root { ranks } else { 0 }];
        self.comm
            .gather(root, &[local.len() as u64], &mut lens, &vec![1; ranks]);
        let counts: Vec<usize> = lens.into_iter().map(to_usize).collect();
        let total = counts.iter().sum::<usize>();
        let fits = total <= global.len();
        if fits {
            self.comm.gather(root, local, &mut global[..total], &counts);
        } else {
            // The root still receives (the others are sending), then drops the values.
            self.comm
                .gather(root, local, &mut vec![0.0; total], &counts);
        }
        self.stats.collectives.fetch_add(2, Ordering::Relaxed);
        self.stats.add_time(start);
        fits.then_some(total)
    }

    /// Rank `root` sends each rank `r` its block of `lens[r]` values of `global` (rank order;
    /// both read on the root only); every rank receives its block into `local`. Returns the
    /// block's length and whether it fitted (`local` is left alone when it did not).
    pub fn scatter_blocks(
        &self,
        root: u32,
        global: &[f64],
        lens: &[usize],
        local: &mut [f64],
    ) -> (usize, bool) {
        let start = std::time::Instant::now();
        let ranks = self.comm.ranks() as usize;
        let counts: Vec<u64> = lens.iter().map(|&n| n as u64).collect();
        let mut mine = [0u64];
        self.comm.scatter(root, &counts, &vec![1; ranks], &mut mine);
        let n = to_usize(mine[0]);
        let total = lens.iter().sum::<usize>();
        let send = &global[..total.min(global.len())];
        let fits = n <= local.len();
        if fits {
            self.comm.scatter(root, send, lens, &mut local[..n]);
        } else {
            self.comm.scatter(root, send, lens, &mut vec![0.0; n]);
        }
        self.stats.collectives.fetch_add(2, Ordering::Relaxed);
        self.stats.add_time(start);
        (n, fits)
    }
}

#[cfg(feature = "mpi")]
pub mod mpi;
pub mod threads;

//! The host's side of the distributed suite ([`abi::DistributedSuite`]): the slab layout of a
//! run, halo exchange and gathers written once over a [`Communicator`] (MPI in the `mpi`
//! feature, [`super::mpi_comm`]), and the C table a solve's `fetch_suite` hands out.

use crate::abi::{self, DistributedSuite, SlabLayout};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the suite needs from the message-passing layer. Every call is collective.
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
    fn exchange(&self, peer: u32, send: &[f64], recv: &mut [f64]);
    /// Concatenates every rank's `send` (rank `r` sends `counts[r]` values) into `recv`.
    fn all_gather(&self, send: &[f64], recv: &mut [f64], counts: &[usize]);
}

/// Sends `send` to `peer` while receiving whatever length `peer` sends (its length first, then
/// the values: two paired exchanges).
pub fn exchange_any(comm: &dyn Communicator, peer: u32, send: &[f64]) -> Vec<f64> {
    let mut len = [0.0];
    comm.exchange(peer, &[send.len() as f64], &mut len);
    let mut recv = vec![0.0; len[0] as usize];
    comm.exchange(peer, send, &mut recv);
    recv
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
    fn add_time(&self, start: std::time::Instant) {
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

impl Distribution {
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
                .fetch_add((n * 8) as u64, Ordering::Relaxed);
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

    /// The C table over `self` (valid while `self` is alive and unmoved).
    pub(crate) fn suite(&self) -> DistributedSuite {
        DistributedSuite {
            size: std::mem::size_of::<DistributedSuite>() as u32,
            version: abi::DISTRIBUTED_SUITE_VERSION,
            context: std::ptr::from_ref(self).cast_mut().cast(),
            rank: rank_of,
            ranks: ranks_of,
            layout: layout_of,
            all_reduce_sum_f64: sum_of,
            all_reduce_max_f64: max_of,
            halo_exchange_f64: halo_of,
            all_gather_owned_f64: gather_of,
        }
    }
}

/// # Safety
/// `ctx` is the `Distribution` a suite table was made from, alive for the call.
unsafe fn dist<'a>(ctx: *mut c_void) -> &'a Distribution {
    // SAFETY: the caller's contract.
    unsafe { &*ctx.cast::<Distribution>() }
}

unsafe extern "C" fn rank_of(ctx: *mut c_void) -> u32 {
    // SAFETY: the plugin passes back the suite's context.
    unsafe { dist(ctx) }.comm.rank()
}

unsafe extern "C" fn ranks_of(ctx: *mut c_void) -> u32 {
    // SAFETY: as above.
    unsafe { dist(ctx) }.comm.ranks()
}

unsafe extern "C" fn layout_of(ctx: *mut c_void, out: *mut SlabLayout) -> i32 {
    if out.is_null() {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: as above; `out` is a plugin-owned SlabLayout.
    unsafe { *out = *dist(ctx).layout() };
    abi::STATUS_OK
}

/// # Safety
/// `values` holds `n` writable values (or `n == 0`).
unsafe fn reduce(ctx: *mut c_void, values: *mut f64, n: usize, max: bool) -> i32 {
    if values.is_null() && n > 0 {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let start = std::time::Instant::now();
    let v = if n == 0 {
        &mut [][..]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(values, n) }
    };
    if max {
        // NaN counts as +∞, so a diverged rank is never hidden by the others.
        v.iter_mut()
            .filter(|x| x.is_nan())
            .for_each(|x| *x = f64::INFINITY);
        d.comm.max(v);
    } else {
        d.comm.sum(v);
    }
    d.stats.collectives.fetch_add(1, Ordering::Relaxed);
    d.stats.add_time(start);
    abi::STATUS_OK
}

unsafe extern "C" fn sum_of(ctx: *mut c_void, values: *mut f64, n: usize) -> i32 {
    // SAFETY: the plugin's contract for `values`.
    unsafe { reduce(ctx, values, n, false) }
}

unsafe extern "C" fn max_of(ctx: *mut c_void, values: *mut f64, n: usize) -> i32 {
    // SAFETY: the plugin's contract for `values`.
    unsafe { reduce(ctx, values, n, true) }
}

unsafe extern "C" fn halo_of(ctx: *mut c_void, field: *mut f64, layers: u32) -> i32 {
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let l = d.layout();
    let lo_ok = l.ghost_lo == 0 || layers <= l.ghost_lo;
    let hi_ok = l.ghost_hi == 0 || layers <= l.ghost_hi;
    if field.is_null() || !lo_ok || !hi_ok || layers > l.owned {
        return abi::STATUS_BAD_VALUE;
    }
    let n = l.local_dims().iter().product();
    // SAFETY: the suite's contract: `field` is a local cell field.
    d.halo_exchange(
        unsafe { std::slice::from_raw_parts_mut(field, n) },
        layers as usize,
    );
    abi::STATUS_OK
}

unsafe extern "C" fn gather_of(ctx: *mut c_void, local: *const f64, global: *mut f64) -> i32 {
    if local.is_null() || global.is_null() {
        return abi::STATUS_BAD_VALUE;
    }
    // SAFETY: as above.
    let d = unsafe { dist(ctx) };
    let l = d.layout();
    let n_local = l.local_dims().iter().product();
    let n_global = l.global_dims.iter().map(|&x| x as usize).product();
    // SAFETY: the suite's contract on both lengths.
    let (loc, glob) = unsafe {
        (
            std::slice::from_raw_parts(local, n_local),
            std::slice::from_raw_parts_mut(global, n_global),
        )
    };
    d.all_gather(loc, glob);
    abi::STATUS_OK
}

pub mod threads;

#[cfg(test)]
mod tests;

//! The distributed-memory suite ([`super::SUITE_DISTRIBUTED`], version 1): what a solver needs to
//! run on one rank of an MPI job without linking MPI itself.
//!
//! **Layout (slabs).** The global grid is cut into slabs along its outermost axis (`z` in 3D,
//! `y` in 2D; [`SlabLayout::axis`]), one slab of whole layers per rank, in rank order. The
//! structured problem a rank receives covers its *owned* layers plus `ghost_lo` layers below and
//! `ghost_hi` layers above (0 at the domain's ends). Because the slab axis is the slowest in the
//! x-fastest arrays, the owned cells are one contiguous index range of the local arrays:
//! `[ghost_lo · layer, (ghost_lo + owned) · layer)` with `layer = ni · nj` (3D) or `ni` (2D).
//!
//! Ghost cells carry the neighbour's matrix rows (cell kind, diagonal, couplings, right-hand
//! side) read-only; the coupling out of the top local layer is zero (its neighbour is not
//! held). A solver treats owned cells as its unknowns, sums and maxima over owned cells only,
//! and refreshes ghost values with `halo_exchange` before reading them (a matvec). On return the
//! pressure's ghost cells hold the neighbours' owned values (one last exchange), so the host's
//! residual check and the gradient at the slab faces read the same solution on both sides.
//!
//! Every call is collective: all ranks make the same calls in the same order, like MPI's.
//! Results are reproducible for a given rank count (reductions run in rank order).
//!
//! **Pre- and post-conditions shared by every entry.** Pre (plugin): `context` is the suite's;
//! the call comes during the `solve` that fetched the suite, from the thread the host called
//! into; every pointer is valid for the length the entry names during the call (the plugin
//! keeps ownership). Post (host): on `STATUS_OK` the outputs are written; the host keeps no
//! pointer. Which ranks see a failure status is said per entry.
//!
//! **Growth.** A version-1 table only grows: entries are appended and `size` says which are
//! present (the SDK reads an entry only when it lies within `size`). `all_gather_blocks_f64` was
//! appended for solvers that gather a coarse grid rather than the fine field, and
//! `gather_blocks_f64` / `scatter_blocks_f64` for solvers that gather a small coarse problem to
//! one rank, solve it there and hand each rank back its part.

use std::ffi::c_void;

/// Version of [`DistributedSuite`] this crate was built with.
pub const DISTRIBUTED_SUITE_VERSION: u32 = 1;

/// Which cells of the global grid the local arrays hold (all counts in cells / layers).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlabLayout {
    /// Axis the slabs are cut along: 2 in 3D, 1 in 2D (the outermost axis).
    pub axis: u32,
    /// Layers owned by this rank.
    pub owned: u32,
    /// Ghost layers below the owned ones (0 on the first rank).
    pub ghost_lo: u32,
    /// Ghost layers above the owned ones (0 on the last rank).
    pub ghost_hi: u32,
    /// Global index (along `axis`) of the first owned layer.
    pub first: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// Cells per axis of the whole (global) grid.
    pub global_dims: [u32; 3],
}

impl SlabLayout {
    /// Cells per layer of the slab axis.
    pub fn layer_len(&self) -> usize {
        let [ni, nj, _] = self.global_dims.map(|d| d as usize);
        if self.axis == 2 {
            ni * nj
        } else {
            ni
        }
    }
    /// Layers the local arrays hold (owned plus ghosts).
    pub fn local_layers(&self) -> usize {
        (self.ghost_lo + self.owned + self.ghost_hi) as usize
    }
    /// Cells per axis of the local arrays.
    pub fn local_dims(&self) -> [usize; 3] {
        let mut d = self.global_dims.map(|d| d as usize);
        d[self.axis as usize] = self.local_layers();
        d
    }
    /// The owned cells as a range of local linear indices.
    pub fn owned_range(&self) -> std::ops::Range<usize> {
        let layer = self.layer_len();
        let lo = self.ghost_lo as usize * layer;
        lo..lo + self.owned as usize * layer
    }
    /// The owned cells as a range of global linear indices.
    pub fn global_range(&self) -> std::ops::Range<usize> {
        let layer = self.layer_len();
        let lo = self.first as usize * layer;
        lo..lo + self.owned as usize * layer
    }
}

/// `rank(context)` / `ranks(context)`: this rank's index and the number of ranks.
pub type RankFn = unsafe extern "C" fn(context: *mut c_void) -> u32;
/// `layout(context, out)`: writes this rank's [`SlabLayout`]; returns a `STATUS_*`.
pub type LayoutFn = unsafe extern "C" fn(context: *mut c_void, out: *mut SlabLayout) -> i32;
/// `all_reduce_*_f64(context, values, n)`: replaces each of the `n` values by its sum (or
/// maximum; NaN counts as +∞) over all ranks; returns a `STATUS_*`.
pub type AllReduceFn =
    unsafe extern "C" fn(context: *mut c_void, values: *mut f64, n: usize) -> i32;
/// `halo_exchange_f64(context, field, layers)`: `field` is a local cell field (the local
/// arrays' length); fills the `layers` ghost layers nearest the owned ones on each side from
/// the neighbours' owned layers (`layers` ≤ the ghost layers held); returns a `STATUS_*`.
pub type HaloExchangeFn =
    unsafe extern "C" fn(context: *mut c_void, field: *mut f64, layers: u32) -> i32;
/// `all_gather_owned_f64(context, local, global)`: every rank receives the whole global field:
/// `global` (the global cell count) gets each rank's owned cells of `local` (the local arrays'
/// length) at their global indices. For coarse problems gathered to every rank; returns a
/// `STATUS_*`.
pub type AllGatherFn =
    unsafe extern "C" fn(context: *mut c_void, local: *const f64, global: *mut f64) -> i32;

/// `all_gather_blocks_f64(context, local, local_len, global, capacity, total)`: every rank's
/// `local_len` values concatenated in rank order into `global` (room for `capacity` values);
/// `*total` receives the concatenation's length. The blocks may differ in length (a coarse
/// grid's layers owned by each rank); `STATUS_BAD_VALUE` on every rank when the total exceeds
/// `capacity` on any. Returns a `STATUS_*`.
pub type AllGatherBlocksFn = unsafe extern "C" fn(
    context: *mut c_void,
    local: *const f64,
    local_len: usize,
    global: *mut f64,
    capacity: usize,
    total: *mut usize,
) -> i32;

/// `gather_blocks_f64(context, root, local, local_len, global, capacity, total)`: rank `root`
/// receives every rank's `local_len` values concatenated in rank order into `global` (room for
/// `capacity` values) and their length in `*total`; the other ranks pass their block only
/// (`global` may be null with `capacity` 0) and get `*total = 0`. `STATUS_BAD_VALUE` on the
/// root alone when the concatenation exceeds `capacity` (nothing written). Returns a `STATUS_*`.
pub type GatherBlocksFn = unsafe extern "C" fn(
    context: *mut c_void,
    root: u32,
    local: *const f64,
    local_len: usize,
    global: *mut f64,
    capacity: usize,
    total: *mut usize,
) -> i32;

/// `scatter_blocks_f64(context, root, global, lens, local, capacity, received)`: the inverse
/// of `gather_blocks_f64`. On rank `root`, `lens` holds one length per rank and `global`
/// their concatenation in rank order (other ranks pass null for both); every rank receives its
/// block into `local` (room for `capacity` values) and its length in `*received`.
/// `STATUS_BAD_VALUE` on a rank whose block exceeds its `capacity` (nothing written there,
/// `*received` still set), so a root that could not fill a block sends an empty one and every
/// rank expecting values learns of it. Returns a `STATUS_*`.
pub type ScatterBlocksFn = unsafe extern "C" fn(
    context: *mut c_void,
    root: u32,
    global: *const f64,
    lens: *const usize,
    local: *mut f64,
    capacity: usize,
    received: *mut usize,
) -> i32;

/// The distributed suite, version 1 (see the module docs for the layout contract).
#[repr(C)]
pub struct DistributedSuite {
    /// `size_of::<DistributedSuite>()` in the host.
    pub size: u32,
    /// [`DISTRIBUTED_SUITE_VERSION`].
    pub version: u32,
    /// Opaque host pointer passed back to every entry.
    pub context: *mut c_void,
    /// This rank's index, `0..ranks`.
    pub rank: RankFn,
    /// Number of ranks.
    pub ranks: RankFn,
    /// This rank's slab of the problem being solved.
    pub layout: LayoutFn,
    /// Global sums.
    pub all_reduce_sum_f64: AllReduceFn,
    /// Global maxima.
    pub all_reduce_max_f64: AllReduceFn,
    /// Ghost-layer refresh of a local cell field.
    pub halo_exchange_f64: HaloExchangeFn,
    /// The whole field on every rank.
    pub all_gather_owned_f64: AllGatherFn,
    /// Variable-length blocks, concatenated on every rank (appended; present when `size`
    /// covers it).
    pub all_gather_blocks_f64: AllGatherBlocksFn,
    /// Variable-length blocks, concatenated on one rank (appended).
    pub gather_blocks_f64: GatherBlocksFn,
    /// Variable-length blocks from one rank, one to each rank (appended with the gather).
    pub scatter_blocks_f64: ScatterBlocksFn,
}

//! The distributed suite as safe calls ([`flip_abi::DistributedSuite`]; layout contract in
//! `abi::distributed`). A solver asks [`distributed`] once per solve: `None` means a
//! single-rank solve of the whole grid (no suite offered, or one rank only).

use super::services::services;
use super::SolveError;
use flip_abi::{DistributedSuite, SlabLayout, DISTRIBUTED_SUITE_VERSION, STATUS_OK};
use std::mem::{offset_of, size_of};

/// This rank's view of a distributed solve (valid during the current call only).
#[derive(Clone, Copy, Debug)]
pub struct Distributed {
    suite: *const DistributedSuite,
    layout: SlabLayout,
    rank: u32,
    ranks: u32,
}

/// The distributed suite of the current call, when the host offers one with more than one
/// rank. A host table too small for version 1's first entries counts as absent.
pub fn distributed() -> Option<Distributed> {
    let raw = services()
        .suite(c"flipgraph.distributed", DISTRIBUTED_SUITE_VERSION)?
        .cast::<DistributedSuite>();
    // SAFETY: the host returned a suite of this name and version, valid for the call; only the
    // header is read before its size is checked.
    let suite = unsafe { &*raw };
    if (suite.size as usize) < offset_of!(DistributedSuite, all_gather_blocks_f64)
        || suite.version != DISTRIBUTED_SUITE_VERSION
    {
        return None;
    }
    let mut layout = SlabLayout::default();
    // SAFETY: host entries with their own context; `layout` outlives the calls.
    let (status, rank, ranks) = unsafe {
        (
            (suite.layout)(suite.context, &mut layout),
            (suite.rank)(suite.context),
            (suite.ranks)(suite.context),
        )
    };
    (status == STATUS_OK && ranks > 1).then_some(Distributed {
        suite: raw,
        layout,
        rank,
        ranks,
    })
}

impl Distributed {
    fn suite(&self) -> &DistributedSuite {
        // SAFETY: checked by `distributed`; valid for the current call.
        unsafe { &*self.suite }
    }

    fn status(what: &str, status: i32) -> Result<(), SolveError> {
        if status == STATUS_OK {
            Ok(())
        } else {
            Err(SolveError::Failed(format!(
                "distributed {what} failed (status {status})"
            )))
        }
    }

    /// This rank's index.
    pub fn rank(&self) -> u32 {
        self.rank
    }
    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks
    }
    /// This rank's slab.
    pub fn layout(&self) -> &SlabLayout {
        &self.layout
    }

    /// Checks that a problem of `dims` cells is this rank's slab.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] when the dimensions differ from the layout's local ones.
    pub fn check_dims(&self, dims: [usize; 3]) -> Result<(), SolveError> {
        let want = self.layout.local_dims();
        if dims == want {
            Ok(())
        } else {
            Err(SolveError::BadValue(format!(
                "distributed problem of {dims:?} cells, but this rank's slab holds {want:?}"
            )))
        }
    }

    /// Sums `values` element-wise over all ranks, in place.
    ///
    /// # Errors
    /// [`SolveError::Failed`] when the host's reduction fails.
    pub fn sum(&self, values: &mut [f64]) -> Result<(), SolveError> {
        let s = self.suite();
        // SAFETY: host entry; `values` is valid for `len` writes.
        let st = unsafe { (s.all_reduce_sum_f64)(s.context, values.as_mut_ptr(), values.len()) };
        Self::status("sum", st)
    }

    /// Maximum of `values` element-wise over all ranks (NaN counts as +∞), in place.
    ///
    /// # Errors
    /// As [`Distributed::sum`].
    pub fn max(&self, values: &mut [f64]) -> Result<(), SolveError> {
        let s = self.suite();
        // SAFETY: as in `sum`.
        let st = unsafe { (s.all_reduce_max_f64)(s.context, values.as_mut_ptr(), values.len()) };
        Self::status("max", st)
    }

    /// The global sum of one value.
    ///
    /// # Errors
    /// As [`Distributed::sum`].
    pub fn sum1(&self, value: f64) -> Result<f64, SolveError> {
        let mut v = [value];
        self.sum(&mut v)?;
        Ok(v[0])
    }

    /// The global maximum of one value.
    ///
    /// # Errors
    /// As [`Distributed::sum`].
    pub fn max1(&self, value: f64) -> Result<f64, SolveError> {
        let mut v = [value];
        self.max(&mut v)?;
        Ok(v[0])
    }

    /// The global maximum of `value`, and whether any rank's bake was cancelled (the flag
    /// travels in the same reduction, so all ranks stop together).
    ///
    /// # Errors
    /// As [`Distributed::sum`].
    pub fn max1_or_cancelled(&self, value: f64) -> Result<(f64, bool), SolveError> {
        let cancel = if super::cancelled() {
            f64::INFINITY
        } else {
            0.0
        };
        let mut v = [value, cancel];
        self.max(&mut v)?;
        Ok((v[0], v[1] > 0.0))
    }

    /// Refreshes the `layers` ghost layers nearest the owned cells of a local field.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] for a field of the wrong length or more layers than held;
    /// [`SolveError::Failed`] when the exchange fails.
    pub fn halo_exchange(&self, field: &mut [f64], layers: u32) -> Result<(), SolveError> {
        let local = self.layout.local_dims().iter().product::<usize>();
        if field.len() != local {
            return Err(SolveError::BadValue(format!(
                "halo exchange of {} values on a slab of {local} cells",
                field.len()
            )));
        }
        let s = self.suite();
        // SAFETY: host entry; `field` holds the local cell count.
        let st = unsafe { (s.halo_exchange_f64)(s.context, field.as_mut_ptr(), layers) };
        Self::status("halo exchange", st)
    }

    /// Every rank's owned cells of `local` gathered into the global field `global`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] for arrays of the wrong lengths; [`SolveError::Failed`] when
    /// the gather fails.
    pub fn all_gather(&self, local: &[f64], global: &mut [f64]) -> Result<(), SolveError> {
        let n_local = self.layout.local_dims().iter().product::<usize>();
        let n_global = self
            .layout
            .global_dims
            .iter()
            .map(|&d| d as usize)
            .product();
        if local.len() != n_local || global.len() != n_global {
            return Err(SolveError::BadValue(format!(
                "gather of {} local / {} global values; the slab has {n_local} / {n_global}",
                local.len(),
                global.len()
            )));
        }
        let s = self.suite();
        // SAFETY: host entry; both arrays have the lengths the layout names.
        let st =
            unsafe { (s.all_gather_owned_f64)(s.context, local.as_ptr(), global.as_mut_ptr()) };
        Self::status("gather", st)
    }

    /// Whether the host's table reaches the entry at byte `offset` (appended entries).
    fn has_entry(&self, offset: usize) -> bool {
        self.suite().size as usize >= offset + size_of::<usize>()
    }

    /// Whether the host offers [`Distributed::all_gather_blocks`] (an appended entry).
    pub fn has_blocks(&self) -> bool {
        self.has_entry(offset_of!(DistributedSuite, all_gather_blocks_f64))
    }

    /// Whether the host offers [`Distributed::gather_blocks`] and
    /// [`Distributed::scatter_blocks`] (appended entries).
    pub fn has_rooted_blocks(&self) -> bool {
        self.has_entry(offset_of!(DistributedSuite, scatter_blocks_f64))
    }

    /// Every rank's `local` concatenated in rank order into `global`; returns the length.
    ///
    /// # Errors
    /// [`SolveError::Unsupported`] when the host's table lacks the entry;
    /// [`SolveError::Failed`] when the total exceeds `global`'s length (on every rank) or the
    /// gather fails.
    pub fn all_gather_blocks(
        &self,
        local: &[f64],
        global: &mut [f64],
    ) -> Result<usize, SolveError> {
        if !self.has_blocks() {
            return Err(SolveError::Unsupported(
                "the host's distributed suite has no block gather".into(),
            ));
        }
        let s = self.suite();
        let mut total = 0usize;
        // SAFETY: host entry (present: checked above); both slices are valid for their lengths.
        let st = unsafe {
            (s.all_gather_blocks_f64)(
                s.context,
                local.as_ptr(),
                local.len(),
                global.as_mut_ptr(),
                global.len(),
                &mut total,
            )
        };
        Self::status("block gather", st)?;
        Ok(total)
    }

    fn require_rooted(&self) -> Result<(), SolveError> {
        if self.has_rooted_blocks() {
            Ok(())
        } else {
            Err(SolveError::Unsupported(
                "the host's distributed suite has no gather to one rank".into(),
            ))
        }
    }

    /// Every rank's `local` concatenated in rank order into `global` on rank `root`; returns
    /// the length there (0 on the other ranks, whose `global` is not touched).
    ///
    /// # Errors
    /// [`SolveError::Unsupported`] when the host's table lacks the entry;
    /// [`SolveError::Failed`] on the root when the total exceeds `global`'s length, or when
    /// the gather fails.
    pub fn gather_blocks(
        &self,
        root: u32,
        local: &[f64],
        global: &mut [f64],
    ) -> Result<usize, SolveError> {
        self.require_rooted()?;
        let s = self.suite();
        let mut total = 0usize;
        // SAFETY: host entry (present: checked above); both slices are valid for their lengths.
        let st = unsafe {
            (s.gather_blocks_f64)(
                s.context,
                root,
                local.as_ptr(),
                local.len(),
                global.as_mut_ptr(),
                global.len(),
                &mut total,
            )
        };
        Self::status("gather to one rank", st)?;
        Ok(total)
    }

    /// Rank `root` sends each rank `r` its block of `global` (the concatenation of blocks of
    /// `lens[r]` values in rank order; both read on the root only); every rank receives its
    /// block into `local` and gets its length.
    ///
    /// # Errors
    /// [`SolveError::Unsupported`] when the host's table lacks the entry;
    /// [`SolveError::Failed`] on the root when `lens` does not name one block per rank within
    /// `global`, on a rank whose block exceeds `local`'s length, or when the scatter fails.
    pub fn scatter_blocks(
        &self,
        root: u32,
        global: &[f64],
        lens: &[usize],
        local: &mut [f64],
    ) -> Result<usize, SolveError> {
        self.require_rooted()?;
        let is_root = self.rank == root;
        let covered = lens.iter().try_fold(0usize, |a, &n| a.checked_add(n));
        let valid = lens.len() == self.ranks as usize && covered.is_some_and(|n| n <= global.len());
        // A root with bad lengths still takes part, sending empty blocks, so no rank waits.
        let empty;
        let (g, l) = match (is_root, valid) {
            (false, _) => (std::ptr::null(), std::ptr::null()),
            (true, true) => (global.as_ptr(), lens.as_ptr()),
            (true, false) => {
                empty = vec![0usize; self.ranks as usize];
                (global.as_ptr(), empty.as_ptr())
            }
        };
        let s = self.suite();
        let mut received = 0usize;
        // SAFETY: host entry (present: checked above); on the root the lengths passed name one
        // block per rank within `global` (checked above); `local` is valid for its length.
        let st = unsafe {
            (s.scatter_blocks_f64)(
                s.context,
                root,
                g,
                l,
                local.as_mut_ptr(),
                local.len(),
                &mut received,
            )
        };
        if is_root && !valid {
            return Err(SolveError::Failed(format!(
                "scatter from rank {root}: {} block lengths for {} ranks do not fit {} values",
                lens.len(),
                self.ranks,
                global.len()
            )));
        }
        Self::status("scatter from one rank", st)?;
        Ok(received)
    }
}

/// A value that crosses the distributed suite's f64 exchanges exactly (a field of f32, f64 or
/// u8 packed into an exchanged f64 field and back).
pub trait HaloValue: Copy {
    /// The value as sent.
    fn to_f64(self) -> f64;
    /// The value as received.
    fn from_f64(v: f64) -> Self;
}

impl HaloValue for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl HaloValue for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl HaloValue for u8 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v as u8
    }
}

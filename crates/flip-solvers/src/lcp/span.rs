//! Where an outer LCP loop's cells live: the whole grid, or one rank's slab of a distributed
//! problem (its owned layers and the ghost layers beside them, `sdk::distributed`). The loop
//! decides on global values (maxima and sums over every rank's owned cells), so all ranks take
//! the same path, and it refreshes what it computed on the owned cells into the ghost layers.

use flip_sdk::{distributed, Distributed, Problem, SolveError};
use std::ops::Range;

/// The cells of one solve.
pub(crate) enum Span {
    /// The whole grid of this many cells.
    Whole(usize),
    /// One rank's slab.
    Slab(Distributed),
}

impl Span {
    /// The span of `p` in the current call.
    pub fn of(p: &Problem<'_>) -> Self {
        match distributed() {
            Some(d) => Self::Slab(d),
            None => Self::Whole(p.cell_count()),
        }
    }

    /// Whether this is one rank's slab of a distributed problem.
    pub fn is_distributed(&self) -> bool {
        matches!(self, Self::Slab(_))
    }

    /// The cells this process decides on: all, or the owned ones.
    pub fn rows(&self) -> Range<usize> {
        match self {
            Self::Whole(n) => 0..*n,
            Self::Slab(d) => d.layout().owned_range(),
        }
    }

    /// The largest of every rank's `v`.
    pub fn max(&self, v: f64) -> Result<f64, SolveError> {
        match self {
            Self::Whole(_) => Ok(v),
            Self::Slab(d) => d.max1(v),
        }
    }

    /// The sum of every rank's `v` (in rank order).
    pub fn sum(&self, v: f64) -> Result<f64, SolveError> {
        match self {
            Self::Whole(_) => Ok(v),
            Self::Slab(d) => d.sum1(v),
        }
    }

    /// [`Self::max`], and whether any rank's bake was cancelled.
    pub fn max_or_cancelled(&self, v: f64) -> Result<(f64, bool), SolveError> {
        match self {
            Self::Whole(_) => Ok((v, flip_sdk::cancelled())),
            Self::Slab(d) => d.max1_or_cancelled(v),
        }
    }

    /// Fills every ghost layer of the local cell field `field` from the neighbours.
    pub fn refresh(&self, field: &mut [f64]) -> Result<(), SolveError> {
        match self {
            Self::Whole(_) => Ok(()),
            Self::Slab(d) => {
                let l = d.layout();
                d.halo_exchange(field, l.ghost_lo.max(l.ghost_hi))
            }
        }
    }

    /// Refreshes the flags of `cells` (one per cell, local indices) on the ghost layers.
    pub fn refresh_flags(&self, cells: &[usize], flags: &mut [bool]) -> Result<(), SolveError> {
        let Self::Slab(d) = self else {
            return Ok(());
        };
        let mut field = vec![0.0; d.layout().local_dims().iter().product()];
        for (&c, &f) in cells.iter().zip(flags.iter()) {
            field[c] = f64::from(u8::from(f));
        }
        self.refresh(&mut field)?;
        let owned = self.rows();
        for (&c, f) in cells.iter().zip(flags) {
            if !owned.contains(&c) {
                *f = field[c] != 0.0;
            }
        }
        Ok(())
    }
}

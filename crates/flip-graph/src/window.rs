//! A rank's part of a decomposed run (`run --mpi`): the *window* it simulates, its owned slab
//! of the domain plus ghost layers on each interior side. Every node works on the window as if
//! it were the whole domain, in window coordinates (positions shifted by [`Window::origin`]),
//! so kernels are unchanged; the window's outer faces act as walls, `ghost` layers from any
//! owned cell. Between substeps the runner has each carried value brought up to date by its
//! data kind ([`crate::kind::KindOps::refresh_ghosts`], [`crate::kind::KindOps::migrate`]):
//! grid fields get their ghost layers from the neighbours' owned layers ([`refresh_grid`]),
//! what moved out of a window goes to its new owner. Nodes that need the whole domain (a
//! pressure solve, an export) reach the other ranks through [`Window::comm`].

use flip_comm::{Communicator, Distribution, DistributionError};
use flip_core::{Grid3, GridSpec};
use glam::Vec3;
use std::ops::Range;
use std::sync::Arc;

mod gather;
mod refresh;
pub use gather::{gather_cells, gather_mac};
pub use refresh::refresh_grid;

/// What the exchange between windows before a substep moved (this rank's share), for the
/// traffic report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExchangeCounts {
    /// Owned items sent to a neighbour that owns them now.
    pub migrated_out: usize,
    /// Items received to own.
    pub migrated_in: usize,
    /// Ghost copies received.
    pub ghosts_in: usize,
    /// Bytes sent.
    pub bytes_sent: usize,
}

/// One rank's window of a decomposed run.
#[derive(Debug)]
pub struct Window {
    /// The whole domain.
    pub global: GridSpec,
    /// The window's grid (owned plus ghost layers), origin at its first layer.
    pub local: GridSpec,
    /// Slab axis: z in 3D, y in 2D (the layout of `flip_abi::distributed`).
    pub axis: usize,
    /// Global index of the window's first layer.
    pub offset: usize,
    /// The owned layers, as window layers.
    pub owned: Range<usize>,
    /// The layout with the window's ghost layers (fields exchanged over the whole window).
    pub dist: Arc<Distribution>,
    /// The same slabs with a solve's ghost layers (`SOLVE_GHOST_LAYERS`): what a distributed
    /// pressure solve receives.
    pub solve: Arc<Distribution>,
}

impl Window {
    /// This rank's window of `global` with `ghost` layers a side.
    ///
    /// # Errors
    /// A slab thinner than `ghost` layers (too many ranks for the grid).
    pub fn new(
        comm: Arc<dyn Communicator>,
        global: GridSpec,
        ghost: usize,
    ) -> Result<Self, DistributionError> {
        let dims = global.dims();
        let dist = Distribution::new(comm.clone(), dims, ghost)?;
        let solve = Distribution::for_solve(comm, dims)?;
        let l = *dist.layout();
        let axis = l.axis as usize;
        let mut local = global;
        match axis {
            2 => local.nk = l.local_layers(),
            _ => local.nj = l.local_layers(),
        }
        let lo = l.ghost_lo as usize;
        Ok(Self {
            global,
            local,
            axis,
            offset: (l.first - l.ghost_lo) as usize,
            owned: lo..lo + l.owned as usize,
            solve: Arc::new(solve),
            dist: Arc::new(dist),
        })
    }

    /// The communicator.
    pub fn comm(&self) -> &Arc<dyn Communicator> {
        self.dist.comm()
    }

    /// This rank and the number of ranks.
    pub fn rank(&self) -> (u32, u32) {
        (self.comm().rank(), self.comm().ranks())
    }

    /// Where the window's origin lies in the domain (m).
    pub fn origin(&self) -> Vec3 {
        let mut o = Vec3::ZERO;
        o[self.axis] = self.offset as f32 * self.global.dx;
        o
    }

    /// The window layer holding window position `p` (may lie outside the window).
    pub fn layer_of(&self, p: Vec3) -> isize {
        (p[self.axis] / self.local.dx).floor() as isize
    }

    /// Window layers that are ghosts below (`ghost_lo`) and above the owned ones.
    pub fn ghost_layers(&self) -> (usize, usize) {
        (
            self.owned.start,
            self.local.dims()[self.axis] - self.owned.end,
        )
    }

    /// The owned cells of window cell field `field` (x fastest, then y, then z).
    pub fn owned_cells<'a, T>(&self, field: &'a [T]) -> &'a [T] {
        &field[self.owned_cell_range()]
    }

    /// The owned layers of a window grid field `g` (cells or faces: face layer `L` belongs to
    /// cell layer `L`).
    pub fn owned_layers<'a, T>(&self, g: &'a Grid3<T>) -> &'a [T] {
        let layer_len: usize = g.dims()[..self.axis].iter().product();
        &g.data[self.owned.start * layer_len..self.owned.end * layer_len]
    }

    /// The window's owned cells as a range of its linear cell indices.
    pub fn owned_cell_range(&self) -> Range<usize> {
        self.dist.layout().owned_range()
    }

    /// Global linear index of the window's first cell.
    pub fn first_cell(&self) -> usize {
        self.offset * self.dist.layout().layer_len()
    }
}

/// Ghost layers a window needs: `ceil(cfl)` cells of advection, the transfer stencil (2) on
/// both sides of the owned boundary, and `reach` cells of extrapolation from the window's
/// outer (walled) faces, whose wrong values must not arrive at a cell an owned particle reads.
pub fn ghost_layers_for(cfl: f32, reach: usize) -> usize {
    cfl.max(1.0).ceil() as usize + 5 + reach
}

//! The level hierarchy, kept in the solver instance between solves (Karlsson Alg. 8, lines 1-7:
//! restrict the geometry, build `A^m` on every level). Allocation happens when the grid size
//! changes; coarse levels are rebuilt only when the fine matrix changed, every step of the
//! rebuild runs in parallel.

use super::coarse::CoarseSolver;
use super::coarsen;
use super::level::Level;
use super::smoother::RedBlack;
use super::transfer::{self, Barycentric};
use super::{Coarsening, MultigridConfig};
use flip_sdk::regions::Regions;
use flip_sdk::Problem;

/// The linear multigrid's hierarchy: colour-split grid levels.
pub(crate) type Hierarchy = crate::hierarchy::Hierarchy<Level>;

/// What the linear hierarchy keeps to rebuild its coarse levels.
pub(crate) struct Build {
    /// Singular regions of the fine problem (for the range projection).
    pub regions: Regions,
    /// Number of times the coarse levels were (re)built.
    pub rebuilds: usize,
    /// Whether [`Hierarchy::update`] finds the singular regions (a distributed solve, which
    /// does not project them, turns this off).
    pub find_regions: bool,
    /// Whether the levels were built since they were allocated.
    pub built: bool,
    coarsening: Coarsening,
    coarsest_size: usize,
    bubble_levels: usize,
}

impl Hierarchy {
    /// An empty hierarchy; built on the first [`Hierarchy::update`].
    pub fn new(config: &MultigridConfig) -> Self {
        Self {
            levels: Vec::new(),
            coarse: CoarseSolver::default(),
            smoother: RedBlack,
            transfer: Barycentric,
            sweeps: [config.n_sweep, config.n_sweep_coarse],
            build: Build {
                regions: Regions::default(),
                rebuilds: 0,
                find_regions: true,
                built: false,
                coarsening: config.coarsening,
                coarsest_size: config.coarsest_size,
                bubble_levels: config.bubble_levels,
            },
        }
    }

    /// Dimensions of every level for a fine grid of `dims` cells.
    fn level_dims(&self, dims: [usize; 3]) -> Vec<([usize; 3], [bool; 3])> {
        let mut out = vec![(dims, [false; 3])];
        let mut d = dims;
        while d.iter().any(|&n| n > self.build.coarsest_size) {
            let active = d.map(|n| n > 1);
            d = d.map(|n| n.div_ceil(2));
            out.push((d, active));
        }
        out
    }

    /// Whether [`Hierarchy::update`] reads the problem's `face_open` (besides its cell kinds,
    /// diagonal and couplings, which it always reads).
    pub fn reads_face_open(&self) -> bool {
        self.build.coarsening == Coarsening::Rediscretise
    }

    /// Allocates the levels for a fine grid of `dims` cells unless they fit; returns whether
    /// they were (re)allocated.
    pub fn fit(&mut self, dims: [usize; 3]) -> bool {
        if self.levels.first().map(|l| l.dims) == Some(dims) {
            return false;
        }
        let with_open = self.build.coarsening == Coarsening::Rediscretise;
        self.levels = self
            .level_dims(dims)
            .into_iter()
            .map(|(d, active)| Level::new(d, active, with_open))
            .collect();
        self.build.built = false;
        true
    }

    /// Brings the hierarchy up to date with `p`'s matrix. Returns whether it was rebuilt.
    pub fn update(&mut self, p: &Problem<'_>) -> bool {
        self.fit(p.dims);
        let cover = coarsen::FineCover::whole(&self.levels[0]);
        let (changed, uniform) = coarsen::load_fine(&mut self.levels[0], p, &cover);
        if !changed && self.build.built {
            return false;
        }
        if self.build.find_regions {
            self.build.regions.find(&self.levels[0]);
        }
        self.levels[0].set_uniform(uniform);
        self.rebuild_from(1);
        true
    }

    /// Builds level `l` from level `l - 1` on the coarse padded rows `rows` only, without
    /// completing it (Galerkin coarsening; see [`coarsen::galerkin_rows`]).
    pub fn coarsen_rows(&mut self, l: usize, rows: std::ops::Range<usize>) {
        let (fine, coarse) = self.levels.split_at_mut(l);
        coarsen::galerkin_rows(
            &fine[l - 1],
            &mut coarse[0],
            l,
            self.build.bubble_levels,
            rows,
        );
    }

    /// Builds levels `first..` from the level above each, then factors the coarsest.
    pub fn rebuild_from(&mut self, first: usize) {
        for l in first..self.levels.len() {
            let (fine, coarse) = self.levels.split_at_mut(l);
            let (fine, coarse) = (&mut fine[l - 1], &mut coarse[0]);
            match self.build.coarsening {
                Coarsening::Galerkin => {
                    coarsen::galerkin(fine, coarse, l, self.build.bubble_levels)
                }
                Coarsening::Rediscretise => {
                    coarsen::rediscretise(fine, coarse, l, self.build.bubble_levels)
                }
            }
            self.complete(l);
        }
        let coarsest = self.levels.last().expect("at least one level");
        self.coarse.factor(coarsest);
        self.build.rebuilds += 1;
        self.build.built = true;
    }

    /// Finishes level `l` once its matrix is built: slivers dropped, transfer masks and
    /// weights, colour-split arrays.
    pub fn complete(&mut self, l: usize) {
        super::slivers::drop_slivers(&mut self.levels[l], l);
        self.finish(l);
    }

    /// [`Hierarchy::complete`] once level `l`'s slivers are dropped: transfer masks and
    /// weights, colour-split arrays.
    pub fn finish(&mut self, l: usize) {
        let (fine, coarse) = self.levels.split_at_mut(l);
        let (fine, coarse) = (&mut fine[l - 1], &mut coarse[0]);
        transfer::compute_mask(coarse);
        transfer::compute_inv_norm(fine, coarse);
        coarse.pack(None);
    }
}

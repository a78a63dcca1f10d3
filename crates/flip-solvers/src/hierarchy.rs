//! The one multigrid hierarchy of the crate: levels, finest first, each holding its matrix and
//! its iterate `x`, right-hand side `b` and residual; a [`Smoother`], the [`Transfer`]s between
//! adjacent levels and an exact solve of the coarsest ([`CoarseSolve`]); the V-cycle and the
//! full cycle run on any level type ([`cycle`]), the V-cycle optionally with a term added to
//! its finest levels' operators ([`CycleTerm`]).
//!
//! Level types: the linear multigrid's colour-split grid levels (`multigrid`, also the
//! distributed MGPCG's slab levels) with Galerkin or re-discretised coarse operators, and the
//! tall-cell levels (`tallcell`) re-discretised from down-sampled tall-cell grids.

/// V-cycle and full cycle.
pub(crate) mod cycle;

/// One level of a hierarchy: a matrix and its vectors `x`, `b` and the residual the
/// restriction reads.
pub(crate) trait MultigridLevel: Sized {
    /// Relaxation of `A x = b` on one level.
    type Smoother: Smoother<Self>;
    /// Restriction and prolongation between a level and the next coarser one.
    type Transfer: Transfer<Self>;
    /// Exact solve of the coarsest level.
    type Coarse: CoarseSolve<Self>;
    /// What the level type keeps to (re)build its hierarchy.
    type Build;
    /// The residual `b - A x` the restriction reads; `after_forward`: `x` was just relaxed by
    /// [`Smoother::forward`] (a smoother may know part of the residual to vanish then).
    fn residual(&mut self, after_forward: bool);
    /// Sets `x = 0`.
    fn zero_x(&mut self);
}

/// Relaxation sweeps of `A x = b` on one level.
pub(crate) trait Smoother<L> {
    /// `sweeps` forward sweeps; `zero_guess`: `x` is taken as 0 on entry.
    fn forward(&self, level: &mut L, sweeps: usize, zero_guess: bool);
    /// `sweeps` sweeps in the adjoint order of [`Smoother::forward`] (a symmetric cycle).
    fn backward(&self, level: &mut L, sweeps: usize);
    /// The part of `x` that the first half of a forward (`backward` false) or backward sweep
    /// reads, when the other part is overwritten before it is read (a colour of red-black
    /// Gauss-Seidel): a prolongation need not fill the other part. `None`: all of `x`.
    fn reads_first(&self, backward: bool) -> Option<usize>;
}

/// Transfers between a level and the next coarser one.
pub(crate) trait Transfer<L> {
    /// `coarse.b = R fine.residual`; `after_forward` as in [`MultigridLevel::residual`].
    fn restrict(&self, fine: &L, coarse: &mut L, after_forward: bool);
    /// `fine.x (+)= P coarse.x` (`add`, else overwrite), on the part `only` of `fine.x` (see
    /// [`Smoother::reads_first`]) or all of it.
    fn prolong(&self, coarse: &mut L, fine: &mut L, add: bool, only: Option<usize>);
}

/// A term `T_l` added to the operators of the finest levels of a V-cycle, which is then a
/// cycle of `A + T` on them (the rigid bodies' low-rank term, `multigrid::outer::BodyLevels`);
/// the levels below run the cycle of `A`.
pub(crate) trait CycleTerm<L: MultigridLevel> {
    /// Levels `0..carried()` carry the term.
    fn carried(&self) -> usize;
    /// After a forward sweep of `A_l` on level `l`: the residual `b − (A_l + T_l) x` the
    /// restriction reads (the restriction then assumes nothing of the sweep).
    fn residual(&self, l: usize, level: &mut L);
    /// After the prolongation to level `l` wrote only the part `wrote` of its `x` (the part
    /// the first post-smoothing sweep reads, [`Smoother::reads_first`]): prolongs the rest
    /// wherever the lagged term reads it.
    fn complete_prolongation(&self, l: usize, coarse: &mut L, fine: &mut L, wrote: usize);
    /// Runs `smooth` (sweeps of `A_l`) against `b − T_l x`, the term lagged at the `x` on
    /// entry.
    fn lagged(&self, l: usize, level: &mut L, smooth: &mut dyn FnMut(&mut L));
    /// After the coarsest level's `x = A⁻¹ b`: makes it `x = (A + T)⁻¹ b`.
    fn correct_coarsest(&self, coarse: &L::Coarse, level: &mut L);
}

/// Exact solve on the coarsest level.
pub(crate) trait CoarseSolve<L> {
    /// `x = A⁻¹ b`.
    fn solve(&mut self, level: &mut L);
    /// `x += A⁻¹ (b - A x)`.
    fn correct(&mut self, level: &mut L);
}

/// Levels `0` (finest) to `depth - 1` (coarsest), the operators of the cycles, and what the
/// level type keeps to rebuild them.
pub(crate) struct Hierarchy<L: MultigridLevel> {
    /// The levels, finest first.
    pub levels: Vec<L>,
    /// Exact solver of the coarsest level.
    pub coarse: L::Coarse,
    /// The smoother of every level.
    pub smoother: L::Smoother,
    /// The transfers between adjacent levels.
    pub transfer: L::Transfer,
    /// Smoothing sweeps before and after the coarse correction: on the finest level, on the
    /// others.
    pub sweeps: [usize; 2],
    /// The level type's build state.
    pub build: L::Build,
}

impl<L: MultigridLevel> Hierarchy<L> {
    /// Number of levels.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Smoothing sweeps before and after the coarse correction on level `l`.
    pub fn sweeps(&self, l: usize) -> usize {
        self.sweeps[usize::from(l > 0)]
    }
}

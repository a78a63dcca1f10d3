//! MGPCG (McAdams, Sifakis & Teran 2010): conjugate gradient in f64 preconditioned by one
//! symmetric V-cycle in f32 (zero initial guess, forward red-black pre-smoothing, backward
//! post-smoothing, exact coarsest solve), so the preconditioner is a fixed SPD operator.

use super::distributed::DistributedMgpcg;
use super::hierarchy::Hierarchy;
use super::outer::{self, BodyLevels, BodySpace, LowRank, Vectors};
use super::projection::remove_mean;
use super::shared::SharedHierarchy;
use super::MultigridConfig;
use crate::hierarchy::cycle::vcycle;
use crate::hierarchy::CycleTerm;
use flip_sdk::{BodyTerms, PressureSolver, Problem, SolveError, SolveStats};

/// CG preconditioned by a symmetric multigrid V-cycle. `iterations` counts CG iterations.
/// `config.cycle`, `n_vcycle` and `n_full_cycle` are not used (one V-cycle per application).
pub struct MgPcgSolver {
    config: MultigridConfig,
    hierarchy: SharedHierarchy,
    v: Vectors,
    /// The distributed solver, made on the first solve of a rank's slab.
    distributed: Option<DistributedMgpcg>,
}

impl MgPcgSolver {
    /// A solver with `config`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] when [`MultigridConfig::validate`] refuses the configuration.
    pub fn new(config: MultigridConfig) -> Result<Self, SolveError> {
        config
            .validate()
            .map_err(|e| SolveError::BadValue(e.to_string()))?;
        Ok(Self {
            hierarchy: SharedHierarchy::new(&config, false),
            config,
            v: Vectors::default(),
            distributed: None,
        })
    }

    /// The same solver, solving on another sharing instance's hierarchy of this process when
    /// their matrices agree, and lending its own (see [`super::shared`]).
    pub fn sharing(mut self) -> Self {
        self.hierarchy = SharedHierarchy::new(&self.config, true);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &MultigridConfig {
        &self.config
    }

    /// Number of grid levels of the current hierarchy (0 before the first solve).
    pub fn levels(&self) -> usize {
        self.hierarchy.depth()
    }

    /// How many times a hierarchy was built for this solver's matrix (only when it changes; by
    /// this solver or by another it shares with).
    pub fn rebuilds(&self) -> usize {
        self.hierarchy.builds()
    }

    /// Whether this solver built levels of its own (instead of solving on a shared hierarchy).
    #[cfg(test)]
    pub(super) fn built_own(&self) -> bool {
        self.hierarchy.own_built()
    }
}

/// The coupled preconditioner: the Galerkin correction in `span J` around the V-cycle of
/// `A + J C Jᵀ` that carries the bodies' term on its levels (`None`: the V-cycle of `A`, when
/// no level can carry it or once it failed to be positive).
pub(super) type Coupled<'a> = (&'a BodySpace<'a>, Option<&'a BodyLevels<'a>>);

/// `z = M⁻¹ r` into level 0's `x` (one symmetric V-cycle, of the coupled operator when
/// `bodies` are given; level 0's `b` already holds `r`); returns `r · z`.
pub(super) fn precondition(h: &mut Hierarchy, v: &mut Vectors, bodies: Option<Coupled<'_>>) -> f64 {
    let pre = bodies.map(|(space, _)| space.pre_correct(&mut h.levels[0]));
    let term = bodies.and_then(|(_, levels)| levels);
    vcycle(h, 0, true, true, term.map(|t| t as &dyn CycleTerm<_>));
    if let (Some((space, _)), Some(pre)) = (bodies, pre) {
        space.post_correct(&mut h.levels[0], pre);
    }
    if h.build.regions.any_singular() {
        let level = &mut h.levels[0];
        let mut x = [
            std::mem::take(&mut level.cs[0].x),
            std::mem::take(&mut level.cs[1].x),
        ];
        remove_mean(&h.build.regions, level, &mut x);
        let [x0, x1] = x;
        level.cs[0].x = x0;
        level.cs[1].x = x1;
    }
    outer::dot_rz(&h.levels[0], v)
}

/// CG from the current iterate (level 0's `b` holds its true residual, of max-norm
/// `res`) until the recurrence residual meets `bound` or `budget` runs out; returns the
/// iterations used. The f32 recurrence residual is replaced by the f64 true residual
/// whenever it has fallen by [`REPLACE`] since the last replacement (residual replacement,
/// van der Vorst & Ye 2000), which keeps it accurate to f32 round-off of the current
/// residual while the search direction carries on. With `bodies`, the operator is the coupled
/// `A + J C Jᵀ`, preconditioned by `coupled`. The lagged sweeps of its V-cycle carry no proof
/// of positivity: should `r · z` come out negative, that cycle is dropped and CG returns, to
/// restart on the V-cycle of `A`.
fn cg(
    h: &mut Hierarchy,
    v: &mut Vectors,
    bodies: Option<&LowRank<'_>>,
    coupled: &mut Option<Coupled<'_>>,
    (mut res, bound, budget): (f64, f64, usize),
) -> usize {
    let mut reference = res;
    let mut rz = precondition(h, v, *coupled);
    let mut dq = direction(h, v, bodies, 0.0);
    for it in 1..=budget {
        if let Some((_, levels @ Some(_))) = coupled.as_mut().filter(|_| rz < 0.0) {
            *levels = None;
            return it - 1;
        }
        if !(dq > 0.0 && rz.is_finite()) || flip_sdk::cancelled() {
            return it - 1;
        }
        let alpha = rz / dq;
        res = outer::step(&mut h.levels[0], v, alpha);
        if res <= bound || it == budget {
            return it;
        }
        if res < REPLACE * reference {
            res = residual(h, v, bodies);
            reference = res;
            if res <= bound {
                return it;
            }
        }
        let rz_new = precondition(h, v, *coupled);
        let beta = rz_new / rz;
        rz = rz_new;
        dq = direction(h, v, bodies, beta);
    }
    budget
}

/// [`outer::direction`] of the operator, with the bodies' term when there are bodies.
fn direction(h: &Hierarchy, v: &mut Vectors, bodies: Option<&LowRank<'_>>, beta: f64) -> f64 {
    let dq = outer::direction(&h.levels[0], v, beta);
    bodies.map_or(dq, |b| dq + b.add_to_direction(&h.levels[0], v))
}

/// [`outer::residual`] of the operator, with the bodies' term when there are bodies.
fn residual(h: &mut Hierarchy, v: &mut Vectors, bodies: Option<&LowRank<'_>>) -> f64 {
    match bodies {
        Some(b) => b.residual(&mut h.levels[0], v),
        None => outer::residual(&mut h.levels[0], v),
    }
}

/// MGPCG on the hierarchy `h` built for `problem`'s matrix, on the coupled operator when
/// `bodies` are given: restarted from the true residual until it meets the tolerance.
fn solve_on(
    h: &mut Hierarchy,
    v: &mut Vectors,
    problem: &mut Problem<'_>,
    bodies: Option<&BodyTerms<'_>>,
    config: &MultigridConfig,
) -> SolveStats {
    v.fit(&h.levels[0], true);
    let bodies = bodies.map(|b| LowRank::new(*b, &h.levels[0]));
    let bodies = bodies.as_ref();
    let levels = bodies.and_then(|b| BodyLevels::new(b, h));
    let space = bodies.map(|b| BodySpace::new(b, &h.levels[0]));
    let mut coupled = space.as_ref().map(|s| (s, levels.as_ref()));
    let bnorm = outer::load_whole(problem, &h.levels[0], &h.build.regions, v);
    let bound = config.tolerance.bound(bnorm);
    let mut res = residual(h, v, bodies);
    let initial = res;
    let mut iterations = 0;
    // CG runs on the recurrence residual; restart from the true one if they drifted apart.
    while res > bound && res.is_finite() && iterations < config.max_iterations {
        if flip_sdk::cancelled() {
            break;
        }
        let budget = config.max_iterations - iterations;
        let used = cg(h, v, bodies, &mut coupled, (res, bound, budget));
        iterations += used.max(1);
        if h.build.regions.any_singular() {
            remove_mean(&h.build.regions, &h.levels[0], &mut v.p);
        }
        res = residual(h, v, bodies);
    }
    outer::store(problem, &h.levels[0], v, 0);
    super::stats(iterations, res, initial, bound)
}

/// Factor by which the recurrence residual may fall before it is replaced by the true one.
pub(super) const REPLACE: f64 = 1e-3;

impl PressureSolver for MgPcgSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        outer::check(problem)?;
        if let Some(d) = flip_sdk::distributed() {
            let config = &self.config;
            let solver = self
                .distributed
                .get_or_insert_with(|| DistributedMgpcg::new(config));
            return solver.solve(&d, problem);
        }
        let (config, v) = (&self.config, &mut self.v);
        let stats = (self.hierarchy)
            .solve_with(problem, |h, problem| solve_on(h, v, problem, None, config));
        Ok(stats)
    }

    /// MGPCG on `A + J C Jᵀ`: the same outer iteration with the bodies' term added through
    /// `J`'s sparse columns ([`outer::LowRank`]), preconditioned by a V-cycle of the coupled
    /// operator that carries the term on its levels ([`outer::BodyLevels`]) inside a Galerkin
    /// correction in `span J` ([`outer::BodySpace`]).
    fn solve_coupled(
        &mut self,
        problem: &mut flip_sdk::CoupledProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        outer::check(&problem.grid)?;
        if flip_sdk::distributed().is_some() {
            return Err(SolveError::Unsupported(
                "coupled (rigid-body) problems are not solved distributed".into(),
            ));
        }
        let (config, v, bodies) = (&self.config, &mut self.v, problem.bodies);
        Ok(self.hierarchy.solve_with(&mut problem.grid, |h, grid| {
            solve_on(h, v, grid, Some(&bodies), config)
        }))
    }

    fn prepare(&mut self, problem: &Problem<'_>) {
        if flip_sdk::distributed().is_none() {
            self.hierarchy.prepare(problem);
        }
    }

    fn reset(&mut self) {
        self.hierarchy.reset();
        self.v = Vectors::default();
        self.distributed = None;
    }
}

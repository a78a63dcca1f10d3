//! Sparse direct solve of the pressure system: Cholesky `A = L Lᵀ` with an approximate
//! minimum degree ordering (faer 0.22, simplicial or supernodal as faer chooses), on the fluid
//! unknowns only. The reference the iterative solvers are tested against; practical up to a few
//! hundred thousand unknowns (fill grows like n^1.5 in 2D and n^2 in 3D).
//!
//! Singular (pure-Neumann) regions: the right-hand side is projected onto the range (its mean
//! over the region removed), the region's first cell is pinned to 0 (its row and column replaced
//! by the identity, with the sparsity pattern kept so the symbolic factorisation is reusable),
//! and the mean of the solution is removed afterwards. Since the projected system is
//! consistent, the pinned row's equation holds too.

use crate::krylov::{check_rhs, restrict_to_fluid, stencil_of};
use crate::stencil::{norm_inf, Stencil};
use crate::tolerance::Tolerance;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::sparse::linalg::cholesky::{factorize_symbolic_cholesky, LltRef, SymbolicCholesky};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};
use flip_abi::CELL_FLUID;
use flip_sdk::regions::Regions;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// Configuration of [`DirectSolver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectConfig {
    /// Only used to report `converged` (the solve itself is exact up to rounding).
    pub tolerance: Tolerance,
}

impl Default for DirectConfig {
    fn default() -> Self {
        let tolerance = Tolerance {
            rel: 1e-6,
            abs: 1e-9,
        };
        Self { tolerance }
    }
}

/// The upper triangle of `A` restricted to the fluid unknowns, in compressed-column form.
#[derive(Default)]
struct System {
    /// Cell of each unknown (grid order).
    cells: Vec<usize>,
    /// Unknown of each cell (`usize::MAX` off the fluid).
    unknown: Vec<usize>,
    /// Column pointers (`cells.len() + 1` entries).
    col_ptr: Vec<usize>,
    /// Row indices, sorted within each column, diagonal last.
    row_idx: Vec<usize>,
    /// Matrix values matching `row_idx`.
    values: Vec<f64>,
}

/// A factorisation and the pattern (column pointers, row indices) and values it is of.
struct Factor {
    symbolic: SymbolicCholesky<usize>,
    pattern: (Vec<usize>, Vec<usize>),
    /// The matrix `l_values` is the numeric factor of, once computed.
    matrix: Option<Vec<f64>>,
    l_values: Vec<f64>,
}

/// Sparse Cholesky pressure solver. Keeps the symbolic factorisation (ordering, elimination
/// tree) while the sparsity pattern is unchanged, and the numeric one while the matrix is.
#[derive(Default)]
pub struct DirectSolver {
    config: DirectConfig,
    system: System,
    factor: Option<Factor>,
    /// Right-hand side / solution over the unknowns.
    x: Vec<f64>,
    /// Projected right-hand side over the grid.
    b: Vec<f64>,
    /// Residual over the grid.
    r: Vec<f64>,
    /// Reusable faer workspace and the requirement it was sized for.
    scratch: Option<(MemBuffer, StackReq)>,
    /// Symbolic and numeric factorisations computed so far.
    counts: [usize; 2],
}

impl DirectSolver {
    /// A solver with `config`.
    pub fn new(config: DirectConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// How many symbolic and numeric factorisations this solver has computed.
    pub fn factorisations(&self) -> [usize; 2] {
        self.counts
    }

    /// Solves `A x = rhs` on the fluid cells of `a` (projected on singular regions) into the
    /// grid vector `out` (0 off the fluid, zero mean on singular regions).
    ///
    /// # Errors
    /// [`DirectError`] when the matrix is not positive definite after pinning or memory runs out.
    pub fn solve_grid(
        &mut self,
        a: &Stencil<'_>,
        regions: &Regions,
        rhs: &[f64],
        out: &mut [f64],
    ) -> Result<(), DirectError> {
        self.project(a, regions, rhs);
        self.solve_projected(a, regions, out)
    }

    /// Copies `rhs` on the fluid cells into `self.b` and removes its mean on singular regions.
    fn project(&mut self, a: &Stencil<'_>, regions: &Regions, rhs: &[f64]) {
        self.b.resize(a.len(), 0.0);
        restrict_to_fluid(a, rhs, &mut self.b);
        regions.remove_mean(&mut self.b);
    }

    /// Solves with the projected right-hand side in `self.b`.
    fn solve_projected(
        &mut self,
        a: &Stencil<'_>,
        regions: &Regions,
        out: &mut [f64],
    ) -> Result<(), DirectError> {
        // Number the unknowns and assemble the pinned upper triangle.
        let pinned = pinned_cells(regions);
        assemble(a, &pinned, &mut self.system);
        let n = self.system.cells.len();
        if n == 0 {
            out.iter_mut().for_each(|v| *v = 0.0);
            return Ok(());
        }
        // Gather the right-hand side; pinned cells get 0.
        self.x.clear();
        self.x.extend(self.system.cells.iter().map(|&c| self.b[c]));
        for &c in &pinned {
            self.x[self.system.unknown[c]] = 0.0;
        }
        // Factorise (reusing what is unchanged) and solve L Lᵀ x = b.
        self.refactor()?;
        let factor = self.factor.as_ref().expect("refactor leaves a factor");
        let par = Par::rayon(0);
        let req = factor.symbolic.solve_in_place_scratch::<f64>(1, par);
        let stack = scratch(&mut self.scratch, req)?;
        let llt = LltRef::new(&factor.symbolic, &factor.l_values);
        let rhs_mat = MatMut::from_column_major_slice_mut(&mut self.x, n, 1);
        llt.solve_in_place_with_conj(Conj::No, rhs_mat, par, stack);
        // Scatter and remove the mean on singular regions.
        out.iter_mut().for_each(|v| *v = 0.0);
        for (u, &c) in self.system.cells.iter().enumerate() {
            out[c] = self.x[u];
        }
        regions.remove_mean(out);
        Ok(())
    }

    /// Recomputes the symbolic factorisation if the pattern changed, the numeric one if the
    /// values changed.
    fn refactor(&mut self) -> Result<(), DirectError> {
        let sys = &self.system;
        let n = sys.cells.len();
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &sys.col_ptr, None, &sys.row_idx);
        let same_pattern = self
            .factor
            .as_ref()
            .is_some_and(|f| f.pattern.0 == sys.col_ptr && f.pattern.1 == sys.row_idx);
        if !same_pattern {
            // Symbolic analysis: AMD ordering, elimination tree, supernodes.
            let symbolic = factorize_symbolic_cholesky(
                pattern,
                Side::Upper,
                Default::default(),
                Default::default(),
            )
            .map_err(|e| DirectError::Symbolic(format!("{e:?}")))?;
            let len = symbolic.len_val();
            self.counts[0] += 1;
            self.factor = Some(Factor {
                symbolic,
                pattern: (sys.col_ptr.clone(), sys.row_idx.clone()),
                matrix: None,
                l_values: vec![0.0; len],
            });
        }
        let factor = self.factor.as_mut().expect("set above");
        if factor.matrix.as_ref() == Some(&sys.values) {
            return Ok(());
        }
        // Numeric factorisation A = L Lᵀ.
        factor.matrix = None;
        let par = Par::rayon(0);
        let req = factor
            .symbolic
            .factorize_numeric_llt_scratch::<f64>(par, Default::default());
        let stack = scratch(&mut self.scratch, req)?;
        factor
            .symbolic
            .factorize_numeric_llt(
                &mut factor.l_values,
                SparseColMatRef::new(pattern, &sys.values),
                Side::Upper,
                LltRegularization::default(),
                par,
                stack,
                Default::default(),
            )
            .map_err(|e| DirectError::NotPositiveDefinite(format!("{e:?}")))?;
        factor.matrix = Some(sys.values.clone());
        self.counts[1] += 1;
        Ok(())
    }
}

/// Why a direct solve failed.
#[derive(Debug, thiserror::Error)]
pub enum DirectError {
    /// The problem's arrays do not fit its dimensions.
    #[error(transparent)]
    Problem(#[from] flip_sdk::ProblemError),
    /// The symbolic analysis failed (faer's error, as debug text).
    #[error("symbolic Cholesky failed: {0}")]
    Symbolic(String),
    /// The numeric factorisation found a non-positive pivot (faer's error, as debug text).
    #[error("matrix is not positive definite: {0}")]
    NotPositiveDefinite(String),
    /// The factorisation's scratch memory could not be allocated.
    #[error("out of memory")]
    OutOfMemory,
}

/// Grows the reusable scratch buffer to cover `req` and returns a stack over it.
fn scratch(
    buf: &mut Option<(MemBuffer, StackReq)>,
    req: StackReq,
) -> Result<&mut MemStack, DirectError> {
    let old = buf.as_ref().map_or(StackReq::empty(), |(_, r)| *r);
    let need = old.or(req);
    if buf.is_none() || need != old {
        let mem = MemBuffer::try_new(need).map_err(|_| DirectError::OutOfMemory)?;
        *buf = Some((mem, need));
    }
    Ok(MemStack::new(&mut buf.as_mut().expect("allocated above").0))
}

/// First cell of each singular region, ascending.
fn pinned_cells(regions: &Regions) -> Vec<usize> {
    let mut first = vec![usize::MAX; regions.singular.len()];
    for (c, &l) in regions.label.iter().enumerate() {
        if l != u32::MAX && regions.singular[l as usize] && first[l as usize] == usize::MAX {
            first[l as usize] = c;
        }
    }
    first.into_iter().filter(|&c| c != usize::MAX).collect()
}

/// Numbers the fluid cells and assembles the upper triangle of `A` by columns (couplings to
/// the -z, -y, -x neighbours, then the diagonal), pinning one cell per singular region.
fn assemble(a: &Stencil<'_>, pinned_cells: &[usize], sys: &mut System) {
    let n_cells = a.len();
    let [ni, nj, _] = a.dims;
    let s = a.strides();
    sys.unknown.clear();
    sys.unknown.resize(n_cells, usize::MAX);
    sys.cells.clear();
    for c in (0..n_cells).filter(|&c| a.kind[c] == CELL_FLUID) {
        sys.unknown[c] = sys.cells.len();
        sys.cells.push(c);
    }
    // `pinned_cells` is ascending (a region's label is created at its first cell).
    let pinned = |c: usize| pinned_cells.binary_search(&c).is_ok();
    sys.row_idx.clear();
    sys.values.clear();
    sys.col_ptr.clear();
    sys.col_ptr.push(0);
    for &c in &sys.cells {
        let pos = [c % ni, (c / ni) % nj, c / (ni * nj)];
        for ax in (0..3).rev().filter(|&ax| pos[ax] > 0) {
            let (nb, pin) = (c - s[ax], pinned(c));
            let o = a.off[ax][nb] as f64;
            if o != 0.0 && a.kind[nb] == CELL_FLUID {
                sys.row_idx.push(sys.unknown[nb]);
                sys.values.push(if pin || pinned(nb) { 0.0 } else { o });
            }
        }
        let d = if pinned(c) { 1.0 } else { a.diag[c] as f64 };
        sys.row_idx.push(sys.unknown[c]);
        sys.values.push(d);
        sys.col_ptr.push(sys.row_idx.len());
    }
}

impl PressureSolver for DirectSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        if problem.lcp {
            return Err(SolveError::Unsupported(
                "the Cholesky solver solves linear systems only".into(),
            ));
        }
        problem
            .validate()
            .map_err(|e| SolveError::BadValue(e.to_string()))?;
        let a = stencil_of(problem);
        check_rhs(&a, problem.rhs)?;
        let regions = Regions::of(&a.couplings());
        self.r.resize(a.len(), 0.0);
        // Residual of the initial guess against the projected right-hand side.
        self.project(&a, &regions, problem.rhs);
        let initial_residual = a.residual(&self.b, problem.pressure, &mut self.r);
        self.solve_projected(&a, &regions, problem.pressure)
            .map_err(|e| SolveError::Failed(e.to_string()))?;
        let residual = a.residual(&self.b, problem.pressure, &mut self.r);
        let bound = self.config.tolerance.bound(norm_inf(&self.b));
        Ok(SolveStats {
            iterations: 1,
            outer_iterations: 0,
            residual,
            initial_residual,
            converged: u32::from(residual <= bound),
        })
    }

    fn solve_coupled(
        &mut self,
        problem: &mut flip_sdk::CoupledProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        let tolerance = self.config.tolerance;
        self.solve_coupled_system(problem, tolerance)
    }

    fn reset(&mut self) {
        *self = Self::new(self.config);
    }
}

/// Solves the linear problem exactly (sparse Cholesky) and returns the pressure on the grid
/// (0 off the fluid, zero mean on each pure-Neumann region). Ignores `problem.pressure` and
/// `problem.lcp`.
///
/// # Errors
/// [`DirectError`] when the problem is malformed, the matrix is not positive definite or memory
/// runs out.
pub fn solve_reference(problem: &Problem<'_>) -> Result<Vec<f64>, DirectError> {
    problem.validate()?;
    let a = stencil_of(problem);
    let regions = Regions::of(&a.couplings());
    let mut out = vec![0.0; a.len()];
    DirectSolver::default().solve_grid(&a, &regions, problem.rhs, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{self, Scene, ALL_SCENES};
    use crate::OwnedProblem;

    /// `‖b − A x‖∞` and `‖b‖∞` with `b` the projected right-hand side.
    fn projected_residual(p: &mut OwnedProblem, x: &[f64]) -> (f64, f64) {
        let view = p.view();
        let (a, mut b) = (stencil_of(&view), vec![0.0; x.len()]);
        restrict_to_fluid(&a, view.rhs, &mut b);
        Regions::of(&a.couplings()).remove_mean(&mut b);
        (a.residual(&b, x, &mut vec![0.0; x.len()]), norm_inf(&b))
    }

    #[test]
    fn reference_residual_is_tiny_on_every_scene() {
        for dims in [[24, 20, 1], [12, 10, 9]] {
            for scene in ALL_SCENES {
                let mut p = fixtures::build(scene, dims, 3);
                p.lcp = false;
                let x = solve_reference(&p.view()).expect("SPD after pinning");
                let (res, b) = projected_residual(&mut p, &x);
                assert!(res <= 1e-10 * b.max(1.0), "{scene:?} {dims:?}: {res:e}");
                let fluid = |c: usize| p.cell_kind[c] == CELL_FLUID;
                assert!((0..x.len()).all(|c| fluid(c) || x[c] == 0.0));
            }
        }
    }

    #[test]
    fn incompatible_singular_rhs_is_projected_and_solution_mean_free() {
        let mut p = fixtures::build(Scene::ClosedBox, [16, 12, 1], 5);
        for c in 0..p.cell_count() {
            if p.cell_kind[c] == CELL_FLUID {
                p.rhs[c] += 0.25; // an incompatible constant part
            }
        }
        let x = solve_reference(&p.view()).expect("pinned system is SPD");
        let (res, _) = projected_residual(&mut p, &x);
        assert!(res < 1e-10, "{res:e}");
        let mean = x.iter().sum::<f64>() / x.len() as f64; // 0 off the fluid
        assert!(mean.abs() < 1e-12 && norm_inf(&x) > 1e-3, "{mean:e}");
    }

    #[test]
    fn solver_reuses_factorisations_and_matches_the_reference() {
        let mut solver = DirectSolver::new(DirectConfig::default());
        let mut p = fixtures::build(Scene::AirBubbles, [20, 18, 6], 1);
        let reference = solve_reference(&p.view()).expect("SPD");
        p.pressure.iter_mut().for_each(|v| *v = 1.0); // a poor initial guess
        let stats = solver.solve(&mut p.view()).expect("solves");
        let ok = stats.converged == 1 && stats.residual < 1e-10 && stats.initial_residual > 0.1;
        assert!(ok, "{stats:?}");
        assert_eq!(p.pressure, reference);
        // Same matrix, new right-hand side: both factorisations are reused.
        let mut q = fixtures::build(Scene::AirBubbles, [20, 18, 6], 2);
        assert!(solver.solve(&mut q.view()).expect("solves").residual < 1e-10);
        assert_eq!(solver.factorisations(), [1, 1]);
        // Same pattern, new values: only the numeric factorisation is redone.
        let c = (0..q.cell_count()).find(|&c| q.cell_kind[c] == CELL_FLUID);
        q.diag[c.expect("has fluid")] += 0.5;
        assert!(solver.solve(&mut q.view()).expect("solves").residual < 1e-10);
        assert_eq!(solver.factorisations(), [1, 2]);
        // Another scene: a new pattern.
        let mut d = fixtures::build(Scene::DamBreak, [20, 18, 6], 2);
        assert!(solver.solve(&mut d.view()).expect("solves").residual < 1e-10);
        assert_eq!(solver.factorisations(), [2, 3]);
        let mut lcp = fixtures::build(Scene::LcpContainer, [8, 8, 1], 2);
        let refused = solver.solve(&mut lcp.view());
        assert!(matches!(refused, Err(SolveError::Unsupported(_))));
    }
}

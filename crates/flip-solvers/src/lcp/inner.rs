//! Inner linear solvers of policy iteration and the penalty method (Lai §4.1-4.2: ILU-PCG or a
//! linear multigrid), plus what the outer loops share: the modified linear problems, the
//! per-cell state kept between steps, and the linear fallback.

use super::check::lcp_residual_rows;
use super::span::Span;
use super::PolicyConfig;
use crate::direct::DirectSolver;
use crate::krylov::{Mic0Config, Pcg, PcgConfig};
use crate::multigrid::{MgPcgSolver, MultigridConfig, MultigridSolver};
use crate::owned::OwnedProblem;
use crate::tolerance::Tolerance;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats, StateReader, StateWriter};

/// The linear solver used for each outer iteration's system (4.2) or (4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InnerSolver {
    /// IC(0)-preconditioned CG (Lai et al. use ILU(0)-PCG, identical for SPD matrices).
    Ic0Pcg,
    /// MIC(0)-preconditioned CG (Bridson's variant, usually fewer iterations).
    Mic0Pcg,
    /// The crate's linear geometric multigrid ([`MultigridSolver`], V-cycles), as PI-MG/PE-MG.
    Multigrid,
    /// Sparse Cholesky ([`DirectSolver`]): exact inner solves, for reference solutions.
    Direct,
}

impl InnerSolver {
    /// An instance that stops at the absolute residual `bound` or after `max_iterations`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] if the linear solver refuses its configuration.
    pub(crate) fn instantiate(
        self,
        bound: f64,
        max_iterations: usize,
        span: &Span,
    ) -> Result<Box<dyn PressureSolver>, SolveError> {
        let tolerance = Tolerance {
            rel: 0.0,
            abs: bound.max(f64::MIN_POSITIVE),
        };
        let pcg = PcgConfig {
            tolerance,
            max_iterations: max_iterations.min(u32::MAX as usize) as u32,
        };
        let config = MultigridConfig {
            tolerance,
            max_iterations,
            ..MultigridConfig::default()
        };
        if span.is_distributed() {
            // On a slab the multigrid runs as distributed MGPCG (the V-cycle preconditions CG).
            return match self {
                Self::Multigrid => Ok(Box::new(MgPcgSolver::new(config)?)),
                _ => Err(SolveError::Unsupported(format!(
                    "the inner solver {self:?} does not run distributed; multigrid does"
                ))),
            };
        }
        Ok(match self {
            Self::Ic0Pcg => Box::new(Pcg::ic0(pcg)),
            Self::Mic0Pcg => Box::new(Pcg::mic0(pcg, Mic0Config::default())),
            Self::Multigrid => Box::new(MultigridSolver::new(config)?),
            Self::Direct => Box::new(DirectSolver::new(crate::direct::DirectConfig { tolerance })),
        })
    }
}

/// A copy of `p` as a linear problem (`lcp` off) that a linear solver accepts.
pub(crate) fn linear_copy(p: &Problem<'_>) -> OwnedProblem {
    let mut owned = OwnedProblem::from_view(p);
    owned.lcp = false;
    owned
}

/// Whether the LCP rows are active: `lcp` set and some fluid cell in S.
pub(crate) fn has_lcp_rows(p: &Problem<'_>) -> bool {
    p.lcp && (0..p.cell_count()).any(|c| p.is_fluid(c) && p.complementarity[c] != 0)
}

/// Whether any rank's cells of `span` hold an active LCP row (collective on a slab).
pub(crate) fn has_lcp_rows_in(p: &Problem<'_>, span: &Span) -> Result<bool, SolveError> {
    let mine = p.lcp
        && span
            .rows()
            .any(|c| p.is_fluid(c) && p.complementarity[c] != 0);
    Ok(span.max(f64::from(u8::from(mine)))? > 0.0)
}

/// The outer bound and a linear inner solver for `p` (collective on a slab).
pub(crate) fn setup(
    s: &PolicyConfig,
    p: &Problem<'_>,
    span: &Span,
) -> Result<(f64, Box<dyn PressureSolver>), SolveError> {
    let rhs_norm = span
        .rows()
        .filter(|&c| p.is_fluid(c))
        .fold(0.0f64, |m, c| m.max(p.rhs[c].abs()));
    let bound = s.tolerance.bound(span.max(rhs_norm)?);
    let inner = s
        .inner
        .instantiate(bound * s.inner_tolerance, s.max_iterations, span)?;
    Ok((bound, inner))
}

/// Without LCP rows the LCP is the linear problem: one inner solve (one outer iteration).
pub(crate) fn solve_linear(
    inner: &mut dyn PressureSolver,
    p: &mut Problem<'_>,
    bound: f64,
    span: &Span,
) -> Result<SolveStats, SolveError> {
    let mut owned = linear_copy(p);
    let st = inner.solve(&mut owned.view())?;
    p.pressure.copy_from_slice(&owned.pressure);
    let residual = span.max(lcp_residual_rows(p, p.pressure, span.rows()))?;
    Ok(SolveStats {
        iterations: st.iterations,
        outer_iterations: 1,
        residual,
        initial_residual: st.initial_residual,
        converged: u32::from(residual <= bound),
    })
}

/// Per-cell state of an outer loop (policy or penalty set), kept between time steps and reused
/// while the grid dimensions match.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepMemory {
    dims: [usize; 3],
    /// Per cell: `Some(flag)` where the previous step decided, `None` elsewhere.
    flags: Vec<Option<bool>>,
}

impl StepMemory {
    /// The remembered flag of cell `c`, if the grid matches.
    pub fn get(&self, dims: [usize; 3], c: usize) -> Option<bool> {
        if self.dims == dims {
            self.flags.get(c).copied().flatten()
        } else {
            None
        }
    }

    /// Remembers `flags` for a grid of `dims`.
    pub fn set(&mut self, dims: [usize; 3], flags: Vec<Option<bool>>) {
        self.dims = dims;
        self.flags = flags;
    }

    /// Writes the memory as saved solver state: dims, then one byte per cell (0 undecided,
    /// 1 false, 2 true).
    pub fn save(&self, out: &mut StateWriter) {
        self.dims.iter().for_each(|&d| out.u64(d as u64));
        let codes: Vec<u8> = self
            .flags
            .iter()
            .map(|f| f.map_or(0, |b| 1 + u8::from(b)))
            .collect();
        out.bytes(&codes);
    }

    /// Reads what [`StepMemory::save`] wrote.
    pub fn load(r: &mut StateReader<'_>) -> Result<Self, SolveError> {
        let mut dims = [0usize; 3];
        for d in &mut dims {
            *d = usize::try_from(r.u64()?).map_err(|_| SolveError::BadValue("bad dims".into()))?;
        }
        let flags = r.bytes()?.iter().map(|&c| match c {
            0 => Ok(None),
            1 | 2 => Ok(Some(c == 2)),
            _ => Err(SolveError::BadValue(format!("bad policy code {c}"))),
        });
        let flags = flags.collect::<Result<Vec<_>, _>>()?;
        let cells = dims.iter().product::<usize>();
        if !flags.is_empty() && flags.len() != cells {
            return Err(SolveError::BadValue(format!(
                "{} flags for {cells} cells",
                flags.len()
            )));
        }
        Ok(Self { dims, flags })
    }
}

/// `(A p − rhs)[c]` for a fluid cell `c` (the complementarity slack `w`).
pub(crate) fn slack(p: &Problem<'_>, x: &[f64], c: usize) -> f64 {
    crate::stencil::Stencil::of(p).row_dot(c, x) - p.rhs[c]
}

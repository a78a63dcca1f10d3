//! flipgraph plugin `multigrid`: geometric multigrid pressure solvers from `flip_solvers`.
//!
//! - `mg-vcycle`: V-cycles iterated to the tolerance (Karlsson 2014, Alg. 8-9).
//! - `mg-fullcycle`: full cycles (Karlsson 2014, Alg. 10; Chentanez & Müller 2011, Alg. 4).
//! - `mgpcg`: CG preconditioned by one symmetric V-cycle (McAdams, Sifakis & Teran 2010).
//! - `tall-mg`: full cycles on restricted tall-cell grids (Chentanez & Müller 2011).
//! - `amg-pcg`: CG preconditioned by an aggregation-AMG V-cycle, for the viscosity kind.
#![forbid(unsafe_code)]

use flip_sdk::abi::{CAP_COUPLED, CAP_DISTRIBUTED, CAP_LINEAR, CAP_STRUCTURED};
use flip_sdk::{Algorithm, ParamSchema, Params, PressureSolver, SolveError, SolverPlugin};
use flip_solvers::multigrid::{Coarsening, Cycle, MgPcgSolver, MultigridConfig, MultigridSolver};
use flip_solvers::tolerance::Tolerance;

/// Choice labels of the `coarsening` parameter, in [`Coarsening`] order.
const COARSENINGS: &[&str] = &["galerkin", "rediscretise"];

/// The residual tolerance every algorithm of this plugin stops at (relative part).
const REL_TOLERANCE: ParamSchema = ParamSchema::float(
    "rel_tolerance",
    "Relative tolerance",
    "Converged when max|b - A p| <= max(abs_tolerance, rel_tolerance * max|b|).",
    1e-6,
    0.0,
    1.0,
);
/// The residual tolerance's absolute floor.
const ABS_TOLERANCE: ParamSchema = ParamSchema::float(
    "abs_tolerance",
    "Absolute tolerance",
    "Absolute floor of the residual tolerance (max-norm, velocity units).",
    1e-9,
    0.0,
    1.0,
);

/// Parameter schema shared by the three algorithms (`n_full_cycle` default differs).
macro_rules! schema {
    ($n_vcycle:expr, $n_full:expr) => {
        &[
            ParamSchema::int(
                "n_sweep",
                "Sweeps",
                "N_sweep (Karlsson §5.5): red-black Gauss-Seidel sweeps before and after each coarse-grid correction on the finest grid.",
                2,
                1,
                16,
            ),
            ParamSchema::int(
                "n_sweep_coarse",
                "Coarse sweeps",
                "Red-black Gauss-Seidel sweeps before and after each coarse-grid correction on the coarser grids (cheap: an eighth of the cells per level in 3D).",
                4,
                1,
                16,
            ),
            ParamSchema::int(
                "n_vcycle",
                "V-cycles per round",
                "N_V-cycle (Karlsson Alg. 8): V-cycles run after the full cycles of each round; rounds repeat until the tolerance.",
                $n_vcycle,
                0,
                64,
            ),
            ParamSchema::int(
                "n_full_cycle",
                "Full cycles per round",
                "N_full-cycle (Karlsson Alg. 8): full cycles (Alg. 10) at the start of each round (full-cycle algorithm only).",
                $n_full,
                0,
                64,
            ),
            ParamSchema::choice(
                "coarsening",
                "Coarse operators",
                "galerkin: aggregated Galerkin product of the given matrix (any SPD matrix; Lai et al. §4.3); rediscretise: unit stencil on coarsened cell kinds that keep air bubbles (Chentanez & Müller 2011).",
                COARSENINGS,
                0,
            ),
            REL_TOLERANCE,
            ABS_TOLERANCE,
            ParamSchema::int(
                "max_iterations",
                "Max iterations",
                "Most cycles (mg-vcycle, mg-fullcycle) or CG iterations (mgpcg) per solve; running out is reported, not an error.",
                100,
                1,
                100_000,
            ),
        ]
    };
}

/// The multigrid plugin.
pub struct MultigridPlugin;

impl SolverPlugin for MultigridPlugin {
    const ALGORITHMS: &'static [Algorithm] = &[
        Algorithm {
            name: "mg-vcycle",
            label: "Multigrid V-cycle",
            help: "Geometric multigrid iterated as V-cycles until the tolerance (Karlsson 2014, §5.3-5.5, Alg. 8-9): parallel red-black Gauss-Seidel smoothing, barycentric one-sided transfers and aggregated Galerkin coarse operators (Lai, Batty & Wan), air bubbles kept on coarse levels (Chentanez & Müller 2011). Iteration counts stay flat as the grid is refined.",
            capabilities: CAP_LINEAR | CAP_STRUCTURED,
            params: schema!(1, 0),
        },
        Algorithm {
            name: "mg-fullcycle",
            label: "Multigrid full cycle",
            help: "Geometric multigrid iterated as full cycles (Karlsson 2014, Alg. 10; Chentanez & Müller 2011, Alg. 4): the residual is restricted to the coarsest grid, solved there, and each finer level starts from the interpolated coarse solution with one V-cycle. Each round runs n_full_cycle full cycles then n_vcycle V-cycles (Alg. 8).",
            capabilities: CAP_LINEAR | CAP_STRUCTURED,
            params: schema!(0, 1),
        },
        Algorithm {
            name: "mgpcg",
            label: "Multigrid-preconditioned CG",
            help: "Conjugate gradient preconditioned by one symmetric multigrid V-cycle (McAdams, Sifakis & Teran 2010): zero initial guess, forward red-black pre-smoothing, backward post-smoothing, exact coarsest solve. The most robust and usually the fastest of the three; n_vcycle and n_full_cycle are not used. Runs distributed over MPI ranks (CG over the slabs, the V-cycle on the gathered residual). Also takes coupled rigid-body problems: the outer CG applies A + J C J^T, the V-cycle of A preconditions (Batty, Bertails & Bridson 2007).",
            capabilities: CAP_LINEAR | CAP_STRUCTURED | CAP_DISTRIBUTED | CAP_COUPLED,
            params: schema!(1, 0),
        },
        tallcell::ALGORITHM,
        viscosity::ALGORITHM,
    ];

    fn create(
        algorithm: &Algorithm,
        params: &Params,
    ) -> Result<Box<dyn PressureSolver>, SolveError> {
        if algorithm.name == tallcell::ALGORITHM.name {
            return Ok(tallcell::create(params));
        }
        if algorithm.name == viscosity::ALGORITHM.name {
            return Ok(viscosity::create(params));
        }
        let coarsening = match params.choice("coarsening") {
            "rediscretise" => Coarsening::Rediscretise,
            _ => Coarsening::Galerkin,
        };
        let count = |name: &str| params.int(name).max(0) as usize;
        let config = MultigridConfig {
            cycle: if algorithm.name == "mg-fullcycle" {
                Cycle::Full
            } else {
                Cycle::V
            },
            n_sweep: count("n_sweep"),
            n_sweep_coarse: count("n_sweep_coarse"),
            n_vcycle: count("n_vcycle"),
            n_full_cycle: count("n_full_cycle"),
            coarsening,
            tolerance: Tolerance {
                rel: params.float("rel_tolerance"),
                abs: params.float("abs_tolerance"),
            },
            max_iterations: count("max_iterations"),
            ..MultigridConfig::default()
        };
        match algorithm.name {
            "mg-vcycle" | "mg-fullcycle" => Ok(Box::new(MultigridSolver::new(config)?.sharing())),
            "mgpcg" => {
                // The preconditioner is one V-cycle; the round parameters do not apply.
                let config = MultigridConfig {
                    n_vcycle: config.n_vcycle.max(1),
                    ..config
                };
                Ok(Box::new(MgPcgSolver::new(config)?.sharing()))
            }
            other => Err(SolveError::BadValue(format!("unknown algorithm `{other}`"))),
        }
    }
}

flip_sdk::export_plugin!(MultigridPlugin, "multigrid", "Geometric multigrid");

mod tallcell;
#[cfg(test)]
mod tests;
mod viscosity;

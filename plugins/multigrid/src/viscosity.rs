//! The `amg-pcg` algorithm: CG preconditioned by one symmetric aggregation-AMG V-cycle, for
//! the viscosity kind (and general symmetric CSR problems).

use flip_sdk::abi::{CAP_CSR, CAP_LINEAR, CAP_VISCOSITY};
use flip_sdk::{Algorithm, ParamSchema, Params, PressureSolver};
use flip_solvers::krylov::PcgConfig;
use flip_solvers::sparse::{CsrPcg, CsrPreconditioner};
use flip_solvers::tolerance::Tolerance;

/// The algorithm's description.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "amg-pcg",
    label: "AMG-preconditioned CG",
    help: "Conjugate gradient preconditioned by one symmetric V-cycle of aggregation algebraic multigrid (Vaněk, Mandel & Brezina 1996, unsmoothed aggregates of strongly coupled unknowns; Galerkin coarse operators; forward then backward Gauss-Seidel; dense Cholesky on the coarsest level), the MGPCG of McAdams et al. 2010 made algebraic. For viscosity problems (Batty & Bridson 2008) aggregates stay within one velocity component; also takes general symmetric sparse (CSR) problems.",
    capabilities: CAP_LINEAR | CAP_CSR | CAP_VISCOSITY,
    params: &[
        super::REL_TOLERANCE,
        super::ABS_TOLERANCE,
        ParamSchema::int(
            "max_iterations",
            "Max iterations",
            "Most CG iterations per solve; running out is reported, not an error.",
            500,
            1,
            100_000,
        ),
    ],
};

/// An instance with `params`.
pub fn create(params: &Params) -> Box<dyn PressureSolver> {
    let config = PcgConfig {
        tolerance: Tolerance {
            rel: params.float("rel_tolerance"),
            abs: params.float("abs_tolerance"),
        },
        max_iterations: params.int("max_iterations").max(1) as u32,
    };
    Box::new(CsrPcg::new(config, CsrPreconditioner::Amg))
}

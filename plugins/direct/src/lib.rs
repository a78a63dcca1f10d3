//! The `direct` pressure-solver plugin: sparse Cholesky (`flip_solvers::direct`), the exact
//! reference for the iterative solvers. Practical up to a few hundred thousand unknowns.
#![forbid(unsafe_code)]

use flip_sdk::abi::{CAP_COUPLED, CAP_CSR, CAP_LINEAR, CAP_STRUCTURED, CAP_VISCOSITY};
use flip_sdk::{Algorithm, ParamSchema, Params, PressureSolver, SolveError, SolverPlugin};
use flip_solvers::direct::{DirectConfig, DirectSolver};
use flip_solvers::sparse::{CsrDirect, WithCsr};
use flip_solvers::tolerance::Tolerance;

/// Parameters of `cholesky` (tolerances only decide the reported `converged` flag).
const PARAMS: &[ParamSchema] = &[
    ParamSchema::float(
        "rel_tolerance",
        "Relative tolerance",
        "Reported as converged when max|r| <= max(abs, rel * max|rhs|); the solve is exact.",
        1e-6,
        0.0,
        1.0,
    ),
    ParamSchema::float(
        "abs_tolerance",
        "Absolute tolerance",
        "Absolute residual bound used for the converged flag.",
        1e-9,
        0.0,
        1.0,
    ),
];

/// The plugin: one algorithm, `cholesky`.
pub struct DirectPlugin;

impl SolverPlugin for DirectPlugin {
    const ALGORITHMS: &'static [Algorithm] = &[Algorithm {
        name: "cholesky",
        label: "Sparse Cholesky (direct)",
        help: "Sparse Cholesky factorisation A = L L^T with approximate minimum degree ordering \
               (Amestoy, Davis & Duff 1996), computed by faer on the fluid unknowns. Exact up to \
               rounding; pure-Neumann regions are pinned at one cell and returned with zero mean. \
               The symbolic factorisation is reused while the fluid pattern is unchanged. Memory \
               and time grow quickly with the grid (fill ~ n^1.5 in 2D, n^2 in 3D): use it as a \
               reference up to a few hundred thousand unknowns. Also takes general sparse (CSR) \
               problems: Cholesky when the matrix is symmetric, LU with partial pivoting \
               otherwise; viscosity problems (Cholesky of the positive definite system); and \
               coupled rigid-body problems, exactly by the Woodbury identity over the one \
               factorisation of A (one solve per body degree of freedom, then a dense system).",
        capabilities: CAP_LINEAR | CAP_STRUCTURED | CAP_CSR | CAP_VISCOSITY | CAP_COUPLED,
        params: PARAMS,
    }];

    fn create(
        algorithm: &Algorithm,
        params: &Params,
    ) -> Result<Box<dyn PressureSolver>, SolveError> {
        if algorithm.name != "cholesky" {
            return Err(SolveError::BadValue(format!(
                "unknown algorithm `{}`",
                algorithm.name
            )));
        }
        let tolerance = Tolerance {
            rel: params.float("rel_tolerance"),
            abs: params.float("abs_tolerance"),
        };
        let config = DirectConfig { tolerance };
        Ok(Box::new(WithCsr {
            structured: DirectSolver::new(config),
            csr: CsrDirect::new(config),
        }))
    }
}

flip_sdk::export_plugin!(DirectPlugin, "direct", "Sparse direct (Cholesky)");

#[cfg(test)]
mod tests {
    use super::*;
    use flip_solvers::fixtures::{self, Scene};

    #[test]
    fn cholesky_solves_a_fixture_through_the_sdk() {
        let alg = DirectPlugin::ALGORITHMS
            .iter()
            .find(|a| a.name == "cholesky")
            .expect("listed");
        let params = Params::resolve(alg.params, &[("rel_tolerance", 1e-8)]).expect("valid");
        let mut solver = DirectPlugin::create(alg, &params).expect("creates");
        let mut p = fixtures::build(Scene::TwoPuddles, [20, 16, 1], 4);
        let stats = solver.solve(&mut p.view()).expect("solves");
        assert_eq!(stats.converged, 1, "{stats:?}");
        assert!(stats.residual < 1e-10, "{stats:?}");
        let reference = flip_solvers::direct::solve_reference(&p.view()).expect("SPD");
        assert_eq!(p.pressure, reference);
        assert!(Params::resolve(alg.params, &[("omega", 1.0)]).is_err());
    }
}

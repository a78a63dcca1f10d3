//! The `pcg` pressure-solver plugin: conjugate gradient with five preconditioners, thin
//! wrappers around `flip_solvers::krylov`.
#![forbid(unsafe_code)]

use flip_sdk::abi::{
    CAP_COUPLED, CAP_CSR, CAP_DISTRIBUTED, CAP_LINEAR, CAP_STRUCTURED, CAP_VISCOSITY,
};
use flip_sdk::{Algorithm, ParamSchema, Params, PressureSolver, SolveError, SolverPlugin};
use flip_solvers::krylov::{Mic0Config, Pcg, PcgConfig, SsorConfig};
use flip_solvers::sparse::{CsrBicgstab, CsrPcg, CsrPreconditioner, WithCsr};
use flip_solvers::tolerance::Tolerance;

/// Tolerances and iteration budget, shared by every algorithm.
macro_rules! common_params {
    ($($extra:expr),* $(,)?) => {
        &[
            ParamSchema::float(
                "rel_tolerance",
                "Relative tolerance",
                "Stop when max|r| <= max(abs, rel * max|rhs|).",
                1e-6,
                0.0,
                1.0,
            ),
            ParamSchema::float(
                "abs_tolerance",
                "Absolute tolerance",
                "Absolute bound on max|r| (velocity units).",
                1e-9,
                0.0,
                1.0,
            ),
            ParamSchema::int(
                "max_iterations",
                "Max iterations",
                "Iteration budget; running out is reported as not converged.",
                2000,
                1,
                1_000_000,
            ),
            $($extra),*
        ]
    };
}

/// The plugin: CG, Jacobi-, IC(0)-, MIC(0)- and red-black SSOR-preconditioned CG.
pub struct PcgPlugin;

impl SolverPlugin for PcgPlugin {
    const ALGORITHMS: &'static [Algorithm] = &[
        Algorithm {
            name: "cg",
            label: "Conjugate gradient",
            help: "Unpreconditioned conjugate gradient (Hestenes & Stiefel 1952). Fully parallel, \
                   but its iteration count doubles with every doubling of the resolution. Also \
                   takes general sparse (CSR) problems with a symmetric matrix, and runs \
                   distributed over MPI ranks (`run --mpi`).",
            capabilities: CAP_LINEAR | CAP_STRUCTURED | CAP_CSR | CAP_DISTRIBUTED | CAP_COUPLED,
            params: common_params!(),
        },
        Algorithm {
            name: "jacobi-pcg",
            label: "Jacobi PCG",
            help: "Conjugate gradient preconditioned by the matrix diagonal (Jacobi; Saad, \
                   Iterative Methods for Sparse Linear Systems, §10.2). Fully parallel; on \
                   unit-coefficient pressure systems it is barely better than plain CG. Also \
                   takes general sparse (CSR) problems with a symmetric matrix and viscosity \
                   problems, and runs distributed over MPI ranks (`run --mpi`).",
            capabilities: CAP_LINEAR
                | CAP_STRUCTURED
                | CAP_CSR
                | CAP_DISTRIBUTED
                | CAP_VISCOSITY
                | CAP_COUPLED,
            params: common_params!(),
        },
        Algorithm {
            name: "ic0-pcg",
            label: "IC(0) PCG",
            help: "Conjugate gradient preconditioned by the zero-fill incomplete Cholesky factor \
                   (Meijerink & van der Vorst 1977), as in Bridson, Fluid Simulation for Computer \
                   Graphics, §5.4. The factorisation and triangular solves are sequential (one \
                   thread); the factor is kept while the matrix is unchanged. Also takes general \
                   sparse (CSR) problems with a symmetric matrix (IC(0) on the matrix's lower \
                   pattern) and viscosity problems (the implicit viscosity system of Batty & \
                   Bridson 2008 on the face velocities).",
            capabilities: CAP_LINEAR | CAP_STRUCTURED | CAP_CSR | CAP_VISCOSITY | CAP_COUPLED,
            params: common_params!(),
        },
        Algorithm {
            name: "mic0-pcg",
            label: "MIC(0) PCG",
            help: "Conjugate gradient preconditioned by the modified incomplete Cholesky factor \
                   MIC(0) (Gustafsson 1978) with tuning tau and safety sigma, exactly as in \
                   Bridson, Fluid Simulation for Computer Graphics, §5.4, and Batty's Fluid3D. \
                   Iterations grow about 1.5x per doubling of the resolution instead of 2x. \
                   Sequential preconditioner (one thread); the factor is kept while the matrix \
                   is unchanged.",
            capabilities: CAP_LINEAR | CAP_STRUCTURED | CAP_COUPLED,
            params: common_params!(
                ParamSchema::float(
                    "tau",
                    "Tuning (tau)",
                    "Fraction of the dropped fill moved to the diagonal: 0 = IC(0), 0.97 = Bridson.",
                    0.97,
                    0.0,
                    1.0,
                ),
                ParamSchema::float(
                    "sigma",
                    "Safety (sigma)",
                    "Pivots below sigma times the diagonal fall back to the diagonal.",
                    0.25,
                    0.0,
                    1.0,
                ),
            ),
        },
        Algorithm {
            name: "rbssor-pcg",
            label: "Red-black SSOR PCG",
            help: "Conjugate gradient preconditioned by one symmetric SOR step in red-black \
                   order (Saad, Iterative Methods for Sparse Linear Systems, §10.2 and §12.4): \
                   red, black, black, red sweeps, each fully parallel. Weaker than MIC(0) per \
                   iteration but uses every core.",
            capabilities: CAP_LINEAR | CAP_STRUCTURED | CAP_COUPLED,
            params: common_params!(ParamSchema::float(
                "omega",
                "Relaxation (omega)",
                "SOR relaxation factor; the preconditioner is SPD for 0 < omega < 2.",
                1.0,
                0.05,
                1.95,
            )),
        },
        Algorithm {
            name: "bicgstab",
            label: "BiCGSTAB (CSR)",
            help: "Jacobi-preconditioned BiCGSTAB (van der Vorst 1992) for general sparse (CSR) \
                   problems whose matrix need not be symmetric, such as the point-wise \
                   Laplacian of a tall-cell grid. Sequential; CSR problems only.",
            capabilities: CAP_LINEAR | CAP_CSR,
            params: common_params!(),
        },
    ];

    fn create(
        algorithm: &Algorithm,
        params: &Params,
    ) -> Result<Box<dyn PressureSolver>, SolveError> {
        let config = PcgConfig {
            tolerance: Tolerance {
                rel: params.float("rel_tolerance"),
                abs: params.float("abs_tolerance"),
            },
            max_iterations: params.int("max_iterations") as u32,
        };
        Ok(match algorithm.name {
            "cg" => with_csr(Pcg::cg(config), config, CsrPreconditioner::Identity),
            "jacobi-pcg" => with_csr(Pcg::jacobi(config), config, CsrPreconditioner::Jacobi),
            "ic0-pcg" => with_csr(Pcg::ic0(config), config, CsrPreconditioner::Ic0),
            "mic0-pcg" => Box::new(Pcg::mic0(
                config,
                Mic0Config {
                    tau: params.float("tau"),
                    sigma: params.float("sigma"),
                },
            )),
            "rbssor-pcg" => Box::new(Pcg::rbssor(
                config,
                SsorConfig {
                    omega: params.float("omega"),
                },
            )),
            "bicgstab" => Box::new(CsrBicgstab::new(config)),
            other => return Err(SolveError::BadValue(format!("unknown algorithm `{other}`"))),
        })
    }
}

/// A structured solver that also takes CSR problems (by [`CsrPcg`] with `precond`).
fn with_csr<S: PressureSolver + 'static>(
    structured: S,
    config: PcgConfig,
    precond: CsrPreconditioner,
) -> Box<dyn PressureSolver> {
    Box::new(WithCsr {
        structured,
        csr: CsrPcg::new(config, precond),
    })
}

flip_sdk::export_plugin!(PcgPlugin, "pcg", "Preconditioned conjugate gradient");

#[cfg(test)]
mod tests {
    use super::*;
    use flip_solvers::fixtures::{self, Scene};

    fn create(name: &str, given: &[(&str, f64)]) -> Result<Box<dyn PressureSolver>, SolveError> {
        let alg = PcgPlugin::ALGORITHMS
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("algorithm {name} is listed"));
        PcgPlugin::create(alg, &Params::resolve(alg.params, given)?)
    }

    #[test]
    fn every_algorithm_solves_a_fixture_by_name() {
        let names: Vec<&str> = PcgPlugin::ALGORITHMS.iter().map(|a| a.name).collect();
        assert_eq!(
            names,
            [
                "cg",
                "jacobi-pcg",
                "ic0-pcg",
                "mic0-pcg",
                "rbssor-pcg",
                "bicgstab"
            ]
        );
        let mut reference = fixtures::build(Scene::AirBubbles, [20, 16, 5], 3);
        reference.pressure.iter_mut().for_each(|v| *v = 0.5); // a poor initial guess
        let exact = flip_solvers::direct::solve_reference(&reference.view()).expect("SPD");
        let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for name in names.into_iter().filter(|&n| n != "bicgstab") {
            let mut solver = create(name, &[("rel_tolerance", 1e-9)]).expect("creates");
            let mut p = reference.clone();
            let stats = solver.solve(&mut p.view()).expect("solves");
            assert_eq!(stats.converged, 1, "{name}: {stats:?}");
            let err = p
                .pressure
                .iter()
                .zip(&exact)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(err < 1e-5 * scale, "{name}: error {err:e}");
        }
    }

    #[test]
    fn parameters_reach_the_solver_and_are_validated() {
        let mut p = fixtures::build(Scene::DamBreak, [24, 24, 1], 1);
        let mut few = create("mic0-pcg", &[("max_iterations", 2.0), ("tau", 0.5)]).expect("ok");
        let stats = few.solve(&mut p.view()).expect("not an error");
        assert_eq!((stats.iterations, stats.converged), (2, 0));
        assert!(
            create("rbssor-pcg", &[("omega", 2.0)]).is_err(),
            "omega < 2"
        );
        assert!(create("cg", &[("tau", 0.5)]).is_err(), "no tau for cg");
        assert!(create("rbssor-pcg", &[("omega", 1.5)]).is_ok());
    }
}

//! The `lcp` plugin: pressure solvers for separating solid walls after Lai, Chen, Gu, Batty &
//! Wan, "Fast and Scalable Solvers for the Fluid Pressure Equations with Separating Solid
//! Boundary Conditions" (Eurographics 2020), plus the projected Gauss-Seidel and Chentanez &
//! Müller full-multigrid baselines. The numerics live in [`flip_solvers::lcp`]; this crate only
//! describes the algorithms and their parameters.

use flip_sdk::abi::{CAP_DISTRIBUTED, CAP_LCP, CAP_LINEAR, CAP_SAVES_STATE, CAP_STRUCTURED};
use flip_sdk::{Algorithm, ParamSchema, Params, PressureSolver, SolveError, SolverPlugin};
use flip_solvers::lcp::{
    Boundary, CoarseMatrix, FasConfig, FasMgSolver, FmgConfig, FmgSolver, InnerSolver,
    Interpolation, PenaltyConfig, PenaltyMethod, PgsConfig, PgsSolver, PolicyConfig,
    PolicyIteration,
};
use flip_solvers::tolerance::Tolerance;

/// Absolute tolerance on the LCP residual (Lai et al.: 10⁻⁶).
const TOLERANCE: ParamSchema = ParamSchema::float(
    "tolerance",
    "Tolerance",
    "Converged when the max-norm of the LCP residual (|min(p, Ap − rhs)| on S, |rhs − Ap| elsewhere) is at most this.",
    1e-6,
    1e-14,
    1.0,
);
/// Relative tolerance (off by default, as in the paper).
const REL_TOLERANCE: ParamSchema = ParamSchema::float(
    "rel_tolerance",
    "Relative tolerance",
    "Also converged when the residual is at most this times max |rhs| (0 = off, as in Lai et al.).",
    0.0,
    0.0,
    1.0,
);
/// Outer iteration budget of policy iteration and the penalty method.
const MAX_OUTER: ParamSchema = ParamSchema::int(
    "max_outer_iterations",
    "Max outer iterations",
    "Most linear systems solved (policy or penalty updates) per pressure solve.",
    50,
    1,
    10_000,
);
/// Inner tolerance of policy iteration and the penalty method.
const INNER_TOLERANCE: ParamSchema = ParamSchema::float(
    "inner_tolerance",
    "Inner tolerance",
    "Each inner linear solve stops at this fraction of the outer residual bound.",
    0.1,
    1e-6,
    1.0,
);
/// Inner iteration budget of policy iteration and the penalty method.
const MAX_INNER: ParamSchema = ParamSchema::int(
    "max_iterations",
    "Max inner iterations",
    "Most iterations of each inner linear solve (CG iterations or multigrid cycles).",
    10_000,
    1,
    10_000_000,
);
/// Preconditioner of the PCG variants.
const PRECONDITIONER: ParamSchema = ParamSchema::choice(
    "preconditioner",
    "Preconditioner",
    "Incomplete Cholesky of the inner CG: IC(0) (= ILU(0) for these SPD matrices, as in Lai et al.) or Bridson's MIC(0).",
    &["ic0", "mic0"],
    0,
);
/// Penalty factor of the penalty method.
const PENALTY: ParamSchema = ParamSchema::float(
    "penalty_factor",
    "Penalty factor",
    "The penalty is ρ = penalty_factor / tolerance (Lai et al.: 10³, i.e. ρ = 10⁹).",
    1e3,
    1.0,
    1e8,
);

const PGS_PARAMS: &[ParamSchema] = &[
    TOLERANCE,
    REL_TOLERANCE,
    ParamSchema::int(
        "max_iterations",
        "Max sweeps",
        "Most projected Gauss-Seidel sweeps per solve.",
        10_000,
        1,
        100_000_000,
    ),
];
const PCG_PARAMS: &[ParamSchema] = &[
    TOLERANCE,
    REL_TOLERANCE,
    MAX_INNER,
    MAX_OUTER,
    INNER_TOLERANCE,
    PRECONDITIONER,
];
const MG_PARAMS: &[ParamSchema] = &[
    TOLERANCE,
    REL_TOLERANCE,
    MAX_INNER,
    MAX_OUTER,
    INNER_TOLERANCE,
];
const PE_PCG_PARAMS: &[ParamSchema] = &[
    TOLERANCE,
    REL_TOLERANCE,
    MAX_INNER,
    MAX_OUTER,
    INNER_TOLERANCE,
    PRECONDITIONER,
    PENALTY,
];
const PE_MG_PARAMS: &[ParamSchema] = &[
    TOLERANCE,
    REL_TOLERANCE,
    MAX_INNER,
    MAX_OUTER,
    INNER_TOLERANCE,
    PENALTY,
];
const FAS_PARAMS: &[ParamSchema] = &[
    TOLERANCE,
    REL_TOLERANCE,
    ParamSchema::int("max_iterations", "Max V-cycles", "Most FAS V-cycles per solve.", 100, 1, 1_000_000),
    ParamSchema::int(
        "n_sweep",
        "Sweeps",
        "Projected Gauss-Seidel sweeps before and after each coarse correction (Lai et al.: 2).",
        2,
        1,
        16,
    ),
    ParamSchema::choice(
        "interpolation",
        "Interpolation",
        "Transfer between levels (restriction = transpose × 2^-d): compact barycentric (Lai §4.3), bi/trilinear, or piecewise constant (Table 12).",
        &["barycentric", "trilinear", "piecewise-constant"],
        0,
    ),
    ParamSchema::choice(
        "boundaries",
        "Solid boundaries",
        "One-sided interpolation that ignores coarse points across a solid and renormalises the weights (Lai §4.3), or simple interpolation (Table 12).",
        &["one-sided", "simple"],
        0,
    ),
    ParamSchema::choice(
        "coarse_matrices",
        "Coarse matrices",
        "Galerkin A^H = R A^h P (Lai §4.3) or direct discretisation of the coarse grid (Table 12).",
        &["galerkin", "direct-discretisation"],
        0,
    ),
    ParamSchema::float(
        "min_damping",
        "Min correction weight",
        "Stall safeguard: the coarse correction weight drops by 0.8 after each cycle that fails to halve the residual, down to this (1 = Alg. 3 undamped).",
        0.6,
        0.1,
        1.0,
    ),
];
const FMG_PARAMS: &[ParamSchema] = &[
    TOLERANCE,
    REL_TOLERANCE,
    ParamSchema::int("max_iterations", "Max full cycles", "Most full multigrid cycles per solve.", 1000, 1, 1_000_000),
    ParamSchema::int(
        "n_sweep",
        "Sweeps",
        "Projected smoothing sweeps before and after each coarse correction (Chentanez & Müller: 4).",
        4,
        1,
        16,
    ),
];

const CAPS: u32 = CAP_LCP | CAP_LINEAR | CAP_STRUCTURED;

/// The plugin type.
pub struct LcpPlugin;

impl SolverPlugin for LcpPlugin {
    const ALGORITHMS: &'static [Algorithm] = &[
        Algorithm {
            name: "pgs",
            label: "Projected Gauss-Seidel",
            help: "Projected Gauss-Seidel (Cottle, Pang & Stone 1992): Gauss-Seidel sweeps in red-black order with p clamped to p >= 0 on the separating cells S. Simple and robust; iterations grow like n².",
            capabilities: CAPS,
            params: PGS_PARAMS,
        },
        Algorithm {
            name: "pi-pcg",
            label: "Policy iteration (PCG)",
            help: "Policy iteration (Lai et al. 2020, Alg. 1): fixes the control of eq. 4.1, solves the linear system 4.2 (cells with λ = 0 held at p = 0) with incomplete-Cholesky PCG, repeats. The previous step's policy starts the next solve.",
            capabilities: CAPS | CAP_SAVES_STATE,
            params: PCG_PARAMS,
        },
        Algorithm {
            name: "pi-mg",
            label: "Policy iteration (multigrid)",
            help: "Policy iteration (Lai et al. 2020, Alg. 1) with a linear geometric multigrid (one-sided barycentric transfers, Galerkin coarse matrices) for each linear system 4.2. Runs distributed (run --mpi): each rank decides the policy of its own cells and the linear systems are solved by distributed MGPCG.",
            capabilities: CAPS | CAP_SAVES_STATE | CAP_DISTRIBUTED,
            params: MG_PARAMS,
        },
        Algorithm {
            name: "pe-pcg",
            label: "Penalty method (PCG)",
            help: "Penalty method (Lai et al. 2020, Alg. 2): adds ρ to the diagonal where p < 0 on S (eq. 4.4-4.5) and re-solves with incomplete-Cholesky PCG until the LCP residual meets the tolerance.",
            capabilities: CAPS | CAP_SAVES_STATE,
            params: PE_PCG_PARAMS,
        },
        Algorithm {
            name: "pe-mg",
            label: "Penalty method (multigrid)",
            help: "Penalty method (Lai et al. 2020, Alg. 2) with a linear geometric multigrid for each penalised system 4.5.",
            capabilities: CAPS | CAP_SAVES_STATE,
            params: PE_MG_PARAMS,
        },
        Algorithm {
            name: "fas-mg",
            label: "FAS multigrid",
            help: "Full approximation scheme multigrid for the LCP (Lai et al. 2020, Alg. 3): V-cycles with projected Gauss-Seidel smoothing, compact barycentric transfers, one-sided interpolation at solids and Galerkin coarse matrices (§4.3); each modification switchable (Table 12).",
            capabilities: CAPS,
            params: FAS_PARAMS,
        },
        Algorithm {
            name: "fmg",
            label: "Full multigrid (Chentanez & Müller)",
            help: "The baseline of Lai et al.: Chentanez & Müller's multigrid LCP solver, a linear multigrid on the pressure correction with projected smoothing, iterated as full cycles with 4 sweeps, trilinear transfers and directly discretised coarse matrices.",
            capabilities: CAPS,
            params: FMG_PARAMS,
        },
    ];

    fn create(
        algorithm: &Algorithm,
        params: &Params,
    ) -> Result<Box<dyn PressureSolver>, SolveError> {
        let tolerance = Tolerance {
            abs: params.float("tolerance"),
            rel: params.float("rel_tolerance"),
        };
        let max_iterations = params.int("max_iterations") as usize;
        let pcg_inner = |p: &Params| match p.choice("preconditioner") {
            "mic0" => InnerSolver::Mic0Pcg,
            _ => InnerSolver::Ic0Pcg,
        };
        let policy = |inner| PolicyConfig {
            tolerance,
            max_iterations,
            max_outer_iterations: params.int("max_outer_iterations") as usize,
            inner_tolerance: params.float("inner_tolerance"),
            inner,
        };
        let penalty = |inner| PenaltyConfig {
            outer: policy(inner),
            penalty_factor: params.float("penalty_factor"),
        };
        Ok(match algorithm.name {
            "pgs" => Box::new(PgsSolver::new(PgsConfig {
                tolerance,
                max_iterations,
            })),
            "pi-pcg" => Box::new(PolicyIteration::new(policy(pcg_inner(params)))),
            "pi-mg" => Box::new(PolicyIteration::new(policy(InnerSolver::Multigrid))),
            "pe-pcg" => Box::new(PenaltyMethod::new(penalty(pcg_inner(params)))),
            "pe-mg" => Box::new(PenaltyMethod::new(penalty(InnerSolver::Multigrid))),
            "fas-mg" => Box::new(FasMgSolver::new(FasConfig {
                tolerance,
                max_iterations,
                n_sweep: params.int("n_sweep") as usize,
                interpolation: match params.choice("interpolation") {
                    "trilinear" => Interpolation::Trilinear,
                    "piecewise-constant" => Interpolation::PiecewiseConstant,
                    _ => Interpolation::Barycentric,
                },
                boundary: match params.choice("boundaries") {
                    "simple" => Boundary::Simple,
                    _ => Boundary::OneSided,
                },
                coarse: match params.choice("coarse_matrices") {
                    "direct-discretisation" => CoarseMatrix::DirectDiscretisation,
                    _ => CoarseMatrix::Galerkin,
                },
                min_damping: params.float("min_damping"),
            })),
            "fmg" => Box::new(FmgSolver::new(FmgConfig {
                tolerance,
                max_iterations,
                n_sweep: params.int("n_sweep") as usize,
            })),
            other => return Err(SolveError::BadValue(format!("unknown algorithm `{other}`"))),
        })
    }
}

flip_sdk::export_plugin!(LcpPlugin, "lcp", "Separating-wall LCP solvers");

#[cfg(test)]
mod tests;

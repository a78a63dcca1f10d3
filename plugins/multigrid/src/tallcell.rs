//! The `tall-mg` algorithm: Chentanez & Müller 2011's multigrid on the tall-cell problem kind.

use flip_sdk::abi::{CAP_LINEAR, CAP_TALLCELL};
use flip_sdk::{Algorithm, ParamSchema, Params, PressureSolver};
use flip_solvers::tallcell::{TallCycle, TallMgConfig, TallMultigrid};
use flip_solvers::tolerance::Tolerance;

/// Choice labels of the `cycle` parameter.
const CYCLES: &[&str] = &["full", "v"];

/// The algorithm's description.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "tall-mg",
    label: "Tall-cell multigrid",
    help: "Chentanez & Müller 2011's multigrid for restricted tall-cell grids (tall-cell problems only): a hierarchy of tall-cell grids down-sampled from the problem's geometry (terrain H, tall heights h, solid fractions, and the level set with air bubbles kept on the finest levels), the point-wise Laplacian with ghost fluid and solid fractions re-discretised on every level, bilinear (trilinear) transfers through the tall-cell rule with zero residual inside tall cells, red-black Gauss-Seidel and full cycles (Alg. 4) or V-cycles (Alg. 3) until the tolerance; the coarsest level is solved by dense LU.",
    capabilities: CAP_LINEAR | CAP_TALLCELL,
    params: &[
        ParamSchema::choice(
            "cycle",
            "Cycle",
            "full: the paper's full cycle (Alg. 4) per iteration; v: one V-cycle (Alg. 3).",
            CYCLES,
            0,
        ),
        ParamSchema::int(
            "n_sweep",
            "Sweeps",
            "Red-black Gauss-Seidel sweeps before and after each coarse-grid correction.",
            2,
            1,
            16,
        ),
        ParamSchema::int(
            "bubble_levels",
            "Bubble levels",
            "The paper's C: the first C down-samplings keep air bubbles (a coarse cell not entirely liquid takes the mean of its positive level-set values).",
            2,
            0,
            16,
        ),
        super::REL_TOLERANCE,
        super::ABS_TOLERANCE,
        ParamSchema::int(
            "max_iterations",
            "Max cycles",
            "Most cycles per solve; running out is reported, not an error.",
            100,
            1,
            100_000,
        ),
    ],
};

/// An instance with `params`.
pub fn create(params: &Params) -> Box<dyn PressureSolver> {
    let count = |name: &str| params.int(name).max(0) as usize;
    let config = TallMgConfig {
        cycle: match params.choice("cycle") {
            "v" => TallCycle::V,
            _ => TallCycle::Full,
        },
        sweeps: count("n_sweep"),
        bubble_levels: count("bubble_levels"),
        tolerance: Tolerance {
            rel: params.float("rel_tolerance"),
            abs: params.float("abs_tolerance"),
        },
        max_iterations: count("max_iterations") as u32,
        ..TallMgConfig::default()
    };
    Box::new(TallMultigrid::new(config))
}

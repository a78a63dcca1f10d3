//! Validation of a graph's `settings`: shapes, ranges, and the work a run would ask for
//! (refused with the estimated number of substeps rather than started and never finished).

use crate::doc::Settings;
use crate::error::GraphError;

/// Most cells of a grid (512³).
pub const MAX_CELLS: usize = 512 * 512 * 512;
/// Cell sizes (m) outside this range overflow or underflow f32 in `dx²`, `1/dx²` and the
/// domain extent.
pub const CELL_SIZE_RANGE: (f32, f32) = (1e-6, 1e3);
/// Most substeps one frame may ask for (fixed `dt` or `max_substeps`).
pub const MAX_SUBSTEPS_PER_FRAME: f64 = 1e5;
/// Most substeps a whole run may ask for (worst case: every frame at its substep limit).
pub const MAX_SUBSTEPS_PER_RUN: f64 = 1e8;

/// Substeps per frame in the worst case: `⌈frame time / fixed_dt⌉`, else `max_substeps`
/// (the CFL step never gets shorter than `1/(fps·max_substeps)`).
pub fn worst_substeps_per_frame(s: &Settings) -> f64 {
    if s.fixed_dt > 0.0 {
        (1.0 / (f64::from(s.fps) * f64::from(s.fixed_dt))).ceil()
    } else {
        f64::from(s.max_substeps)
    }
}

fn check_grid(s: &Settings, errors: &mut Vec<GraphError>) {
    let [ni, nj, nk] = s.grid;
    if ni < 4 || nj < 4 || nk == 0 || nk == 2 || nk == 3 {
        errors.push(GraphError::setting(
            "grid",
            format!(
                "{:?}: need at least 4 cells per axis (nk = 1 for 2D)",
                s.grid
            ),
        ));
    }
    if ni.saturating_mul(nj).saturating_mul(nk) > MAX_CELLS {
        errors.push(GraphError::setting(
            "grid",
            format!("{:?} has more than 512³ cells", s.grid),
        ));
    }
}

fn check_numbers(s: &Settings, errors: &mut Vec<GraphError>) {
    let positive = [
        ("cell_size", s.cell_size),
        ("fps", s.fps),
        ("cfl", s.cfl),
        ("density", s.density),
    ];
    for (name, v) in positive {
        if !(v.is_finite() && v > 0.0) {
            errors.push(GraphError::setting(
                name,
                format!("{v} must be a positive number"),
            ));
        }
    }
    let (lo, hi) = CELL_SIZE_RANGE;
    if s.cell_size.is_finite() && s.cell_size > 0.0 && !(lo..=hi).contains(&s.cell_size) {
        errors.push(GraphError::setting(
            "cell_size",
            format!(
                "{:e} m is outside the supported {lo:e}..={hi:e} m",
                s.cell_size
            ),
        ));
    }
    if s.frames == 0 {
        errors.push(GraphError::setting("frames", "must be at least 1"));
    }
    if s.max_substeps == 0 {
        errors.push(GraphError::setting("max_substeps", "must be at least 1"));
    }
    if !(s.fixed_dt.is_finite() && s.fixed_dt >= 0.0) {
        errors.push(GraphError::setting(
            "fixed_dt",
            "must be 0 (CFL) or a positive time step",
        ));
    }
}

/// Refuses runs whose substep count (worst case) could not finish in any reasonable time.
fn check_work(s: &Settings, errors: &mut Vec<GraphError>) {
    let per_frame = worst_substeps_per_frame(s);
    let field = if s.fixed_dt > 0.0 {
        "fixed_dt"
    } else {
        "max_substeps"
    };
    if per_frame > MAX_SUBSTEPS_PER_FRAME {
        errors.push(GraphError::setting(
            field,
            format!(
                "asks for up to {per_frame:.3e} substeps per frame (at most \
                 {MAX_SUBSTEPS_PER_FRAME:.0e}); use a longer time step or fewer substeps"
            ),
        ));
        return;
    }
    let total = per_frame * f64::from(s.frames);
    if total > MAX_SUBSTEPS_PER_RUN {
        errors.push(GraphError::setting(
            "frames",
            format!(
                "{} frames × up to {per_frame} substeps = {total:.3e} substeps (at most \
                 {MAX_SUBSTEPS_PER_RUN:.0e} per run)",
                s.frames
            ),
        ));
    }
}

/// Every problem with `s`, each naming its `settings.<field>`.
pub(crate) fn check_settings(s: &Settings, errors: &mut Vec<GraphError>) {
    let before = errors.len();
    check_grid(s, errors);
    check_numbers(s, errors);
    if errors.len() == before {
        check_work(s, errors);
    }
}

//! The one rule that turns face fractions and the liquid level set into matrix coefficients:
//! Batty, Bertails & Bridson 2007 (variational solid faces) with the ghost-fluid free surface
//! of Gibou et al. 2002 / Enright et al. 2003. The host's parallel assembly and the SDK's
//! reference assembly ([`crate::OwnedProblem::assemble_matrix`]) both call these functions, and
//! solvers that rediscretise coarse levels can too.

/// Smallest fraction θ of a cell spacing between a liquid cell centre and the free surface.
///
/// Bridson's book and Batty's reference code clamp θ at 0.01: the surface is then never
/// placed closer than 1 % of a cell to a liquid cell centre, which bounds the diagonal at
/// `1/θ_min = 100` per face and keeps the system well conditioned enough for every solver.
pub const THETA_MIN: f32 = 0.01;

/// Fraction θ ∈ [[`THETA_MIN`], 1] of the way from a liquid cell centre (`phi_in < 0`) to the
/// neighbouring air cell centre (`phi_out >= 0`) at which the liquid level set crosses zero
/// (linear interpolation, Gibou et al. 2002 eq. 8).
#[inline]
pub fn ghost_theta(phi_in: f32, phi_out: f32) -> f32 {
    let denom = phi_in - phi_out;
    let theta = if denom < 0.0 { phi_in / denom } else { 1.0 };
    if theta.is_finite() {
        theta.clamp(THETA_MIN, 1.0)
    } else {
        1.0
    }
}

/// Coefficient a face adds to its liquid cell's diagonal when the neighbour is air: the open
/// fraction over θ (the Dirichlet value p = 0 sits at the surface, not at the air cell centre).
#[inline]
pub fn dirichlet_weight(open: f32, phi_in: f32, phi_out: f32) -> f32 {
    open / ghost_theta(phi_in, phi_out)
}

/// Fraction of a segment inside a solid from the signed distances at its ends (negative
/// inside): exact for a linear field along the segment.
#[inline]
pub fn fraction_inside_segment(a: f32, b: f32) -> f32 {
    match (a < 0.0, b < 0.0) {
        (true, true) => 1.0,
        (false, false) => {
            if a == 0.0 && b == 0.0 {
                1.0 // a face lying in the solid's surface is closed
            } else {
                0.0
            }
        }
        (true, false) => a / (a - b),
        (false, true) => b / (b - a),
    }
}

/// Fraction of a triangle inside a solid from the signed distances at its corners, exact for
/// a linear field on the triangle.
fn fraction_inside_triangle(a: f32, b: f32, c: f32) -> f32 {
    let inside = [a, b, c].iter().filter(|&&v| v < 0.0).count();
    // the area of the corner triangle cut off at vertex `v` by the zero line
    let corner = |v: f32, p: f32, q: f32| (v / (v - p)) * (v / (v - q));
    match inside {
        0 => 0.0,
        3 => 1.0,
        1 => {
            let (v, p, q) = if a < 0.0 {
                (a, b, c)
            } else if b < 0.0 {
                (b, c, a)
            } else {
                (c, a, b)
            };
            corner(v, p, q)
        }
        _ => {
            let (v, p, q) = if a >= 0.0 {
                (a, b, c)
            } else if b >= 0.0 {
                (b, c, a)
            } else {
                (c, a, b)
            };
            1.0 - corner(v, p, q)
        }
    }
}

/// Fraction of a square face inside a solid from the signed distances at its four corners in
/// cyclic order: four triangles around the centre (mean value), each cut exactly. A face whose
/// corners all lie on the solid surface (all zero) is closed.
pub fn fraction_inside_square(corners: [f32; 4]) -> f32 {
    if corners.iter().all(|&v| v <= 0.0) {
        return 1.0;
    }
    let centre = 0.25 * corners.iter().sum::<f32>();
    let mut f = 0.0;
    for e in 0..4 {
        f += fraction_inside_triangle(centre, corners[e], corners[(e + 1) % 4]);
    }
    0.25 * f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_places_the_surface_between_centres() {
        assert!((ghost_theta(-0.25, 0.75) - 0.25).abs() < 1e-6);
        assert_eq!(ghost_theta(-1e-6, 1.0), THETA_MIN);
        assert_eq!(ghost_theta(-0.5, -0.1), 1.0, "no crossing: a full cell");
        assert!((dirichlet_weight(0.5, -0.5, 0.5) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn fractions_of_segments_and_squares() {
        assert_eq!(fraction_inside_segment(-1.0, -2.0), 1.0);
        assert_eq!(fraction_inside_segment(1.0, 2.0), 0.0);
        assert_eq!(fraction_inside_segment(0.0, 0.0), 1.0);
        assert_eq!(fraction_inside_segment(0.0, 1.0), 0.0);
        assert!((fraction_inside_segment(-1.0, 3.0) - 0.25).abs() < 1e-6);
        // a plane cutting a unit square at x = 0.3 (φ = x − 0.3)
        let f = fraction_inside_square([-0.3, 0.7, 0.7, -0.3]);
        assert!((f - 0.3).abs() < 1e-6, "{f}");
        // a diagonal plane through the centre: half
        let f = fraction_inside_square([-1.0, 0.0, 1.0, 0.0]);
        assert!((f - 0.5).abs() < 1e-6, "{f}");
        assert_eq!(fraction_inside_square([0.0; 4]), 1.0);
        assert_eq!(fraction_inside_square([0.0, 0.0, 1.0, 1.0]), 0.0);
        assert_eq!(fraction_inside_square([-1.0; 4]), 1.0);
    }
}

//! Signed distance to the solid pixels of a mask image stretched over the domain's x/y extent:
//! exact within a few pixels of the nearest boundary (the union of the solid pixels' squares),
//! clamped to that reach beyond.

use glam::{Vec2, Vec3};

/// Pixels searched around the query point on each side.
const REACH: i64 = 3;

/// Signed distance (negative inside a solid pixel) of `p` to the boundary of the solid pixels.
pub(super) fn distance(solid: &[bool], width: usize, height: usize, extent: Vec3, p: Vec3) -> f32 {
    let px = Vec2::new(extent.x / width as f32, extent.y / height as f32);
    // pixel coordinates, row 0 at the top of the image (y = extent.y)
    let q = Vec2::new(p.x / px.x, (extent.y - p.y) / px.y);
    let pixel = |x: i64, y: i64| -> bool {
        let x = x.clamp(0, width as i64 - 1) as usize;
        let y = y.clamp(0, height as i64 - 1) as usize;
        solid[y * width + x]
    };
    let (cx, cy) = (q.x.floor() as i64, q.y.floor() as i64);
    let inside = pixel(cx, cy);
    let mut best = REACH as f32 * px.x.max(px.y);
    for y in cy - REACH..=cy + REACH {
        for x in cx - REACH..=cx + REACH {
            if pixel(x, y) == inside {
                continue;
            }
            // distance from p to the square of pixel (x, y), in metres
            let lo = Vec2::new(x as f32, y as f32);
            let gap = (lo - q).max(q - (lo + Vec2::ONE)).max(Vec2::ZERO) * px;
            best = best.min(gap.length());
        }
    }
    if inside {
        -best
    } else {
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_to_a_solid_half_of_the_image() {
        // 4×2 image, left half solid, over a 4 m × 2 m domain: boundary at x = 2
        let solid = [true, true, false, false, true, true, false, false];
        let e = Vec3::new(4.0, 2.0, 1.0);
        let d = |x: f32| distance(&solid, 4, 2, e, Vec3::new(x, 1.0, 0.5));
        assert!((d(2.5) - 0.5).abs() < 1e-6);
        assert!((d(1.25) + 0.75).abs() < 1e-6);
        assert!(d(2.0).abs() < 1e-6);
    }
}

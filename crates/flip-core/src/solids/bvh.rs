//! A bounding-volume hierarchy over the triangles of a mesh: closest-point queries (the
//! unsigned distance) and the fast generalised winding number (Barill et al. 2018: a node far
//! from the query point contributes its area-weighted dipole, near nodes sum exact solid
//! angles; Jacobson et al. 2013).

use glam::Vec3;
use std::f32::consts::PI;

/// Triangles per leaf at most.
const LEAF_SIZE: usize = 4;
/// A node whose centre is farther than `BETA` times its radius from the query point counts
/// as one dipole (Barill et al. 2018 use 2).
const BETA: f32 = 2.0;

/// One node: its box, its triangles `order[start..start + count]` (leaves) or its children
/// `left` and `left + 1`, and the far-field terms of the winding number.
#[derive(Clone, Debug)]
struct BvhNode {
    lo: Vec3,
    hi: Vec3,
    start: u32,
    count: u32,
    left: u32,
    /// Σ of the triangles' area vectors (½ (b − a) × (c − a)).
    area: Vec3,
    /// Area-weighted centroid of the triangles.
    centre: Vec3,
    /// Largest distance from `centre` to a vertex of the node.
    radius: f32,
}

/// The hierarchy; triangles are copied out as vertex triples.
#[derive(Clone, Debug)]
pub(super) struct Bvh {
    nodes: Vec<BvhNode>,
    tris: Vec<[Vec3; 3]>,
}

impl Bvh {
    /// Builds the hierarchy by median splits along the longest axis of the centroids.
    pub(super) fn new(tris: Vec<[Vec3; 3]>) -> Self {
        let mut order: Vec<u32> = (0..tris.len() as u32).collect();
        let mut bvh = Self {
            nodes: Vec::with_capacity(2 * tris.len() / LEAF_SIZE + 1),
            tris,
        };
        bvh.nodes.push(bvh.leaf(&order, 0));
        bvh.split(0, &mut order);
        let tris = order.iter().map(|&t| bvh.tris[t as usize]).collect();
        bvh.tris = tris;
        bvh
    }

    fn leaf(&self, order: &[u32], start: usize) -> BvhNode {
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        let (mut area, mut weighted, mut total) = (Vec3::ZERO, Vec3::ZERO, 0.0f32);
        for &t in order {
            let [a, b, c] = self.tris[t as usize];
            lo = lo.min(a).min(b).min(c);
            hi = hi.max(a).max(b).max(c);
            let n = 0.5 * (b - a).cross(c - a);
            let w = n.length();
            area += n;
            weighted += w * (a + b + c) / 3.0;
            total += w;
        }
        let centre = if total > 0.0 {
            weighted / total
        } else {
            0.5 * (lo + hi)
        };
        let radius = order
            .iter()
            .flat_map(|&t| self.tris[t as usize])
            .map(|v| v.distance(centre))
            .fold(0.0, f32::max);
        BvhNode {
            lo,
            hi,
            start: start as u32,
            count: order.len() as u32,
            left: 0,
            area,
            centre,
            radius,
        }
    }

    /// Splits node `at` (covering `order`) until leaves hold at most [`LEAF_SIZE`] triangles.
    fn split(&mut self, at: usize, order: &mut [u32]) {
        if order.len() <= LEAF_SIZE {
            return;
        }
        let centroid = |t: u32| {
            let [a, b, c] = self.tris[t as usize];
            (a + b + c) / 3.0
        };
        let (lo, hi) = order.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), &t| (lo.min(centroid(t)), hi.max(centroid(t))),
        );
        let ext = hi - lo;
        let axis = if ext.x >= ext.y && ext.x >= ext.z {
            0
        } else if ext.y >= ext.z {
            1
        } else {
            2
        };
        let mid = order.len() / 2;
        order.select_nth_unstable_by(mid, |&a, &b| {
            centroid(a)[axis].total_cmp(&centroid(b)[axis])
        });
        let start = self.nodes[at].start as usize;
        let (left, right) = order.split_at_mut(mid);
        let l = self.nodes.len();
        self.nodes.push(self.leaf(left, start));
        self.nodes.push(self.leaf(right, start + mid));
        self.nodes[at].left = l as u32;
        self.nodes[at].count = 0;
        self.split(l, left);
        self.split(l + 1, right);
    }

    /// Distance from `p` to the nearest triangle (`f32::MAX` without triangles).
    pub(super) fn distance(&self, p: Vec3) -> f32 {
        let mut best = f32::MAX;
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if box_distance_sq(p, node.lo, node.hi) >= best {
                continue;
            }
            if node.count > 0 {
                let range = node.start as usize..(node.start + node.count) as usize;
                for t in &self.tris[range] {
                    best = best.min(triangle_distance_sq(p, t));
                }
                continue;
            }
            let (a, b) = (node.left, node.left + 1);
            let da = self.box_sq(a, p);
            let db = self.box_sq(b, p);
            // visit the nearer child first (pushed last)
            if da < db {
                stack.extend([b, a]);
            } else {
                stack.extend([a, b]);
            }
        }
        best.sqrt()
    }

    fn box_sq(&self, n: u32, p: Vec3) -> f32 {
        let node = &self.nodes[n as usize];
        box_distance_sq(p, node.lo, node.hi)
    }

    /// Generalised winding number at `p` (1 inside a closed, outward-oriented mesh, 0 outside,
    /// in between across holes): exact solid angles near `p`, dipoles of far nodes.
    pub(super) fn winding_number(&self, p: Vec3) -> f32 {
        let mut sum = 0.0f32;
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            let r = node.centre - p;
            let d = r.length();
            if d > BETA * node.radius && d > 0.0 {
                sum += node.area.dot(r) / (d * d * d);
            } else if node.count > 0 {
                let range = node.start as usize..(node.start + node.count) as usize;
                sum += self.tris[range]
                    .iter()
                    .map(|t| solid_angle(p, t))
                    .sum::<f32>();
            } else {
                stack.extend([node.left, node.left + 1]);
            }
        }
        sum / (4.0 * PI)
    }
}

/// Squared distance from `p` to the box `[lo, hi]` (0 inside).
fn box_distance_sq(p: Vec3, lo: Vec3, hi: Vec3) -> f32 {
    (lo - p).max(p - hi).max(Vec3::ZERO).length_squared()
}

/// Signed solid angle of triangle `t` seen from `p` (Van Oosterom & Strackee 1983): positive
/// when the triangle turns counter-clockwise around `p`'s view, i.e. `p` behind it.
pub(super) fn solid_angle(p: Vec3, t: &[Vec3; 3]) -> f32 {
    let (a, b, c) = (t[0] - p, t[1] - p, t[2] - p);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let det = a.dot(b.cross(c));
    let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
    2.0 * det.atan2(den)
}

/// Squared distance from `p` to triangle `t` (Ericson, Real-Time Collision Detection §5.1.5).
pub(super) fn triangle_distance_sq(p: Vec3, t: &[Vec3; 3]) -> f32 {
    p.distance_squared(closest_on_triangle(p, t))
}

fn closest_on_triangle(p: Vec3, [a, b, c]: &[Vec3; 3]) -> Vec3 {
    let (ab, ac, ap) = (*b - *a, *c - *a, p - *a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return *a;
    }
    let bp = p - *b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return *b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return *a + ab * (d1 / (d1 - d3));
    }
    let cp = p - *c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return *c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return *a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return *b + (*c - *b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    *a + ab * (vb * denom) + ac * (vc * denom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_point_regions_of_a_triangle() {
        let t = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let d = |p: Vec3| triangle_distance_sq(p, &t).sqrt();
        assert!((d(Vec3::new(0.2, 0.2, 0.5)) - 0.5).abs() < 1e-6, "face");
        assert!((d(Vec3::new(-1.0, -1.0, 0.0)) - 2f32.sqrt()).abs() < 1e-6);
        assert!((d(Vec3::new(0.5, -2.0, 0.0)) - 2.0).abs() < 1e-6, "edge ab");
        assert!((d(Vec3::new(1.0, 1.0, 0.0)) - 0.5f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn solid_angle_of_a_face_of_a_cube_is_a_sixth() {
        // the face z = 1 of the cube [-1, 1]³, seen from the centre, counter-clockwise from +z
        let (a, b, c, d) = (
            Vec3::new(-1.0, -1.0, 1.0),
            Vec3::new(1.0, -1.0, 1.0),
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(-1.0, 1.0, 1.0),
        );
        let w = solid_angle(Vec3::ZERO, &[a, b, c]) + solid_angle(Vec3::ZERO, &[a, c, d]);
        assert!((w - 4.0 * PI / 6.0).abs() < 1e-5, "{w}");
    }
}

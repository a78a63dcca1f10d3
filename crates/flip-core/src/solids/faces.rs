//! Open fractions of the MAC faces (Batty, Bertails & Bridson 2007, §3): the part of each face
//! not covered by a solid, from the solid signed distance at the face's corners (the grid
//! nodes). 2D faces are segments, 3D faces squares (four triangles around the centre, each cut
//! exactly; `flip_sdk::stencil`). Faces on the domain boundary are closed.

use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use flip_sdk::stencil::{fraction_inside_segment, fraction_inside_square};

/// The solid signed distance at every grid node `(i dx, j dx, k dx)`, `(ni+1)(nj+1)(nk+1)`
/// values (in 2D one layer, at the cells' mid-plane).
pub(super) fn nodal_distance(
    spec: &GridSpec,
    distance: impl Fn(glam::Vec3) -> f32 + Sync,
) -> Grid3<f32> {
    let nk = if spec.is_2d() { 1 } else { spec.nk + 1 };
    let mut g = Grid3::new(spec.ni + 1, spec.nj + 1, nk, 0.0f32);
    let z_mid = 0.5 * spec.dx;
    crate::grid::par_for_each_mut(g.dims(), &mut g.data, |i, j, k, v| {
        let z = if spec.is_2d() {
            z_mid
        } else {
            k as f32 * spec.dx
        };
        *v = distance(glam::Vec3::new(i as f32 * spec.dx, j as f32 * spec.dx, z));
    });
    g
}

/// Open fraction (1 − fraction inside a solid) of every MAC face, from nodal distances.
pub(super) fn open_fractions(spec: &GridSpec, nodes: &Grid3<f32>) -> MacGrid {
    let mut open = MacGrid::zeros(spec);
    let dims = spec.dims();
    for (axis, g) in open.axes_mut().into_iter().enumerate() {
        if axis >= spec.dimension() {
            g.fill(0.0);
            continue;
        }
        let gd = g.dims();
        crate::grid::par_for_each_mut(gd, &mut g.data, |i, j, k, o| {
            let f = [i, j, k];
            *o = if f[axis] == 0 || f[axis] == dims[axis] {
                0.0
            } else {
                1.0 - fraction_inside(spec, nodes, axis, f)
            };
        });
    }
    open
}

/// Fraction of face `f` of component `axis` inside a solid.
fn fraction_inside(spec: &GridSpec, nodes: &Grid3<f32>, axis: usize, f: [usize; 3]) -> f32 {
    let [i, j, k] = f;
    if spec.is_2d() {
        // the face is the segment between nodes (f) and (f + ê) along the other axis
        let other = 1 - axis;
        let mut b = [i, j, 0];
        b[other] += 1;
        return fraction_inside_segment(nodes[(i, j, 0)], nodes[(b[0], b[1], 0)]);
    }
    let (p, q) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let corner = |dp: usize, dq: usize| {
        let mut c = [i, j, k];
        c[p] += dp;
        c[q] += dq;
        nodes[(c[0], c[1], c[2])]
    };
    fraction_inside_square([corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)])
}

#[cfg(test)]
mod tests {
    use crate::grid::GridSpec;
    use crate::solids::{Shape, ShapeKind, Solids};
    use glam::Vec3;

    #[test]
    fn box_walls_on_cell_faces_give_whole_faces() {
        for spec in [GridSpec::new(8, 6, 1, 0.25), GridSpec::new(5, 6, 7, 0.25)] {
            let s = Solids::walls(spec);
            // faces on the inner wall planes are closed, faces between interior cells open
            assert_eq!(s.face_open.u[(1, 2, spec.nk / 2)], 0.0);
            assert_eq!(s.face_open.u[(2, 2, spec.nk / 2)], 1.0);
            assert_eq!(s.face_open.v[(2, 1, spec.nk / 2)], 0.0);
            assert_eq!(s.face_open.v[(2, 2, spec.nk / 2)], 1.0);
            // a face perpendicular to the wall, between two wall cells, is closed
            assert_eq!(s.face_open.v[(0, 2, spec.nk / 2)], 0.0);
            for (c, g) in s
                .face_open
                .axes()
                .into_iter()
                .enumerate()
                .take(spec.dimension())
            {
                assert!(g.data.iter().all(|&w| w == 0.0 || w == 1.0), "axis {c}");
            }
        }
    }

    #[test]
    fn a_circle_container_opens_faces_by_the_covered_length() {
        let spec = GridSpec::new(64, 64, 1, 1.0 / 64.0);
        let circle = Shape {
            kind: ShapeKind::Sphere {
                center: Vec3::new(0.5, 0.5, 0.0),
                radius: 0.4,
            },
            inverted: true,
            shell: 0.0,
            subtract: false,
            placement: None,
        };
        let s = Solids::new(spec, vec![circle]);
        // open length of the v faces along the row y = 0.5 equals the chord inside the circle
        let j = 32;
        let open: f32 = (0..64).map(|i| s.face_open.v[(i, j, 0)]).sum::<f32>() * spec.dx;
        assert!((open - 0.8).abs() < 0.01 * 0.8, "chord {open}");
        let fractional = s
            .face_open
            .u
            .data
            .iter()
            .filter(|&&w| w > 0.0 && w < 1.0)
            .count();
        assert!(fractional > 100, "the circle cuts faces: {fractional}");
    }
}

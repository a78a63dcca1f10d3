//! APIC grid-to-particle transfer (Jiang et al. 2015): each particle keeps, besides its
//! velocity, the affine part of the grid velocity around it, so that P2G hands back the local
//! rotation and shear that PIC averages away. With multilinear weights the affine matrix is the
//! gradient of the interpolated velocity (`C_p = Σ_i v_i ∇w_ip^T`, Jiang et al. §5.3).

use super::stencil::{matches_spec, Lattice};
use super::{blend_grids, MacGrid};
use crate::grid::GridSpec;
use crate::particles::Particles;
use glam::Vec3;
use rayon::prelude::*;

/// APIC G2P, optionally blended with FLIP ("APIC + FLIP"): `v_p = interp(new) +
/// flip·(v_p − interp(old))` and `C_p[c] = ∇ interp(new_c)(x_p)`. `flip_ratio` 0 is pure APIC,
/// which conserves linear and (up to the projection) angular momentum. Sizes `affine` to the
/// particles. Both grids must match `spec`.
pub fn g2p_apic(
    spec: &GridSpec,
    particles: &mut Particles,
    new: &MacGrid,
    old: &MacGrid,
    flip_ratio: f32,
) {
    assert!(
        matches_spec(spec, new) && matches_spec(spec, old),
        "g2p: grids do not match spec"
    );
    let flip = flip_ratio.clamp(0.0, 1.0);
    let blend = blend_grids(new, old, flip);
    let lattice = Lattice::new(spec);
    let (axes, inv_dx) = (spec.dimension(), 1.0 / spec.dx);
    let Particles {
        pos, vel, affine, ..
    } = particles;
    affine.resize(pos.len(), [Vec3::ZERO; 3]);
    vel.par_iter_mut()
        .zip(affine.par_iter_mut())
        .zip(pos.par_iter())
        .with_min_len(1024)
        .for_each(|((v, c), &p)| {
            let st = lattice.stencil(p);
            let blocks = [st.block::<0>(), st.block::<1>(), st.block::<2>()];
            let (b, n) = (blend.axes(), new.axes());
            let mut out = Vec3::ZERO;
            *c = [Vec3::ZERO; 3];
            for a in 0..axes {
                out[a] = blocks[a].sample(&b[a].data) + flip * v[a];
                let mut g = blocks[a].gradient(&n[a].data) * inv_dx;
                if axes == 2 {
                    g.z = 0.0;
                }
                c[a] = g;
            }
            *v = out;
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::MacMask;
    use crate::transfer::{p2g, TransferScratch};

    /// A face-sampled linear field `u = A x + b`.
    fn linear(spec: &GridSpec, a: [Vec3; 3], b: Vec3) -> MacGrid {
        let mut m = MacGrid::zeros(spec);
        let dx = spec.dx;
        for (c, g) in m.axes_mut().into_iter().enumerate() {
            let dims = g.dims();
            crate::grid::par_for_each_mut(dims, &mut g.data, |i, j, k, x| {
                let mut p = (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * dx;
                p[c] -= 0.5 * dx;
                *x = a[c].dot(p) + b[c];
            });
        }
        m
    }

    #[test]
    fn g2p_recovers_a_linear_field_and_its_gradient() {
        let spec = GridSpec::new(8, 7, 9, 0.1);
        let a = [
            Vec3::new(0.5, -1.0, 0.25),
            Vec3::new(2.0, 0.1, -0.3),
            Vec3::new(-0.7, 0.4, 1.5),
        ];
        let b = Vec3::new(0.3, -0.2, 0.1);
        let field = linear(&spec, a, b);
        let mut ps = Particles::default();
        for p in [Vec3::new(0.33, 0.27, 0.41), Vec3::new(0.52, 0.38, 0.66)] {
            ps.push(p, Vec3::splat(9.0));
        }
        g2p_apic(&spec, &mut ps, &field, &field, 0.0);
        for (p, (v, c)) in ps.pos.iter().zip(ps.vel.iter().zip(&ps.affine)) {
            for k in 0..3 {
                assert!((v[k] - (a[k].dot(*p) + b[k])).abs() < 1e-4, "{v} at {p}");
                assert!((c[k] - a[k]).abs().max_element() < 1e-3, "{c:?} vs {a:?}");
            }
        }
    }

    #[test]
    fn p2g_with_affine_velocities_reproduces_a_linear_field() {
        // a rigid rotation about the box centre: P2G of APIC particles is exact for it
        let spec = GridSpec::new(12, 12, 1, 0.1);
        let w = 2.0;
        let centre = Vec3::new(0.6, 0.6, 0.0);
        let a = [Vec3::new(0.0, -w, 0.0), Vec3::new(w, 0.0, 0.0), Vec3::ZERO];
        let b = Vec3::new(w * centre.y, -w * centre.x, 0.0);
        let mut ps = Particles::default();
        for j in 0..20 {
            for i in 0..20 {
                let p = Vec3::new(0.25 + 0.037 * i as f32, 0.25 + 0.035 * j as f32, 0.05);
                ps.push(p, Vec3::new(a[0].dot(p) + b.x, a[1].dot(p) + b.y, 0.0));
            }
        }
        ps.affine = vec![a; ps.len()];
        let (mut vel, mut valid) = (MacGrid::zeros(&spec), MacMask::zeros(&spec));
        p2g(
            &spec,
            &ps,
            &mut vel,
            &mut valid,
            &mut TransferScratch::default(),
        );
        let exact = linear(&spec, a, b);
        let mut checked = 0;
        for c in 0..2 {
            let (g, m, e) = (&vel.axes()[c], &valid.axes()[c], &exact.axes()[c]);
            for ((x, &ok), y) in g.data.iter().zip(&m.data).zip(&e.data) {
                if ok == 1 {
                    assert!((x - y).abs() < 1e-4, "{x} vs {y}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100);
        // without the affine part the splat averages the rotation away at the rim
        ps.affine.clear();
        p2g(
            &spec,
            &ps,
            &mut vel,
            &mut valid,
            &mut TransferScratch::default(),
        );
        let worst = vel.u.data.iter().zip(&valid.u.data).zip(&exact.u.data);
        let worst = worst
            .filter(|((_, &m), _)| m == 1)
            .map(|((x, _), y)| (x - y).abs());
        assert!(worst.fold(0.0, f32::max) > 1e-2);
    }
}

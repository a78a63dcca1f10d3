//! Particle-grid transfers: P2G splatting (Karlsson Alg. 2-3, the tutorial's trilinear splat),
//! G2P with the PIC/FLIP blend (eq. 22) and trilinear sampling of a MAC velocity.

use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use crate::particles::Particles;
use glam::Vec3;
use rayon::prelude::*;

mod apic;
mod splat;
mod stencil;

pub use apic::g2p_apic;
pub(crate) use splat::{bucket, Slabs};
pub use splat::{p2g, TransferScratch};
pub use stencil::matches_spec;
pub(crate) use stencil::Lattice;

/// Trilinear (bilinear in 2D) interpolation of the MAC velocity `vel` at `p`, clamped to the
/// grid (Karlsson §3.3, Fig. 8). In 2D the z component is 0. `vel` must match `spec`.
pub fn sample_velocity(spec: &GridSpec, vel: &MacGrid, p: Vec3) -> Vec3 {
    assert!(matches_spec(spec, vel), "velocity grid does not match spec");
    Lattice::new(spec).sample(vel, p)
}

/// G2P (Karlsson eq. 22, written with `flip_ratio` = 1 − α): `v_p = (1 − flip)·interp(new) +
/// flip·(v_p + interp(new) − interp(old))`. `flip_ratio` 0 is PIC, 1 is pure FLIP. `old` is
/// the grid velocity before forces and projection. Both grids must match `spec`.
pub fn g2p(
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
    let is_2d = spec.is_2d();
    particles.affine.clear();
    let Particles { pos, vel, .. } = particles;
    vel.par_iter_mut()
        .zip(pos.par_iter())
        .with_min_len(1024)
        .for_each(|(v, &p)| {
            let mut out = lattice.sample(&blend, p) + flip * *v;
            if is_2d {
                out.z = 0.0;
            }
            *v = out;
        });
}

/// `new − flip·old`: eq. 22 is linear in the grids, so G2P samples this once per particle
/// instead of sampling both grids.
pub(crate) fn blend_grids(new: &MacGrid, old: &MacGrid, flip: f32) -> MacGrid {
    let combine = |n: &Grid3<f32>, o: &Grid3<f32>| {
        let faces = n.data.par_iter().zip(o.data.par_iter()).with_min_len(4096);
        let data = faces.map(|(&n, &o)| n - flip * o).collect();
        Grid3 {
            ni: n.ni,
            nj: n.nj,
            nk: n.nk,
            data,
        }
    };
    MacGrid {
        u: combine(&new.u, &old.u),
        v: combine(&new.v, &old.v),
        w: combine(&new.w, &old.w),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear_field(spec: &GridSpec) -> MacGrid {
        // u = 1 + 2x + 3y + 4z, v = -1 + x - y + 0.5z, w = 2 - x + 2y + z (on face positions)
        let mut m = MacGrid::zeros(spec);
        let dx = spec.dx;
        let [u, v, w] = m.axes_mut();
        crate::grid::par_for_each_mut(u.dims(), &mut u.data, |i, j, k, x| {
            let (px, py, pz) = (i as f32 * dx, (j as f32 + 0.5) * dx, (k as f32 + 0.5) * dx);
            *x = 1.0 + 2.0 * px + 3.0 * py + 4.0 * pz;
        });
        crate::grid::par_for_each_mut(v.dims(), &mut v.data, |i, j, k, x| {
            let (px, py, pz) = ((i as f32 + 0.5) * dx, j as f32 * dx, (k as f32 + 0.5) * dx);
            *x = -1.0 + px - py + 0.5 * pz;
        });
        crate::grid::par_for_each_mut(w.dims(), &mut w.data, |i, j, k, x| {
            let (px, py, pz) = ((i as f32 + 0.5) * dx, (j as f32 + 0.5) * dx, k as f32 * dx);
            *x = 2.0 - px + 2.0 * py + pz;
        });
        m
    }

    #[test]
    fn sample_velocity_reproduces_a_linear_field() {
        let spec = GridSpec::new(6, 5, 7, 0.1);
        let m = linear_field(&spec);
        for p in [
            Vec3::new(0.23, 0.31, 0.44),
            Vec3::new(0.5, 0.05 + 0.1, 0.6),
            Vec3::new(0.11, 0.42, 0.09),
        ] {
            let s = sample_velocity(&spec, &m, p);
            let e = Vec3::new(
                1.0 + 2.0 * p.x + 3.0 * p.y + 4.0 * p.z,
                -1.0 + p.x - p.y + 0.5 * p.z,
                2.0 - p.x + 2.0 * p.y + p.z,
            );
            assert!((s - e).abs().max_element() < 1e-4, "{p}: {s} vs {e}");
        }
    }

    #[test]
    fn sample_velocity_2d_ignores_z() {
        let spec = GridSpec::new(8, 8, 1, 0.125);
        let mut m = linear_field(&spec);
        m.w.fill(0.0);
        let p = Vec3::new(0.3, 0.55, 0.0625);
        let s = sample_velocity(&spec, &m, p);
        let pz = 0.0625;
        assert!((s.x - (1.0 + 2.0 * p.x + 3.0 * p.y + 4.0 * pz)).abs() < 1e-4);
        assert!((s.y - (-1.0 + p.x - p.y + 0.5 * pz)).abs() < 1e-4);
        assert_eq!(s.z, 0.0);
    }

    #[test]
    fn g2p_pic_is_exact_interpolation_and_flip_keeps_velocity_without_change() {
        let spec = GridSpec::new(6, 5, 7, 0.1);
        let new = linear_field(&spec);
        let mut old = new.clone();
        old.u.fill(7.0);
        let pos = vec![Vec3::new(0.23, 0.31, 0.44), Vec3::new(0.37, 0.2, 0.51)];
        let vel = vec![Vec3::new(5.0, -3.0, 1.0), Vec3::new(-0.25, 0.5, 9.0)];
        let mut pic = Particles {
            pos: pos.clone(),
            vel: vel.clone(),
            ..Default::default()
        };
        g2p(&spec, &mut pic, &new, &old, 0.0);
        for (p, v) in pic.pos.iter().zip(&pic.vel) {
            assert!((*v - sample_velocity(&spec, &new, *p)).abs().max_element() < 1e-6);
        }
        let mut flip = Particles {
            pos,
            vel: vel.clone(),
            ..Default::default()
        };
        g2p(&spec, &mut flip, &new, &new, 1.0);
        assert_eq!(flip.vel, vel);
        let mut blend = flip.clone();
        g2p(&spec, &mut blend, &new, &new, 0.95);
        let want = 0.05 * sample_velocity(&spec, &new, blend.pos[0]) + 0.95 * vel[0];
        assert!((blend.vel[0] - want).abs().max_element() < 1e-5);
    }
}

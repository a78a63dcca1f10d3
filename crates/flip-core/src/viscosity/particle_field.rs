//! The particles' viscosity attribute on the grid: the viscosity node's per-cell `ν`.

use crate::grid::{Grid3, GridSpec};
use crate::transfer::Lattice;
use crate::Particles;

/// The kernel-weighted mean of the particles' viscosity at every cell centre (the trilinear
/// weights of P2G, so a cell just outside the surface gets its liquid neighbours' value, which
/// the surface layer's edge averages read). Particles without a value (NaN) count as
/// `default`; cells no particle reaches get `default`.
pub fn particle_viscosity(
    spec: &GridSpec,
    particles: &Particles,
    default: f32,
    out: &mut Grid3<f32>,
) {
    out.reset(spec.ni, spec.nj, spec.nk, 0.0);
    let mut weight = vec![0.0f32; out.data.len()];
    if particles.has_viscosity() {
        let lattice = Lattice::new(spec);
        for (&p, &nu) in particles.pos.iter().zip(&particles.viscosity) {
            let nu = if nu.is_nan() { default } else { nu };
            let block = lattice.stencil(p).cell_block();
            for (corner, w) in block.corners().into_iter().zip(block.weights()) {
                out.data[corner] += w * nu;
                weight[corner] += w;
            }
        }
    }
    for (v, &w) in out.data.iter_mut().zip(&weight) {
        *v = if w > 1e-6 { *v / w } else { default };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{emit, EmitParams, EmitShape};
    use crate::solids::Solids;
    use glam::Vec3;

    #[test]
    fn two_liquids_keep_their_own_viscosity_and_meet_in_between() {
        let spec = GridSpec::new(21, 13, 1, 1.0 / 21.0);
        let solids = Solids::walls(spec);
        let mut ps = Particles::default();
        let block = |min: Vec3, max: Vec3| EmitParams {
            shape: EmitShape::Box { min, max },
            per_cell: 4,
            velocity: Vec3::ZERO,
            jitter: 1.0,
            top_up: false,
        };
        emit(
            &spec,
            &solids,
            &block(Vec3::ZERO, Vec3::new(0.5, 0.4, 1.0)),
            3,
            &mut ps,
        );
        ps.set_viscosity_from(0, 0.8);
        let honey = ps.len();
        emit(
            &spec,
            &solids,
            &block(Vec3::new(0.5, 0.0, 0.0), Vec3::ONE),
            4,
            &mut ps,
        );
        assert!(ps.has_viscosity() && ps.viscosity[honey..].iter().all(|v| v.is_nan()));
        let mut nu = Grid3::new(0, 0, 0, 0.0);
        particle_viscosity(&spec, &ps, 0.01, &mut nu);
        let at = |i: usize, j: usize| nu[(i, j, 0)];
        // deep inside each liquid, its own value; across the contact, in between
        assert!((at(4, 3) - 0.8).abs() < 1e-5, "{}", at(4, 3));
        assert!((at(16, 3) - 0.01).abs() < 1e-5, "{}", at(16, 3));
        assert!(
            (at(4, 11) - 0.01).abs() < 1e-5,
            "air above the honey: {}",
            at(4, 11)
        );
        let mid = at(10, 3);
        assert!(
            mid > 0.05 && mid < 0.75,
            "the cell across the contact: {mid}"
        );
        // no attribute at all: the default everywhere
        ps.viscosity.clear();
        particle_viscosity(&spec, &ps, 0.2, &mut nu);
        assert!(nu.data.iter().all(|&v| v == 0.2));
    }
}

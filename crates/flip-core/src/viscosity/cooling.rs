//! Lava that stiffens as it cools: the particles' viscosity attribute relaxes towards its cold
//! value near the surface.
//!
//! Newton cooling of the surface layer, `dT/dt = −k (T − T_a)`, with the exponential
//! viscosity law of lavas, `ν(T) = ν_a · exp(−b (T − T_a))` (Nabarro; Dragoni 1989), gives
//! `d ln(ν/ν_a)/dt = −k ln(ν/ν_a)`: the logarithm of the viscosity relaxes towards the cold
//! value's at the cooling rate, exactly over a step `Δt`, without carrying the temperature.
//! Heat conduction inside the liquid is left out: the interior keeps its heat until it comes
//! within `depth` of the surface.

use crate::grid::{Grid3, GridSpec};
use crate::transfer::Lattice;
use crate::Particles;
use rayon::prelude::*;

/// How the surface layer cools.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cooling {
    /// The viscosity at the ambient temperature (m²/s), > 0.
    pub cold: f32,
    /// Newton's cooling rate `k` (1/s).
    pub rate: f32,
    /// Particles within this distance of the surface cool (m).
    pub depth: f32,
}

/// One step `dt` of [`Cooling`] on the particles carrying a viscosity; `phi` is the liquid's
/// signed distance. Returns how many particles cooled.
pub fn cool(
    spec: &GridSpec,
    particles: &mut Particles,
    phi: &Grid3<f32>,
    law: Cooling,
    dt: f32,
) -> usize {
    if !particles.has_viscosity() || law.rate <= 0.0 {
        return 0;
    }
    let lattice = Lattice::new(spec);
    let keep = (-law.rate * dt).exp();
    let ln_cold = law.cold.ln();
    let Particles { pos, viscosity, .. } = particles;
    viscosity
        .par_iter_mut()
        .zip(pos.par_iter())
        .with_min_len(4096)
        .map(|(nu, &p)| {
            let surface = lattice.stencil(p).cell_block().sample(&phi.data) > -law.depth;
            if !(surface && *nu > 0.0) {
                return 0;
            }
            *nu = (ln_cold + (nu.ln() - ln_cold) * keep).exp();
            1
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn the_surface_layer_stiffens_at_the_cooling_rate_and_the_interior_stays_hot() {
        let spec = GridSpec::new(10, 10, 1, 0.1);
        // liquid below y = 0.55
        let mut phi = Grid3::new(10, 10, 1, 0.0);
        for j in 0..10 {
            for i in 0..10 {
                phi[(i, j, 0)] = (j as f32 + 0.5) * 0.1 - 0.55;
            }
        }
        let mut ps = Particles::default();
        ps.push(Vec3::new(0.33, 0.52, 0.05), Vec3::ZERO); // at the surface
        ps.push(Vec3::new(0.61, 0.15, 0.05), Vec3::ZERO); // deep
        ps.push(Vec3::new(0.47, 0.5, 0.05), Vec3::ZERO); // no attribute
        ps.set_viscosity_from(0, 0.01);
        ps.viscosity[2] = f32::NAN;
        let law = Cooling {
            cold: 100.0,
            rate: 0.5,
            depth: 0.15,
        };
        let dt = 0.04;
        let steps = 50; // 2 s
        for _ in 0..steps {
            cool(&spec, &mut ps, &phi, law, dt);
        }
        // ln ν relaxes as e^(−k t): after 2 s at k = 0.5 the gap to the cold value is e^(−1)
        let expected = (100f32.ln() + (0.01f32.ln() - 100f32.ln()) * (-1.0f32).exp()).exp();
        assert!(
            (ps.viscosity[0] / expected - 1.0).abs() < 1e-3,
            "{} vs {expected}",
            ps.viscosity[0]
        );
        assert_eq!(ps.viscosity[1], 0.01, "the interior keeps its heat");
        assert!(
            ps.viscosity[2].is_nan(),
            "a particle without a viscosity has nothing to cool"
        );
    }
}

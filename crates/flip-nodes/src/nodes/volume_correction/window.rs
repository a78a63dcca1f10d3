//! The volume correction in a rank's window of a decomposed run: the rest density, the liquid
//! volume and the particle count are the domain's (sums over the owned cells and particles of
//! every rank), and the correction is solved distributed like the pressure.

use crate::decomposed::owned_count;
use flip_core::volume::{interior_density_sums, liquid_volume, Measurement};
use flip_core::{Grid3, GridSpec, Particles, Solids};
use flip_graph::window::Window;

/// What the correction measures, over the whole domain.
pub(super) struct DomainMeasure {
    /// Mean density of the interior cells (`None`: no interior cell anywhere).
    pub rest: Option<f32>,
    /// Liquid volume (m³; m² in 2D).
    pub volume: f64,
    /// Particles.
    pub particles: f64,
}

/// Measures over the owned cells of every rank (collective).
pub(super) fn measure(
    w: &Window,
    g: &GridSpec,
    solids: &Solids,
    m: Measurement<'_>,
    particles: &Particles,
) -> DomainMeasure {
    // the owned cells only: every other cell reads as far outside the liquid
    let owned = w.dist.layout().owned_range();
    let mut phi = Grid3::new(g.ni, g.nj, g.nk, f32::MAX);
    phi.data[owned.clone()].copy_from_slice(&m.phi.data[owned]);
    let owned_only = Measurement {
        phi: &phi,
        density: m.density,
    };
    let (sum, cells) = interior_density_sums(g, owned_only);
    let mut v = [
        sum,
        cells as f64,
        liquid_volume(g, solids, owned_only),
        owned_count(particles) as f64,
    ];
    w.comm().sum(&mut v);
    DomainMeasure {
        rest: (v[1] > 0.0).then(|| (v[0] / v[1]) as f32),
        volume: v[2],
        particles: v[3],
    }
}

//! The grid values behind colouring the particles by vorticity or pressure: kept with each
//! frame, sampled at its particles the first time they are shown.

use flip_core::smoke::{sample_cell, vorticity};
use flip_core::{Grid3, GridSpec, MacGrid};
use flip_graph::Value;
use flip_nodes::kinds::{VelocityField, SCALAR, VELOCITY};
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

/// Per-particle values sampled from the grid (same order as the frame's points; empty when the
/// graph has no such field).
#[derive(Clone, Debug, Default)]
pub struct GridSamples {
    /// |∇ × u| at the particles (1/s).
    pub vorticity: Vec<f32>,
    /// Pressure at the particles (Pa).
    pub pressure: Vec<f32>,
}

/// The grid values behind *colour by* vorticity and pressure: the frame's probed pressure and
/// velocity (shared with the simulation, not copied), sampled at the frame's points the first
/// time they are shown. Most frames are only ever drawn by speed, so the simulation thread no
/// longer samples 2 × N values after every frame.
#[derive(Clone, Debug, Default)]
pub struct GridAttributes {
    spec: Option<GridSpec>,
    pressure: Option<Arc<Grid3<f32>>>,
    velocity: Option<Arc<VelocityField>>,
    samples: Arc<OnceLock<GridSamples>>,
}

impl GridAttributes {
    /// The probed pressure and velocity (of a liquid graph) of a frame on `spec`'s grid.
    pub fn new(spec: &GridSpec, probed: &[Option<Value>]) -> Self {
        let mut out = Self {
            spec: Some(*spec),
            ..Self::default()
        };
        for v in probed.iter().flatten() {
            if let Some(g) = v.shared_as(SCALAR) {
                out.pressure = Some(g);
            } else if let Some(f) = v.shared_as(VELOCITY) {
                out.velocity = Some(f);
            }
        }
        out
    }

    /// The values at `points` (the frame's), sampled on the first call.
    pub fn at(&self, points: &[[f32; 3]]) -> &GridSamples {
        self.samples.get_or_init(|| match &self.spec {
            Some(spec) => sample(
                spec,
                points,
                self.pressure.as_deref(),
                self.velocity.as_deref().map(|f| &f.vel),
            ),
            None => GridSamples::default(),
        })
    }

    /// Bytes of the grid values held until they are sampled, or of the samples.
    pub fn bytes(&self) -> usize {
        let held = self.pressure.as_ref().map_or(0, |g| g.data.len() * 4)
            + self.velocity.as_ref().map_or(0, |f| {
                f.vel.axes().iter().map(|c| c.data.len() * 4).sum::<usize>()
            });
        let sampled = self
            .samples
            .get()
            .map_or(0, |s| (s.vorticity.len() + s.pressure.len()) * 4);
        held + sampled
    }
}

/// Samples `pressure` and the vorticity of `velocity` at `points`.
fn sample(
    spec: &GridSpec,
    points: &[[f32; 3]],
    pressure: Option<&Grid3<f32>>,
    velocity: Option<&MacGrid>,
) -> GridSamples {
    let at = |g: &Grid3<f32>| -> Vec<f32> {
        if g.dims() != spec.dims() {
            return vec![];
        }
        let p = |x: &[f32; 3]| sample_cell(spec, g, glam::Vec3::from_array(*x));
        points.par_iter().map(p).collect()
    };
    let vorticity = velocity.map_or(vec![], |u| {
        let w = vorticity(spec, u);
        let magnitude = Grid3 {
            ni: w.ni,
            nj: w.nj,
            nk: w.nk,
            data: w.data.iter().map(|v| v.length()).collect(),
        };
        at(&magnitude)
    });
    GridSamples {
        vorticity,
        pressure: pressure.map_or(vec![], at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Solid-body rotation `u = Ω × (x − c)` at rate `omega` on a 16² grid: vorticity `2Ω`.
    fn rotation(spec: &GridSpec, omega: f32) -> MacGrid {
        let mut vel = MacGrid::zeros(spec);
        let c = spec.extent() * 0.5;
        for (axis, comp) in vel.axes_mut().into_iter().enumerate().take(2) {
            let [ni, nj, nk] = comp.dims();
            for (i, j, k) in
                (0..nk).flat_map(|k| (0..nj).flat_map(move |j| (0..ni).map(move |i| (i, j, k))))
            {
                let p = spec.face_center(axis, i, j, k) - c;
                comp[(i, j, k)] = if axis == 0 { -omega * p.y } else { omega * p.x };
            }
        }
        vel
    }

    #[test]
    fn particles_get_the_vorticity_and_pressure_around_them() {
        let spec = GridSpec::new(16, 16, 1, 1.0 / 16.0);
        let field = VelocityField {
            vel: rotation(&spec, 3.0),
            valid: flip_core::MacMask::zeros(&spec),
        };
        let mut pressure = Grid3::new(16, 16, 1, 0.0f32);
        pressure[(8, 4, 0)] = 250.0;
        let probed = vec![
            Some(Value::new(SCALAR, pressure)),
            Some(Value::new(VELOCITY, field)),
        ];
        // cell centres: one inside, one on the pressure peak
        let points = [[0.5, 0.5, 0.0], [8.5 / 16.0, 4.5 / 16.0, 0.0]];
        let attributes = GridAttributes::new(&spec, &probed);
        let held = attributes.bytes();
        let s = attributes.at(&points);
        assert!((s.vorticity[0] - 6.0).abs() < 1e-3, "{:?}", s.vorticity);
        assert_eq!(s.pressure, [0.0, 250.0]);
        assert_eq!(held, 4 * (16 * 16 + 17 * 16 * 2 + 16 * 16 * 2));
        // a field of another size is not sampled
        let other = GridSpec::new(8, 8, 1, 1.0 / 8.0);
        let attributes = GridAttributes::new(&other, &probed);
        assert!(attributes.at(&points).pressure.is_empty());
    }
}

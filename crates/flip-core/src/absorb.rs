//! Wave-absorbing layers beside the domain's faces (a sponge layer, Israeli & Orszag 1981): in
//! a layer of width `w` the velocity relaxes towards rest, `∂u/∂t = −σ(d)·u`, with
//! `σ(d) = σ_max·(1 − d/w)²` rising from 0 at the layer's inner edge to `σ_max` at the face
//! (`d` the distance to the face). A wave that runs into the layer dies there instead of
//! coming back from the wall, so a tank behaves as a part of a wider pond. The ramp is gentle
//! so the layer's edge reflects little; integrated implicitly, `u ← u / (1 + σ·Δt)`, stable
//! for any `σ·Δt`.

use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use rayon::prelude::*;

/// Which domain faces absorb, and how strongly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbsorbingLayers {
    /// Faces in `solids::SIDE_NAMES` order: x_min, x_max, y_min, y_max, z_min, z_max.
    pub faces: [bool; 6],
    /// Width of each layer (m).
    pub width: f32,
    /// `σ_max`: the damping rate at the face (1/s).
    pub strength: f32,
}

impl AbsorbingLayers {
    /// Whether the layers change anything.
    pub fn is_active(&self) -> bool {
        self.faces.iter().any(|&f| f) && self.width > 0.0 && self.strength > 0.0
    }

    /// `σ` at `d` metres from an absorbing face (0 beyond the layer).
    #[inline]
    fn sigma_at(&self, d: f32) -> f32 {
        if d >= self.width {
            return 0.0;
        }
        let s = 1.0 - d.max(0.0) / self.width;
        self.strength * s * s
    }

    /// The largest `σ` over the absorbing faces of `axis` for a sample at `x` along it, on an
    /// axis `extent` metres long.
    #[inline]
    fn sigma_along(&self, axis: usize, x: f32, extent: f32) -> f32 {
        let lo = if self.faces[2 * axis] {
            self.sigma_at(x)
        } else {
            0.0
        };
        let hi = if self.faces[2 * axis + 1] {
            self.sigma_at(extent - x)
        } else {
            0.0
        };
        lo.max(hi)
    }

    /// Relaxes every face velocity of `vel` over one step of `dt` seconds.
    pub fn apply(&self, spec: &GridSpec, vel: &mut MacGrid, dt: f32) {
        if !self.is_active() {
            return;
        }
        let axes = spec.dimension();
        for (c, comp) in vel.axes_mut().into_iter().enumerate().take(axes) {
            self.apply_component(spec, c, comp, dt);
        }
    }

    /// [`AbsorbingLayers::apply`] on the samples of component `c` (on x faces along x for
    /// `c = 0`, at cell centres along the other axes).
    fn apply_component(&self, spec: &GridSpec, c: usize, comp: &mut Grid3<f32>, dt: f32) {
        let extent = spec.extent().to_array();
        let axes = spec.dimension();
        let (dx, ni, nj) = (spec.dx, comp.ni, comp.nj);
        let at = |a: usize, n: usize| {
            let offset = if a == c { 0.0 } else { 0.5 };
            (n as f32 + offset) * dx
        };
        let sigma = |a: usize, n: usize| {
            if a < axes {
                self.sigma_along(a, at(a, n), extent[a])
            } else {
                0.0
            }
        };
        let along_x: Vec<f32> = (0..ni).map(|i| sigma(0, i)).collect();
        comp.data
            .par_chunks_mut(ni)
            .enumerate()
            .for_each(|(row, u)| {
                let (j, k) = (row % nj, row / nj);
                let across = sigma(1, j).max(sigma(2, k));
                for (u, &sx) in u.iter_mut().zip(&along_x) {
                    let s = sx.max(across);
                    if s > 0.0 {
                        *u /= 1.0 + s * dt;
                    }
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(faces: [bool; 6]) -> AbsorbingLayers {
        AbsorbingLayers {
            faces,
            width: 0.25,
            strength: 20.0,
        }
    }

    #[test]
    fn only_the_faces_in_the_layers_are_damped_and_more_so_nearer_the_wall() {
        let spec = GridSpec::new(40, 30, 1, 0.025);
        let mut vel = MacGrid::zeros(&spec);
        vel.u.data.fill(1.0);
        vel.v.data.fill(1.0);
        let x_sides = layers([true, true, false, false, false, false]);
        x_sides.apply(&spec, &mut vel, 0.01);
        let row = |g: &Grid3<f32>, j: usize| -> Vec<f32> {
            (0..g.ni).map(|i| g.data[g.index(i, j, 0)]).collect()
        };
        let u = row(&vel.u, 15);
        // the layers are 10 faces wide: the middle keeps its speed, the walls lose the most
        assert!(u[12..=28].iter().all(|&x| x == 1.0), "{u:?}");
        assert!(u[..10].windows(2).all(|w| w[0] < w[1]), "{u:?}");
        assert!(u[31..].windows(2).all(|w| w[0] > w[1]), "{u:?}");
        assert!(
            (u[0] - 1.0 / 1.2).abs() < 1e-6,
            "σ_max at the wall: {}",
            u[0]
        );
        // y is not absorbing: a column of v faces away from the x layers keeps its speed
        let v_mid: Vec<f32> = (0..vel.v.nj)
            .map(|j| vel.v.data[vel.v.index(20, j, 0)])
            .collect();
        assert!(v_mid.iter().all(|&x| x == 1.0), "{v_mid:?}");
        // symmetric about the middle
        let v = row(&vel.v, 3);
        for i in 0..v.len() {
            assert!(
                (v[i] - v[v.len() - 1 - i]).abs() < 1e-6,
                "v at i = {i}: {v:?}"
            );
        }
    }

    #[test]
    fn a_stronger_rate_or_a_longer_step_never_overshoots_rest() {
        let spec = GridSpec::new(16, 16, 16, 0.0625);
        let mut vel = MacGrid::zeros(&spec);
        vel.w.data.fill(-2.0);
        let mut all = layers([true; 6]);
        all.strength = 1e6;
        all.apply(&spec, &mut vel, 10.0);
        assert!(vel.w.data.iter().all(|&x| (-2.0..=0.0).contains(&x)));
        assert!(
            vel.w.data[vel.w.index(0, 0, 0)] > -1e-6,
            "the corner is stopped"
        );
    }

    #[test]
    fn inactive_layers_leave_the_velocity_alone() {
        let spec = GridSpec::new(8, 8, 1, 0.125);
        let mut vel = MacGrid::zeros(&spec);
        vel.u.data.fill(0.5);
        let before = vel.clone();
        let mut none = layers([false; 6]);
        none.apply(&spec, &mut vel, 0.1);
        none.faces[0] = true;
        none.width = 0.0;
        none.apply(&spec, &mut vel, 0.1);
        assert_eq!(vel, before);
    }
}

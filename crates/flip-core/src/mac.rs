use crate::grid::{Grid3, GridSpec};
use serde::{Deserialize, Serialize};

/// Velocity on a staggered (MAC) grid: `u` on x-faces `(ni+1, nj, nk)`, `v` on y-faces
/// `(ni, nj+1, nk)`, `w` on z-faces `(ni, nj, nk+1)`. In 2D `w` exists but stays zero.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct MacGrid {
    /// x-face velocities.
    pub u: Grid3<f32>,
    /// y-face velocities.
    pub v: Grid3<f32>,
    /// z-face velocities.
    pub w: Grid3<f32>,
}

impl MacGrid {
    /// Zero velocity on `spec`.
    pub fn zeros(spec: &GridSpec) -> Self {
        let (ni, nj, nk) = (spec.ni, spec.nj, spec.nk);
        Self {
            u: Grid3::new(ni + 1, nj, nk, 0.0),
            v: Grid3::new(ni, nj + 1, nk, 0.0),
            w: Grid3::new(ni, nj, nk + 1, 0.0),
        }
    }
    /// The three components, indexable by axis.
    pub fn axes(&self) -> [&Grid3<f32>; 3] {
        [&self.u, &self.v, &self.w]
    }
    /// The three components, mutable.
    pub fn axes_mut(&mut self) -> [&mut Grid3<f32>; 3] {
        [&mut self.u, &mut self.v, &mut self.w]
    }
    /// Largest absolute face velocity, or `None` if any face is not finite (the blow-up test).
    pub fn checked_max_abs(&self) -> Option<f32> {
        let mut faces = self.axes().into_iter().flat_map(|g| g.data.iter());
        faces.try_fold(0.0f32, |m, &x| x.is_finite().then(|| m.max(x.abs())))
    }
    /// Largest absolute face velocity.
    pub fn max_abs(&self) -> f32 {
        self.axes()
            .iter()
            .flat_map(|g| g.data.iter())
            .fold(0.0f32, |m, v| m.max(v.abs()))
    }
}

/// One flag per MAC face (same layout as [`MacGrid`]); 1 = set.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct MacMask {
    /// x-faces.
    pub u: Grid3<u8>,
    /// y-faces.
    pub v: Grid3<u8>,
    /// z-faces.
    pub w: Grid3<u8>,
}

impl MacMask {
    /// All faces cleared.
    pub fn zeros(spec: &GridSpec) -> Self {
        let (ni, nj, nk) = (spec.ni, spec.nj, spec.nk);
        Self {
            u: Grid3::new(ni + 1, nj, nk, 0),
            v: Grid3::new(ni, nj + 1, nk, 0),
            w: Grid3::new(ni, nj, nk + 1, 0),
        }
    }
    /// The three components.
    pub fn axes(&self) -> [&Grid3<u8>; 3] {
        [&self.u, &self.v, &self.w]
    }
    /// The three components, mutable.
    pub fn axes_mut(&mut self) -> [&mut Grid3<u8>; 3] {
        [&mut self.u, &mut self.v, &mut self.w]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_max_abs_finds_the_fastest_face_and_refuses_nan() {
        let spec = GridSpec::new(4, 4, 1, 0.25);
        let mut m = MacGrid::zeros(&spec);
        m.v[(1, 2, 0)] = -3.0;
        assert_eq!(m.checked_max_abs(), Some(3.0));
        m.u[(0, 0, 0)] = f32::NAN;
        assert_eq!(m.checked_max_abs(), None);
    }
}

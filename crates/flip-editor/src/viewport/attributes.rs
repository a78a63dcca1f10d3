//! What the particles are coloured by: speed, vorticity magnitude or pressure (sampled at the
//! particles from the grid values of the frame's end, [`crate::frames::grid_samples`]), or
//! particle id (`Particles::id`, kept by each particle for its life).

use crate::frames::FrameData;

/// The particle attribute the viewport colours by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorBy {
    /// |v| (m/s).
    #[default]
    Speed,
    /// |∇ × u| of the grid velocity (1/s).
    Vorticity,
    /// Pressure of the last solve (Pa).
    Pressure,
    /// Index in the particle list.
    ParticleId,
}

impl ColorBy {
    /// Every choice, for the combo box.
    pub const ALL: [ColorBy; 4] = [
        ColorBy::Speed,
        ColorBy::Vorticity,
        ColorBy::Pressure,
        ColorBy::ParticleId,
    ];

    /// Name in the combo box.
    pub fn label(self) -> &'static str {
        match self {
            ColorBy::Speed => "speed",
            ColorBy::Vorticity => "vorticity",
            ColorBy::Pressure => "pressure",
            ColorBy::ParticleId => "particle id",
        }
    }

    /// Unit shown on the legend.
    pub fn unit(self) -> &'static str {
        match self {
            ColorBy::Speed => "m/s",
            ColorBy::Vorticity => "1/s",
            ColorBy::Pressure => "Pa",
            ColorBy::ParticleId => "",
        }
    }
}

/// The values `by` selects for `f`'s points, mapped to `0..=1` over `lo..=hi`, with that
/// range (`speed_max`: the speed at the top of the scale). `None`: the frame lacks them.
pub fn normalized(f: &FrameData, by: ColorBy, speed_max: f32) -> Option<(Vec<f32>, f32, f32)> {
    let n = f.sample.points.len();
    let (values, lo, hi): (Vec<f32>, f32, f32) = match by {
        ColorBy::Speed => (f.sample.speeds.clone(), 0.0, speed_max),
        ColorBy::ParticleId => {
            // over every id given so far: a particle keeps its colour while others come and go
            let ids = f.sample.ids.iter().map(|&i| i as f32).collect();
            (ids, 0.0, f.sample.id_end.saturating_sub(1) as f32)
        }
        ColorBy::Vorticity | ColorBy::Pressure => {
            let samples = f.grid.at(&f.sample.points);
            let v = match by {
                ColorBy::Vorticity => &samples.vorticity,
                _ => &samples.pressure,
            };
            let lo = v.iter().copied().fold(f32::INFINITY, f32::min).min(0.0);
            let hi = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (v.clone(), lo, hi)
        }
    };
    if values.len() != n || n == 0 {
        return None;
    }
    let span = (hi - lo).max(1e-12);
    Some((values.iter().map(|v| (v - lo) / span).collect(), lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_particle_keeps_its_id_colour_when_others_are_removed() {
        let mut p = flip_core::Particles::default();
        for i in 0..5 {
            p.push(glam::Vec3::splat(i as f32), glam::Vec3::ZERO);
        }
        // the second to last particle (id 3) before and after two others go
        let colour_of_id_3 = |p: &flip_core::Particles| {
            let mut f = crate::frames::test_frame(0);
            f.sample = crate::frames::sample_particles(p);
            let (v, _, _) = normalized(&f, ColorBy::ParticleId, 1.0).unwrap();
            v[v.len() - 2]
        };
        let before = colour_of_id_3(&p);
        p.retain_mask(&[false, true, false, true, true]);
        assert_eq!(colour_of_id_3(&p), before);
        assert_eq!(before, 0.75);
    }
}

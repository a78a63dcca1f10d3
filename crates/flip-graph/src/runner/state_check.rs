//! The end-of-substep state check: blow-ups are refused, the CFL speed is measured.

use super::Simulation;
use crate::error::RunError;
use crate::value::Value;
use crate::window::is_ghost;

impl Simulation {
    /// Refuses a blown-up state; returns the particle count and the largest carried speed
    /// (particles and, for smoke, the grid velocity; in a window, the owned ones only).
    pub(super) fn check_state(&self, substep: u32) -> Result<(usize, f32), RunError> {
        let blow = |message: String| {
            Err(RunError::BlowUp {
                frame: self.frame,
                substep,
                message,
            })
        };
        let (mut count, mut speed) = (0, 0.0f32);
        for v in self.state.iter().flatten() {
            match v {
                Value::Particles(p) => {
                    // In a window only the owned particles count toward the CFL speed: a
                    // ghost copy near its outer faces moves by a partial transfer.
                    let windowed = self.window.is_some();
                    let Some(s) = p.checked_max_speed_of(|id| !(windowed && is_ghost(id))) else {
                        return blow("a particle position or velocity is not finite".into());
                    };
                    (count, speed) = (p.len(), speed.max(s));
                }
                Value::Velocity(f) => {
                    let Some(s) = f.vel.checked_max_abs() else {
                        return blow("the carried grid velocity is not finite".into());
                    };
                    let s = self.window.as_ref().map_or(s, |w| {
                        let faces = f.vel.axes().into_iter().flat_map(|g| w.owned_layers(g));
                        faces.fold(0.0f32, |m, v| m.max(v.abs()))
                    });
                    speed = speed.max(s);
                }
                Value::TallLiquid(l) => {
                    let fields = [&l.u, &l.v, &l.phi];
                    if !fields.iter().all(|f| f.iter().all(|x| x.is_finite())) {
                        return blow(
                            "the tall-cell liquid's velocity or level set is not finite".into(),
                        );
                    }
                    speed = speed.max(l.max_speed());
                }
                Value::Scalar(g) if !g.data.iter().all(|x| x.is_finite()) => {
                    return blow(
                        "a carried scalar field (density or temperature) is not finite".into(),
                    );
                }
                _ => {}
            }
        }
        let extent = self.settings.grid_spec().extent().max_element();
        if speed * (1.0 / self.settings.fps) > 100.0 * extent {
            return blow(format!(
                "speed {speed:.3e} m/s crosses the domain 100× per frame"
            ));
        }
        Ok((count, speed))
    }
}

//! The end-of-substep state check: blow-ups are refused, the CFL speed is measured, each
//! carried value by its data kind ([`crate::kind::KindOps::check`]).

use super::Simulation;
use crate::error::RunError;

impl Simulation {
    /// Refuses a blown-up state; returns the element count and the largest carried speed (in
    /// a window, of the owned part).
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
            match v.kind().ops().check(v, self.window.as_deref()) {
                Ok(m) => (count, speed) = (count + m.count, speed.max(m.speed)),
                Err(e) => return blow(e.0),
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

    /// The largest speed of the carried values, with values that are not finite left out
    /// (the speed of a state no check has measured yet: the first step's).
    pub(super) fn carried_speed(&self) -> f32 {
        let measured = self.state.iter().flatten();
        let speeds = measured.filter_map(|v| v.kind().ops().check(v, self.window.as_deref()).ok());
        speeds.fold(0.0f32, |s, m| s.max(m.speed))
    }
}

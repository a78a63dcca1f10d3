//! Particles carried between steps: finiteness and largest speed, checkpoints, and the
//! exchange between the windows of a decomposed run.

use super::PARTICLES;
use crate::decomposed::{exchange_particles, is_ghost, owned_count};
use flip_core::Particles;
use flip_graph::window::{ExchangeCounts, Window};
use flip_graph::{decode_state, encode_state, KindError, KindOps, Measure, Value};

pub(super) struct ParticleOps;

fn of(value: &Value) -> &Particles {
    value.get().expect("a particles value holds particles")
}

impl KindOps for ParticleOps {
    fn check(&self, value: &Value, window: Option<&Window>) -> Result<Measure, KindError> {
        let p = of(value);
        // In a window only the owned particles count toward the CFL speed: a ghost copy near
        // its outer faces moves by a partial transfer.
        let windowed = window.is_some();
        let Some(speed) = p.checked_max_speed_of(|id| !(windowed && is_ghost(id))) else {
            return Err(KindError(
                "a particle position or velocity is not finite".into(),
            ));
        };
        let count = if windowed { owned_count(p) } else { p.len() };
        Ok(Measure { count, speed })
    }

    fn encode(&self, value: &Value) -> Option<Vec<u8>> {
        encode_state(of(value)).ok()
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, KindError> {
        let p: Particles = decode_state(bytes).map_err(|e| KindError(e.to_string()))?;
        Ok(Value::new(PARTICLES, p))
    }

    fn held_bytes(&self, value: &Value) -> usize {
        let p = of(value);
        p.len() * 24 + p.affine.len() * 36 + p.viscosity.len() * 4
    }

    fn migrate(&self, value: &mut Value, window: &Window) -> Option<ExchangeCounts> {
        Some(exchange_particles(window, value.make_mut::<Particles>()?))
    }
}

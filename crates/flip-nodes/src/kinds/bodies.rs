//! The rigid bodies carried between steps: finiteness, largest speed, checkpoints.

use super::BODIES;
use flip_core::rigid::Bodies;
use flip_graph::window::Window;
use flip_graph::{decode_state, encode_state, KindError, KindOps, Measure, Value};

pub(super) struct BodiesOps;

fn of(value: &Value) -> &Bodies {
    value.get().expect("a bodies value holds bodies")
}

impl KindOps for BodiesOps {
    fn check(&self, value: &Value, _: Option<&Window>) -> Result<Measure, KindError> {
        let b = of(value);
        if !b.is_finite() {
            return Err(KindError("a rigid body's state is not finite".into()));
        }
        Ok(Measure {
            count: 0,
            speed: b.max_speed() as f32,
        })
    }

    fn encode(&self, value: &Value) -> Option<Vec<u8>> {
        encode_state(of(value)).ok()
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, KindError> {
        let b: Bodies = decode_state(bytes).map_err(|e| KindError(e.to_string()))?;
        Ok(Value::new(BODIES, b))
    }
}

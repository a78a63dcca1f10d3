//! The tall-cell liquid carried between steps: finiteness, largest speed, checkpoints.

use super::TALL_LIQUID;
use flip_core::tallcell::TallLiquid;
use flip_graph::window::Window;
use flip_graph::{decode_state, encode_state, KindError, KindOps, Measure, Value};

pub(super) struct TallLiquidOps;

fn of(value: &Value) -> &TallLiquid {
    value
        .get()
        .expect("a tall-cell liquid value holds a tall-cell liquid")
}

impl KindOps for TallLiquidOps {
    fn check(&self, value: &Value, _: Option<&Window>) -> Result<Measure, KindError> {
        let l = of(value);
        let fields = [&l.u, &l.v, &l.phi];
        if !fields.iter().all(|f| f.iter().all(|x| x.is_finite())) {
            return Err(KindError(
                "the tall-cell liquid's velocity or level set is not finite".into(),
            ));
        }
        Ok(Measure {
            count: 0,
            speed: l.max_speed(),
        })
    }

    fn encode(&self, value: &Value) -> Option<Vec<u8>> {
        encode_state(of(value)).ok()
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, KindError> {
        let l: TallLiquid = decode_state(bytes).map_err(|e| KindError(e.to_string()))?;
        Ok(Value::new(TALL_LIQUID, l))
    }
}

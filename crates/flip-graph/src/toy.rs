//! A toy data kind for the scheduler's own tests: a list of drops, carried between steps and
//! saved in checkpoints, counted by the state check.

use crate::kind::{DataKind, KindDesc, KindError, KindOps, Measure};
use crate::registry::NodeRegistry;
use crate::step::StateSlot;
use crate::value::Value;
use crate::window::Window;

/// Drops, one byte each.
pub(crate) type Drops = Vec<u8>;

struct DropOps;

impl KindOps for DropOps {
    fn check(&self, value: &Value, _: Option<&Window>) -> Result<Measure, KindError> {
        let count = value.get::<Drops>().map_or(0, Vec::len);
        Ok(Measure { count, speed: 0.0 })
    }
    fn encode(&self, value: &Value) -> Option<Vec<u8>> {
        value.get::<Drops>().cloned()
    }
    fn decode(&self, bytes: &[u8]) -> Result<Value, KindError> {
        Ok(Value::new(DROPS, bytes.to_vec()))
    }
}

/// The toy kind.
pub(crate) const DROPS: DataKind = DataKind::new(&KindDesc {
    id: "drops",
    name: "drops",
    ops: &DropOps,
});

/// A registry whose step pair carries `drops`, empty at the start.
pub(crate) fn registry() -> NodeRegistry {
    NodeRegistry::with_state(vec![StateSlot {
        name: "drops",
        kind: DROPS,
        start: Some(|| Value::new(DROPS, Drops::new())),
    }])
}

/// A second toy kind, never carried (a rate).
pub(crate) const RATE: DataKind = DataKind::new(&KindDesc {
    id: "rate",
    name: "rate",
    ops: &NoOps,
});

struct NoOps;

impl KindOps for NoOps {}

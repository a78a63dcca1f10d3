//! Data kinds: the type of a port, and what the runner needs from values of that type. The
//! scheduler knows no concrete kind; each is a `'static` [`KindDesc`] defined next to its data
//! (in a node crate), and [`DataKind`] is a copyable handle to it.

use crate::value::Value;
use crate::window::{ExchangeCounts, Window};
use std::fmt;
use std::hash::{Hash, Hasher};

/// What the runner needs from the values of a data kind carried from one step to the next.
/// Every method has a default for kinds that need nothing (values that are never carried).
pub trait KindOps: Send + Sync {
    /// The end-of-substep check of a carried value: what it counts toward the state's element
    /// count (in a window, the owned ones only) and its largest speed, or what is not finite.
    ///
    /// # Errors
    /// What is not finite (the runner reports a blow-up).
    fn check(&self, _value: &Value, _window: Option<&Window>) -> Result<Measure, KindError> {
        Ok(Measure::default())
    }

    /// The value's bytes for a checkpoint; `None`: not saved (restored as nothing).
    fn encode(&self, _value: &Value) -> Option<Vec<u8>> {
        None
    }

    /// A value back from what [`KindOps::encode`] wrote.
    ///
    /// # Errors
    /// Bytes of another layout.
    fn decode(&self, _bytes: &[u8]) -> Result<Value, KindError> {
        Err(KindError(
            "values of this kind are not saved in checkpoints".into(),
        ))
    }

    /// Bytes a held copy of the value costs (a snapshot's memory report).
    fn held_bytes(&self, _value: &Value) -> usize {
        0
    }

    /// Before a substep of a decomposed run: brings the value's ghost layers up to date from
    /// the neighbouring windows' owned ones. Collective: every rank holds the same kinds in the
    /// same slots.
    fn refresh_ghosts(&self, _value: &mut Value, _window: &Window) {}

    /// Before a substep of a decomposed run, after every value's [`KindOps::refresh_ghosts`]:
    /// moves what left this window's owned part to its new owner and refreshes ghost copies;
    /// returns what moved. Collective.
    fn migrate(&self, _value: &mut Value, _window: &Window) -> Option<ExchangeCounts> {
        None
    }
}

/// What is wrong with a value (not finite, or unreadable bytes), said in a sentence.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct KindError(pub String);

/// What [`KindOps::check`] measured of one carried value.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measure {
    /// Elements counted toward the state's size (a report's element count).
    pub count: usize,
    /// Largest speed (m/s), for the CFL step.
    pub speed: f32,
}

/// The static description of a data kind.
pub struct KindDesc {
    /// Stable id (unique among kinds).
    pub id: &'static str,
    /// Lowercase name for messages and the editor.
    pub name: &'static str,
    /// What the runner needs from its values.
    pub ops: &'static dyn KindOps,
}

/// Type of a port: a handle to a [`KindDesc`]. Edges connect only ports of the same kind; two
/// handles are the same kind when their ids are equal.
#[derive(Clone, Copy)]
pub struct DataKind(&'static KindDesc);

impl DataKind {
    /// The kind described by `desc`.
    pub const fn new(desc: &'static KindDesc) -> Self {
        Self(desc)
    }
    /// Stable id.
    pub fn id(self) -> &'static str {
        self.0.id
    }
    /// Lowercase name for messages and the editor.
    pub fn name(self) -> &'static str {
        self.0.name
    }
    /// What the runner needs from its values.
    pub fn ops(self) -> &'static dyn KindOps {
        self.0.ops
    }
}

impl PartialEq for DataKind {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for DataKind {}

impl Hash for DataKind {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id().hash(state);
    }
}

impl fmt::Debug for DataKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DataKind({})", self.id())
    }
}

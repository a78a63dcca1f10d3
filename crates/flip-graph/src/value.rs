use crate::kind::DataKind;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A value on an edge: its data kind and its data, shared (`Arc`) and copy-on-write: a node
/// that modifies its input calls [`Value::make_mut`], which copies only if another consumer
/// still holds the value.
#[derive(Clone)]
pub struct Value {
    kind: DataKind,
    data: Arc<dyn Any + Send + Sync>,
}

impl Value {
    /// A value of kind `kind` holding `data`.
    pub fn new<T: Any + Send + Sync>(kind: DataKind, data: T) -> Self {
        Self::shared(kind, Arc::new(data))
    }

    /// A value of kind `kind` sharing `data`.
    pub fn shared<T: Any + Send + Sync>(kind: DataKind, data: Arc<T>) -> Self {
        Self { kind, data }
    }

    /// The kind of this value.
    pub fn kind(&self) -> DataKind {
        self.kind
    }

    /// The data, if it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.data.downcast_ref()
    }

    /// The shared data, if it is a `T` (else the value back).
    ///
    /// # Errors
    /// The value itself when it holds no `T`.
    pub fn into_shared<T: Any + Send + Sync>(self) -> Result<Arc<T>, Self> {
        let kind = self.kind;
        self.data.downcast().map_err(|data| Self { kind, data })
    }

    /// A shared handle to the data, if the value is of kind `kind` and holds a `T`.
    pub fn shared_as<T: Any + Send + Sync>(&self, kind: DataKind) -> Option<Arc<T>> {
        if self.kind != kind {
            return None;
        }
        self.data.clone().downcast().ok()
    }

    /// The data for writing, if it is a `T`: copied first when another holder shares it
    /// (`Arc::make_mut`).
    pub fn make_mut<T: Any + Send + Sync + Clone>(&mut self) -> Option<&mut T> {
        if Arc::get_mut(&mut self.data).is_none() {
            let copy = self.get::<T>()?.clone();
            self.data = Arc::new(copy);
        }
        Arc::get_mut(&mut self.data)?.downcast_mut()
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Value({})", self.kind.name())
    }
}

/// A parameter value as written in a graph file: `true`, `0.95`, `[0.0, -9.81, 0.0]`,
/// `"mic0-pcg"`. The node's [`crate::ParamSpec`] says how it is read.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// A boolean.
    Bool(bool),
    /// A number (integers are numbers too).
    Number(f64),
    /// A vector.
    Vector(Vec<f64>),
    /// Text: a choice, a path, a solver name.
    Text(String),
}

impl ParamValue {
    /// As a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Number(x) => Some(*x),
            _ => None,
        }
    }
    /// As a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ParamValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// As text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParamValue::Text(s) => Some(s),
            _ => None,
        }
    }
    /// As a 3-vector (a 2-vector gets z = 0).
    pub fn as_vec3(&self) -> Option<glam::Vec3> {
        match self {
            ParamValue::Vector(v) if v.len() == 3 => {
                Some(glam::Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32))
            }
            ParamValue::Vector(v) if v.len() == 2 => {
                Some(glam::Vec3::new(v[0] as f32, v[1] as f32, 0.0))
            }
            _ => None,
        }
    }
    /// Short text for tables and the editor.
    pub fn display(&self) -> String {
        match self {
            ParamValue::Bool(b) => b.to_string(),
            ParamValue::Number(x) => format!("{x}"),
            ParamValue::Vector(v) => format!("{v:?}"),
            ParamValue::Text(s) => s.clone(),
        }
    }
}

/// Whole numbers are written as integers (`"sweeps": 2`, not `2.0`), so a graph saved
/// unchanged reads as it was written.
impl Serialize for ParamValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ParamValue::Bool(b) => s.serialize_bool(*b),
            ParamValue::Number(x) if x.fract() == 0.0 && x.abs() < 1e15 => {
                s.serialize_i64(*x as i64)
            }
            ParamValue::Number(x) => s.serialize_f64(*x),
            ParamValue::Vector(v) => v.serialize(s),
            ParamValue::Text(t) => s.serialize_str(t),
        }
    }
}

/// Parameters of a node by name (sorted, so files diff cleanly).
pub type ParamMap = BTreeMap<String, ParamValue>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_written_as_integers() {
        let text = |v: ParamValue| ron::to_string(&v).unwrap();
        assert_eq!(text(ParamValue::Number(2.0)), "2");
        assert_eq!(text(ParamValue::Number(-3.0)), "-3");
        assert_eq!(text(ParamValue::Number(0.95)), "0.95");
        assert_eq!(text(ParamValue::Vector(vec![0.0, -9.81])), "[0.0,-9.81]");
        let back: ParamValue = ron::from_str("2").unwrap();
        assert_eq!(back, ParamValue::Number(2.0));
    }
}

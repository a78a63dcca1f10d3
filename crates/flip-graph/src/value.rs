use flip_core::{CellGrid, Grid3, GridSpec, MacGrid, MacMask, Particles, Solids};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Type of a port. Edges connect only ports of the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DataKind {
    /// Marker particles.
    Particles,
    /// MAC velocity with its valid-face mask.
    Velocity,
    /// Cell kinds (fluid / air / solid).
    Cells,
    /// Liquid signed distance on cells.
    LevelSet,
    /// Solid geometry.
    Solids,
    /// A scalar field on cells (pressure in Pa).
    Scalar,
    /// Eulerian liquid on a tall-cell grid (grid, level set, velocity, pressure).
    TallLiquid,
}

impl DataKind {
    /// Lowercase name for messages and the editor.
    pub fn name(self) -> &'static str {
        match self {
            DataKind::Particles => "particles",
            DataKind::Velocity => "velocity",
            DataKind::Cells => "cells",
            DataKind::LevelSet => "level set",
            DataKind::Solids => "solids",
            DataKind::Scalar => "scalar field",
            DataKind::TallLiquid => "tall-cell liquid",
        }
    }
    /// Every kind, for palettes.
    pub const ALL: [DataKind; 7] = [
        DataKind::Particles,
        DataKind::Velocity,
        DataKind::Cells,
        DataKind::LevelSet,
        DataKind::Solids,
        DataKind::Scalar,
        DataKind::TallLiquid,
    ];
}

/// MAC velocity plus which faces hold meaningful values (from particles, projection or
/// extrapolation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VelocityField {
    /// Face velocities.
    pub vel: MacGrid,
    /// 1 where the face value is valid.
    pub valid: MacMask,
}

impl VelocityField {
    /// Zero velocity, nothing valid.
    pub fn zeros(spec: &GridSpec) -> Self {
        Self {
            vel: MacGrid::zeros(spec),
            valid: MacMask::zeros(spec),
        }
    }
}

/// A value on an edge. Shared (`Arc`) and copy-on-write: a node that modifies its input calls
/// `Arc::make_mut`, which copies only if another consumer still holds the value.
#[derive(Clone, Debug)]
pub enum Value {
    /// Particles.
    Particles(Arc<Particles>),
    /// Velocity.
    Velocity(Arc<VelocityField>),
    /// Cell kinds.
    Cells(Arc<CellGrid>),
    /// Liquid level set.
    LevelSet(Arc<Grid3<f32>>),
    /// Solids.
    Solids(Arc<Solids>),
    /// Scalar field.
    Scalar(Arc<Grid3<f32>>),
    /// Tall-cell liquid.
    TallLiquid(Arc<flip_core::tallcell::TallLiquid>),
}

impl Value {
    /// The kind of this value.
    pub fn kind(&self) -> DataKind {
        match self {
            Value::Particles(_) => DataKind::Particles,
            Value::Velocity(_) => DataKind::Velocity,
            Value::Cells(_) => DataKind::Cells,
            Value::LevelSet(_) => DataKind::LevelSet,
            Value::Solids(_) => DataKind::Solids,
            Value::Scalar(_) => DataKind::Scalar,
            Value::TallLiquid(_) => DataKind::TallLiquid,
        }
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

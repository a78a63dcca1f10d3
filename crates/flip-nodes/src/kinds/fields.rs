//! Grid fields carried between steps (a smoke's velocity, density and temperature):
//! finiteness and largest speed, checkpoints, and their ghost layers in a decomposed run.

use super::{SCALAR, VELOCITY};
use flip_core::{Grid3, GridSpec, MacGrid, MacMask};
use flip_graph::window::{refresh_grid, Window};
use flip_graph::{decode_state, encode_state, KindError, KindOps, Measure, Value};
use serde::{Deserialize, Serialize};

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

/// Bytes of a cell field of `f32`.
fn grid_bytes(g: &Grid3<f32>) -> usize {
    g.ni * g.nj * g.nk * 4
}

fn decoded<T: serde::de::DeserializeOwned + Send + Sync + 'static>(
    kind: flip_graph::DataKind,
    bytes: &[u8],
) -> Result<Value, KindError> {
    let data: T = decode_state(bytes).map_err(|e| KindError(e.to_string()))?;
    Ok(Value::new(kind, data))
}

pub(super) struct VelocityOps;

fn velocity(value: &Value) -> &VelocityField {
    value
        .get()
        .expect("a velocity value holds a velocity field")
}

impl KindOps for VelocityOps {
    fn check(&self, value: &Value, window: Option<&Window>) -> Result<Measure, KindError> {
        let f = velocity(value);
        let Some(s) = f.vel.checked_max_abs() else {
            return Err(KindError("the carried grid velocity is not finite".into()));
        };
        let speed = window.map_or(s, |w| {
            let faces = f.vel.axes().into_iter().flat_map(|g| w.owned_layers(g));
            faces.fold(0.0f32, |m, v| m.max(v.abs()))
        });
        Ok(Measure { count: 0, speed })
    }

    fn encode(&self, value: &Value) -> Option<Vec<u8>> {
        encode_state(velocity(value)).ok()
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, KindError> {
        decoded::<VelocityField>(VELOCITY, bytes)
    }

    fn held_bytes(&self, value: &Value) -> usize {
        let v = &velocity(value).vel;
        2 * (grid_bytes(&v.u) + grid_bytes(&v.v) + grid_bytes(&v.w))
    }

    fn refresh_ghosts(&self, value: &mut Value, window: &Window) {
        let Some(f) = value.make_mut::<VelocityField>() else {
            return;
        };
        for g in f.vel.axes_mut() {
            refresh_grid(window, g);
        }
        for g in f.valid.axes_mut() {
            refresh_grid(window, g);
        }
    }
}

pub(super) struct ScalarOps;

fn scalar(value: &Value) -> &Grid3<f32> {
    value.get().expect("a scalar value holds a grid")
}

impl KindOps for ScalarOps {
    fn check(&self, value: &Value, _: Option<&Window>) -> Result<Measure, KindError> {
        if !scalar(value).data.iter().all(|x| x.is_finite()) {
            return Err(KindError(
                "a carried scalar field (density or temperature) is not finite".into(),
            ));
        }
        Ok(Measure::default())
    }

    fn encode(&self, value: &Value) -> Option<Vec<u8>> {
        encode_state(scalar(value)).ok()
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, KindError> {
        decoded::<Grid3<f32>>(SCALAR, bytes)
    }

    fn held_bytes(&self, value: &Value) -> usize {
        grid_bytes(scalar(value))
    }

    fn refresh_ghosts(&self, value: &mut Value, window: &Window) {
        if let Some(g) = value.make_mut::<Grid3<f32>>() {
            refresh_grid(window, g);
        }
    }
}

/// Level sets are not carried between steps today; were one carried, its ghost layers would be
/// refreshed.
pub(super) struct LevelSetOps;

impl KindOps for LevelSetOps {
    fn refresh_ghosts(&self, value: &mut Value, window: &Window) {
        if let Some(g) = value.make_mut::<Grid3<f32>>() {
            refresh_grid(window, g);
        }
    }
}

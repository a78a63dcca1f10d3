//! Wind and drag force fields as a node plugin, after the FLIP Fluids add-on's force fields:
//! a field direction `F̂(x)` of one of three shapes,
//! - point: toward the centre `c`, `F̂ = (c − x)/|c − x|` (a negative strength pushes away);
//! - directional: a constant direction `d̂`;
//! - vortex: around the axis `d̂` through `c`, `F̂ = d̂ × (x − c) / |d̂ × (x − c)|`;
//!
//! scaled by a distance falloff `g(r) = (r_min / max(r, r_min))^p` within `r_max` (0 beyond;
//! `r` from the centre, from the axis for a vortex, and 0 for a directional field), and
//! applied to every face of the grid velocity either as an acceleration
//! (`u += dt·s·g·F̂`) or as drag toward the wind velocity `w = s·g·F̂` at rate `k`, integrated
//! exactly over the step (`u += (1 − e^{−k·dt})·(w − u)`, so no step size overshoots).
//!
//! Written against the public SDK only (`flip-sdk`), as a third party would.

use flip_sdk::node::{Context, DataKind, NodeInstance, NodeIo, NodeKind, NodePlugin, Port};
use flip_sdk::{ParamSchema, Params, SolveError};
use rayon::prelude::*;

/// The plugin.
pub struct Wind;

const PORTS: &[Port] = &[
    Port::input("velocity", DataKind::FaceVelocity, "grid velocity"),
    Port::output_from_input(
        "velocity",
        DataKind::FaceVelocity,
        "velocity with the field applied",
    ),
];

const PARAMS: &[ParamSchema] = &[
    ParamSchema::choice(
        "field",
        "Field",
        "shape of the field: toward a point, one direction, or swirling around an axis",
        &["point", "directional", "vortex"],
        1,
    ),
    ParamSchema::choice(
        "mode",
        "Mode",
        "force: an acceleration; drag: pulls the velocity toward the wind velocity",
        &["force", "drag"],
        0,
    ),
    ParamSchema::float(
        "strength",
        "Strength",
        "acceleration (m/s², force) or wind speed (m/s, drag)",
        5.0,
        -1000.0,
        1000.0,
    ),
    ParamSchema::float(
        "center_x",
        "Centre x",
        "field centre, x (m)",
        0.5,
        -1e4,
        1e4,
    ),
    ParamSchema::float(
        "center_y",
        "Centre y",
        "field centre, y (m)",
        0.5,
        -1e4,
        1e4,
    ),
    ParamSchema::float(
        "center_z",
        "Centre z",
        "field centre, z (m)",
        0.5,
        -1e4,
        1e4,
    ),
    ParamSchema::float(
        "direction_x",
        "Direction x",
        "direction (directional) or axis (vortex), x",
        1.0,
        -1.0,
        1.0,
    ),
    ParamSchema::float(
        "direction_y",
        "Direction y",
        "direction or axis, y",
        0.0,
        -1.0,
        1.0,
    ),
    ParamSchema::float(
        "direction_z",
        "Direction z",
        "direction or axis, z",
        0.0,
        -1.0,
        1.0,
    ),
    ParamSchema::float(
        "min_distance",
        "Min distance",
        "distance within which the falloff stays at full strength (m)",
        0.1,
        1e-4,
        1e4,
    ),
    ParamSchema::float(
        "max_distance",
        "Max distance",
        "distance beyond which the field is zero (m)",
        1e3,
        0.0,
        1e6,
    ),
    ParamSchema::float(
        "falloff",
        "Falloff power",
        "0: constant, 1: inverse distance, 2: inverse square",
        0.0,
        0.0,
        4.0,
    ),
    ParamSchema::float(
        "drag",
        "Drag rate",
        "drag mode: how fast the velocity approaches the wind (1/s)",
        2.0,
        0.0,
        1e4,
    ),
];

impl NodePlugin for Wind {
    const KINDS: &'static [NodeKind] = &[NodeKind {
        name: "force_field",
        label: "Force Field (plugin)",
        category: "Forces",
        help: "A point, directional or vortex field with distance falloff, applied to the grid \
               velocity as an acceleration or as drag toward the wind velocity (after the FLIP \
               Fluids force fields).",
        ports: PORTS,
        params: PARAMS,
        acceleration_hint: 0.0,
    }];

    fn create(_kind: &NodeKind, params: &Params) -> Result<Box<dyn NodeInstance>, SolveError> {
        let f = |n| params.float(n) as f32;
        let direction = [f("direction_x"), f("direction_y"), f("direction_z")];
        let len = length(direction);
        let shape = match params.choice("field") {
            "point" => Shape::Point,
            "vortex" => Shape::Vortex,
            _ => Shape::Directional,
        };
        if shape != Shape::Point && len == 0.0 {
            return Err(SolveError::BadValue(
                "direction_x, direction_y and direction_z are all 0: a directional or vortex \
                 field needs a direction"
                    .into(),
            ));
        }
        Ok(Box::new(Field {
            shape,
            drag: (params.choice("mode") == "drag").then(|| f("drag")),
            strength: f("strength"),
            center: [f("center_x"), f("center_y"), f("center_z")],
            direction: if len > 0.0 {
                direction.map(|x| x / len)
            } else {
                direction
            },
            min_distance: f("min_distance"),
            max_distance: f("max_distance"),
            falloff: f("falloff"),
        }))
    }
}

flip_sdk::export_node_plugin!(Wind, "wind", "Wind and drag force fields");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Point,
    Directional,
    Vortex,
}

struct Field {
    shape: Shape,
    /// Drag rate (1/s) in drag mode; `None`: force mode.
    drag: Option<f32>,
    strength: f32,
    center: [f32; 3],
    direction: [f32; 3],
    min_distance: f32,
    max_distance: f32,
    falloff: f32,
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn length(a: [f32; 3]) -> f32 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

impl Field {
    /// `s·g(r)·F̂(x)`: the acceleration (force mode) or wind velocity (drag mode) at `x`.
    fn at(&self, x: [f32; 3], is_2d: bool) -> [f32; 3] {
        let mut center = self.center;
        if is_2d {
            center[2] = 0.0;
        }
        let (dir, r) = match self.shape {
            Shape::Directional => (self.direction, 0.0),
            Shape::Point => {
                let to = sub(center, x);
                let r = length(to);
                (if r > 0.0 { to.map(|c| c / r) } else { [0.0; 3] }, r)
            }
            Shape::Vortex => {
                let t = cross(self.direction, sub(x, center));
                let r = length(t); // |d̂ × (x − c)|: the distance from the axis
                (if r > 0.0 { t.map(|c| c / r) } else { [0.0; 3] }, r)
            }
        };
        if r > self.max_distance {
            return [0.0; 3];
        }
        let gain = (self.min_distance / r.max(self.min_distance)).powf(self.falloff);
        dir.map(|c| self.strength * gain * c)
    }
}

impl NodeInstance for Field {
    fn eval(&mut self, ctx: &Context, io: &mut NodeIo<'_>) -> Result<(), SolveError> {
        let mut vel = io.output_velocity("velocity")?;
        let dims = ctx.dims;
        let is_2d = ctx.is_2d();
        let relax = self.drag.map(|k| 1.0 - (-k * ctx.dt).exp());
        for (a, comp) in vel.axes_mut().into_iter().enumerate().take(ctx.dimension) {
            let mut n = dims;
            n[a] += 1;
            comp.par_iter_mut().enumerate().for_each(|(i, u)| {
                let plane = n[0] * n[1];
                let (x, y, z) = (i % n[0], (i % plane) / n[0], i / plane);
                let field = self.at(ctx.face_center(a, x, y, z), is_2d)[a];
                match relax {
                    None => *u += ctx.dt * field,
                    Some(r) => *u += r * (field - *u),
                }
            });
        }
        Ok(())
    }
}

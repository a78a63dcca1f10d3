//! Gravity: `u += g·dt` on every face (Karlsson eq. 18).
use super::common::spec;
use crate::kinds::{TypedInputs, VELOCITY};
use crate::params::Params;
use crate::roles::{NodeRole, Traffic};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use glam::Vec3;
use rayon::prelude::*;
use std::sync::Arc;

struct Gravity {
    g: Vec3,
}

impl Node for Gravity {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        let Some(dt) = ctx.force_dt() else {
            io.set("velocity", Value::shared(VELOCITY, field));
            return Ok(());
        };
        let f = Arc::make_mut(&mut field);
        let axes = if ctx.grid.is_2d() { 2 } else { 3 };
        for (a, comp) in f.vel.axes_mut().into_iter().enumerate().take(axes) {
            let dv = self.g[a] * dt;
            if dv != 0.0 {
                comp.data.par_iter_mut().for_each(|u| *u += dv);
            }
        }
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }

    fn acceleration_hint(&self) -> f32 {
        self.g.length()
    }
}

/// The gravity node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "gravity",
        "Gravity",
        "Forces",
        "Adds a constant acceleration to the grid velocity (Karlsson eq. 18).",
        vec![PortSpec::new("velocity", VELOCITY, "grid velocity")],
        vec![PortSpec::new("velocity", VELOCITY, "accelerated velocity")],
        vec![ParamSpec::vec3(
            "gravity",
            "Gravity",
            "acceleration in m/s²",
            [0.0, -9.81, 0.0],
        )],
    )
    .with(NodeRole::Force)
    // one velocity component read and written
    .with(Traffic::new(0.0, 8.0))
    .with_live_params(&["gravity"]);
    NodeKind::new(
        s,
        Box::new(|init| {
            let g = Params(init.params).vec3("gravity")?;
            Ok(Box::new(Gravity { g }))
        }),
    )
}

//! Sink: removes the liquid inside a box, a sphere (disc in 2D) or an imported mesh, all of it
//! each step or at a rate (fraction per second), and reports how many particles left.
use super::common::spec;
use super::mesh_file;
use crate::kinds::{TypedInputs, PARTICLES};
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::SinkStats;
use flip_core::boundary::Sink;
use flip_core::{Shape, ShapeKind};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct SinkNode {
    sink: Sink,
}

impl SinkNode {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let center = p.vec3("center")?;
        let half = 0.5 * p.vec3("size")?;
        let kind = match p.text("shape")? {
            "box" => ShapeKind::Box {
                min: center - half,
                max: center + half,
            },
            "sphere" => ShapeKind::Sphere {
                center,
                radius: p.f32("radius")?,
            },
            _ => ShapeKind::Mesh(mesh_file::load(init)?),
        };
        let rate = p.f32("rate")?;
        let rate = match p.text("mode")? {
            "complete" => None,
            _ if !(rate >= 0.0 && rate.is_finite()) => {
                return Err(NodeError::param(
                    "rate",
                    format!("a sink's rate is a fraction per second ≥ 0, not {rate}"),
                ))
            }
            _ => Some(rate),
        };
        Ok(Self {
            sink: Sink {
                shape: Shape {
                    kind,
                    inverted: false,
                    shell: 0.0,
                    subtract: false,
                    placement: None,
                },
                rate,
            },
        })
    }
}

impl Node for SinkNode {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Err(WindowRefusal::WholeDomain)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let removed = {
            let ps = Arc::make_mut(&mut particles);
            self.sink.drain(&ctx.grid, ps, ctx.dt, ctx.step)
        };
        io.report(SinkStats { removed });
        io.set("particles", Value::shared(PARTICLES, particles));
        Ok(())
    }
}

/// The sink node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "sink",
        "Sink",
        "Liquid",
        "Removes the liquid inside a box, a sphere (disc in 2D) or an OBJ/STL mesh (inside by \
         its winding number): `complete` removes every particle inside each step, `rate` a \
         fraction per second (each particle inside leaves in a step with probability \
         1 − e^(−rate·dt), so the volume inside decays as dV/dt = −rate·V; rate 0 closes the \
         sink). The volume removed is reported per sink in the run's volume balance.",
        vec![PortSpec::new("particles", PARTICLES, "liquid particles")],
        vec![PortSpec::new("particles", PARTICLES, "what the sink left")],
        vec![
            ParamSpec::choice(
                "shape",
                "Shape",
                "where liquid is removed",
                &["box", "sphere", "mesh"],
                "box",
            ),
            ParamSpec::vec3("center", "Center", "centre (m)", [0.5, 0.1, 0.5]),
            ParamSpec::vec3("size", "Size", "box size (m)", [0.2, 0.1, 0.2]),
            ParamSpec::float("radius", "Radius", "sphere radius (m)", 0.1, 0.0, 1e3),
            ParamSpec::choice(
                "mode",
                "Mode",
                "remove everything inside, or a fraction per second",
                &["complete", "rate"],
                "complete",
            ),
            ParamSpec::float(
                "rate",
                "Rate",
                "fraction of the liquid inside removed per second (mode `rate`)",
                1.0,
                -1e9,
                1e9,
            ),
        ]
        .into_iter()
        .chain(mesh_file::params())
        .collect(),
    )
    .with(NodeRole::Sink);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(SinkNode::new(init)?))))
}

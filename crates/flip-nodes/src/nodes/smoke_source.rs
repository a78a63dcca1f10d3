//! Smoke source (Wave §2.1, "update sources"): each step raises density and temperature to
//! the source's values inside a box and may push the velocity there. Without a velocity input
//! (the first step) it starts the flow at rest.
use super::common::{check_grid, spec};
use crate::kinds::{TypedInputs, VelocityField, SCALAR, VELOCITY};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::smoke::{fill_box, set_velocity_box};
use flip_core::Grid3;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use glam::Vec3;
use std::sync::Arc;

struct SmokeSource {
    lo: Vec3,
    hi: Vec3,
    density: f32,
    temperature: f32,
    velocity: Vec3,
}

/// Input `name` or a zero field on the grid.
fn scalar_or_zero(
    io: &mut NodeIo,
    name: &str,
    ctx: &EvalCtx,
) -> Result<Arc<Grid3<f32>>, NodeError> {
    let g = &ctx.grid;
    Ok(io
        .scalar_opt(name)?
        .unwrap_or_else(|| Arc::new(Grid3::new(g.ni, g.nj, g.nk, 0.0))))
}

impl Node for SmokeSource {
    /// In a decomposed run the box is placed in the domain (shifted to window coordinates).
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let g = &ctx.grid;
        let origin = ctx.window.as_ref().map_or(Vec3::ZERO, |w| w.origin());
        let (lo, hi) = (self.lo - origin, self.hi - origin);
        let mut vel = io
            .velocity_opt("velocity")?
            .unwrap_or_else(|| Arc::new(VelocityField::zeros(g)));
        let mut density = scalar_or_zero(io, "density", ctx)?;
        let mut temperature = scalar_or_zero(io, "temperature", ctx)?;
        check_grid("density", &density, g)?;
        check_grid("temperature", &temperature, g)?;
        fill_box(g, Arc::make_mut(&mut density), lo, hi, self.density);
        fill_box(g, Arc::make_mut(&mut temperature), lo, hi, self.temperature);
        if self.velocity != Vec3::ZERO {
            let f = Arc::make_mut(&mut vel);
            set_velocity_box(g, &mut f.vel, lo, hi, self.velocity);
        }
        io.set("velocity", Value::shared(VELOCITY, vel));
        io.set("density", Value::shared(SCALAR, density));
        io.set("temperature", Value::shared(SCALAR, temperature));
        Ok(())
    }
}

/// The smoke source node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "smoke_source",
        "Smoke Source",
        "Smoke",
        "Emits smoke: raises density and temperature to the source's values inside a box every \
         step and optionally imposes a velocity there (Wave §2.1). Starts a flow at rest when \
         no velocity comes in.",
        vec![
            PortSpec::optional("velocity", VELOCITY, "grid velocity (none: at rest)"),
            PortSpec::optional("density", SCALAR, "smoke density (none: clear air)"),
            PortSpec::optional("temperature", SCALAR, "temperature above ambient"),
        ],
        vec![
            PortSpec::new("velocity", VELOCITY, "velocity with the source's push"),
            PortSpec::new("density", SCALAR, "density with the source"),
            PortSpec::new("temperature", SCALAR, "temperature with the source"),
        ],
        vec![
            ParamSpec::vec3(
                "center",
                "Center",
                "source box centre (m)",
                [0.5, 0.15, 0.5],
            ),
            ParamSpec::vec3("size", "Size", "source box size (m)", [0.2, 0.08, 0.2]),
            ParamSpec::float(
                "density",
                "Density",
                "smoke density inside the box",
                1.0,
                0.0,
                1e3,
            ),
            ParamSpec::float(
                "temperature",
                "Temperature",
                "temperature inside the box, in the buoyancy node's units",
                1.0,
                -1e4,
                1e4,
            ),
            ParamSpec::vec3(
                "velocity",
                "Velocity",
                "velocity imposed inside the box every step (m/s); zero leaves the flow alone",
                [0.0, 0.0, 0.0],
            ),
        ],
    )
    .with(NodeRole::GridSource);
    NodeKind::new(
        s,
        Box::new(|init| {
            let build = || -> Result<SmokeSource, NodeError> {
                let p = Params(init.params);
                let (center, size) = (p.vec3("center")?, p.vec3("size")?);
                Ok(SmokeSource {
                    lo: center - 0.5 * size,
                    hi: center + 0.5 * size,
                    density: p.f32("density")?,
                    temperature: p.f32("temperature")?,
                    velocity: p.vec3("velocity")?,
                })
            };
            Ok(Box::new(build()?))
        }),
    )
}

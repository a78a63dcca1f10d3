//! Grid advection (Wave §2.1.1 and §2.2): semi-Lagrangian transport of the velocity by itself
//! and of the smoke's density and temperature by the same (pre-advection) velocity, RK2
//! characteristics traced back from faces and cell centres.
use super::common::{check_grid, spec};
use crate::kinds::{TypedInputs, SCALAR, VELOCITY};
use crate::roles::NodeRole;
use flip_core::smoke::{advect_scalar, advect_velocity};
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec, Value, WindowRefusal};
use std::sync::Arc;

struct AdvectGrid;

impl Node for AdvectGrid {
    /// A backtrace reads at most `cfl` cells away, which the window's ghost layers allow for.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let field = io.velocity("velocity")?;
        let g = &ctx.grid;
        for name in ["density", "temperature"] {
            if let Some(s) = io.scalar_opt(name)? {
                check_grid(name, &s, g)?;
                let moved = advect_scalar(g, &s, &field.vel, ctx.dt);
                io.set(name, Value::shared(SCALAR, Arc::new(moved)));
            }
        }
        let mut out = (*field).clone();
        out.vel = advect_velocity(g, &field.vel, ctx.dt);
        io.set("velocity", Value::shared(VELOCITY, Arc::new(out)));
        Ok(())
    }
}

/// The grid advection node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "advect_grid",
        "Advect Grid",
        "Smoke",
        "Semi-Lagrangian advection on the grid (Wave §2.1.1, §2.2): the velocity by itself and \
         the optional density and temperature by the same velocity, RK2 characteristics.",
        vec![
            PortSpec::new("velocity", VELOCITY, "divergence-free grid velocity"),
            PortSpec::optional("density", SCALAR, "smoke density"),
            PortSpec::optional("temperature", SCALAR, "temperature"),
        ],
        vec![
            PortSpec::new("velocity", VELOCITY, "advected velocity"),
            PortSpec::new("density", SCALAR, "advected density (if connected)"),
            PortSpec::new("temperature", SCALAR, "advected temperature (if connected)"),
        ],
        vec![],
    )
    .with(NodeRole::Grid);
    NodeKind::new(s, Box::new(|_| Ok(Box::new(AdvectGrid))))
}

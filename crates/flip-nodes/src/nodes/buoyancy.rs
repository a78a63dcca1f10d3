//! Buoyancy (Wave §2.1.2, Bridson's signs for y up): `v += dt·(−α·s + β·(T − T_amb))` on the
//! y-faces, from the smoke density `s` and temperature `T` of the face's two cells.
use super::common::{check_grid, spec};
use crate::kinds::{TypedInputs, SCALAR, VELOCITY};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::smoke::add_buoyancy;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct Buoyancy {
    alpha: f32,
    beta: f32,
    ambient: f32,
}

impl Node for Buoyancy {
    /// A force per face from the cells beside it.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        let density = io.scalar("density")?;
        let temperature = io.scalar_opt("temperature")?;
        let g = &ctx.grid;
        check_grid("density", &density, g)?;
        if let Some(t) = &temperature {
            check_grid("temperature", t, g)?;
        }
        let Some(dt) = ctx.force_dt() else {
            io.set("velocity", Value::shared(VELOCITY, field));
            return Ok(());
        };
        let f = Arc::make_mut(&mut field);
        let coefficients = (self.alpha, self.beta, self.ambient);
        add_buoyancy(
            &mut f.vel,
            &density,
            temperature.as_deref(),
            coefficients,
            dt,
        );
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// The buoyancy node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "buoyancy",
        "Buoyancy",
        "Smoke",
        "Smoke's weight and lift (Wave §2.1.2): v += dt·(−α·density + β·(T − T_ambient)) on the \
         vertical faces; y is up.",
        vec![
            PortSpec::new("velocity", VELOCITY, "grid velocity"),
            PortSpec::new("density", SCALAR, "smoke density"),
            PortSpec::optional("temperature", SCALAR, "temperature (none: ambient)"),
        ],
        vec![PortSpec::new(
            "velocity",
            VELOCITY,
            "velocity with buoyancy",
        )],
        vec![
            ParamSpec::float(
                "alpha",
                "Density weight α",
                "sinking per unit density (m/s²)",
                0.1,
                0.0,
                1e3,
            ),
            ParamSpec::float(
                "beta",
                "Lift β",
                "rise per unit temperature above ambient (m/s²)",
                2.0,
                0.0,
                1e3,
            ),
            ParamSpec::float(
                "ambient",
                "Ambient temperature",
                "temperature of still air",
                0.0,
                -1e4,
                1e4,
            ),
        ],
    )
    .with(NodeRole::Force);
    NodeKind::new(
        s,
        Box::new(|init| {
            let p = Params(init.params);
            let read = |n: &str| p.f32(n);
            Ok(Box::new(Buoyancy {
                alpha: read("alpha")?,
                beta: read("beta")?,
                ambient: read("ambient")?,
            }))
        }),
    )
}

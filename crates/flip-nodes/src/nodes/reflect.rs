//! Advection–reflection (Zehnder, Narain & Thomaszewski 2018, "An advection-reflection solver
//! for detail-preserving fluid simulation", §3): substeps come in pairs of equal length. In the
//! first of a pair the particles take the reflected velocity `û = 2·P(ũ) − ũ` instead of the
//! projected `P(ũ)`, while they still move through `P(ũ)`; the second is an ordinary step.
//! The projection's energy loss (the part of `ũ` it removes) then becomes an energy-preserving
//! reflection: a rigid rotation keeps its speed instead of losing `1 − cos(ω·dt)` a step.
use super::common::{check_velocity_grid, spec};
use crate::kinds::{TypedInputs, VelocityField, VELOCITY};
use crate::roles::{MemoryModel, NodeRole, Traffic};
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec, Value, WindowRefusal};
use rayon::prelude::*;
use std::sync::Arc;

#[derive(Default)]
struct Reflect {
    /// Last reflection's field, reused when nothing else holds it.
    spare: Option<Arc<VelocityField>>,
}

/// `û = 2·projected − before` on every face; validity as `projected`'s. All three fields are on
/// the same grid.
fn reflect(projected: &VelocityField, before: &VelocityField, out: &mut VelocityField) {
    out.valid.clone_from(&projected.valid);
    let fields = projected.vel.axes().into_iter().zip(before.vel.axes());
    for (o, (p, b)) in out.vel.axes_mut().into_iter().zip(fields) {
        o.data
            .par_iter_mut()
            .zip(p.data.par_iter().zip(b.data.par_iter()))
            .with_min_len(4096)
            .for_each(|(u, (&p, &b))| *u = 2.0 * p - b);
    }
}

impl Node for Reflect {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn pairs_substeps(&self) -> bool {
        true
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let projected = io.velocity("velocity")?;
        let before = io.velocity("before")?;
        if ctx.substep % 2 == 1 {
            io.set("velocity", Value::shared(VELOCITY, projected));
            return Ok(());
        }
        check_velocity_grid("velocity", &projected, &ctx.grid)?;
        check_velocity_grid("before", &before, &ctx.grid)?;
        let mut field = match self.spare.take() {
            Some(f) if Arc::strong_count(&f) == 1 => f,
            _ => Arc::new(VelocityField::zeros(&ctx.grid)),
        };
        reflect(&projected, &before, Arc::make_mut(&mut field));
        self.spare = Some(field.clone());
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// The reflect node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "reflect",
        "Reflect",
        "Solve",
        "Advection–reflection (Zehnder et al. 2018): substeps in pairs; in the first of each \
         pair the particles take 2·velocity − before (the pressure solve's output reflected \
         about its input) instead of the projected velocity, so the projection no longer \
         drains the kinetic energy of rotating and swirling liquid. Forces and viscosity act \
         once a pair, in its second substep, over the pair. Wire the pressure solve's \
         output (extrapolated) to `velocity`, the pressure solve's input to `before`, and the \
         output to G2P's `velocity` only: advect with the projected velocity.",
        vec![
            PortSpec::new("velocity", VELOCITY, "projected velocity (extrapolated)"),
            PortSpec::new(
                "before",
                VELOCITY,
                "the velocity the pressure solve projected",
            ),
        ],
        vec![PortSpec::new(
            "velocity",
            VELOCITY,
            "reflected velocity in the first substep of a pair, else the projected one",
        )],
        vec![],
    )
    .with(NodeRole::Grid)
    // two velocity fields read, one written (in the reflecting substeps)
    .with(Traffic::new(0.0, 39.0))
    // the spare reflected field
    .with(MemoryModel::per_cell(15.0));
    NodeKind::new(s, Box::new(|_| Ok(Box::<Reflect>::default())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flip_core::GridSpec;

    #[test]
    fn the_reflection_mirrors_the_projection_about_its_input() {
        let spec = GridSpec::new(3, 2, 1, 0.1);
        let mut before = VelocityField::zeros(&spec);
        let mut projected = VelocityField::zeros(&spec);
        before.vel.u.data.iter_mut().for_each(|u| *u = 1.0);
        projected.vel.u.data.iter_mut().for_each(|u| *u = 0.25);
        projected.valid.u.data.iter_mut().for_each(|m| *m = 1);
        let mut out = VelocityField::zeros(&spec);
        reflect(&projected, &before, &mut out);
        // the projection took 0.75 away; the reflection takes it away twice
        assert!(out.vel.u.data.iter().all(|&u| u == -0.5));
        assert!(out.valid.u.data.iter().all(|&m| m == 1));
        assert!(out.vel.v.data.iter().all(|&v| v == 0.0));
    }
}

//! Velocity extrapolation into the air band, only on faces without a valid value
//! (Karlsson §4.3).
use super::common::{check_velocity_grid, spec};
use crate::kinds::{TypedInputs, VelocityField, LEVEL_SET, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::{NodeRole, Traffic};
use flip_core::extrapolate::extrapolate;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct Extrapolate {
    layers: usize,
}

impl Node for Extrapolate {
    /// Values travel `layers` faces into the air band.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(self.layers)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        let phi = io.level_set("level_set")?;
        let solids = io.solids_opt("solids")?;
        let f = Arc::make_mut(&mut field);
        if let Some(solids) = &solids {
            hold_solid_faces(solids, f);
        }
        if let Some(before) = io.velocity_opt("before")? {
            check_velocity_grid("before", &before, &ctx.grid)?;
            extrapolate_change(&ctx.grid, f, &before, &phi, self.layers);
        }
        extrapolate(&ctx.grid, &mut f.vel, &mut f.valid, &phi, self.layers);
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// Fills the invalid faces where `before` is valid with `before` plus the change of the
/// valid faces (`velocity − before`) extrapolated: a face the solve did not reach keeps its
/// own velocity and takes the nearby change, rather than its neighbours' velocity. Both fields
/// are on `grid`'s faces.
fn extrapolate_change(
    grid: &flip_core::GridSpec,
    f: &mut VelocityField,
    before: &VelocityField,
    phi: &flip_core::Grid3<f32>,
    layers: usize,
) {
    let mut change = f.clone();
    for (c, b) in change.vel.axes_mut().into_iter().zip(before.vel.axes()) {
        c.data.iter_mut().zip(&b.data).for_each(|(c, b)| *c -= b);
    }
    extrapolate(grid, &mut change.vel, &mut change.valid, phi, layers);
    let outs = f.vel.axes_mut().into_iter().zip(f.valid.axes_mut());
    let ins = change.vel.axes().into_iter().zip(change.valid.axes());
    let befores = before.vel.axes().into_iter().zip(before.valid.axes());
    for (((u, m), (d, dm)), (b, bm)) in outs.zip(ins).zip(befores) {
        let out = u.data.iter_mut().zip(m.data.iter_mut());
        let known = d.data.iter().zip(&dm.data).zip(b.data.iter().zip(&bm.data));
        for ((u, m), ((d, dm), (b, bm))) in out.zip(known) {
            if *m == 0 && *dm != 0 && *bm != 0 {
                (*u, *m) = (b + d, 1);
            }
        }
    }
}

/// No-slip walls: faces closed by a solid take the solid's velocity and count as valid, so
/// G2P reads the wall's velocity there rather than the liquid's, extrapolated.
fn hold_solid_faces(solids: &flip_core::Solids, f: &mut crate::kinds::VelocityField) {
    let moving = solids.velocity.as_ref().map(flip_core::MacGrid::axes);
    let open = solids.face_open.axes();
    for (a, (g, m)) in f
        .vel
        .axes_mut()
        .into_iter()
        .zip(f.valid.axes_mut())
        .enumerate()
    {
        if open[a].len() != g.len() {
            continue;
        }
        for (i, (u, valid)) in g.data.iter_mut().zip(m.data.iter_mut()).enumerate() {
            if open[a].data[i] <= 0.0 {
                *u = moving.map_or(0.0, |v| v[a].data[i]);
                *valid = 1;
            }
        }
    }
}

/// The extrapolation node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "extrapolate",
        "Extrapolate Velocity",
        "Grid",
        "Extends valid face velocities into faces that got no particle weight, along the \
         level-set normal (Karlsson §4.3); valid faces are never changed.",
        vec![
            PortSpec::new("velocity", VELOCITY, "grid velocity with valid mask"),
            PortSpec::new("level_set", LEVEL_SET, "liquid signed distance"),
            PortSpec::optional(
                "before",
                VELOCITY,
                "wired (the pressure solve's input): where it has a value, a face the solve did \
                 not reach gets that value plus the solve's change extrapolated, instead of the \
                 extrapolated velocity (FLIP particles at the surface then keep their own \
                 motion and take only the solve's change)",
            ),
            PortSpec::optional(
                "solids",
                SOLIDS,
                "wired: faces closed by solids keep the solid's velocity (no-slip walls, for \
                 viscous liquids); unwired: they are extrapolated like air faces (free slip)",
            ),
        ],
        vec![PortSpec::new("velocity", VELOCITY, "extrapolated velocity")],
        vec![ParamSpec::int(
            "layers",
            "Layers",
            "how many faces away from valid ones to fill",
            4,
            1,
            64,
        )],
    )
    .with(NodeRole::Grid)
    // velocity, validity and distance read, velocity written
    .with(Traffic::new(0.0, 31.0));
    NodeKind::new(
        s,
        Box::new(|init| {
            let layers = Params(init.params).usize("layers")?;
            Ok(Box::new(Extrapolate { layers }))
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use flip_core::{Grid3, GridSpec};

    /// Liquid in the left three columns of a 6 × 3 grid; `before` varies along x on every face,
    /// the solve changed the liquid's faces by +0.5 and left the others invalid.
    #[test]
    fn faces_the_solve_missed_keep_their_velocity_plus_the_extrapolated_change() {
        let spec = GridSpec::new(6, 3, 1, 0.1);
        let mut phi = Grid3::new(6, 3, 1, 0.0f32);
        for (c, p) in phi.data.iter_mut().enumerate() {
            *p = ((c % 6) as f32 - 2.5) * 0.1;
        }
        let mut before = VelocityField::zeros(&spec);
        let mut after = VelocityField::zeros(&spec);
        for (f, (b, a)) in before
            .vel
            .u
            .data
            .iter_mut()
            .zip(&mut after.vel.u.data)
            .enumerate()
        {
            let i = f % 7;
            *b = 0.1 * i as f32;
            if i <= 3 {
                *a = *b + 0.5;
            }
        }
        before.valid.u.data.fill(1);
        for (f, m) in after.valid.u.data.iter_mut().enumerate() {
            *m = u8::from(f % 7 <= 3);
        }
        let solved = after.clone();
        extrapolate_change(&spec, &mut after, &before, &phi, 4);
        for (f, (&u, &m)) in after.vel.u.data.iter().zip(&after.valid.u.data).enumerate() {
            let i = f % 7;
            assert_eq!(m, 1, "face {f} filled");
            if i <= 3 {
                assert_eq!(u, solved.vel.u.data[f], "a solved face is left alone");
            } else {
                // plain extrapolation would copy 0.8 (the last solved face) outwards
                assert!((u - (0.1 * i as f32 + 0.5)).abs() < 1e-6, "face {f}: {u}");
            }
        }
    }
}

//! Emitter: seeds jittered particles in a shape, never inside solids (Karlsson Alg. 1), once
//! or as a continuous source that tops up under-filled cells.
use super::common::spec;
use crate::decomposed::{number_new_particles, GHOST_ID_BIT};
use crate::kinds::{TypedInputs, PARTICLES, SOLIDS};
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::EmitStats;
use flip_core::emit::{emit, emit_in, EmitParams, EmitShape, WindowCells};
use flip_core::Particles;
use flip_graph::window::Window;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct Emitter {
    params: EmitParams,
    continuous: bool,
    start: u32,
    end: Option<u32>,
    seed: u64,
    /// The kinematic viscosity (m²/s) the emitted particles carry, when the emitter gives one.
    viscosity: Option<f32>,
}

impl Emitter {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let shape = match primitive(&p)? {
            Some(shape) => shape,
            None => EmitShape::Mesh(super::mesh_file::load(init)?),
        };
        check_inside(&shape, &init.settings.grid_spec())?;
        let per_cell = match p.usize("per_cell")? {
            0 if init.settings.grid[2] == 1 => 4,
            0 => 8,
            n => n,
        };
        let end = p.f32("end_frame")?;
        // Each emitter draws its own stream: the graph seed mixed with the node id.
        let seed = init
            .id
            .bytes()
            .fold(init.settings.seed ^ 0x9e37_79b9_7f4a_7c15, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
        Ok(Self {
            params: EmitParams {
                shape,
                per_cell,
                velocity: p.vec3("velocity")?,
                jitter: p.f32("jitter")?,
                top_up: p.text("mode")? == "continuous",
            },
            continuous: p.text("mode")? == "continuous",
            start: p.usize("start_frame")? as u32,
            end: (end >= 0.0).then_some(end as u32),
            seed,
            viscosity: particle_viscosity(&p)?,
        })
    }
}

/// The viscosity attribute the emitter gives, checked.
fn particle_viscosity(p: &Params<'_>) -> Result<Option<f32>, NodeError> {
    if !p.bool("set_viscosity")? {
        return Ok(None);
    }
    let nu = p.f32("viscosity")?;
    if !(nu.is_finite() && nu >= 0.0) {
        return Err(NodeError::param(
            "viscosity",
            format!("the particles' viscosity must be finite and not negative, not {nu}"),
        ));
    }
    Ok(Some(nu))
}

/// The box, sphere or half sphere of the parameters; `None` for a mesh (its file is needed).
fn primitive(p: &Params<'_>) -> Result<Option<EmitShape>, NodeError> {
    let center = p.vec3("center")?;
    let half = 0.5 * p.vec3("size")?;
    let radius = p.f32("radius")?;
    Ok(match p.text("shape")? {
        "box" => Some(EmitShape::Box {
            min: center - half,
            max: center + half,
        }),
        "sphere" => Some(EmitShape::Sphere { center, radius }),
        "mesh" => None,
        _ => Some(EmitShape::HalfSphere { center, radius }),
    })
}

/// The cheap check, before any node is created: a box or sphere outside the domain.
fn check(init: &NodeInit<'_>) -> Result<(), NodeError> {
    match primitive(&Params(init.params))? {
        Some(shape) => check_inside(&shape, &init.settings.grid_spec()),
        None => Ok(()),
    }
}

/// Lengths in metres, readable at any scale.
fn metres(v: &[f32]) -> String {
    let one = |x: &f32| {
        if *x == 0.0 || (0.01..1e5).contains(&x.abs()) {
            format!("{x:.3}")
        } else {
            format!("{x:.3e}")
        }
    };
    format!("[{}]", v.iter().map(one).collect::<Vec<_>>().join(", "))
}

/// Refuses a shape that holds no point of the domain: it would never emit anything.
fn check_inside(shape: &EmitShape, grid: &flip_core::GridSpec) -> Result<(), NodeError> {
    let (min, max, param) = match shape {
        EmitShape::Box { min, max } => (*min, *max, "size"),
        EmitShape::Sphere { center, radius } | EmitShape::HalfSphere { center, radius } => {
            (*center - *radius, *center + *radius, "radius")
        }
        EmitShape::Mesh(m) => {
            let (lo, hi) = m.0.bounds();
            (lo, hi, "mesh")
        }
    };
    if min.cmpgt(max).any() || !(min.is_finite() && max.is_finite()) {
        return Err(NodeError::param(param, "the shape is empty"));
    }
    let axes = grid.dimension();
    let extent = grid.extent();
    let outside = (0..axes).any(|a| max[a] <= 0.0 || min[a] >= extent[a]);
    if outside {
        return Err(NodeError::param(
            "center",
            format!(
                "the shape ({} to {} m) lies entirely outside the domain (0 to {} m)",
                metres(&min.to_array()[..axes]),
                metres(&max.to_array()[..axes]),
                metres(&extent.to_array()[..axes])
            ),
        ));
    }
    Ok(())
}

impl Node for Emitter {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        match self.viscosity {
            // the exchange between slabs carries positions, velocities and ids only
            Some(_) => Err(WindowRefusal::Setting(
                "the particles' viscosity (set_viscosity) is not carried between ranks",
            )),
            None => Ok(0),
        }
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let active = ctx.substep == 0
            && ctx.frame >= self.start
            && self.end.is_none_or(|e| ctx.frame <= e)
            && (self.continuous || ctx.frame == self.start);
        if active {
            let solids = io.solids("solids")?;
            let seed = self
                .seed
                .wrapping_add(u64::from(ctx.frame).wrapping_mul(0x2545_f491_4f6c_dd1d));
            let ps = Arc::make_mut(&mut particles);
            let added = match &ctx.window {
                Some(w) => emit_windowed(w, &ctx.grid, &solids, &self.params, seed, ps),
                None => emit(&ctx.grid, &solids, &self.params, seed, ps),
            };
            if let Some(nu) = self.viscosity {
                ps.set_viscosity_from(ps.len() - added, nu);
            }
            io.report(EmitStats { emitted: added });
        }
        io.set("particles", Value::shared(PARTICLES, particles));
        Ok(())
    }
}

/// Emits in a rank's window (collective): its owned cells get the ids a single-rank run gives
/// them (the ranks below emitted the ids before, counted by a global sum), its ghost cells
/// the same particles as ghosts, with their owners' ids, so the transfers near the slab faces
/// see every particle of the substep. Returns the owned particles emitted.
fn emit_windowed(
    w: &Window,
    grid: &flip_core::GridSpec,
    solids: &flip_core::Solids,
    params: &EmitParams,
    seed: u64,
    ps: &mut Particles,
) -> usize {
    let mut offset = [0; 3];
    offset[w.axis] = w.offset;
    let cells = |layers| WindowCells {
        offset,
        axis: w.axis,
        layers,
    };
    let owned = emit_in(grid, solids, params, seed, &cells(w.owned.clone()), ps);
    let first_id = number_new_particles(w, ps, owned);
    let next = ps.next_id;
    let (lo, hi) = w.ghost_layers();
    let layers = w.local.dims()[w.axis];
    // the ghost layers below are the top of the lower slab, whose particles came last before
    // this rank's; those above start the upper slab, right after this rank's
    let from = ps.len();
    let below = emit_in(grid, solids, params, seed, &cells(0..lo), ps) as u64;
    let above = from + below as usize;
    emit_in(grid, solids, params, seed, &cells(layers - hi..layers), ps);
    for (k, id) in ps.id[from..above].iter_mut().enumerate() {
        *id = (first_id - below + k as u64) | GHOST_ID_BIT;
    }
    for (k, id) in ps.id[above..].iter_mut().enumerate() {
        *id = (first_id + owned as u64 + k as u64) | GHOST_ID_BIT;
    }
    ps.next_id = next;
    owned
}

/// The emitter node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "emitter",
        "Emitter",
        "Source",
        "Seeds particles on a jittered sub-grid inside a box, sphere (disc in 2D), lower half \
         sphere or imported OBJ/STL mesh, skipping solids (Karlsson Alg. 1). `once` emits at the start frame; \
         `continuous` refills cells of the shape holding under half the particle count.",
        vec![
            PortSpec::new("particles", PARTICLES, "existing particles"),
            PortSpec::new(
                "solids",
                SOLIDS,
                "no particle is placed inside these",
            ),
        ],
        vec![PortSpec::new(
            "particles",
            PARTICLES,
            "particles with the new ones",
        )],
        vec![
            ParamSpec::choice(
                "shape",
                "Shape",
                "region to fill",
                &["box", "sphere", "half_sphere", "mesh"],
                "box",
            ),
            ParamSpec::vec3(
                "center",
                "Center",
                "centre of the shape (m)",
                [0.25, 0.5, 0.5],
            ),
            ParamSpec::vec3("size", "Size", "box size (m)", [0.5, 1.0, 1.0]),
            ParamSpec::float("radius", "Radius", "sphere radius (m)", 0.2, 0.0, 1e3),
            ParamSpec::int(
                "per_cell",
                "Particles per cell",
                "0 = 4 in 2D, 8 in 3D",
                0,
                0,
                64,
            ),
            ParamSpec::vec3(
                "velocity",
                "Velocity",
                "initial velocity (m/s)",
                [0.0, 0.0, 0.0],
            ),
            ParamSpec::float(
                "jitter",
                "Jitter",
                "random offset within a sub-cell, 0..1",
                1.0,
                0.0,
                1.0,
            ),
            ParamSpec::choice(
                "mode",
                "Mode",
                "emit once or keep the source full",
                &["once", "continuous"],
                "once",
            ),
            ParamSpec::int(
                "start_frame",
                "Start frame",
                "first frame that emits",
                0,
                0,
                1_000_000,
            ),
            ParamSpec::int(
                "end_frame",
                "End frame",
                "last frame that emits (-1 = no end)",
                -1,
                -1,
                1_000_000,
            ),
            ParamSpec::bool(
                "set_viscosity",
                "Set viscosity",
                "give the emitted particles their own viscosity (the `viscosity` attribute), \
                 read by the Particle viscosity node",
                false,
            ),
            ParamSpec::float(
                "viscosity",
                "Viscosity (m²/s)",
                "the particles' kinematic viscosity when Set viscosity is on: water 1e-6, honey \
                 1e-2 to 1e-1",
                0.1,
                0.0,
                1e4,
            ),
        ]
        .into_iter()
        .chain(super::mesh_file::params())
        .collect(),
    )
    .with(NodeRole::Emitter);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(Emitter::new(init)?)))).with_check(Box::new(check))
}

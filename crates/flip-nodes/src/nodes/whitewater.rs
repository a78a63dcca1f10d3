//! Whitewater (Ihmsen et al. 2012): diffuse spray, foam and bubbles made from the liquid at the
//! end of each frame and carried one way through it. Reads the liquid, never changes it.
use super::common::{check_grid, spec};
use crate::kinds::{TypedInputs, DIFFUSE, LEVEL_SET, PARTICLES, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::WhitewaterStats;
use flip_core::whitewater::{advance_frame, Diffuse, LiquidFrame, WhitewaterParams};
use flip_graph::{
    decode_state, encode_state, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, NodeState,
    ParamSpec, PortSpec, Value,
};
use std::sync::Arc;

/// The output port of the diffuse particles.
pub const DIFFUSE_OUT: &str = "diffuse";

struct Whitewater {
    params: WhitewaterParams,
    diffuse: Arc<Diffuse>,
    /// Simulation time of the last frame's end: a frame's whitewater covers the time since.
    last_time: f64,
}

/// What a checkpoint keeps.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    diffuse: Diffuse,
    last_time: f64,
}

impl Node for Whitewater {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles("particles")?;
        let velocity = io.velocity("velocity")?;
        let level_set = io.level_set("level_set")?;
        let solids = io.solids_opt("solids")?;
        check_grid("level_set", &level_set, &ctx.grid)?;
        if ctx.frame_end {
            // The frame's nominal end, not the substeps' sum: a re-bake from cached frames
            // (one step a frame) then covers exactly the same times as the inline run.
            let end = f64::from(ctx.frame + 1) / f64::from(ctx.settings.fps);
            let dt = (end - self.last_time) as f32;
            self.last_time = end;
            self.params.seed = ctx.settings.seed;
            let liquid = LiquidFrame {
                spec: &ctx.grid,
                particles: &particles,
                velocity: &velocity.vel,
                level_set: &level_set,
                solids: solids.as_deref(),
            };
            let diffuse = Arc::make_mut(&mut self.diffuse);
            let report = advance_frame(&liquid, &self.params, diffuse, u64::from(ctx.frame), dt);
            io.report(WhitewaterStats::new(diffuse, &report));
        }
        io.set(DIFFUSE_OUT, Value::shared(DIFFUSE, self.diffuse.clone()));
        Ok(())
    }

    fn reset(&mut self) {
        self.diffuse = Arc::default();
        self.last_time = 0.0;
    }

    fn save_state(&mut self) -> Result<NodeState, NodeError> {
        Ok(NodeState {
            bytes: encode_state(&Saved {
                diffuse: (*self.diffuse).clone(),
                last_time: self.last_time,
            })?,
            incomplete: None,
        })
    }

    fn load_state(&mut self, state: &[u8]) -> Result<(), NodeError> {
        if state.is_empty() {
            self.reset();
            return Ok(());
        }
        let saved: Saved = decode_state(state)?;
        self.diffuse = Arc::new(saved.diffuse);
        self.last_time = saved.last_time;
        Ok(())
    }
}

/// A `[min, max]` clamping range from parameters `<name>_min` and `<name>_max`.
fn range(p: &Params, name: &str) -> Result<[f32; 2], NodeError> {
    let (lo, hi) = (
        p.f32(&format!("{name}_min"))?,
        p.f32(&format!("{name}_max"))?,
    );
    if lo < hi {
        Ok([lo, hi])
    } else {
        Err(NodeError::param(
            &format!("{name}_max"),
            format!("must exceed `{name}_min` ({lo})"),
        ))
    }
}

fn params(init: &NodeInit<'_>) -> Result<WhitewaterParams, NodeError> {
    let p = Params(init.params);
    Ok(WhitewaterParams {
        trapped_air: range(&p, "trapped_air")?,
        wave_crest: range(&p, "wave_crest")?,
        energy: range(&p, "energy")?,
        k_trapped_air: p.f32("trapped_air_rate")?,
        k_wave_crest: p.f32("wave_crest_rate")?,
        emit_depth: p.f32("emit_depth")?,
        radius: p.f32("emit_radius")?,
        foam_band: p.f32("foam_band")?,
        lifetime: p.f32("foam_lifetime")?,
        bubble_buoyancy: p.f32("bubble_buoyancy")?,
        bubble_drag: p.f32("bubble_drag")?,
        spray_drag: p.f32("spray_drag")?,
        gravity: p.vec3("gravity")?,
        max_particles: p.usize("max_particles")?,
        seed: 0,
    })
}

/// The clamping range `[min, max]` of one potential as two parameters.
fn range_params(name: &str, label: &str, what: &str, [lo, hi]: [f32; 2]) -> [ParamSpec; 2] {
    let help = |end: &str| format!("{what}: {end} of the clamping range (Ihmsen et al. eq. 1)");
    [
        ParamSpec::float(
            &format!("{name}_min"),
            &format!("{label} min"),
            &help("lower end"),
            lo.into(),
            0.0,
            1e6,
        ),
        ParamSpec::float(
            &format!("{name}_max"),
            &format!("{label} max"),
            &help("upper end"),
            hi.into(),
            0.0,
            1e6,
        ),
    ]
}

fn param_specs() -> Vec<ParamSpec> {
    let d = WhitewaterParams::default();
    let f = |name, label, help, value: f32, max| {
        ParamSpec::float(name, label, help, value.into(), 0.0, max)
    };
    let mut out = Vec::new();
    out.extend(range_params(
        "trapped_air",
        "Trapped air",
        "trapped-air potential (m/s)",
        d.trapped_air,
    ));
    out.extend(range_params(
        "wave_crest",
        "Wave crest",
        "wave-crest curvature",
        d.wave_crest,
    ));
    out.extend(range_params(
        "energy",
        "Energy",
        "kinetic energy per kg (J/kg)",
        d.energy,
    ));
    out.extend([
        f(
            "trapped_air_rate",
            "Trapped-air rate",
            "particles per second a liquid particle emits at full trapped-air potential (k_ta)",
            d.k_trapped_air,
            1e6,
        ),
        f(
            "wave_crest_rate",
            "Wave-crest rate",
            "particles per second at full wave-crest potential (k_wc)",
            d.k_wave_crest,
            1e6,
        ),
        f(
            "emit_depth",
            "Emit depth",
            "liquid emits down to this many cells below the surface",
            d.emit_depth,
            100.0,
        ),
        f(
            "emit_radius",
            "Emit radius",
            "radius of the emission cylinder around a liquid particle, in cells",
            d.radius,
            10.0,
        ),
        f(
            "foam_band",
            "Foam band",
            "foam lies within this many cells of the surface; above is spray, below are bubbles",
            d.foam_band,
            100.0,
        ),
        f(
            "foam_lifetime",
            "Foam lifetime",
            "seconds a foam particle lives",
            d.lifetime,
            1e4,
        ),
        f(
            "bubble_buoyancy",
            "Bubble buoyancy",
            "bubble buoyancy as a multiple of gravity (k_b)",
            d.bubble_buoyancy,
            1e3,
        ),
        f(
            "bubble_drag",
            "Bubble drag",
            "rate (1/s) at which bubbles take the liquid's velocity (k_d)",
            d.bubble_drag,
            1e4,
        ),
        f(
            "spray_drag",
            "Spray drag",
            "air drag on spray (1/s)",
            d.spray_drag,
            1e4,
        ),
    ]);
    let g = d.gravity;
    out.push(ParamSpec::vec3(
        "gravity",
        "Gravity",
        "acceleration in m/s² (spray falls, bubbles rise against it)",
        [g.x.into(), g.y.into(), g.z.into()],
    ));
    out.push(ParamSpec::int(
        "max_particles",
        "Max particles",
        "most diffuse particles alive at once; births beyond are left out",
        d.max_particles as i64,
        0,
        1 << 31,
    ));
    out
}

/// The whitewater node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "whitewater",
        "Whitewater",
        "Particles",
        "Spray, foam and bubbles (Ihmsen et al. 2012): at each frame's end the liquid's \
         particles emit diffuse particles by their trapped-air, wave-crest and kinetic-energy \
         potentials; each is then spray above the surface (ballistic), foam at it (carried, \
         ageing) or a bubble below it (buoyant), by the level set. Never changes the liquid.",
        vec![
            PortSpec::new(
                "particles",
                PARTICLES,
                "the liquid's particles at the end of the step",
            ),
            PortSpec::new(
                "velocity",
                VELOCITY,
                "the liquid's grid velocity, extrapolated",
            ),
            PortSpec::new("level_set", LEVEL_SET, "the liquid's signed distance"),
            PortSpec::optional(
                "solids",
                SOLIDS,
                "diffuse particles entering a solid are removed",
            ),
        ],
        vec![PortSpec::new(DIFFUSE_OUT, DIFFUSE, "the diffuse particles")],
        param_specs(),
    )
    .with(NodeRole::Whitewater);
    NodeKind::new(
        s,
        Box::new(|init| {
            Ok(Box::new(Whitewater {
                params: params(init)?,
                diffuse: Arc::default(),
                last_time: 0.0,
            }))
        }),
    )
}

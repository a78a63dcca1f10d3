//! The tall-cell liquid's source: builds the grid (2D, or 3D when `settings.grid` has more
//! than one cell along z) over a terrain (a function or a PNG height map) and the water below
//! a level (optionally with a standing wave, or held in a corner behind a dam that is
//! released at the first step: the paper's Flood) at the first step, then passes the carried
//! liquid through.
use crate::kinds::{TypedInputs, TALL_LIQUID};
use crate::nodes::common::spec;
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::tallcell::{terrain, TallGrid, TallLiquid, Terrain};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::sync::Arc;

struct Source {
    initial: Arc<TallLiquid>,
}

impl Node for Source {
    fn eval(&mut self, _: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let liquid = io
            .tall_liquid_opt("tall_liquid")?
            .unwrap_or_else(|| self.initial.clone());
        io.set("tall_liquid", Value::shared(TALL_LIQUID, liquid));
        Ok(())
    }
}

/// Terrain heights (whole cells per column, fractional per face) from the parameters.
fn terrain_of(init: &NodeInit<'_>, g: &flip_core::GridSpec) -> Result<Terrain, NodeError> {
    let p = Params(init.params);
    let (base, amp) = (p.f32("terrain_height")?, p.f32("terrain_amplitude")?);
    let (width, depth) = (g.ni as f32 * g.dx, g.nk as f32 * g.dx);
    let (top, columns) = (g.nj.saturating_sub(4), [g.ni, g.nk]);
    let tau = std::f32::consts::TAU;
    match p.text("terrain")? {
        "flat" => Ok(terrain::from_map(columns, g.dx, top, |_, _| base)),
        "hills" if g.is_2d() => Ok(terrain::from_fn(g.ni, g.dx, top, |x| {
            let t = tau * x / width;
            base + amp * (0.6 * (3.0 * t).sin() + 0.4 * (7.0 * t).cos())
        })),
        "hills" => Ok(terrain::from_map(columns, g.dx, top, |x, z| {
            let (t, u) = (tau * x / width, tau * z / depth);
            base + amp * (0.6 * (3.0 * t).sin() * (2.0 * u).cos() + 0.4 * (5.0 * t + 3.0 * u).cos())
        })),
        _ => {
            let file = init.base_dir.join(p.text("terrain_png")?);
            terrain::from_png(&file, columns, g.dx, top, base + amp)
                .map_err(|e| NodeError::param("terrain_png", e))
        }
    }
}

/// The initial water: below `water_level` with a standing wave, or (a dam fraction below 1)
/// a block in the low-x, low-z corner, dry elsewhere.
fn water(grid: TallGrid, p: &Params<'_>) -> Result<TallLiquid, NodeError> {
    let (level, amp) = (p.f32("water_level")?, p.f32("wave_amplitude")?);
    let dam = [p.f32("dam_x")?, p.f32("dam_z")?];
    let [nx, nz] = grid.columns.map(|n| n as f32 * grid.dx);
    if dam.iter().all(|&f| f >= 1.0) {
        let k = std::f32::consts::PI / nx;
        return Ok(TallLiquid::below(grid, |x| level + amp * (k * x).cos()));
    }
    let (xd, zd) = (dam[0] * nx, if grid.is_3d() { dam[1] * nz } else { nz });
    Ok(TallLiquid::from_level_set(grid, |[x, y, z]| {
        (y - level).max(x - xd).max(z - zd)
    }))
}

fn create(init: &NodeInit<'_>) -> Result<Source, NodeError> {
    let g = init.settings.grid_spec();
    let p = Params(init.params);
    let regular = p.bool("tall_cells")?.then_some(p.usize("regular_layers")?);
    let grid = TallGrid::new(
        g.nj,
        g.dx,
        terrain_of(init, &g)?,
        regular,
        p.usize("max_step")?,
    )
    .map_err(|e| NodeError::param("regular_layers", e))?;
    Ok(Source {
        initial: Arc::new(water(grid, &p)?),
    })
}

/// A dam fraction parameter.
fn dam(name: &str, label: &str, axis: &str) -> ParamSpec {
    ParamSpec::float(
        name,
        label,
        &format!(
            "below 1: the water fills only this fraction of the domain along {axis} (from 0), \
             held by a dam that is released at the first step (Flood)"
        ),
        1.0,
        0.01,
        1.0,
    )
}

/// The tall-cell source node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "tallcell_source",
        "Tall-Cell Liquid",
        "Tall cells",
        "Water on a restricted tall-cell grid (Chentanez & Müller 2011): columns along x (2D) \
         or on the x-z map of settings.grid (3D), each holding the terrain, one tall cell and \
         `regular_layers` cells; neighbouring tall cells differ by at most `max_step` cells. \
         Builds the liquid below `water_level` at the first step (a cosine standing wave of \
         `wave_amplitude` on top; or, with `dam_x`/`dam_z` below 1, only in the low corner, \
         released at once), then passes the carried liquid through. `tall_cells = false` makes a regular grid of the same columns.",
        vec![PortSpec::optional(
            "tall_liquid",
            TALL_LIQUID,
            "the liquid carried from the previous step (from step_input)",
        )],
        vec![super::port("the liquid")],
        vec![
            ParamSpec::choice(
                "terrain",
                "Terrain",
                "terrain height map",
                &["flat", "hills", "png"],
                "hills",
            ),
            ParamSpec::float(
                "terrain_height",
                "Terrain height (m)",
                "mean terrain height (png: black)",
                0.1,
                0.0,
                1e4,
            ),
            ParamSpec::float(
                "terrain_amplitude",
                "Terrain amplitude (m)",
                "hills: amplitude; png: white is height + amplitude",
                0.05,
                0.0,
                1e4,
            ),
            ParamSpec::path(
                "terrain_png",
                "Terrain PNG",
                "greyscale height map (2D: its middle row), relative to the graph file",
                "",
            ),
            ParamSpec::float(
                "water_level",
                "Water level (m)",
                "initial surface height",
                0.5,
                0.0,
                1e4,
            ),
            ParamSpec::float(
                "wave_amplitude",
                "Wave amplitude (m)",
                "amplitude of the first sloshing mode on the initial surface",
                0.0,
                0.0,
                1e3,
            ),
            dam("dam_x", "Dam x", "x"),
            dam("dam_z", "Dam z", "z (3D)"),
            ParamSpec::bool(
                "tall_cells",
                "Tall cells",
                "false: a regular grid (every column all regular cells)",
                true,
            ),
            ParamSpec::int(
                "regular_layers",
                "Regular layers",
                "regular cells per column (the paper's B_y)",
                8,
                2,
                512,
            ),
            ParamSpec::int(
                "max_step",
                "Max step D",
                "largest height difference of neighbouring tall cells, cells",
                2,
                1,
                512,
            ),
        ],
    )
    .with(NodeRole::GridSource);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(create(init)?))))
}

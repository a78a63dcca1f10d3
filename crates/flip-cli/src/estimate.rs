//! Memory and disk a run will need, predicted from the graph, and the check before every run
//! that refuses (exit 5) a run this machine cannot hold instead of dying inside an allocation.
//!
//! The model: the process as it stands (binary, plugins), plus per cell the fields every node
//! outputs and keeps (MAC velocity 5 B a face, level set or scalar 4 B, cell kinds 1 B, solids
//! 4 B and 4 B a face)
//! and the solve nodes' systems, plus per particle its position and velocity (24 B, 60 B with
//! APIC) in the copies a step holds. Particle counts come from the emitters' shapes.

use crate::exit::{fail, ExitStatus};
use crate::limits::{available_memory, current_rss};
use anyhow::{anyhow, Result};
use flip_graph::{compile, DataKind, ExecPlan, GraphDoc, NodeRegistry};
use flip_nodes::params::Params;
use flip_nodes::roles::{FrameWrites, KindFacts, NodeRole};
use serde::Serialize;

/// Bytes per cell of an output of each kind; `faces` is the MAC faces per cell (3 in 3D; 4 in
/// 2D, where the z faces are two layers).
fn output_bytes(kind: DataKind, faces: f64) -> f64 {
    use flip_nodes::kinds::{CELLS, LEVEL_SET, SCALAR, SOLIDS, TALL_LIQUID, VELOCITY};
    if kind == VELOCITY {
        // an f32 and a validity byte per face
        5.0 * faces
    } else if kind == LEVEL_SET || kind == SCALAR {
        4.0
    } else if kind == CELLS {
        1.0
    } else if kind == SOLIDS {
        // distance per cell, open fraction per face (velocity only for moving solids)
        4.0 + 4.0 * faces
    } else if kind == TALL_LIQUID {
        // φ, u, v and pressure at the samples (at most one per cell)
        16.0
    } else {
        // particles are counted by the particle budget; other kinds hold no grid
        0.0
    }
}

/// What running adds before the first cell: the worker threads' stacks and allocator arenas.
const RUNTIME_BYTES: f64 = 2.5 * 1024.0 * 1024.0;

/// Live copies of the particles during a step (the carried state and a node's copy).
const PARTICLE_COPIES: f64 = 2.0;

/// What a graph needs.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    /// Grid cells.
    pub cells: usize,
    /// Particles at the fullest (emitters' shapes filled; continuous ones counted twice).
    pub particles: usize,
    /// Memory of the process before the simulation is built (bytes).
    pub baseline_bytes: u64,
    /// Predicted peak resident memory (bytes).
    pub memory_bytes: u64,
    /// Disk per frame, upper bound (bytes).
    pub disk_per_frame_bytes: u64,
    /// Size of one checkpoint (bytes).
    pub checkpoint_bytes: u64,
}

/// Estimates `doc`'s needs (validating it).
pub fn estimate(doc: &GraphDoc, registry: &NodeRegistry) -> Result<Estimate> {
    let plan = compile(doc, registry).map_err(|e| {
        let lines: Vec<String> = e.iter().map(ToString::to_string).collect();
        anyhow!("{}", lines.join("\n  "))
    })?;
    let cells = plan.settings.grid.iter().product::<usize>();
    let particles = particle_count(&plan);
    let apic = plan.nodes.iter().any(|n| {
        n.spec.role() == NodeRole::GridToParticle
            && Params(&n.params)
                .text("transfer")
                .is_ok_and(|t| t == "apic")
    });
    let per_particle = if apic { 60.0 } else { 24.0 };
    let faces = if plan.settings.grid[2] == 1 { 4.0 } else { 3.0 };
    let per_cell: f64 = plan
        .nodes
        .iter()
        .map(|n| {
            let outs: f64 = n
                .spec
                .outputs
                .iter()
                .map(|o| output_bytes(o.kind, faces))
                .sum();
            // what the kind keeps inside (systems, solver hierarchies, scratch)
            outs + n.spec.memory().cell_bytes
        })
        .sum();
    let baseline_bytes = current_rss();
    let data =
        RUNTIME_BYTES + per_cell * cells as f64 + PARTICLE_COPIES * per_particle * particles as f64;
    Ok(Estimate {
        cells,
        particles,
        baseline_bytes,
        memory_bytes: baseline_bytes + data as u64,
        disk_per_frame_bytes: disk_per_frame(&plan, cells, particles),
        checkpoint_bytes: (per_particle as usize * particles + 40 * cells) as u64,
    })
}

/// Particles the emitters create: cells of each shape inside the domain times particles per
/// cell (the 2D/3D defaults when 0).
fn particle_count(plan: &ExecPlan) -> usize {
    let s = &plan.settings;
    let dims = s.grid.map(|n| n as f64);
    let dx = f64::from(s.cell_size);
    let two_d = s.grid[2] == 1;
    let mut total = 0.0;
    for n in (plan.nodes.iter()).filter(|n| n.spec.role() == NodeRole::Emitter) {
        let p = Params(&n.params);
        let (Ok(shape), Ok(c), Ok(size), Ok(r)) = (
            p.text("shape"),
            p.vec3("center"),
            p.vec3("size"),
            p.f32("radius"),
        ) else {
            continue;
        };
        let r = f64::from(r) / dx;
        let shape_cells = match shape {
            "box" => (0..if two_d { 2 } else { 3 })
                .map(|a| {
                    let lo = (f64::from(c[a] - 0.5 * size[a]) / dx).max(0.0);
                    let hi = (f64::from(c[a] + 0.5 * size[a]) / dx).min(dims[a]);
                    (hi - lo).max(0.0)
                })
                .product(),
            "sphere" if two_d => std::f64::consts::PI * r * r,
            "sphere" => 4.0 / 3.0 * std::f64::consts::PI * r.powi(3),
            _ if two_d => 0.5 * std::f64::consts::PI * r * r,
            _ => 2.0 / 3.0 * std::f64::consts::PI * r.powi(3),
        };
        let per_cell = match p.usize("per_cell").unwrap_or(0) {
            0 if two_d => 4,
            0 => 8,
            k => k,
        } as f64;
        let continuous = p.text("mode").is_ok_and(|m| m == "continuous");
        total += shape_cells * per_cell * if continuous { 2.0 } else { 1.0 };
    }
    let domain = dims.iter().product::<f64>() * if two_d { 4.0 } else { 8.0 };
    total.min(domain) as usize
}

/// Bytes the output nodes write per frame: PLY (header + 24 B a particle), PNG (uncompressed
/// RGBA as the upper bound), VTI fields (4 B a cell per scalar, 12 per vector, base64-grown).
fn disk_per_frame(plan: &ExecPlan, cells: usize, particles: usize) -> u64 {
    let [ni, nj, _] = plan.settings.grid;
    let mut bytes = 0usize;
    for n in &plan.nodes {
        let p = Params(&n.params);
        match n.spec.memory().frame_writes {
            FrameWrites::ParticlesAndPreview => {
                if p.bool("ply").unwrap_or(false) {
                    bytes += 512 + 24 * particles;
                }
                if p.bool("png").unwrap_or(false) {
                    let w = p.usize("png_width").unwrap_or(512);
                    bytes += 4 * w * w * nj / ni.max(1);
                }
            }
            FrameWrites::CellFields { fields, header } => {
                bytes += cells * 4 * 8 / 3 * fields + header
            }
            FrameWrites::None => {}
        }
    }
    bytes as u64
}

/// Refuses (exit 5) a run of `doc` whose estimate exceeds the memory this process may use;
/// `origin` names it (the graph file, and the variant).
pub fn check_fits(
    doc: &GraphDoc,
    origin: &dyn std::fmt::Display,
    registry: &NodeRegistry,
    ignore: bool,
) -> Result<()> {
    let Ok(e) = estimate(doc, registry) else {
        return Ok(()); // validation reports the graph's problems with file and node names
    };
    let Some((available, source)) = available_memory() else {
        return Ok(());
    };
    if e.memory_bytes > available && !ignore {
        return Err(fail(
            ExitStatus::Resources,
            format!(
                "{origin}: this run needs about {} of memory ({} cells, {} particles) but only \
                 {} may be used ({source}); shrink settings.grid or run with \
                 --ignore-memory-check",
                gib(e.memory_bytes),
                e.cells,
                e.particles,
                gib(available)
            ),
        ));
    }
    Ok(())
}

/// Bytes as GiB text.
pub fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / f64::from(1u32 << 30))
}

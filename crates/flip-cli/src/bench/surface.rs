//! `flipgraph bench surface`: meshing the reference dam break's particles (the column of
//! `graphs/bench_dam_break_3d.ron` as emitted: 8 jittered particles per cell, x < 0.5) at
//! several grid sizes: seconds per mesh, throughput, mesh size and extra memory.

use super::table::Table;
use super::{bench_dir, peak_rss_mb};
use crate::session::Session;
use anyhow::{anyhow, Result};
use clap::Args;
use flip_core::emit::{emit, EmitParams, EmitShape};
use flip_core::surface::{liquid_surface, SurfaceKernel, SurfaceScratch, SurfaceSettings};
use flip_core::{GridSpec, Particles, Solids};
use glam::Vec3;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `bench surface`.
#[derive(Args)]
pub struct SurfaceArgs {
    /// Cells per axis, comma-separated (64: about 1 M particles, 128: about 8 M).
    #[arg(long, value_delimiter = ',', default_values_t = [64, 128])]
    pub sizes: Vec<usize>,
    /// Surface kernels to time, comma-separated (particle_level_set, anisotropic).
    #[arg(long, value_delimiter = ',', default_values_t = ["particle_level_set".to_string(), "anisotropic".to_string()])]
    pub kernels: Vec<String>,
    /// Level-set cells per simulation cell.
    #[arg(long, default_value_t = 1)]
    pub resolution: usize,
    /// Taubin smoothing iterations.
    #[arg(long, default_value_t = 2)]
    pub smoothing: usize,
    /// Timed meshes per size (after one untimed warm-up).
    #[arg(long, default_value_t = 2)]
    pub repeats: usize,
    /// Folder for the table's CSV and Markdown (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Resident memory of this process now (MB), from /proc (Linux).
fn rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// The dam break's column on an `n³` grid, as the bench graph's emitter seeds it.
fn column(n: usize) -> (GridSpec, Solids, Particles) {
    let spec = GridSpec::new(n, n, n, 1.0 / n as f32);
    let solids = Solids::walls(spec);
    let params = EmitParams {
        shape: EmitShape::Box {
            min: Vec3::ZERO,
            max: Vec3::new(0.5, 1.0, 1.0),
        },
        per_cell: 8,
        velocity: Vec3::ZERO,
        jitter: 1.0,
        top_up: false,
    };
    let mut particles = Particles::default();
    emit(&spec, &solids, &params, 1, &mut particles);
    (spec, solids, particles)
}

/// One row: the median and fastest of `repeats` meshes, the mesh and the extra memory.
struct Row {
    median: f64,
    min: f64,
    vertices: usize,
    triangles: usize,
    extra_mb: f64,
}

fn time_meshing(n: usize, settings: &SurfaceSettings, repeats: usize) -> Result<(usize, Row)> {
    let (spec, solids, particles) = column(n);
    let before = rss_mb().unwrap_or(0.0);
    let mut scratch = SurfaceScratch::default();
    let mesh_once = |scratch: &mut SurfaceScratch| {
        liquid_surface(&spec, &particles.pos, Some(&solids), settings, scratch)
    };
    let mut mesh = mesh_once(&mut scratch)?;
    let mut times = Vec::new();
    for _ in 0..repeats.max(1) {
        drop(mesh);
        let start = Instant::now();
        mesh = mesh_once(&mut scratch)?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let row = Row {
        median: times[times.len() / 2],
        min: times[0],
        vertices: mesh.positions.len(),
        triangles: mesh.triangles.len(),
        extra_mb: peak_rss_mb().unwrap_or(0.0) - before,
    };
    Ok((particles.len(), row))
}

/// Runs the benchmark.
pub fn run(_session: &Session, a: &SurfaceArgs) -> Result<()> {
    let mut table = Table::new(
        format!("surface_r{}", a.resolution),
        format!(
            "bench surface: dam-break column, resolution {}, smoothing {}, {} threads",
            a.resolution,
            a.smoothing,
            rayon::current_num_threads()
        ),
        &[
            "kernel",
            "cells",
            "particles",
            "median s",
            "min s",
            "Mpart/s",
            "vertices",
            "triangles",
            "extra MB",
        ],
    );
    for name in &a.kernels {
        let kernel = SurfaceKernel::from_name(name)
            .ok_or_else(|| anyhow!("unknown kernel `{name}`; one of {:?}", SurfaceKernel::NAMES))?;
        let settings = SurfaceSettings {
            kernel,
            resolution: a.resolution,
            smoothing: a.smoothing,
            ..SurfaceSettings::default()
        };
        for &n in &a.sizes {
            let (np, r) = time_meshing(n, &settings, a.repeats)?;
            table.row([
                name.clone(),
                n.to_string(),
                np.to_string(),
                format!("{:.3}", r.median),
                format!("{:.3}", r.min),
                format!("{:.2}", np as f64 / r.median / 1e6),
                r.vertices.to_string(),
                r.triangles.to_string(),
                format!("{:.0}", r.extra_mb),
            ]);
        }
    }
    table.emit(&bench_dir(&a.out))?;
    Ok(())
}

//! `flipgraph bench surface`: meshing the reference dam break's particles (the column of
//! `graphs/bench_dam_break_3d.ron` as emitted: 8 jittered particles per cell, x < 0.5) at
//! several grid sizes: seconds per mesh, throughput, mesh size and extra memory.

use super::{bench_dir, peak_rss_mb};
use crate::session::Session;
use anyhow::Result;
use clap::Args;
use flip_core::emit::{emit, EmitParams, EmitShape};
use flip_core::surface::{liquid_surface, SurfaceScratch, SurfaceSettings};
use flip_core::{GridSpec, Particles, Solids};
use glam::Vec3;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `bench surface`.
#[derive(Args)]
pub struct SurfaceArgs {
    /// Cells per axis, comma-separated (64: about 1 M particles, 128: about 8 M).
    #[arg(long, value_delimiter = ',', default_values_t = [64, 128])]
    pub sizes: Vec<usize>,
    /// Level-set cells per simulation cell.
    #[arg(long, default_value_t = 1)]
    pub resolution: usize,
    /// Taubin smoothing iterations.
    #[arg(long, default_value_t = 2)]
    pub smoothing: usize,
    /// Timed meshes per size (after one untimed warm-up).
    #[arg(long, default_value_t = 2)]
    pub repeats: usize,
    /// Folder for the CSV (default out/bench).
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

/// Runs the benchmark.
pub fn run(_session: &Session, a: &SurfaceArgs) -> Result<()> {
    let settings = SurfaceSettings {
        resolution: a.resolution,
        smoothing: a.smoothing,
        ..SurfaceSettings::default()
    };
    println!(
        "bench surface: dam-break column, resolution {}, smoothing {}, {} threads",
        a.resolution,
        a.smoothing,
        rayon::current_num_threads()
    );
    println!(
        "{:>6} {:>11} {:>10} {:>10} {:>10} {:>11} {:>11} {:>10}",
        "cells", "particles", "median s", "min s", "Mpart/s", "vertices", "triangles", "extra MB"
    );
    let mut csv = String::from("cells,particles,median_s,min_s,vertices,triangles,extra_mb\n");
    for &n in &a.sizes {
        let (spec, solids, particles) = column(n);
        let before = rss_mb().unwrap_or(0.0);
        let mut scratch = SurfaceScratch::default();
        let mut mesh = liquid_surface(
            &spec,
            &particles.pos,
            Some(&solids),
            &settings,
            &mut scratch,
        )?;
        let mut times = Vec::new();
        for _ in 0..a.repeats.max(1) {
            drop(mesh);
            let start = Instant::now();
            mesh = liquid_surface(
                &spec,
                &particles.pos,
                Some(&solids),
                &settings,
                &mut scratch,
            )?;
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let (med, min) = (times[times.len() / 2], times[0]);
        let extra = peak_rss_mb().unwrap_or(0.0) - before;
        let np = particles.len();
        let (nv, nt) = (mesh.positions.len(), mesh.triangles.len());
        println!(
            "{n:>6} {np:>11} {med:>10.3} {min:>10.3} {:>10.2} {nv:>11} {nt:>11} {extra:>10.0}",
            np as f64 / med / 1e6
        );
        writeln!(csv, "{n},{np},{med},{min},{nv},{nt},{extra}")?;
    }
    let out = bench_dir(&a.out);
    std::fs::create_dir_all(&out)?;
    let path = out.join(format!("surface_r{}.csv", a.resolution));
    std::fs::write(&path, csv)?;
    println!("csv: {}", path.display());
    Ok(())
}

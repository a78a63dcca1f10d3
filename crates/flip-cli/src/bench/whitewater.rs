//! `flipgraph bench whitewater`: one frame of whitewater (emission, classification, advection)
//! with a million or more diffuse particles in an `n³` domain half full of liquid swirling in
//! a vortex: seconds per frame and µs per diffuse particle and substep.

use super::bench_dir;
use super::table::Table;
use crate::session::Session;
use anyhow::Result;
use clap::Args;
use flip_core::whitewater::{advance_frame, Diffuse, LiquidFrame, WhitewaterParams};
use flip_core::{Grid3, GridSpec, MacGrid, Particles};
use glam::Vec3;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `bench whitewater`.
#[derive(Args)]
pub struct WhitewaterArgs {
    /// Cells per axis, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [64])]
    pub sizes: Vec<usize>,
    /// Diffuse particles, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1_000_000, 4_000_000])]
    pub particles: Vec<usize>,
    /// Timed frames per row (after one untimed frame).
    #[arg(long, default_value_t = 3)]
    pub frames: usize,
    /// Folder for the table's CSV and Markdown (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// A unit cube of `n³` cells, liquid below y = 0.5 (the level set a plane), turning about the
/// z axis at 2 rad/s, with one liquid particle per cell in the top liquid layers and `count`
/// diffuse particles spread through the domain.
fn scene(n: usize, count: usize) -> (GridSpec, MacGrid, Grid3<f32>, Particles, Diffuse) {
    let spec = GridSpec::new(n, n, n, 1.0 / n as f32);
    let dx = spec.dx;
    let mut phi = Grid3::new(n, n, n, 0.0f32);
    for (c, p) in phi.data.iter_mut().enumerate() {
        *p = ((c / n) % n) as f32 * dx + 0.5 * dx - 0.5;
    }
    let mut vel = MacGrid::zeros(&spec);
    let swirl = |p: Vec3| 2.0 * Vec3::new(-(p.y - 0.5), p.x - 0.5, 0.0);
    for (axis, g) in vel.axes_mut().into_iter().enumerate() {
        let [ni, nj, _] = g.dims();
        for (c, u) in g.data.iter_mut().enumerate() {
            let (i, j, k) = (c % ni, (c / ni) % nj, c / (ni * nj));
            *u = swirl(spec.face_center(axis, i, j, k))[axis];
        }
    }
    let mut liquid = Particles::default();
    for k in 0..n {
        for i in 0..n {
            for j in (n / 2 - 2)..n / 2 {
                let p = spec.cell_center(i, j, k);
                liquid.push(p, swirl(p));
            }
        }
    }
    // spread evenly by the R3 low-discrepancy sequence (powers of the plastic number)
    let step = Vec3::new(0.819_172_5, 0.671_043_5, 0.549_700_5);
    let mut diffuse = Diffuse::default();
    for i in 0..count {
        let p = (step * i as f32).fract() * 0.98 + 0.01;
        diffuse.push(p, swirl(p), 1e3);
    }
    (spec, vel, phi, liquid, diffuse)
}

/// Runs the benchmark.
pub fn run(_session: &Session, a: &WhitewaterArgs) -> Result<()> {
    let mut table = Table::new(
        "whitewater",
        format!(
            "bench whitewater: a frame of 1/24 s in a half-full swirling box, {} threads",
            rayon::current_num_threads()
        ),
        &[
            "cells",
            "diffuse",
            "substeps",
            "born",
            "median s",
            "min s",
            "µs/particle-step",
        ],
    );
    for &n in &a.sizes {
        for &count in &a.particles {
            let (spec, vel, phi, liquid, start) = scene(n, count);
            let frame = LiquidFrame {
                spec: &spec,
                particles: &liquid,
                velocity: &vel,
                level_set: &phi,
                solids: None,
            };
            let params = WhitewaterParams {
                max_particles: usize::MAX,
                ..Default::default()
            };
            let mut times = Vec::new();
            let mut last = Default::default();
            for f in 0..=a.frames {
                let mut d = start.clone();
                let t = Instant::now();
                last = advance_frame(&frame, &params, &mut d, f as u64, 1.0 / 24.0);
                if f > 0 {
                    times.push(t.elapsed().as_secs_f64());
                }
            }
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            let per = median / (count.max(1) * last.substeps) as f64 * 1e6;
            table.row([
                n.to_string(),
                count.to_string(),
                last.substeps.to_string(),
                last.emitted.to_string(),
                format!("{median:.3}"),
                format!("{:.3}", times[0]),
                format!("{per:.4}"),
            ]);
        }
    }
    table.note("µs/particle-step: the frame's seconds over diffuse particles × substeps (emission and potentials included)");
    table.emit(&bench_dir(&a.out))?;
    Ok(())
}

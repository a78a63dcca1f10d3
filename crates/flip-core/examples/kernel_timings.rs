//! Times the flip-core kernels on the PERFORMANCE.md reference scene: unit cube with walls, a
//! dam-break column filling x < 0.5 at rest, 8 particles per liquid cell, dt = 1/240 s.
//!
//! `cargo run --release -p flip-core --example kernel_timings -- [n] [steps]` (default 64, 5).
//! Prints medians over the steps, wall time and CPU time of the process (CPU time is less
//! disturbed by other work on a shared machine). The particle-stage figure (P2G + G2P +
//! advect, µs per particle per step) is the one PERFORMANCE.md targets at ≤ 0.06 on 2 cores.
//! No pressure solve runs (the system is assembled and a zero pressure applied), so the liquid
//! just falls: the timings are of the kernels, not of a physical run.

use flip_core::advect::advect;
use flip_core::emit::{emit, EmitParams, EmitShape};
use flip_core::extrapolate::extrapolate;
use flip_core::levelset::liquid_phi;
use flip_core::marker::mark_cells;
use flip_core::pressure::PressureSystem;
use flip_core::project::{apply_pressure, assemble, AssembleParams, Geometry};
use flip_core::transfer::{g2p, p2g, TransferScratch};
use flip_core::{CellGrid, CellKind, Grid3, GridSpec, MacGrid, MacMask, Particles, Solids};
use glam::Vec3;
use std::time::Instant;

const NAMES: [&str; 8] = [
    "p2g",
    "g2p",
    "advect",
    "mark",
    "levelset(2)",
    "extrapolate(4)",
    "assemble",
    "apply_pressure",
];

/// CPU time of all threads of this process (Linux `schedstat`, ns → s; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .sum::<f64>()
        * 1e-9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Simulation state of the benchmark.
struct Scene {
    spec: GridSpec,
    solids: Solids,
    ps: Particles,
    vel: MacGrid,
    valid: MacMask,
    scratch: TransferScratch,
    cells: CellGrid,
    phi: Grid3<f32>,
    sys: PressureSystem,
}

/// Wall and CPU seconds per kernel, one entry per step.
struct Laps {
    t: Vec<Vec<(f64, f64)>>,
    clock: (Instant, f64),
}

impl Laps {
    fn start(&mut self) {
        self.clock = (Instant::now(), cpu_seconds());
    }
    fn lap(&mut self, i: usize) {
        let cpu = cpu_seconds();
        self.t[i].push((self.clock.0.elapsed().as_secs_f64(), cpu - self.clock.1));
        self.clock = (Instant::now(), cpu);
    }
}

fn dam_break(n: usize) -> Scene {
    let spec = GridSpec::new(n, n, n, 1.0 / n as f32);
    let solids = Solids::walls(spec);
    let mut ps = Particles::default();
    let shape = EmitShape::Box {
        min: Vec3::ZERO,
        max: Vec3::new(0.5, 1.0, 1.0),
    };
    let params = EmitParams {
        shape,
        per_cell: 8,
        velocity: Vec3::ZERO,
        jitter: 1.0,
        top_up: false,
    };
    emit(&spec, &solids, &params, 1, &mut ps);
    Scene {
        spec,
        solids,
        ps,
        vel: MacGrid::zeros(&spec),
        valid: MacMask::zeros(&spec),
        scratch: TransferScratch::default(),
        cells: CellGrid::new(1, 1, 1, CellKind::Air),
        phi: Grid3::new(1, 1, 1, 0.0),
        sys: PressureSystem::default(),
    }
}

fn step(s: &mut Scene, laps: &mut Laps, dt: f32) {
    let spec = s.spec;
    laps.start();
    p2g(&spec, &s.ps, &mut s.vel, &mut s.valid, &mut s.scratch);
    laps.lap(0);
    let old = s.vel.clone();
    s.vel.v.data.iter_mut().for_each(|v| *v -= 9.81 * dt);
    laps.start();
    mark_cells(&spec, &s.ps, &s.solids, &mut s.cells);
    laps.lap(3);
    liquid_phi(&spec, &s.cells, 2, &mut s.phi);
    laps.lap(4);
    extrapolate(&spec, &mut s.vel, &mut s.valid, &s.phi, 4);
    laps.lap(5);
    let ap = AssembleParams {
        density: 1000.0,
        dt,
        separating: false,
        geometry: Geometry::Variational,
    };
    assemble(
        &spec, &s.vel, &s.cells, &s.phi, &s.solids, &ap, None, &mut s.sys,
    );
    laps.lap(6);
    apply_pressure(&spec, &s.sys, &s.solids, &mut s.vel, &mut s.valid);
    laps.lap(7);
    g2p(&spec, &mut s.ps, &s.vel, &old, 0.95);
    laps.lap(1);
    advect(&spec, &mut s.ps, &s.vel, &s.solids, dt);
    laps.lap(2);
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(64);
    let steps = args.get(1).copied().unwrap_or(5).max(1);
    let mut scene = dam_break(n);
    let count = scene.ps.len();
    println!(
        "{n}³ grid, {count} particles, {} threads",
        rayon::current_num_threads()
    );
    let mut laps = Laps {
        t: vec![Vec::new(); NAMES.len()],
        clock: (Instant::now(), 0.0),
    };
    for _ in 0..steps {
        step(&mut scene, &mut laps, 1.0 / 240.0);
    }
    let (mut wall3, mut cpu3) = (0.0, 0.0);
    println!("{:>16}  {:>9}  {:>9}", "median of", "wall ms", "cpu ms");
    for (i, name) in NAMES.iter().enumerate() {
        let wall = median(laps.t[i].iter().map(|x| x.0).collect());
        let cpu = median(laps.t[i].iter().map(|x| x.1).collect());
        if i < 3 {
            (wall3, cpu3) = (wall3 + wall, cpu3 + cpu);
        }
        println!("{name:>16}: {:9.2}  {:9.2}", wall * 1e3, cpu * 1e3);
    }
    let per = 1e6 / count as f64;
    println!(
        "particle stages (P2G + G2P + advect): {:.4} µs/particle/step wall, {:.4} cpu",
        wall3 * per,
        cpu3 * per
    );
}

//! The flip-core kernels one by one (criterion) on the reference scene: a unit cube with walls,
//! a dam-break column filling x < 0.5 at rest, 8 particles per liquid cell, dt = 1/240 s, after
//! one step so every grid is filled. No pressure solve runs (the system is assembled and a zero
//! pressure applied): these are kernel costs, not a physical run; `flipgraph bench step` times
//! the whole step, with the particle stages per particle.
//!
//! `cargo bench -p flip-core --bench kernels` (`FLIP_KERNELS_N=64` for 64³; default 32³).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
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

const DT: f32 = 1.0 / 240.0;

/// Simulation state of the benchmark.
struct Scene {
    spec: GridSpec,
    solids: Solids,
    ps: Particles,
    vel: MacGrid,
    old: MacGrid,
    valid: MacMask,
    scratch: TransferScratch,
    cells: CellGrid,
    phi: Grid3<f32>,
    sys: PressureSystem,
}

const ASSEMBLE: AssembleParams = AssembleParams {
    density: 1000.0,
    dt: DT,
    separating: false,
    geometry: Geometry::Variational,
};

/// The dam break on `n`³ cells after one step of every kernel.
fn dam_break(n: usize) -> Scene {
    let spec = GridSpec::new(n, n, n, 1.0 / n as f32);
    let solids = Solids::walls(spec);
    let mut ps = Particles::default();
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
    emit(&spec, &solids, &params, 1, &mut ps);
    let mut s = Scene {
        spec,
        solids,
        ps,
        vel: MacGrid::zeros(&spec),
        old: MacGrid::zeros(&spec),
        valid: MacMask::zeros(&spec),
        scratch: TransferScratch::default(),
        cells: CellGrid::new(1, 1, 1, CellKind::Air),
        phi: Grid3::new(1, 1, 1, 0.0),
        sys: PressureSystem::default(),
    };
    p2g(&spec, &s.ps, &mut s.vel, &mut s.valid, &mut s.scratch);
    s.old = s.vel.clone();
    s.vel.v.data.iter_mut().for_each(|v| *v -= 9.81 * DT);
    mark_cells(&spec, &s.ps, &s.solids, &mut s.cells);
    liquid_phi(&spec, &s.cells, 2, &mut s.phi);
    extrapolate(&spec, &mut s.vel, &mut s.valid, &s.phi, 4);
    assemble(
        &spec, &s.vel, &s.cells, &s.phi, &s.solids, &ASSEMBLE, None, &mut s.sys,
    );
    apply_pressure(&spec, &s.sys, &s.solids, &mut s.vel, &mut s.valid);
    s
}

fn kernels(c: &mut Criterion) {
    let n = std::env::var("FLIP_KERNELS_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let mut s = dam_break(n);
    let spec = s.spec;
    let mut g = c.benchmark_group(format!("kernels {n}³, {} particles", s.ps.len()));
    g.sample_size(10);
    g.bench_function("p2g", |b| {
        b.iter(|| p2g(&spec, &s.ps, &mut s.vel, &mut s.valid, &mut s.scratch))
    });
    g.bench_function("mark", |b| {
        b.iter(|| mark_cells(&spec, &s.ps, &s.solids, &mut s.cells))
    });
    g.bench_function("levelset(2)", |b| {
        b.iter(|| liquid_phi(&spec, &s.cells, 2, &mut s.phi))
    });
    g.bench_function("extrapolate(4)", |b| {
        b.iter_batched(
            || (s.vel.clone(), s.valid.clone()),
            |(mut vel, mut valid)| extrapolate(&spec, &mut vel, &mut valid, &s.phi, 4),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("assemble", |b| {
        b.iter(|| {
            assemble(
                &spec, &s.vel, &s.cells, &s.phi, &s.solids, &ASSEMBLE, None, &mut s.sys,
            )
        })
    });
    g.bench_function("apply_pressure", |b| {
        b.iter_batched(
            || (s.vel.clone(), s.valid.clone()),
            |(mut vel, mut valid)| apply_pressure(&spec, &s.sys, &s.solids, &mut vel, &mut valid),
            BatchSize::LargeInput,
        )
    });
    // In place (particles are not cloned): they keep moving between iterations, which leaves
    // the work per particle unchanged.
    g.bench_function("g2p", |b| {
        b.iter(|| g2p(&spec, &mut s.ps, &s.vel, &s.old, 0.95))
    });
    g.bench_function("advect", |b| {
        b.iter(|| advect(&spec, &mut s.ps, &s.vel, &s.solids, DT))
    });
    g.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);

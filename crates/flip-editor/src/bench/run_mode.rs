//! Steps per second of the editor's run mode against the bare simulation.

use super::Registry;
use anyhow::{anyhow, bail};
use flip_editor::run::worker::{without_exports, Command, Event, Worker};
use flip_graph::{GraphDoc, Simulation};
use flip_nodes::kinds::CarriedParticles;
use std::path::Path;
use std::time::{Duration, Instant};

/// One run's totals.
pub struct Row {
    label: &'static str,
    frames: u32,
    steps: usize,
    particles: usize,
    wall_s: f64,
    /// Milliseconds summed over the run: simulation, state saving, frame capture.
    sim_ms: f64,
    snapshot_ms: f64,
    capture_ms: f64,
}

/// `Simulation::advance_frame` in a loop: what `flipgraph bench step` times.
pub fn bare(doc: &GraphDoc, registry: &Registry) -> anyhow::Result<Row> {
    let doc = without_exports(doc, registry);
    let out = std::env::temp_dir().join("flipgraph-editor-bench");
    let start = Instant::now();
    let mut sim = Simulation::new(&doc, registry, &out, Path::new("graphs"))
        .map_err(|e| anyhow!("invalid graph: {e:?}"))?;
    let (mut steps, mut sim_ms) = (0, 0.0);
    while sim.frame() < doc.settings.frames {
        let t = Instant::now();
        steps += sim.advance_frame()?.len();
        sim_ms += t.elapsed().as_secs_f64() * 1e3;
    }
    Ok(Row {
        label: "bare simulation",
        frames: sim.frame(),
        steps,
        particles: sim.particles().map_or(0, |p| p.len()),
        wall_s: start.elapsed().as_secs_f64(),
        sim_ms,
        snapshot_ms: 0.0,
        capture_ms: 0.0,
    })
}

/// The editor's simulation thread playing the graph from frame 0 to its end.
pub fn editor(doc: &GraphDoc, registry: Registry) -> anyhow::Result<Row> {
    let worker = Worker::spawn(registry, || {});
    let start = Instant::now();
    worker.send(Command::Load {
        gen: 1,
        doc: Box::new(doc.clone()),
        base_dir: "graphs".into(),
        out_dir: None,
        start: flip_editor::run::resim::Start::Zero,
    });
    worker.send(Command::Play);
    let mut row = Row {
        label: "editor run mode",
        frames: 0,
        steps: 0,
        particles: 0,
        wall_s: 0.0,
        sim_ms: 0.0,
        snapshot_ms: 0.0,
        capture_ms: 0.0,
    };
    while start.elapsed() < Duration::from_secs(900) {
        match worker.rx.recv_timeout(Duration::from_secs(120))? {
            Event::Frame { data, .. } => {
                row.steps += data.substeps;
                row.sim_ms += data.wall_ms;
                row.snapshot_ms += data.snapshot_ms;
                row.capture_ms += data.capture_ms;
                row.frames = data.frame;
                row.particles = data.particles;
            }
            Event::Invalid { errors, .. } => bail!("invalid graph: {errors:?}"),
            Event::Failed { message, .. } => bail!("run failed: {message}"),
            Event::Playing { finished: true, .. } => break,
            _ => {}
        }
    }
    row.wall_s = start.elapsed().as_secs_f64();
    Ok(row)
}

/// The runs side by side; "other" is the wall time not spent simulating, saving or
/// capturing (channel traffic, thread hand-offs, set-up).
pub fn print_table(size: usize, rows: &[Row]) {
    println!("\n2D dam break {size}²");
    println!(
        "run               frames  steps  particles  wall s  steps/s  ms/step: sim  snapshot  capture  other"
    );
    for r in rows {
        let per = |ms: f64| ms / r.steps.max(1) as f64;
        let other = per(r.wall_s * 1e3) - per(r.sim_ms + r.snapshot_ms + r.capture_ms);
        println!(
            "{:<16}  {:>6}  {:>5}  {:>9}  {:>6.2}  {:>7.1}  {:>12.1}  {:>8.2}  {:>7.2}  {:>5.2}",
            r.label,
            r.frames,
            r.steps,
            r.particles,
            r.wall_s,
            r.steps as f64 / r.wall_s,
            per(r.sim_ms),
            per(r.snapshot_ms),
            per(r.capture_ms),
            other,
        );
    }
}

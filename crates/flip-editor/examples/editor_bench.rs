//! Simulated steps per second of the editor's run mode (its simulation thread, with the
//! per-frame state saving and frame capture the editor does), on the reference 2D dam break.
//!
//! ```sh
//! cargo run --release -p flip-editor --example editor_bench -- [SIZE] [FRAMES]   # 256 48
//! ```

use flip_editor::worker::{Command, Event, Worker};
use flip_graph::GraphDoc;
use flip_plugin::host::{default_plugin_dirs, PluginSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let size: usize = args.next().map_or(Ok(256), |s| s.parse())?;
    let frames: u32 = args.next().map_or(Ok(48), |s| s.parse())?;
    let mut dirs = default_plugin_dirs();
    // target/release/examples/ → the plugins built next to the binaries in target/release/
    if let Some(up) = std::env::current_exe()?.parent().and_then(|p| p.parent()) {
        dirs.push(up.to_path_buf());
    }
    let plugins = Arc::new(PluginSet::load_dirs(&dirs));
    let registry = Arc::new(flip_nodes::builtin_registry(plugins));
    let text = include_str!("../../../graphs/bench_dam_break_2d.ron");
    let mut doc = GraphDoc::from_ron(text, "bench_dam_break_2d.ron")?;
    doc.settings.grid = [size, size, 1];
    doc.settings.cell_size = 1.0 / size as f32;
    doc.settings.frames = frames;
    let worker = Worker::spawn(registry, || {});
    worker.send(Command::Load {
        gen: 1,
        doc: Box::new(doc),
        base_dir: "graphs".into(),
        out_dir: None,
        start: flip_editor::resim::Start::Zero,
    });
    let start = Instant::now();
    worker.send(Command::Play);
    let (mut steps, mut sim_ms, mut done, mut particles) = (0usize, 0.0, 0u32, 0usize);
    while start.elapsed() < Duration::from_secs(600) {
        match worker.rx.recv_timeout(Duration::from_secs(60))? {
            Event::Frame { data, .. } => {
                steps += data.substeps;
                sim_ms += data.wall_ms;
                done = data.frame;
                particles = data.particles;
            }
            Event::Invalid { errors, .. } => anyhow::bail!("invalid graph: {errors:?}"),
            Event::Failed { message, .. } => anyhow::bail!("run failed: {message}"),
            Event::Playing { finished: true, .. } => break,
            _ => {}
        }
    }
    let wall = start.elapsed().as_secs_f64();
    println!("scene                 frames  steps  particles  wall s  steps/s  sim ms/step");
    println!(
        "dam break 2D {size:>4}²  {done:>6}  {steps:>5}  {particles:>9}  {wall:>6.2}  {:>7.1}  {:>11.1}",
        steps as f64 / wall,
        sim_ms / steps.max(1) as f64
    );
    Ok(())
}

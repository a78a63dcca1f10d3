//! `flipgraph estimate GRAPH`: the memory and disk a run of the graph will need.

use crate::estimate::{estimate, gib};
use crate::limits::available_memory;
use crate::session::Session;
use anyhow::Result;
use std::path::Path;

/// Prints the estimate for `graph` with `sets` applied (as JSON with `json`).
pub fn run(
    session: &Session,
    graph: &Path,
    sets: &[flip_graph::Override],
    json: bool,
) -> Result<()> {
    let doc = session.graph(graph, sets)?;
    let e = estimate(&doc, &session.registry)
        .map_err(|err| anyhow::anyhow!("{}: {err}", graph.display()))?;
    let available = available_memory();
    if json {
        let mut v = serde_json::to_value(&e)?;
        v["available_bytes"] = serde_json::json!(available.as_ref().map(|a| a.0));
        v["frames"] = serde_json::json!(doc.settings.frames);
        println!("{v}");
        return Ok(());
    }
    println!(
        "{}: {} cells, about {} particles",
        graph.display(),
        e.cells,
        e.particles
    );
    println!(
        "  memory: about {} at the peak ({} of it the program itself)",
        gib(e.memory_bytes),
        gib(e.baseline_bytes)
    );
    if let Some((bytes, source)) = available {
        println!("  available: {} ({source})", gib(bytes));
    }
    let frames = u64::from(doc.settings.frames);
    println!(
        "  disk: up to {} per frame, {} for {frames} frames, {} per checkpoint",
        gib(e.disk_per_frame_bytes),
        gib(e.disk_per_frame_bytes * frames),
        gib(e.checkpoint_bytes)
    );
    Ok(())
}

//! `bench step --bodies N`: N rigid bodies (boxes and balls, discs in 2D, of densities 500 to
//! 1200 kg/m³) placed in the dam break's column and coupled into its pressure solve, wired as
//! in `graphs/floating_boxes_3d.ron`. The same scene without them is measured first, so the
//! table shows the coupled pressure solve (its time and iterations) next to the uncoupled one.

use super::step::warm_up;
use crate::cmd_run::build;
use crate::session::Session;
use crate::summary::RunSummary;
use anyhow::{anyhow, Result};
use flip_graph::{EdgeDoc, Endpoint, GraphDoc, NodeDoc, ParamValue};
use flip_nodes::roles::{KindFacts, NodeRole};
use std::path::Path;

/// Id of the spliced `rigid_bodies` node.
const NODE: &str = "bench_bodies";

/// The `bodies` parameter of `n` bodies in the column `x < 0.5` of a `dimension`-D unit
/// domain: a staggered lattice of boxes and balls cycling through four densities, some
/// lighter and some heavier than water, a few spinning.
fn bodies_text(n: usize, dimension: u32) -> String {
    const DENSITIES: [f64; 4] = [500.0, 1200.0, 800.0, 1000.0];
    (0..n)
        .map(|i| {
            let (col, row, layer) = (i % 2, (i / 2) % 5, i / 10);
            let x = 0.13 + 0.22 * col as f64 + 0.02 * row as f64;
            let y = 0.12 + 0.17 * row as f64;
            let z = 0.27 + 0.46 * (layer % 2) as f64 + 0.03 * col as f64;
            let density = DENSITIES[i % 4];
            let ball = i % 3 == 1;
            match (dimension, ball) {
                (2, true) => format!("disc 0.05 at {x} {y} density {density} spin 1"),
                (2, false) => format!("box 0.11 0.07 at {x} {y} density {density}"),
                (_, true) => format!("sphere 0.05 at {x} {y} {z} density {density} spin 0 0 1"),
                (_, false) => format!("box 0.11 0.07 0.09 at {x} {y} {z} density {density}"),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Inserts a `rigid_bodies` node of `n` bodies between the pressure node's solids and
/// everything that reads them, and wires its bodies through the pressure node to the step's
/// output.
pub(super) fn splice_bodies(doc: &mut GraphDoc, session: &Session, n: usize) -> Result<(), String> {
    let role = |kind: &str| session.registry.get(kind).map(|k| k.spec.role());
    let find = |r: NodeRole| {
        doc.nodes
            .iter()
            .find(|node| role(&node.kind) == Some(r))
            .map(|node| node.id.clone())
    };
    let pressure = find(NodeRole::Pressure).ok_or("the graph has no pressure node")?;
    let step_in = (doc.nodes.iter())
        .find(|n| n.kind == "step_input")
        .map(|n| n.id.clone())
        .ok_or("the graph has no step_input node")?;
    let step_out = (doc.nodes.iter())
        .find(|n| n.kind == "step_output")
        .map(|n| n.id.clone())
        .ok_or("the graph has no step_output node")?;
    let solids = (doc.edges.iter())
        .find(|e| e.to.node == pressure && e.to.port == "solids")
        .map(|e| e.from.clone())
        .ok_or(format!("nothing is wired into `{pressure}.solids`"))?;
    if doc.nodes.iter().any(|n| n.id == NODE) {
        return Err(format!("the graph already has a node `{NODE}`"));
    }
    let mut node = NodeDoc::new(NODE, "rigid_bodies");
    let text = bodies_text(n, doc.settings.grid_spec().dimension() as u32);
    node.params.insert("bodies".into(), ParamValue::Text(text));
    doc.nodes.push(node);
    let spliced = Endpoint::new(NODE, "solids");
    for e in doc.edges.iter_mut().filter(|e| e.from == solids) {
        e.from = spliced.clone();
    }
    doc.edges.extend([
        EdgeDoc::new(solids, Endpoint::new(NODE, "solids")),
        EdgeDoc::new(
            Endpoint::new(&step_in, "bodies"),
            Endpoint::new(NODE, "bodies"),
        ),
        EdgeDoc::new(
            Endpoint::new(NODE, "bodies"),
            Endpoint::new(&pressure, "bodies"),
        ),
        EdgeDoc::new(
            Endpoint::new(&pressure, "bodies"),
            Endpoint::new(&step_out, "bodies"),
        ),
    ]);
    Ok(())
}

/// The pressure solves of `doc` without bodies over `warmup` then `steps` substeps: mean
/// iterations and mean solve seconds of the timed ones.
pub(super) fn uncoupled_pressure(
    session: &Session,
    doc: &GraphDoc,
    graph: &Path,
    out: &Path,
    warmup: u32,
    steps: u32,
) -> Result<(f64, f64)> {
    let mut sim = build(session, doc, graph, out)?;
    let dt = warm_up(&mut sim, doc, warmup)?;
    let mut summary = RunSummary::new(&sim);
    for s in 0..steps {
        let r = sim
            .substep(dt, warmup + s, false)
            .map_err(|e| anyhow!("{e}"))?;
        summary.add_frame(std::slice::from_ref(&r));
    }
    Ok((
        summary.mean(|s| s.iterations),
        summary.mean(|s| s.solve_ms) / 1e3,
    ))
}

/// The table's line comparing the coupled solve with the uncoupled one.
pub(super) fn comparison(n: usize, coupled: (f64, f64), alone: (f64, f64)) -> String {
    format!(
        "pressure with {n} bodies coupled: {:.1} iterations, {:.4} s mean; the same scene \
         without bodies (measured first): {:.1} iterations, {:.4} s; coupled / uncoupled time \
         {:.2}×, iterations {:+.1}",
        coupled.0,
        coupled.1,
        alone.0,
        alone.1,
        coupled.1 / alone.1.max(1e-12),
        coupled.0 - alone.0
    )
}

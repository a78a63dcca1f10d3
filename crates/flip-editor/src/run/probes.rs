//! What the editor asks a simulation to keep of each frame for the overlays and colouring.

use flip_graph::{GraphDoc, Simulation};

/// Asks `sim` for the values the overlays draw (see [`probe_list`]).
pub fn set_overlay_probes(sim: &mut Simulation, doc: &GraphDoc) {
    let probes = probe_list(doc);
    let refs: Vec<(&str, &str)> = probes
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    sim.set_probes(&refs);
}

/// Probes for the overlays: `(node id, port)` of the first level-set, marker and last solids
/// node, of the smoke density carried to the next step, then those of
/// [`attribute_probes`].
pub fn probe_list(doc: &GraphDoc) -> Vec<(String, String)> {
    let first = |kind: &str| {
        doc.nodes
            .iter()
            .find(|n| n.kind == kind)
            .map(|n| n.id.clone())
    };
    let mut probes = vec![];
    if let Some(id) = first("level_set") {
        probes.push((id, "level_set".to_string()));
    }
    if let Some(id) = first("marker") {
        probes.push((id, "cells".to_string()));
    }
    // The end of a solids chain: a solids node whose output feeds no other solids node.
    let feeds_solids = |id: &str| {
        doc.edges
            .iter()
            .any(|e| e.from.node == id && doc.node(&e.to.node).is_some_and(|n| n.kind == "solids"))
    };
    let last = doc
        .nodes
        .iter()
        .filter(|n| n.kind == "solids")
        .find(|n| !feeds_solids(&n.id));
    if let Some(n) = last {
        probes.push((n.id.clone(), "solids".to_string()));
    }
    if let Some(out) = first(flip_graph::step::STEP_OUTPUT) {
        let to = flip_graph::Endpoint::new(out, "density");
        if let Some(e) = doc.edges.iter().find(|e| e.to == to) {
            probes.push((e.from.node.clone(), e.from.port.clone()));
        }
    }
    probes.extend(attribute_probes(doc));
    probes
}

/// Probes for the attributes of a liquid graph: the first pressure node's `pressure` and the
/// velocity the first `g2p` reads (none for graphs without `g2p`, e.g. smoke).
pub fn attribute_probes(doc: &GraphDoc) -> Vec<(String, String)> {
    let first = |kind: &str| doc.nodes.iter().find(|n| n.kind == kind && !n.bypass);
    let Some(g2p) = first("g2p") else {
        return vec![];
    };
    let to = flip_graph::Endpoint::new(g2p.id.as_str(), "velocity");
    let mut probes = vec![];
    if let Some(p) = first("pressure") {
        probes.push((p.id.clone(), "pressure".to_string()));
    }
    if let Some(e) = doc.edges.iter().find(|e| e.to == to) {
        probes.push((e.from.node.clone(), e.from.port.clone()));
    }
    probes
}

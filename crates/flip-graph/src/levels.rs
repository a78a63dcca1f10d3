//! Dependency levels of a plan (Kahn's algorithm by levels) and the nodes on cycles, both in
//! time linear in nodes + edges, so a graph of thousands of nodes validates at once.

use crate::compile::PlanNode;
use crate::doc::NodeDoc;
use crate::error::GraphError;

/// Cycle errors list at most this many node ids (the rest are counted).
const LISTED: usize = 12;

/// Distinct predecessors and successors of every node, from each node's input sources
/// (`(producer, output)` per input port).
pub(crate) fn neighbours<'a>(
    sources: impl ExactSizeIterator<Item = &'a [Option<(usize, usize)>]>,
) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let n = sources.len();
    let preds: Vec<Vec<usize>> = sources
        .map(|src| {
            let mut v: Vec<usize> = src.iter().flatten().map(|s| s.0).collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let mut succs = vec![Vec::new(); n];
    for (i, ps) in preds.iter().enumerate() {
        for &p in ps {
            succs[p].push(i);
        }
    }
    (preds, succs)
}

/// Levels of independent nodes, each sorted by node index; nodes on (or downstream of) a cycle
/// get none and are reported as one error listing the nodes on the cycles.
pub(crate) fn levels(
    docs: &[NodeDoc],
    nodes: &[Option<PlanNode>],
    errors: &mut Vec<GraphError>,
) -> Vec<Vec<usize>> {
    let sources = nodes
        .iter()
        .map(|p| p.as_ref().map_or(&[][..], |p| &p.sources[..]));
    let (preds, succs) = neighbours(sources);
    let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..nodes.len()).filter(|&i| waiting[i] == 0).collect();
    let (mut out, mut done) = (Vec::new(), 0);
    while !ready.is_empty() {
        ready.sort_unstable();
        let mut next = Vec::new();
        for &i in &ready {
            for &s in &succs[i] {
                waiting[s] -= 1;
                if waiting[s] == 0 {
                    next.push(s);
                }
            }
        }
        done += ready.len();
        out.push(std::mem::replace(&mut ready, next));
    }
    if done < nodes.len() {
        let left: Vec<bool> = waiting.iter().map(|&w| w > 0).collect();
        report_cycle(docs, &on_cycles(left, &preds, &succs), errors);
    }
    out
}

/// Of the nodes left over by Kahn's algorithm, drops those downstream of a cycle (peeling
/// sinks, in reverse Kahn order); what stays lies on cycles or between them.
fn on_cycles(mut left: Vec<bool>, preds: &[Vec<usize>], succs: &[Vec<usize>]) -> Vec<usize> {
    let mut out_deg: Vec<usize> = (0..left.len())
        .map(|i| succs[i].iter().filter(|&&s| left[s]).count())
        .collect();
    let mut sinks: Vec<usize> = (0..left.len())
        .filter(|&i| left[i] && out_deg[i] == 0)
        .collect();
    while let Some(i) = sinks.pop() {
        left[i] = false;
        for &p in &preds[i] {
            if left[p] {
                out_deg[p] -= 1;
                if out_deg[p] == 0 {
                    sinks.push(p);
                }
            }
        }
    }
    (0..left.len()).filter(|&i| left[i]).collect()
}

fn report_cycle(docs: &[NodeDoc], cyclic: &[usize], errors: &mut Vec<GraphError>) {
    let mut names: Vec<&str> = cyclic
        .iter()
        .take(LISTED)
        .map(|&i| docs[i].id.as_str())
        .collect();
    let more = format!("… ({} more)", cyclic.len().saturating_sub(LISTED));
    if cyclic.len() > LISTED {
        names.push(&more);
    }
    let first = cyclic.first().map_or("", |&i| docs[i].id.as_str());
    errors.push(GraphError::node(
        first,
        None,
        format!(
            "cycle through nodes {}: state may only cross time steps through step_output → \
             step_input",
            names.join(", ")
        ),
    ));
}

//! Bypassed nodes (`bypass: true` in the document), like a muted node in Houdini or Nuke:
//! the node is left out of the run and each of its outputs carries on what reached its input of
//! the same name (else its first input of the same data kind). [`compile`](crate::compile)
//! resolves them before anything else, so the CLI and the editor run the same graph.

use crate::doc::{EdgeDoc, GraphDoc};
use crate::endpoint::Endpoint;
use crate::error::GraphError;
use crate::registry::NodeRegistry;
use crate::spec::NodeSpec;
use std::borrow::Cow;
use std::collections::HashMap;

/// `doc` with its bypassed nodes taken out and their outputs' readers wired to what fed the
/// matching inputs. Nodes of unknown kinds are left in (validation names them).
///
/// # Errors
/// A bypassed node whose output feeds a required input but has nothing to pass on.
pub fn without_bypassed<'a>(
    doc: &'a GraphDoc,
    registry: &NodeRegistry,
) -> Result<Cow<'a, GraphDoc>, Vec<GraphError>> {
    let bypassed: HashMap<&str, &NodeSpec> = doc
        .nodes
        .iter()
        .filter(|n| n.bypass)
        .filter_map(|n| Some((n.id.as_str(), &registry.get(&n.kind)?.spec)))
        .collect();
    if bypassed.is_empty() {
        return Ok(Cow::Borrowed(doc));
    }
    let feeds: HashMap<&Endpoint, &Endpoint> = doc.edges.iter().map(|e| (&e.to, &e.from)).collect();
    let mut edges = Vec::with_capacity(doc.edges.len());
    let mut errors = vec![];
    for e in &doc.edges {
        if bypassed.contains_key(e.to.node.as_str()) {
            continue;
        }
        match source(&e.from, &bypassed, &feeds, doc.nodes.len()) {
            Some(from) => edges.push(EdgeDoc::new(from, e.to.clone())),
            None if required(doc, registry, &e.to) => {
                errors.push(GraphError::node(
                    &e.from.node,
                    Some(&e.from.port),
                    format!(
                        "bypassed, but nothing of this type reaches its inputs to pass on to \
                         `{}`",
                        e.to
                    ),
                ));
            }
            None => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut out = doc.clone();
    out.nodes.retain(|n| !bypassed.contains_key(n.id.as_str()));
    out.edges = edges;
    Ok(Cow::Owned(out))
}

/// The first output that is not a bypassed node's, following `end` back through bypassed
/// nodes (at most `hops` of them; more means a loop, which validation reports anyway).
fn source(
    end: &Endpoint,
    bypassed: &HashMap<&str, &NodeSpec>,
    feeds: &HashMap<&Endpoint, &Endpoint>,
    hops: usize,
) -> Option<Endpoint> {
    let mut end = end.clone();
    for _ in 0..=hops {
        if !end.is_well_formed() {
            return None;
        }
        let Some(spec) = bypassed.get(end.node.as_str()) else {
            return Some(end);
        };
        let input = Endpoint::new(end.node.as_str(), passing_input(spec, &end.port)?);
        end = (*feeds.get(&input)?).clone();
    }
    None
}

/// The input whose value output `output` of a bypassed `spec` node carries on: the input of
/// the same name and kind, else the first input of the output's kind.
pub fn passing_input<'a>(spec: &'a NodeSpec, output: &str) -> Option<&'a str> {
    let kind = spec.outputs.get(spec.output(output)?)?.kind;
    let same_name = spec
        .inputs
        .iter()
        .find(|i| i.name == output && i.kind == kind);
    same_name
        .or_else(|| spec.inputs.iter().find(|i| i.kind == kind))
        .map(|i| i.name.as_str())
}

/// Whether the input `to` must be connected.
fn required(doc: &GraphDoc, registry: &NodeRegistry, to: &Endpoint) -> bool {
    let spec = doc.node(&to.node).and_then(|n| registry.get(&n.kind));
    spec.and_then(|k| k.spec.inputs.iter().find(|i| i.name == to.port))
        .is_some_and(|i| i.required)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{NodeDoc, Settings};
    use crate::node::{EvalCtx, Node, NodeError, NodeIo};
    use crate::registry::NodeKind;
    use crate::spec::PortSpec;
    use crate::toy::{Drops, DROPS};
    use crate::Simulation;

    /// Adds one drop to what it gets.
    struct Drip;

    impl Node for Drip {
        fn eval(&mut self, _: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
            let mut drops = io.require("drops")?;
            drops.make_mut::<Drops>().expect("drops").push(1);
            io.set("drops", drops);
            Ok(())
        }
    }

    fn registry() -> NodeRegistry {
        let port = |n: &str, k| PortSpec::new(n, k, "");
        let kind = |name: &str, inputs, outputs| {
            let spec = NodeSpec {
                kind: name.into(),
                label: name.into(),
                category: "Test".into(),
                help: String::new(),
                inputs,
                outputs,
                params: vec![],
                ..Default::default()
            };
            NodeKind::new(spec, Box::new(|_| Ok(Box::new(Drip) as Box<dyn Node>)))
        };
        let mut r = crate::toy::registry();
        let drip = kind(
            "drip",
            vec![port("drops", DROPS)],
            vec![port("drops", DROPS)],
        );
        // makes drops out of a number: nothing to pass on when bypassed
        let source = kind(
            "source",
            vec![PortSpec::optional("rate", crate::toy::RATE, "")],
            vec![port("drops", DROPS)],
        );
        r.register(drip).unwrap();
        r.register(source).unwrap();
        r
    }

    fn doc(middle: &str) -> GraphDoc {
        let settings = Settings {
            grid: [8, 8, 1],
            cell_size: 0.125,
            fps: 10.0,
            frames: 3,
            cfl: 1.0,
            max_substeps: 1,
            fixed_dt: 0.1,
            seed: 1,
            density: 1000.0,
        };
        let edges = [
            ("in.drops", "a.drops"),
            ("a.drops", "b.drops"),
            ("b.drops", "out.drops"),
        ];
        GraphDoc {
            format_version: 1,
            description: String::new(),
            settings,
            nodes: vec![
                NodeDoc::new("in", "step_input"),
                NodeDoc::new("a", middle),
                NodeDoc::new("b", "drip"),
                NodeDoc::new("out", "step_output"),
            ],
            edges: edges.iter().map(|(f, t)| EdgeDoc::new(*f, *t)).collect(),
            groups: vec![],
            variants: vec![],
            layout: Default::default(),
        }
    }

    fn drops_after_one_frame(doc: &GraphDoc) -> usize {
        let tmp = std::env::temp_dir();
        let mut sim = Simulation::new(doc, &registry(), &tmp, &tmp).unwrap();
        sim.advance_frame().unwrap();
        sim.carried_as::<Drops>().unwrap().len()
    }

    #[test]
    fn a_bypassed_node_passes_its_input_on_and_is_left_out() {
        let mut d = doc("drip");
        assert_eq!(drops_after_one_frame(&d), 2);
        d.nodes[1].bypass = true;
        let resolved = without_bypassed(&d, &registry()).unwrap();
        assert!(resolved.node("a").is_none());
        assert_eq!(resolved.edges[0], EdgeDoc::new("in.drops", "b.drops"));
        assert_eq!(drops_after_one_frame(&d), 1);
        // a bypassed end of a chain: both drips bypassed, step_input feeds step_output
        d.nodes[2].bypass = true;
        assert_eq!(drops_after_one_frame(&d), 0);
        // stored only when set
        assert!(d.to_ron().contains("bypass: true"));
        assert!(!doc("drip").to_ron().contains("bypass"));
    }

    #[test]
    fn a_bypassed_node_with_nothing_to_pass_on_is_named() {
        let mut d = doc("source");
        d.edges.remove(0);
        d.nodes[1].bypass = true;
        let errors = crate::compile(&d, &registry()).unwrap_err();
        assert_eq!(errors[0].node.as_deref(), Some("a"), "{errors:?}");
        assert!(errors[0].message.contains("bypassed"), "{errors:?}");
    }

    #[test]
    fn a_node_without_wires_is_left_out_of_the_run_not_refused() {
        let mut d = doc("drip");
        // a scratch drip: its required input unwired, which a wired node may not have
        d.nodes.push(NodeDoc::new("scratch", "drip"));
        assert_eq!(crate::unwired::unwired(&d), ["scratch"]);
        let plan = crate::compile(&d, &registry()).unwrap();
        assert!(plan.nodes.iter().all(|n| n.id != "scratch"));
        assert_eq!(drops_after_one_frame(&d), 2);
        // one wire makes it part of the run, with its unwired required input refused
        d.edges.push(EdgeDoc::new("scratch.drops", "out.drops"));
        assert!(crate::compile(&d, &registry()).is_err());
    }
}

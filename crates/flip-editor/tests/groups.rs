//! Node groups in the editor: a grouped document shows one node per group whose ports carry
//! the boundary wires, and survives GraphDoc → editor → GraphDoc unchanged; a new wire to a
//! group port is saved on the inner port; collapse then expand gives the original graph, and
//! grouping leaves what the run depends on unchanged.

use flip_editor::graph::convert::{from_doc, port_input};
use flip_editor::run::worker::sim_view;
use flip_graph::groups::{collapse, expand};
use flip_graph::GraphDoc;
use flip_host::PluginSet;
use std::sync::Arc;

fn registry() -> flip_graph::NodeRegistry {
    flip_nodes::builtin_registry(Arc::new(PluginSet::default()))
}

fn dam_break() -> GraphDoc {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../graphs/dam_break_2d.ron");
    GraphDoc::load(std::path::Path::new(path)).unwrap()
}

const MEMBERS: [&str; 4] = ["marker", "level_set", "extrapolate", "pressure"];

#[test]
fn a_grouped_graph_is_one_node_and_round_trips() {
    let registry = registry();
    let flat = dam_break();
    let members = MEMBERS.map(String::from);
    let (grouped, id) = collapse(&flat, &members, "Projection").unwrap();
    let ed = from_doc(&grouped, &registry);
    let g = &ed.state.graph;
    assert_eq!(g.nodes.len(), flat.nodes.len() - MEMBERS.len() + 1);
    for m in MEMBERS {
        assert!(ed.find(m).is_none(), "{m} is inside the group");
    }
    let node = ed.find(&id).expect("the group node");
    assert_eq!(g[node].label, "Projection");
    // every boundary wire is drawn, on the group's ports
    let into = port_input(&ed.state, node, "pressure.solids").unwrap();
    assert!(g.connection(into).is_some());
    let out = g[node].get_output("pressure.velocity").unwrap();
    assert!(g.iter_connections().any(|(_, o)| o == out));
    assert!(ed.dangling.is_empty(), "{:?}", ed.dangling);
    let back = ed.to_doc();
    assert_eq!(back, grouped);
    // grouping is a view: the run (and the frame cache) is unchanged
    assert_eq!(sim_view(&grouped), sim_view(&flat));
    assert_eq!(expand(&back, &id).unwrap(), flat);
}

#[test]
fn a_wire_to_a_group_port_is_saved_on_the_inner_port() {
    let registry = registry();
    let (grouped, id) = collapse(&dam_break(), &MEMBERS.map(String::from), "").unwrap();
    let mut ed = from_doc(&grouped, &registry);
    let node = ed.find(&id).unwrap();
    let input = port_input(&ed.state, node, "pressure.solids").unwrap();
    let g = &mut ed.state.graph;
    let old = g.connection(input).unwrap();
    g.remove_connection(input, old);
    let doc = ed.to_doc();
    assert!(!doc.edges.iter().any(|e| e.to == "pressure.solids"));
    ed.state.graph.add_connection(old, input, 0);
    assert_eq!(ed.to_doc(), grouped);
}

//! Node groups on a shipped graph: collapse a selection into one node and expand it back.

use flip_graph::groups::{check, collapse, expand, ungrouped};
use flip_graph::GraphDoc;

fn dam_break() -> GraphDoc {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../graphs/dam_break_2d.ron");
    GraphDoc::load(std::path::Path::new(path)).unwrap()
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn ends(list: &[&str]) -> Vec<flip_graph::Endpoint> {
    list.iter()
        .map(|s| flip_graph::Endpoint::parse(s))
        .collect()
}

#[test]
fn collapse_then_expand_gives_back_the_original_graph() {
    let doc = dam_break();
    let members = ids(&["marker", "level_set", "extrapolate", "pressure"]);
    let (grouped, id) = collapse(&doc, &members, "Projection").unwrap();
    assert_eq!(id, "group");
    let g = &grouped.groups[0];
    assert_eq!(
        g.inputs,
        ends(&[
            "marker.particles",
            "marker.solids",
            "level_set.particles",
            "level_set.solids",
            "extrapolate.velocity",
            "pressure.solids"
        ])
    );
    let outputs = [
        "pressure.velocity",
        "level_set.level_set",
        "level_set.density",
        "pressure.pressure",
        "pressure.divergence",
        "pressure.cells",
    ];
    assert_eq!(g.outputs, ends(&outputs));
    assert!(check(&grouped).is_empty());
    assert!(grouped.layout.positions.contains_key("group"));
    // the file keeps it
    let reread = GraphDoc::from_ron(&grouped.to_ron(), "grouped").unwrap();
    assert_eq!(reread, grouped);
    assert_eq!(expand(&reread, &id).unwrap(), doc);
    assert_eq!(ungrouped(&reread), doc);
}

#[test]
fn groups_do_not_nest_and_bad_groups_are_named() {
    let doc = dam_break();
    let (grouped, _) = collapse(&doc, &ids(&["p2g", "gravity"]), "").unwrap();
    let err = collapse(&grouped, &ids(&["gravity", "advect"]), "").unwrap_err();
    assert!(err.to_string().contains("`gravity`"), "{err}");
    let (two, id) = collapse(&grouped, &ids(&["advect"]), "").unwrap();
    assert_eq!(id, "group_2");
    let mut bad = two.clone();
    bad.groups[1].outputs.push("p2g.velocity".into());
    bad.nodes[0].group = Some("nowhere".into());
    let errors: Vec<String> = check(&bad).iter().map(|e| e.to_string()).collect();
    assert!(
        errors.iter().any(|e| e.contains("`p2g.velocity`")),
        "{errors:?}"
    );
    assert!(errors.iter().any(|e| e.contains("`nowhere`")), "{errors:?}");
    assert!(expand(&two, "missing").is_err());
}

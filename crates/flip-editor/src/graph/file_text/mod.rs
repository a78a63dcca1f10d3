//! The text Save writes: the file as it was read with only the edited values changed, so graph
//! files stay reviewable as diffs (comments, order and formatting kept).

/// Changing the values of a RON text in place.
pub mod patch;
/// A RON text as values with their spans.
pub mod scan;

use flip_graph::GraphDoc;

/// The text Save writes for `doc`. With the file's text and what was read from it (`file`): the
/// text itself when nothing changed, else the text with the edits patched in ([`patch`]) when
/// that reads back as `doc`; else (no file, or an edit that cannot be patched) the document
/// written out in full.
pub fn text_to_save(doc: &GraphDoc, file: Option<&(GraphDoc, String)>) -> String {
    let Some((read, text)) = file else {
        return doc.to_ron();
    };
    if read == doc {
        return text.clone();
    }
    patch::patch(text, &read.to_ron(), &doc.to_ron())
        .filter(|patched| GraphDoc::from_ron(patched, "saved").is_ok_and(|d| d == *doc))
        .unwrap_or_else(|| doc.to_ron())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flip_graph::{EdgeDoc, NodeDoc, ParamValue};

    fn shipped() -> Vec<(String, GraphDoc, String)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../graphs");
        let mut out = vec![];
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "ron") {
                let text = std::fs::read_to_string(&path).unwrap();
                let name = path.display().to_string();
                out.push((
                    name.clone(),
                    GraphDoc::from_ron(&text, &name).unwrap(),
                    text,
                ));
            }
        }
        assert!(out.len() >= 10);
        out
    }

    /// The lines of `b` that differ from `a`'s (same line count), or `None`.
    fn changed_lines(a: &str, b: &str) -> Option<Vec<String>> {
        let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
        (a.len() == b.len()).then(|| {
            a.iter()
                .zip(&b)
                .filter(|(x, y)| x != y)
                .map(|(_, y)| y.to_string())
                .collect()
        })
    }

    /// Saves `edited` over `(doc, text)`: the saved text reads back as `edited` and is not the
    /// full rewrite.
    fn save(name: &str, doc: &GraphDoc, text: &str, edited: &GraphDoc) -> String {
        let saved = text_to_save(edited, Some(&(doc.clone(), text.to_string())));
        let back = GraphDoc::from_ron(&saved, name).unwrap();
        assert_eq!(back, *edited, "{name}: reads back as saved");
        assert_ne!(saved, edited.to_ron(), "{name}: patched, not rewritten");
        assert_eq!(
            saved.lines().next(),
            text.lines().next(),
            "{name}: comments kept"
        );
        saved
    }

    #[test]
    fn a_value_edit_or_a_move_changes_one_line() {
        for (name, doc, text) in shipped() {
            let mut edited = doc.clone();
            let Some(node) = edited.nodes.iter_mut().find(|n| {
                n.params
                    .values()
                    .any(|v| matches!(v, ParamValue::Number(_)))
            }) else {
                continue; // no number written out to edit (a graph of defaults)
            };
            let (key, value) = (node.params.iter_mut())
                .find(|(_, v)| matches!(v, ParamValue::Number(_)))
                .unwrap();
            *value = ParamValue::Number(0.123);
            let key = key.clone();
            let saved = save(&name, &doc, &text, &edited);
            let lines = changed_lines(&text, &saved).expect("same line count");
            assert_eq!(lines.len(), 1, "{name}: {lines:?}");
            assert!(
                lines[0].contains(&key) && lines[0].contains("0.123"),
                "{lines:?}"
            );
            // a node moved
            let mut moved = doc.clone();
            let p = moved.layout.positions.values_mut().next().unwrap();
            p.0 += 10.0;
            let saved = save(&name, &doc, &text, &moved);
            assert_eq!(changed_lines(&text, &saved).unwrap().len(), 1, "{name}");
        }
    }

    #[test]
    fn structural_edits_keep_the_rest_of_the_file() {
        for (name, doc, text) in shipped() {
            // a node with a parameter, wired in, bypass on another; a node and its wires gone
            let mut edited = doc.clone();
            let mut node = NodeDoc::new("scratch_gravity", "gravity");
            node.params
                .insert("gravity".into(), ParamValue::Vector(vec![0.0, 1.0, 0.0]));
            edited.nodes.insert(1, node);
            let first = edited.nodes[0].id.clone();
            edited.edges.push(EdgeDoc::new(
                format!("{first}.x"),
                "scratch_gravity.velocity",
            ));
            edited.nodes[2].bypass = true;
            edited.nodes[3]
                .params
                .insert("added".into(), ParamValue::Bool(true));
            let gone = edited.nodes.remove(4).id;
            edited
                .edges
                .retain(|e| e.from.node != gone && e.to.node != gone);
            edited.layout.positions.remove(&gone);
            edited.settings.frames += 1;
            let saved = save(&name, &doc, &text, &edited);
            let kept_comments = text.lines().filter(|l| l.trim_start().starts_with("//"));
            for c in kept_comments {
                assert!(saved.contains(c), "{name}: comment {c:?} kept");
            }
        }
    }
}

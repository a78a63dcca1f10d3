//! The variant list as the user edits it: names and override lines, the graph's saved
//! variants as a start, and the checks before a run.

use flip_graph::{GraphDoc, Override, VariantDoc};
use flip_nodes::compare::{valid_name, CompareError, VariantSpec};

/// A variant as edited: a name and `node.param=value` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariantDraft {
    /// Name.
    pub name: String,
    /// Overrides, one per line.
    pub overrides: Vec<String>,
}

impl VariantDraft {
    /// The override lines as written, blank lines dropped.
    fn lines(&self) -> Vec<String> {
        self.overrides
            .iter()
            .map(|o| o.trim().to_string())
            .filter(|o| !o.is_empty())
            .collect()
    }

    /// The spec the worker runs.
    ///
    /// # Errors
    /// A bad name or a line that is not `target=value`.
    pub fn spec(&self) -> Result<VariantSpec, CompareError> {
        VariantSpec::new(self.name.trim(), &self.lines())
    }

    /// The lines that parse, with what they set.
    fn parsed(&self) -> impl DoubleEndedIterator<Item = Override> + '_ {
        self.overrides.iter().filter_map(|o| o.parse().ok())
    }

    /// The value this variant gives `target` (`node.param`), if it sets it.
    pub fn value_of(&self, target: &str) -> Option<String> {
        self.parsed()
            .rev()
            .find(|o| o.target.to_string() == target)
            .map(|o| o.text)
    }

    /// Sets `target=value`, replacing the variant's earlier settings of `target`.
    pub fn set(&mut self, target: &str, value: &str) {
        self.unset(target);
        self.overrides.push(format!("{target}={value}"));
    }

    /// Drops the variant's settings of `target` (the graph's value applies).
    pub fn unset(&mut self, target: &str) {
        self.overrides.retain(
            |line| !matches!(line.parse::<Override>(), Ok(o) if o.target.to_string() == target),
        );
    }
}

/// Drafts of the graph's saved variants, as written (a bad line shows in [`list_problem`]).
pub fn saved_drafts(doc: &GraphDoc) -> Vec<VariantDraft> {
    doc.variants
        .iter()
        .map(|v| VariantDraft {
            name: v.name.clone(),
            overrides: v.set.clone(),
        })
        .collect()
}

/// Where a new compare list starts: the graph's saved variants, else the graph as it is.
pub fn initial_drafts(doc: &GraphDoc) -> Vec<VariantDraft> {
    let saved = saved_drafts(doc);
    if saved.is_empty() {
        vec![VariantDraft {
            name: "graph".into(),
            overrides: vec![],
        }]
    } else {
        saved
    }
}

/// The drafts as saved `variants` of a graph.
pub fn to_variant_docs(drafts: &[VariantDraft]) -> Vec<VariantDoc> {
    drafts
        .iter()
        .map(|d| VariantDoc {
            name: d.name.trim().to_string(),
            set: d.lines(),
        })
        .collect()
}

/// What is wrong with the list, if anything (names must be valid and distinct).
pub fn list_problem(drafts: &[VariantDraft]) -> Option<String> {
    if drafts.is_empty() {
        return Some("add a variant".into());
    }
    for (i, d) in drafts.iter().enumerate() {
        let name = d.name.trim();
        if !valid_name(name) {
            return Some(format!(
                "variant {}: name must be letters, digits, - or _",
                i + 1
            ));
        }
        if drafts[..i].iter().any(|e| e.name.trim() == name) {
            return Some(format!("two variants are called `{name}`"));
        }
        if let Err(e) = d.spec() {
            return Some(e.to_string());
        }
    }
    None
}

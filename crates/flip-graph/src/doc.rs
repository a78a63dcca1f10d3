//! The graph document, stored as RON in `graphs/`.

use crate::endpoint::Endpoint;
use crate::error::GraphError;
use crate::value::ParamMap;
use flip_core::GridSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the file format written by this build. Files with a higher version are refused.
pub const FORMAT_VERSION: u32 = 1;

/// Global simulation settings of a graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Cells per axis `[ni, nj, nk]`; `nk = 1` makes a 2D simulation.
    pub grid: [usize; 3],
    /// Cell size in metres.
    pub cell_size: f32,
    /// Output frames per second.
    pub fps: f32,
    /// Frames to simulate.
    pub frames: u32,
    /// CFL number: substeps move particles at most this many cells.
    pub cfl: f32,
    /// Most substeps per frame (the time step never gets smaller than 1/(fps·max_substeps)).
    pub max_substeps: u32,
    /// Fixed time step in seconds instead of the CFL rule (0 = CFL).
    #[serde(default)]
    pub fixed_dt: f32,
    /// Random seed for every node that samples.
    pub seed: u64,
    /// Liquid density (kg/m³).
    #[serde(default = "default_density")]
    pub density: f32,
}

fn default_density() -> f32 {
    1000.0
}

impl Settings {
    /// Grid geometry.
    pub fn grid_spec(&self) -> GridSpec {
        GridSpec::new(self.grid[0], self.grid[1], self.grid[2], self.cell_size)
    }
}

/// A node in the document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeDoc {
    /// Unique id within the graph (`[a-z0-9_]+`), used in edges: `"p2g.velocity"`.
    pub id: String,
    /// Node kind from the registry (`"p2g"`).
    pub kind: String,
    /// Parameters; missing ones take their defaults.
    #[serde(default)]
    pub params: ParamMap,
    /// Left out of the run: each input passes straight to the output of the same name (see
    /// [`crate::bypass`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub bypass: bool,
    /// Id of the [`GroupDoc`] this node is collapsed into in the editor; the run ignores it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "group_ser",
        deserialize_with = "group_de"
    )]
    pub group: Option<String>,
}

/// `group: "id"` in the file (not `Some("id")`).
fn group_ser<S: serde::Serializer>(group: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(group.as_deref().unwrap_or_default())
}

fn group_de<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl NodeDoc {
    /// A node of `kind` with default parameters.
    pub fn new(id: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            kind: kind.into(),
            params: ParamMap::new(),
            bypass: false,
            group: None,
        }
    }
}

/// An edge `from: "node.output"` → `to: "node.input"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeDoc {
    /// Source `node.port`.
    pub from: Endpoint,
    /// Destination `node.port`.
    pub to: Endpoint,
}

impl EdgeDoc {
    /// An edge between two ends (`node.port` text or [`Endpoint`]s).
    pub fn new(from: impl Into<Endpoint>, to: impl Into<Endpoint>) -> Self {
        Self {
            from: from.into(),
            to: to.into(),
        }
    }
}

/// A saved comparison variant: a name and `node.param=value` overrides (see `flipgraph compare`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantDoc {
    /// Variant name.
    pub name: String,
    /// Overrides, `node.param=value`.
    #[serde(default)]
    pub set: Vec<String>,
}

impl VariantDoc {
    /// Whether `name` is a valid variant name: letters, digits, `-` and `_` (it names a
    /// folder of the comparison's report and a CSV cell).
    pub fn valid_name(name: &str) -> bool {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
    }
}

/// A node group ([`crate::groups`]): the nodes whose `group` names it are drawn as one node
/// whose ports are the listed inner ports. The run ignores groups.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupDoc {
    /// Id, unique among node and group ids (`[a-z0-9_]+`).
    pub id: String,
    /// Title shown on the group node.
    #[serde(default)]
    pub label: String,
    /// Exposed inputs: inner `node.port` inputs, in port order.
    #[serde(default)]
    pub inputs: Vec<Endpoint>,
    /// Exposed outputs: inner `node.port` outputs, in port order.
    #[serde(default)]
    pub outputs: Vec<Endpoint>,
}

/// Editor-only data; the headless runner ignores it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// Node positions on the canvas by node id.
    #[serde(default)]
    pub positions: BTreeMap<String, (f32, f32)>,
}

/// A whole graph file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphDoc {
    /// File format version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// One-line description shown by the CLI and the editor.
    #[serde(default)]
    pub description: String,
    /// Global settings.
    pub settings: Settings,
    /// Nodes.
    pub nodes: Vec<NodeDoc>,
    /// Edges.
    pub edges: Vec<EdgeDoc>,
    /// Node groups (collapsed in the editor; members carry the group id).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupDoc>,
    /// Saved comparison variants (`flipgraph compare GRAPH` runs them when none are given).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantDoc>,
    /// Editor layout.
    #[serde(default)]
    pub layout: Layout,
}

impl GraphDoc {
    /// Parses RON text; `origin` names the file in errors.
    ///
    /// # Errors
    /// A [`GraphError`] with the line and column of a syntax error, or a version mismatch.
    pub fn from_ron(text: &str, origin: &str) -> Result<Self, GraphError> {
        let doc: GraphDoc = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| {
                GraphError::file(origin, {
                    let (line, col) = blamed_position(text, &e);
                    format!("malformed RON at {line}:{col}: {}", e.code)
                })
            })?;
        if doc.format_version > FORMAT_VERSION || doc.format_version == 0 {
            return Err(GraphError::file(
                origin,
                format!(
                    "format_version {} is not supported (this build reads 1..={FORMAT_VERSION})",
                    doc.format_version
                ),
            ));
        }
        Ok(doc)
    }

    /// Reads a graph file.
    ///
    /// # Errors
    /// Unreadable file or malformed content, naming the file.
    pub fn load(path: &Path) -> Result<Self, GraphError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| GraphError::file(&origin, format!("cannot read: {e}")))?;
        Self::from_ron(&text, &origin)
    }

    /// Pretty RON text, with the description as a header comment.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .depth_limit(4)
            .struct_names(false)
            .separate_tuple_members(false)
            .enumerate_arrays(false);
        let body = ron::ser::to_string_pretty(self, config).expect("graph documents serialise");
        let mut header = String::new();
        for line in self.description.lines() {
            header.push_str("// ");
            header.push_str(line);
            header.push('\n');
        }
        header + &body + "\n"
    }

    /// Writes the graph atomically (temp file + rename).
    ///
    /// # Errors
    /// I/O errors naming the file.
    pub fn save(&self, path: &Path) -> Result<(), GraphError> {
        let origin = path.display().to_string();
        let tmp = path.with_extension("ron.tmp");
        std::fs::write(&tmp, self.to_ron())
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| GraphError::file(&origin, format!("cannot write: {e}")))
    }

    /// The node with `id`.
    pub fn node(&self, id: &str) -> Option<&NodeDoc> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Mutable node with `id`.
    pub fn node_mut(&mut self, id: &str) -> Option<&mut NodeDoc> {
        self.nodes.iter_mut().find(|n| n.id == id)
    }
}

/// Where a syntax error is: RON reports a missing separator or closing bracket at the next
/// token, which is on the next line when the culprit ends a line; such an error is placed just
/// after the last value before it instead (comments skipped).
fn blamed_position(text: &str, e: &ron::error::SpannedError) -> (usize, usize) {
    use ron::error::Error as E;
    let (line, col) = (e.position.line, e.position.col);
    let separator = matches!(
        e.code,
        E::ExpectedComma
            | E::ExpectedArrayEnd
            | E::ExpectedMapEnd
            | E::ExpectedStructLikeEnd
            | E::ExpectedMapColon
            | E::ExpectedOptionEnd
    );
    let lines: Vec<&str> = text.lines().collect();
    let at_line_start = lines.get(line.wrapping_sub(1)).is_some_and(|l| {
        l.chars()
            .take(col.saturating_sub(1))
            .all(char::is_whitespace)
    });
    if !separator || !at_line_start {
        return (line, col);
    }
    for back in (0..line.saturating_sub(1)).rev() {
        let code = code_part(lines[back]).trim_end();
        if !code.trim_start().is_empty() {
            return (back + 1, code.chars().count() + 1);
        }
    }
    (line, col)
}

/// `line` without a trailing `//` comment (one outside a string).
fn code_part(line: &str) -> &str {
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '/' if !in_string && line[i..].starts_with("//") => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAM_BREAK: &str = include_str!("../../../graphs/dam_break_2d.ron");

    fn error_of(text: &str) -> String {
        GraphDoc::from_ron(text, "g").unwrap_err().to_string()
    }

    #[test]
    fn a_syntax_error_names_the_line_and_column_of_the_culprit() {
        // a comma missing at the end of line 10 (after `frames: 100`), the comment-free case
        // and one with a comment after the value
        let text = DAM_BREAK.replace("frames: 100,", "frames: 100");
        assert!(
            error_of(&text).contains("at 10:20: Expected comma"),
            "{}",
            error_of(&text)
        );
        let text = DAM_BREAK.replace("frames: 100,", "frames: 100 // \"a\" // b");
        assert!(
            error_of(&text).contains("at 10:20: Expected comma"),
            "{}",
            error_of(&text)
        );
        // an error inside a line stays where RON found it
        let text = DAM_BREAK.replace("cfl: 1.0,", "cfl: 1.0 oops,");
        assert!(error_of(&text).contains("at 11:18:"), "{}", error_of(&text));
    }
}

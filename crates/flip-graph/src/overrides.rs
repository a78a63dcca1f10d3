//! `node.param=value` and `settings.field=value` overrides of a graph document, written the way
//! graph files write values. The CLI's `--set`, compare variants (CLI and editor) and saved
//! `variants` all parse their text once into an [`Override`] and apply it here.

use crate::doc::{GraphDoc, VariantDoc};
use crate::endpoint::split_dotted;
use crate::error::GraphError;
use crate::registry::NodeRegistry;
use crate::value::ParamValue;
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// What an override sets.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OverrideTarget {
    /// `settings.<field>`.
    Setting(String),
    /// `<node>.<param>`.
    Param {
        /// The node id.
        node: String,
        /// The parameter name.
        param: String,
    },
}

impl fmt::Display for OverrideTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Setting(field) => write!(f, "settings.{field}"),
            Self::Param { node, param } => write!(f, "{node}.{param}"),
        }
    }
}

impl FromStr for OverrideTarget {
    type Err = OverrideError;

    /// Parses `node.param` or `settings.field`.
    fn from_str(text: &str) -> Result<Self, OverrideError> {
        let text = text.trim();
        let (node, param) = split_dotted(text)
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
            .ok_or_else(|| OverrideError::NoParam(text.into()))?;
        Ok(if node == "settings" {
            Self::Setting(param.into())
        } else {
            Self::Param {
                node: node.into(),
                param: param.into(),
            }
        })
    }
}

/// One override: a target and the value it gets, parsed once from `target=value` (graph-file
/// value syntax, [`parse_value`]). Written back as the text it was parsed from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Override {
    /// What it sets.
    pub target: OverrideTarget,
    /// The value as written (trimmed).
    pub text: String,
}

impl Override {
    /// The value, as graph files read it.
    pub fn value(&self) -> ParamValue {
        parse_value(&self.text)
    }
}

impl FromStr for Override {
    type Err = OverrideError;

    /// Parses `target=value`.
    fn from_str(item: &str) -> Result<Self, OverrideError> {
        let item = item.trim();
        let (target, value) = item
            .split_once('=')
            .ok_or_else(|| OverrideError::NoValue(item.into()))?;
        Ok(Self {
            target: target.parse()?,
            text: value.trim().to_string(),
        })
    }
}

impl TryFrom<String> for Override {
    type Error = OverrideError;
    fn try_from(text: String) -> Result<Self, OverrideError> {
        text.parse()
    }
}

impl From<Override> for String {
    fn from(o: Override) -> Self {
        o.to_string()
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.target, self.text)
    }
}

/// Parses every `target=value` text.
///
/// # Errors
/// The first malformed one.
pub fn parse_overrides<S: AsRef<str>>(items: &[S]) -> Result<Vec<Override>, OverrideError> {
    items.iter().map(|i| i.as_ref().parse()).collect()
}

/// Why an override could not be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    /// No `=`.
    #[error("`{0}`: expected node.param=value")]
    NoValue(String),
    /// No `.` in the target.
    #[error("`{0}`: expected node.param")]
    NoParam(String),
    /// The node is not in the graph.
    #[error("`{item}`: no node `{node}` in the graph")]
    UnknownNode {
        /// The whole override.
        item: String,
        /// The node id it names.
        node: String,
        /// The parameter it sets.
        param: String,
    },
    /// `settings.<field>` that does not exist.
    #[error("unknown setting `settings.{0}` (settings are {all})", all = SETTINGS.join(", "))]
    UnknownSetting(String),
    /// A setting given a value of the wrong shape.
    #[error("`{field}` needs {expected}")]
    BadSetting {
        /// The setting, `settings.<field>`.
        field: String,
        /// What it takes.
        expected: String,
    },
}

impl OverrideError {
    /// As a validation problem, naming the node and parameter or the setting it concerns.
    pub fn to_graph_error(&self) -> GraphError {
        match self {
            Self::UnknownNode { node, param, .. } => {
                GraphError::node(node, Some(param), "no such node in the graph")
            }
            Self::UnknownSetting(field) => GraphError::setting(
                field,
                format!("no such setting (settings are {})", SETTINGS.join(", ")),
            ),
            Self::BadSetting { field, expected } => {
                GraphError::field(field, format!("needs {expected}"))
            }
            Self::NoValue(_) | Self::NoParam(_) => GraphError {
                message: self.to_string(),
                ..GraphError::default()
            },
        }
    }
}

/// The settings an override can set.
const SETTINGS: [&str; 9] = [
    "grid",
    "cell_size",
    "fps",
    "frames",
    "cfl",
    "max_substeps",
    "fixed_dt",
    "seed",
    "density",
];

/// Parses a value the way graph files write it: `true`, `0.5`, `[0, -9.81, 0]`; anything
/// else is text (`mic0-pcg`, `pcg/mic0-pcg`).
pub fn parse_value(text: &str) -> ParamValue {
    ron::from_str::<ParamValue>(text.trim())
        .unwrap_or_else(|_| ParamValue::Text(text.trim().to_string()))
}

fn number(v: &ParamValue, field: &str) -> Result<f64, OverrideError> {
    v.as_f64().ok_or_else(|| OverrideError::BadSetting {
        field: format!("settings.{field}"),
        expected: "a number".into(),
    })
}

/// A whole number in `min..=max` (the bounds validation holds the setting to); a fraction or
/// a value outside is refused rather than truncated or saturated by a cast.
fn whole(v: &ParamValue, field: &str, min: f64, max: f64) -> Result<f64, OverrideError> {
    let x = number(v, field)?;
    if x.fract() == 0.0 && (min..=max).contains(&x) {
        return Ok(x);
    }
    let max = if max == SEED_MAX {
        "2^53".to_string()
    } else {
        format!("{max}")
    };
    Err(OverrideError::BadSetting {
        field: format!("settings.{field}"),
        expected: format!("a whole number from {min} to {max}"),
    })
}

const U32: f64 = u32::MAX as f64;
/// Seeds above 2^53 do not survive the f64 of an override value.
const SEED_MAX: f64 = 9_007_199_254_740_992.0;

fn set_setting(doc: &mut GraphDoc, field: &str, v: &ParamValue) -> Result<(), OverrideError> {
    let s = &mut doc.settings;
    // Grid axes are checked further (at least 4 cells, nk = 1 in 2D) by validation.
    let axis = |x: f64| whole(&ParamValue::Number(x), "grid", 1.0, U32).map(|n| n as usize);
    match field {
        "grid" => match v {
            ParamValue::Vector(g) if g.len() == 3 => {
                s.grid = [axis(g[0])?, axis(g[1])?, axis(g[2])?];
            }
            ParamValue::Number(n) => {
                // one number: that many cells on every axis of this dimension, cell size 1/n
                let n = axis(*n)?;
                s.grid = if s.grid[2] == 1 { [n, n, 1] } else { [n, n, n] };
                s.cell_size = 1.0 / n as f32;
            }
            _ => {
                return Err(OverrideError::BadSetting {
                    field: "settings.grid".into(),
                    expected: "[ni, nj, nk] or one size".into(),
                })
            }
        },
        "cell_size" => s.cell_size = number(v, field)? as f32,
        "fps" => s.fps = number(v, field)? as f32,
        "frames" => s.frames = whole(v, field, 1.0, U32)? as u32,
        "cfl" => s.cfl = number(v, field)? as f32,
        "max_substeps" => s.max_substeps = whole(v, field, 1.0, U32)? as u32,
        "fixed_dt" => s.fixed_dt = number(v, field)? as f32,
        "seed" => s.seed = whole(v, field, 0.0, SEED_MAX)? as u64,
        "density" => s.density = number(v, field)? as f32,
        _ => return Err(OverrideError::UnknownSetting(field.into())),
    }
    Ok(())
}

/// Applies one override.
///
/// # Errors
/// An unknown node or setting, or a setting given a value of the wrong shape.
pub fn apply_override(doc: &mut GraphDoc, o: &Override) -> Result<(), OverrideError> {
    let v = o.value();
    match &o.target {
        OverrideTarget::Setting(field) => set_setting(doc, field, &v),
        OverrideTarget::Param { node, param } => {
            let n = doc
                .node_mut(node)
                .ok_or_else(|| OverrideError::UnknownNode {
                    item: o.to_string(),
                    node: node.clone(),
                    param: param.clone(),
                })?;
            n.params.insert(param.clone(), v);
            Ok(())
        }
    }
}

/// Applies every override in order.
///
/// # Errors
/// The first bad override.
pub fn apply_overrides(doc: &mut GraphDoc, items: &[Override]) -> Result<(), OverrideError> {
    items.iter().try_for_each(|o| apply_override(doc, o))
}

/// `doc` with its saved variant `variant` applied as `compare` applies it (the overrides in
/// order, stale solver parameters dropped: [`apply_overrides_scoped`]), without saved
/// variants of its own, and every problem of the variant's name and overrides, each naming
/// the variant. A bad override is left out, so validating the result finds the other
/// problems.
pub fn apply_variant(
    doc: &GraphDoc,
    variant: &VariantDoc,
    registry: &NodeRegistry,
) -> (GraphDoc, Vec<GraphError>) {
    let mut errors = Vec::new();
    if !VariantDoc::valid_name(&variant.name) {
        errors.push(GraphError::field(
            "name",
            "a variant name is letters, digits, - or _",
        ));
    }
    let mut applied = GraphDoc {
        variants: Vec::new(),
        ..doc.clone()
    };
    let mut good = Vec::new();
    for item in &variant.set {
        let mut scratch = applied.clone();
        match item.parse().and_then(|o| {
            apply_override(&mut scratch, &o)?;
            Ok(o)
        }) {
            Ok(o) => good.push(o),
            Err(e) => errors.push(e.to_graph_error()),
        }
    }
    apply_overrides_scoped(&mut applied, &good, registry)
        .expect("each override applied on its own");
    let errors = errors
        .into_iter()
        .map(|e| e.in_variant(&variant.name))
        .collect();
    (applied, errors)
}

/// Applies every override in order, then drops the parameters they made stale: one the node
/// knew before (`max_outer_iterations` of an `lcp/...` solver) and no longer knows after (the
/// override switched the solver to `multigrid/...`), unless an override set it. Parameters that
/// were unknown to begin with are kept, so validation still reports them.
///
/// # Errors
/// The first bad override.
pub fn apply_overrides_scoped(
    doc: &mut GraphDoc,
    items: &[Override],
    registry: &NodeRegistry,
) -> Result<(), OverrideError> {
    let before = doc.clone();
    apply_overrides(doc, items)?;
    let explicit: BTreeSet<(&str, &str)> = items
        .iter()
        .filter_map(|o| match &o.target {
            OverrideTarget::Param { node, param } => Some((node.as_str(), param.as_str())),
            OverrideTarget::Setting(_) => None,
        })
        .collect();
    for node in &mut doc.nodes {
        let Some(old) = before.node(&node.id).filter(|o| o.params != node.params) else {
            continue;
        };
        let Some(kind) = registry.get(&node.kind) else {
            continue;
        };
        let names = |values| -> Option<BTreeSet<String>> {
            let specs = kind.params_for(values).ok()?;
            Some(specs.into_iter().map(|p| p.name).collect())
        };
        let (Some(was), Some(now)) = (names(&old.params), names(&node.params)) else {
            continue;
        };
        let id = node.id.clone();
        node.params.retain(|name, _| {
            now.contains(name) || !was.contains(name) || explicit.contains(&(&*id, &**name))
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{NodeDoc, Settings};

    #[test]
    fn values_parse_like_graph_files() {
        assert_eq!(parse_value("true"), ParamValue::Bool(true));
        assert_eq!(parse_value("0.5"), ParamValue::Number(0.5));
        assert_eq!(parse_value("3"), ParamValue::Number(3.0));
        assert_eq!(
            parse_value("[0, -9.81, 0]"),
            ParamValue::Vector(vec![0.0, -9.81, 0.0])
        );
        assert_eq!(
            parse_value("pcg/mic0-pcg"),
            ParamValue::Text("pcg/mic0-pcg".into())
        );
    }

    fn doc() -> GraphDoc {
        GraphDoc {
            format_version: 1,
            description: String::new(),
            settings: Settings {
                grid: [64, 64, 1],
                cell_size: 1.0 / 64.0,
                fps: 24.0,
                frames: 10,
                cfl: 1.0,
                max_substeps: 8,
                fixed_dt: 0.0,
                seed: 1,
                density: 1000.0,
            },
            nodes: vec![NodeDoc::new("pressure", "pressure")],
            edges: vec![],
            groups: vec![],
            variants: vec![],
            layout: Default::default(),
        }
    }

    #[test]
    fn overrides_set_params_and_settings() {
        let mut d = doc();
        let sets = parse_overrides(&["pressure.solver=pcg/mic0-pcg", "settings.grid=32"]).unwrap();
        apply_overrides(&mut d, &sets).unwrap();
        assert_eq!(
            d.node("pressure").unwrap().params["solver"],
            ParamValue::Text("pcg/mic0-pcg".into())
        );
        assert_eq!(
            (d.settings.grid, d.settings.cell_size),
            ([32, 32, 1], 1.0 / 32.0)
        );
    }

    #[test]
    fn bad_overrides_say_why() {
        let d = doc();
        let err = |s: &str| {
            s.parse()
                .and_then(|o| apply_override(&mut d.clone(), &o))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err("pressure"), "`pressure`: expected node.param=value");
        assert_eq!(err("x.y=1"), "`x.y=1`: no node `x` in the graph");
        assert_eq!(err("settings.fps=fast"), "`settings.fps` needs a number");
        assert!(err("settings.nope=1").starts_with("unknown setting `settings.nope` (settings"));
        assert_eq!(
            err("settings.frames=0"),
            "`settings.frames` needs a whole number from 1 to 4294967295"
        );
        assert_eq!(err("solver=1"), "`solver`: expected node.param");
        assert_eq!(err(".solver=1"), "`.solver`: expected node.param");
    }

    #[test]
    fn overrides_read_back_as_written() {
        let o: Override = " pressure.solver = multigrid/mgpcg ".parse().unwrap();
        assert_eq!(
            o.target,
            OverrideTarget::Param {
                node: "pressure".into(),
                param: "solver".into()
            }
        );
        assert_eq!(o.to_string(), "pressure.solver=multigrid/mgpcg");
        let s: Override = "settings.grid=[32, 16, 1]".parse().unwrap();
        assert_eq!(s.target, OverrideTarget::Setting("grid".into()));
        assert_eq!(s.value(), ParamValue::Vector(vec![32.0, 16.0, 1.0]));
        let ron = ron::to_string(&vec![o.clone(), s.clone()]).unwrap();
        assert_eq!(ron::from_str::<Vec<Override>>(&ron).unwrap(), [o, s]);
    }

    /// A `pressure` kind whose parameters follow its solver: `lcp/...` takes
    /// `max_outer_iterations`, the others `sweeps`.
    fn registry() -> NodeRegistry {
        use crate::registry::NodeKind;
        use crate::spec::{NodeSpec, ParamSpec};
        let spec = NodeSpec {
            kind: "pressure".into(),
            label: "Pressure".into(),
            category: "Solve".into(),
            help: String::new(),
            inputs: vec![],
            outputs: vec![],
            params: vec![ParamSpec::choice(
                "solver",
                "Solver",
                "",
                &["lcp/pi-mg", "multigrid/mgpcg"],
                "multigrid/mgpcg",
            )],
            ..Default::default()
        };
        let kind = NodeKind::new(spec, Box::new(|_| Err("not built in tests".into())))
            .with_dynamic_params(Box::new(|values| {
                let lcp = matches!(values.get("solver"), Some(ParamValue::Text(s)) if s.starts_with("lcp/"));
                let extra = if lcp { "max_outer_iterations" } else { "sweeps" };
                Ok(vec![ParamSpec::int(extra, extra, "", 2, 1, 100)])
            }));
        let mut reg = crate::toy::registry();
        reg.register(kind).unwrap();
        reg
    }

    #[test]
    fn switching_the_solver_drops_the_other_solvers_parameters() {
        let mut d = doc();
        let params = &mut d.node_mut("pressure").unwrap().params;
        params.insert("solver".into(), ParamValue::Text("lcp/pi-mg".into()));
        params.insert("max_outer_iterations".into(), ParamValue::Number(20.0));
        params.insert("typo".into(), ParamValue::Number(1.0));
        let reg = registry();
        let keys = |d: &GraphDoc| -> Vec<String> {
            d.node("pressure").unwrap().params.keys().cloned().collect()
        };
        let mut mg = d.clone();
        let set = |items: &[&str]| parse_overrides(items).unwrap();
        apply_overrides_scoped(&mut mg, &set(&["pressure.solver=multigrid/mgpcg"]), &reg).unwrap();
        // the lcp parameter goes; a parameter unknown to both stays for validation to report
        assert_eq!(keys(&mg), ["solver", "typo"]);
        // a parameter the variant sets itself is kept even when the new solver lacks it
        let mut forced = d.clone();
        let sets = set(&[
            "pressure.solver=multigrid/mgpcg",
            "pressure.max_outer_iterations=5",
        ]);
        apply_overrides_scoped(&mut forced, &sets, &reg).unwrap();
        assert_eq!(keys(&forced), ["max_outer_iterations", "solver", "typo"]);
        // the same solver keeps everything
        let mut same = d.clone();
        apply_overrides_scoped(&mut same, &set(&["pressure.solver=lcp/pi-mg"]), &reg).unwrap();
        assert_eq!(keys(&same), keys(&d));
    }
}

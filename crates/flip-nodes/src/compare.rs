//! Comparing variants of one graph: the same document and seed under different overrides
//! (solver algorithms or any parameter), advanced in lockstep frame by frame, with per-frame
//! metrics. A variant that fails (bad override, invalid graph, failing node) is recorded with
//! its error; the others go on. Shared by `flipgraph compare` and the editor's compare mode.

mod lockstep;
mod metrics;

pub use lockstep::{default_jobs, Lockstep, VariantRun};
pub use metrics::{rms_distance, FrameMetrics, VariantReport};

use flip_graph::overrides::{parse_overrides, OverrideError};
use flip_graph::{GraphDoc, Override};

/// Why a comparison could not start.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A variant name with characters that do not fit a folder or a CSV cell.
    #[error("variant `{0}`: name must be letters, digits, - or _")]
    BadName(String),
    /// A variant's override that does not parse.
    #[error("variant `{variant}`: {source}")]
    BadOverride {
        /// The variant's name.
        variant: String,
        /// What is wrong with it.
        source: OverrideError,
    },
    /// Nothing to compare.
    #[error("no variants to compare")]
    NoVariants,
    /// The thread pool for parallel variants.
    #[error("cannot start the variant threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
}

/// A variant: a name and `node.param=value` overrides of the base graph.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VariantSpec {
    /// Name (letters, digits, `-`, `_`).
    pub name: String,
    /// Overrides, applied in order ([`flip_graph::overrides::apply_override`]).
    pub overrides: Vec<Override>,
}

/// Whether `name` is a valid variant name ([`flip_graph::VariantDoc::valid_name`]).
pub fn valid_name(name: &str) -> bool {
    flip_graph::VariantDoc::valid_name(name)
}

impl VariantSpec {
    /// Parses `NAME:node.param=value[,node.param=value...]` (the CLI's `--variant`).
    ///
    /// # Errors
    /// [`CompareError::BadName`], [`CompareError::BadOverride`].
    pub fn parse(text: &str) -> Result<Self, CompareError> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let items: Vec<&str> = rest.split(',').filter(|s| !s.trim().is_empty()).collect();
        Self::new(name, &items)
    }

    /// The variant `name` with the overrides written `items`.
    ///
    /// # Errors
    /// [`CompareError::BadName`], [`CompareError::BadOverride`].
    pub fn new<S: AsRef<str>>(name: &str, items: &[S]) -> Result<Self, CompareError> {
        if !valid_name(name) {
            return Err(CompareError::BadName(name.into()));
        }
        let overrides = parse_overrides(items).map_err(|source| CompareError::BadOverride {
            variant: name.into(),
            source,
        })?;
        Ok(Self {
            name: name.into(),
            overrides,
        })
    }

    /// The variants saved in the graph (`variants: [(name: .., set: [..])]`).
    ///
    /// # Errors
    /// The first saved variant with a bad name or override.
    pub fn saved(doc: &GraphDoc) -> Result<Vec<Self>, CompareError> {
        doc.variants
            .iter()
            .map(|v| Self::new(&v.name, &v.set))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_like_the_command_line() {
        let v =
            VariantSpec::parse("mg:pressure.solver=multigrid/mgpcg, g2p.flip_ratio=0.9").unwrap();
        assert_eq!(v.name, "mg");
        let texts: Vec<String> = v.overrides.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            ["pressure.solver=multigrid/mgpcg", "g2p.flip_ratio=0.9"]
        );
        assert!(VariantSpec::parse("plain").unwrap().overrides.is_empty());
        assert!(matches!(
            VariantSpec::parse("a b:x.y=1"),
            Err(CompareError::BadName(_))
        ));
        assert!(VariantSpec::parse(":x.y=1").is_err());
        let bad = VariantSpec::parse("mg:pressure.solver").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "variant `mg`: `pressure.solver`: expected node.param=value"
        );
    }
}

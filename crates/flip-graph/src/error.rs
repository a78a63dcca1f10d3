use flip_abi::sanitize;
use std::fmt;

/// A problem found while loading or validating a graph. Names the file, saved variant, node and
/// port/field where it applies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphError {
    /// The graph file, if known.
    pub file: Option<String>,
    /// The saved variant (`variants`) whose overrides the problem comes with, if any.
    pub variant: Option<String>,
    /// The node id.
    pub node: Option<String>,
    /// The port, parameter or setting.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl GraphError {
    /// An error about the file as a whole.
    pub fn file(file: &str, message: impl Into<String>) -> Self {
        Self {
            file: Some(file.into()),
            message: message.into(),
            ..Self::default()
        }
    }
    /// An error about a node (and optionally one of its ports/params).
    pub fn node(node: &str, field: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            node: Some(node.into()),
            field: field.map(Into::into),
            message: message.into(),
            ..Self::default()
        }
    }
    /// An error about a top-level field of the document (`nodes`, `edges`, `variants`).
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Self {
            field: Some(field.into()),
            message: message.into(),
            ..Self::default()
        }
    }
    /// An error about a setting.
    pub fn setting(field: &str, message: impl Into<String>) -> Self {
        Self {
            field: Some(format!("settings.{field}")),
            message: message.into(),
            ..Self::default()
        }
    }
    /// Attaches the file name.
    pub fn in_file(mut self, file: &str) -> Self {
        self.file.get_or_insert_with(|| file.into());
        self
    }
    /// Attaches the saved variant's name.
    pub fn in_variant(mut self, variant: &str) -> Self {
        self.variant.get_or_insert_with(|| variant.into());
        self
    }
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Ids, fields and messages come from files a user may not trust: no terminal escapes.
        if let Some(file) = &self.file {
            write!(f, "{}: ", sanitize(file))?;
        }
        if let Some(variant) = &self.variant {
            write!(f, "variant `{}`: ", sanitize(variant))?;
        }
        let node = self.node.as_deref().map(sanitize);
        let field = self.field.as_deref().map(sanitize);
        match (&node, &field) {
            (Some(n), Some(p)) => write!(f, "node `{n}`, `{p}`: ")?,
            (Some(n), None) => write!(f, "node `{n}`: ")?,
            (None, Some(p)) => write!(f, "`{p}`: ")?,
            (None, None) => {}
        }
        f.write_str(&sanitize(&self.message))
    }
}

impl std::error::Error for GraphError {}

/// A failure while running a compiled graph. Output written before it stays on disk. The
/// `frame` fields count from 0 (frames completed before it); messages count from 1, as the
/// editor's timeline and exported files do.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A node returned an error or panicked.
    #[error("frame {}, node `{node}` ({kind}) failed: {error}", frame + 1)]
    NodeFailed {
        /// Node id.
        node: String,
        /// Node kind.
        kind: String,
        /// Frame being simulated.
        frame: u32,
        /// What the node returned (its typed cause inside, [`crate::NodeError::cause`]).
        error: crate::node::NodeError,
    },
    /// The state became non-finite or absurdly fast.
    #[error("simulation blew up at frame {}, substep {substep}: {message}", frame + 1)]
    BlowUp {
        /// Frame.
        frame: u32,
        /// Substep within the frame.
        substep: u32,
        /// What was detected.
        message: String,
    },
    /// The run was asked to stop ([`crate::Simulation::cancel_flag`]).
    #[error("frame {}: stopped on request", frame + 1)]
    Cancelled {
        /// Frame that was abandoned.
        frame: u32,
    },
}

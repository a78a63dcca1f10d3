//! Plugins and the node registry of one invocation, and graph loading with overrides.

use anyhow::{anyhow, Result};
use flip_graph::overrides::apply_overrides;
use flip_graph::{GraphDoc, GraphError, NodeRegistry};
use flip_plugin::host::{default_plugin_dirs, PluginSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What every command needs: plugins and the registry built from them.
pub struct Session {
    /// Loaded plugins (and refusals).
    pub plugins: Arc<PluginSet>,
    /// Node kinds.
    pub registry: NodeRegistry,
    /// Folders searched for plugins.
    pub dirs: Vec<PathBuf>,
}

impl Session {
    /// Loads plugins from `extra` then the default folders.
    pub fn load(extra: &[PathBuf]) -> Self {
        let mut dirs = extra.to_vec();
        dirs.extend(default_plugin_dirs());
        let plugins = Arc::new(PluginSet::load_dirs(&dirs));
        let registry = flip_nodes::builtin_registry(plugins.clone());
        Self {
            plugins,
            registry,
            dirs,
        }
    }

    /// Loads a graph and applies `--set` overrides.
    pub fn graph(&self, path: &Path, sets: &[String]) -> Result<GraphDoc> {
        let mut doc = GraphDoc::load(path).map_err(|e| anyhow!("{e}"))?;
        apply_overrides(&mut doc, sets).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        Ok(doc)
    }
}

/// Formats validation errors, one per line, each prefixed with the file.
pub fn format_errors(errors: &[GraphError], file: &Path) -> String {
    let origin = file.display().to_string();
    let lines: Vec<String> = errors
        .iter()
        .map(|e| e.clone().in_file(&origin).to_string())
        .collect();
    format!("{} problem(s):\n  {}", lines.len(), lines.join("\n  "))
}

//! Plugins and the node registry of one invocation, and graph loading with overrides.

use anyhow::{anyhow, Result};
use flip_graph::overrides::apply_overrides_scoped;
use flip_graph::Override;
use flip_graph::{GraphDoc, GraphError, NodeRegistry};
use flip_host::probe::{default_cache_dir, ProbeCommand};
use flip_host::{ChildCommand, LoadOptions, PluginSet};
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
    /// The `--plugin-dir` folders given (a sweep's tasks are started with them again).
    pub extra_dirs: Vec<PathBuf>,
    /// Whether `--allow-plugin-override` was given.
    pub allow_override: bool,
}

impl Session {
    /// Loads the bundled plugins, then those in `extra` and `$FLIPGRAPH_PLUGIN_PATH`, each
    /// new library probed first in a child process (`flipgraph __probe-plugin FILE`), with
    /// verdicts cached under `$XDG_CACHE_HOME/flipgraph/probes`. Overrides of bundled plugins
    /// and refusals are reported on stderr.
    pub fn load(extra: &[PathBuf], allow_override: bool) -> Self {
        let opts = LoadOptions {
            allow_override,
            probe: ProbeCommand::current_exe(&["__probe-plugin"]).ok(),
            solver_child: ChildCommand::current_exe(&["__solver-child"]).ok(),
            cache_dir: default_cache_dir(),
            builtin_node_kinds: flip_nodes::builtin_kind_names(),
            ..LoadOptions::with_user_dirs(extra)
        };
        let dirs = opts.dirs();
        let plugins = Arc::new(PluginSet::load(&opts));
        for w in &plugins.warnings {
            eprintln!("warning: {w}");
        }
        let registry = flip_nodes::builtin_registry(plugins.clone());
        Self {
            plugins,
            registry,
            dirs,
            extra_dirs: extra.to_vec(),
            allow_override,
        }
    }

    /// Loads a graph and applies `--set` overrides (a solver switch drops the other solver's
    /// parameters).
    pub fn graph(&self, path: &Path, sets: &[Override]) -> Result<GraphDoc> {
        let mut doc = GraphDoc::load(path).map_err(|e| anyhow!("{e}"))?;
        apply_overrides_scoped(&mut doc, sets, &self.registry)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
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

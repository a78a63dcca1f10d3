//! Finding plugins: bundled folders (next to the executable) first, then the user's folders
//! (`--plugin-dir`, [`PLUGIN_DIR_ENV`]). Rules:
//! - bundles (`NAME.flipgraph/Contents/<os>-<arch>/NAME.so`, [`crate::bundle`]) are
//!   considered like plain libraries;
//! - only files named `{DLL_PREFIX}flipgraph_<id>{DLL_SUFFIX}` are considered, and only regular
//!   files whose ELF headers fit their size are opened. In a user folder, another shared library
//!   gets a warning naming the file and the name expected, and a missing folder one naming it
//!   (bundled folders are build folders full of other libraries, and may be absent);
//! - a plugin's identity is its content hash (SHA-256): another copy of an already loaded file
//!   is skipped quietly;
//! - each new library is probed in a child process first when [`LoadOptions::probe`] is set;
//! - a user library with the id or file name of a bundled plugin is refused with a message
//!   naming both files, unless [`LoadOptions::allow_override`]; then it replaces the bundled one
//!   and a warning names both files. Two user libraries with one id: the first wins, the second
//!   is refused naming both.

use super::loaded::{has_solver_entry, open_library};
use super::node::load::has_node_entry;
use super::probe::{self, ProbeCommand};
use super::{
    elf, AlgorithmInfo, ChildCommand, LoadedNodePlugin, LoadedPlugin, NodeKindInfo, PluginError,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Environment variable with extra plugin folders (`:`-separated, `;` on Windows).
pub const PLUGIN_DIR_ENV: &str = "FLIPGRAPH_PLUGIN_PATH";

/// Plugin files are `{DLL_PREFIX}flipgraph_<id>{DLL_SUFFIX}`, e.g. `libflipgraph_pcg.so`.
pub fn is_plugin_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let prefix = format!("{}flipgraph_", std::env::consts::DLL_PREFIX);
    name.starts_with(&prefix) && name.ends_with(std::env::consts::DLL_SUFFIX)
}

/// Whether `path` is named like a shared library (`.so`, `.dylib`, `.dll`).
fn is_shared_library(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(std::env::consts::DLL_SUFFIX))
}

/// The warning for a shared library in a user folder that is not named like a plugin.
fn misnamed_warning(path: &Path) -> String {
    let (prefix, suffix) = (std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    format!(
        "{} is not loaded: plugin libraries are named `{prefix}flipgraph_<id>{suffix}` \
         (package `flipgraph-<id>`)",
        flip_abi::text::path(path)
    )
}

/// The bundled plugin folders: the executable's `plugins/` subfolder and its folder (where
/// `cargo build` puts the plugins), and for test binaries in `target/*/deps` the folder above.
pub fn bundled_plugin_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        if exe_dir.file_name().is_some_and(|n| n == "deps") {
            if let Some(up) = exe_dir.parent() {
                dirs.push(up.to_path_buf());
            }
        } else {
            dirs.push(exe_dir.join("plugins"));
        }
        dirs.push(exe_dir);
    }
    dirs
}

/// The folders in [`PLUGIN_DIR_ENV`].
fn env_plugin_dirs() -> Vec<PathBuf> {
    std::env::var_os(PLUGIN_DIR_ENV)
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default()
}

/// Every folder searched by default: bundled first, then [`PLUGIN_DIR_ENV`].
pub fn default_plugin_dirs() -> Vec<PathBuf> {
    let mut dirs = bundled_plugin_dirs();
    dirs.extend(env_plugin_dirs());
    dirs
}

/// How to discover plugins.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Folders of the plugins shipped with flipgraph.
    pub bundled_dirs: Vec<PathBuf>,
    /// The user's folders (`--plugin-dir`, then [`PLUGIN_DIR_ENV`]).
    pub user_dirs: Vec<PathBuf>,
    /// Let a user plugin replace a bundled one of the same id or file name.
    pub allow_override: bool,
    /// Probe each new library in a child process (None: load in-process directly).
    pub probe: Option<ProbeCommand>,
    /// Where probe verdicts are cached (None: no cache).
    pub cache_dir: Option<PathBuf>,
    /// How to start the child of an isolated solver (`isolation = "process"`); None: this
    /// program offers no process isolation.
    pub solver_child: Option<ChildCommand>,
    /// The built-in node kinds: a node plugin offering a kind of one of these names is refused.
    pub builtin_node_kinds: Vec<String>,
}

impl LoadOptions {
    /// Bundled folders, then `extra` and [`PLUGIN_DIR_ENV`] as user folders; no probing.
    pub fn with_user_dirs(extra: &[PathBuf]) -> Self {
        let mut user_dirs = extra.to_vec();
        user_dirs.extend(env_plugin_dirs());
        Self {
            bundled_dirs: bundled_plugin_dirs(),
            user_dirs,
            ..Self::default()
        }
    }

    /// Every folder, in search order.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.bundled_dirs
            .iter()
            .chain(&self.user_dirs)
            .cloned()
            .collect()
    }
}

/// The plugins loaded for a session, the libraries that were refused (with reasons) and
/// warnings (overrides, missing user folders, misnamed libraries).
#[derive(Debug, Default)]
pub struct PluginSet {
    /// Plugins that passed every check.
    pub plugins: Vec<Arc<LoadedPlugin>>,
    /// Node suites that passed every check (a library may export one beside its solvers).
    pub nodes: Vec<Arc<LoadedNodePlugin>>,
    /// Libraries that were refused, with why.
    pub refused: Vec<PluginError>,
    /// Things the user must hear about that are not refusals (a bundled plugin overridden, a
    /// user folder that does not exist, a library in it not named like a plugin).
    pub warnings: Vec<String>,
    /// How to start the child of an isolated solver (from [`LoadOptions::solver_child`]).
    pub solver_child: Option<ChildCommand>,
}

/// The plugin files of `dir`, sorted. For a user folder, a missing folder and other shared
/// libraries are reported in `warnings`.
fn plugin_files(dir: &Path, user: bool, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            if user {
                let dir = flip_abi::text::path(dir);
                warnings.push(match e.kind() {
                    std::io::ErrorKind::NotFound => format!("plugin folder {dir} does not exist"),
                    _ => format!("plugin folder {dir} cannot be read: {e}"),
                });
            }
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            if crate::bundle::is_bundle(&p) {
                let library = crate::bundle::library(&p);
                if library.is_none() {
                    warnings.push(crate::bundle::missing_library_warning(&p));
                }
                return library;
            }
            let plugin = is_plugin_file(&p);
            if user && !plugin && is_shared_library(&p) {
                warnings.push(misnamed_warning(&p));
            }
            plugin.then_some(p)
        })
        .collect()
}

impl PluginSet {
    /// Loads every plugin file in `dirs`, all treated as bundled, in-process (no probe).
    pub fn load_dirs(dirs: &[PathBuf]) -> Self {
        Self::load(&LoadOptions {
            bundled_dirs: dirs.to_vec(),
            ..LoadOptions::default()
        })
    }

    /// Discovers, probes and loads plugins as `opts` says (rules: module docs).
    pub fn load(opts: &LoadOptions) -> Self {
        let mut set = Self {
            solver_child: opts.solver_child.clone(),
            ..Self::default()
        };
        for (dirs, bundled) in [(&opts.bundled_dirs, true), (&opts.user_dirs, false)] {
            for dir in dirs {
                for file in plugin_files(dir, !bundled, &mut set.warnings) {
                    if let Err(e) = set.consider(&file, bundled, opts) {
                        set.refused.push(e);
                    }
                }
            }
        }
        set
    }

    /// Loads one library file as a user plugin (no probe); a refusal is recorded in `refused`
    /// and returned.
    pub fn add_file(&mut self, path: &Path) -> Option<&PluginError> {
        match self.consider(path, false, &LoadOptions::default()) {
            Ok(()) => None,
            Err(e) => {
                self.refused.push(e);
                self.refused.last()
            }
        }
    }

    /// The file of the bundled plugin (solver or node suite) that a file named like `path`
    /// would shadow.
    fn bundled_named_like(&self, path: &Path) -> Option<&Path> {
        let solvers = self.plugins.iter().map(|p| (p.bundled, &p.path));
        let nodes = self.nodes.iter().map(|p| (p.bundled, &p.path));
        solvers
            .chain(nodes)
            .find(|(bundled, p)| *bundled && p.file_name() == path.file_name())
            .map(|(_, p)| p.as_path())
    }

    fn consider(
        &mut self,
        path: &Path,
        bundled: bool,
        opts: &LoadOptions,
    ) -> Result<(), PluginError> {
        let not_lib = |source: elf::LibraryFileError| PluginError::NotALibrary {
            path: path.into(),
            source,
        };
        elf::check_file(path).map_err(not_lib)?;
        let sha = probe::sha256_file(path).map_err(|e| not_lib(e.into()))?;
        let loaded = self.plugins.iter().map(|p| &p.sha256);
        if loaded
            .chain(self.nodes.iter().map(|p| &p.sha256))
            .any(|h| *h == sha)
        {
            return Ok(()); // another copy of a loaded library
        }
        if let Some(b) = self
            .bundled_named_like(path)
            .filter(|_| !bundled && !opts.allow_override)
        {
            let id = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return Err(PluginError::Shadowed {
                id,
                bundled: b.to_path_buf(),
                other: path.into(),
            });
        }
        if bundled && self.bundled_named_like(path).is_some() {
            return Ok(()); // a stale copy of a bundled build (target/<profile> vs deps)
        }
        if let Some(cmd) = &opts.probe {
            probe::probe(cmd, path, &sha, opts.cache_dir.as_deref()).map_err(|reason| {
                PluginError::ProbeFailed {
                    path: path.into(),
                    reason,
                }
            })?;
        }
        let library = open_library(path)?;
        let (solvers, nodes) = (has_solver_entry(&library), has_node_entry(&library));
        if !solvers && !nodes {
            return Err(PluginError::MissingEntry { path: path.into() });
        }
        if nodes {
            let builtin = &opts.builtin_node_kinds;
            let suite = LoadedNodePlugin::from_library(library.clone(), path, sha.clone(), builtin)
                .and_then(|mut suite| {
                    suite.bundled = bundled;
                    self.admit_nodes(suite, opts)
                });
            match (suite, solvers) {
                (result, false) => return result,
                (Err(e), true) => self.refused.push(e), // the solver table is judged on its own
                (Ok(()), true) => {}
            }
        }
        let mut plugin = LoadedPlugin::from_library(library, path, sha)?;
        plugin.bundled = bundled;
        self.admit(plugin, opts)
    }

    /// Adds a loaded node suite, resolving id collisions as [`PluginSet::admit`] does.
    fn admit_nodes(
        &mut self,
        suite: LoadedNodePlugin,
        opts: &LoadOptions,
    ) -> Result<(), PluginError> {
        let Some(i) = self.nodes.iter().position(|p| p.id == suite.id) else {
            self.nodes.push(Arc::new(suite));
            return Ok(());
        };
        let first = &self.nodes[i];
        match (first.bundled, suite.bundled, opts.allow_override) {
            (true, false, true) => {
                self.warnings.push(format!(
                    "node plugin `{}` from {} overrides the bundled {} (--allow-plugin-override)",
                    suite.id,
                    flip_abi::text::path(&suite.path),
                    flip_abi::text::path(&first.path)
                ));
                self.nodes[i] = Arc::new(suite);
                Ok(())
            }
            (true, false, false) => Err(PluginError::Shadowed {
                id: suite.id.clone(),
                bundled: first.path.clone(),
                other: suite.path.clone(),
            }),
            _ => Err(PluginError::DuplicateId {
                id: suite.id.clone(),
                first: first.path.clone(),
                second: suite.path.clone(),
            }),
        }
    }

    /// Every node kind of every node plugin, in load order.
    pub fn node_kinds(&self) -> impl Iterator<Item = (&Arc<LoadedNodePlugin>, &NodeKindInfo)> {
        self.nodes
            .iter()
            .flat_map(|p| p.kinds.iter().map(move |k| (p, k)))
    }

    /// Adds a loaded plugin, resolving id collisions.
    fn admit(&mut self, plugin: LoadedPlugin, opts: &LoadOptions) -> Result<(), PluginError> {
        let same = |p: &Arc<LoadedPlugin>| {
            p.id == plugin.id
                || (!plugin.bundled && p.bundled && p.path.file_name() == plugin.path.file_name())
        };
        let Some(i) = self.plugins.iter().position(same) else {
            self.plugins.push(Arc::new(plugin));
            return Ok(());
        };
        let first = &self.plugins[i];
        match (first.bundled, plugin.bundled, opts.allow_override) {
            (true, false, true) => {
                self.warnings.push(format!(
                    "plugin `{}` from {} overrides the bundled {} (--allow-plugin-override)",
                    plugin.id,
                    flip_abi::text::path(&plugin.path),
                    flip_abi::text::path(&first.path)
                ));
                self.plugins[i] = Arc::new(plugin);
                Ok(())
            }
            (true, false, false) => Err(PluginError::Shadowed {
                id: plugin.id.clone(),
                bundled: first.path.clone(),
                other: plugin.path.clone(),
            }),
            _ => Err(PluginError::DuplicateId {
                id: plugin.id.clone(),
                first: first.path.clone(),
                second: plugin.path.clone(),
            }),
        }
    }

    /// Every algorithm of every plugin, as `(qualified name, info)`, in load order.
    pub fn algorithms(&self) -> Vec<(String, &AlgorithmInfo)> {
        self.plugins
            .iter()
            .flat_map(|p| {
                p.algorithms
                    .iter()
                    .map(move |a| (format!("{}/{}", p.id, a.name), a))
            })
            .collect()
    }

    /// Finds `plugin/algorithm`, or a bare algorithm name if exactly one plugin offers it.
    ///
    /// # Errors
    /// [`PluginError::UnknownAlgorithm`].
    pub fn find(&self, name: &str) -> Result<(Arc<LoadedPlugin>, &AlgorithmInfo), PluginError> {
        let matches: Vec<_> = self
            .plugins
            .iter()
            .flat_map(|p| {
                p.algorithms
                    .iter()
                    .filter(move |a| match name.split_once('/') {
                        Some((pid, alg)) => p.id == pid && a.name == alg,
                        None => a.name == name,
                    })
                    .map(move |a| (p.clone(), a))
            })
            .collect();
        match matches.len() {
            1 => Ok(matches.into_iter().next().expect("one match")),
            _ => Err(PluginError::UnknownAlgorithm(name.into())),
        }
    }
}

use super::{AlgorithmInfo, LoadedPlugin, PluginError};
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

/// Where plugins are looked for when no folder is given: the folders in
/// [`PLUGIN_DIR_ENV`], then the executable's folder (where `cargo build` puts the plugins),
/// its `plugins/` subfolder, and for test binaries in `target/*/deps` the folder above.
pub fn default_plugin_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os(PLUGIN_DIR_ENV)
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
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

/// The plugins loaded for a session, and the libraries that were refused (with reasons).
#[derive(Debug, Default)]
pub struct PluginSet {
    /// Plugins that passed every check.
    pub plugins: Vec<Arc<LoadedPlugin>>,
    /// Libraries that were refused, with why.
    pub refused: Vec<PluginError>,
}

impl PluginSet {
    /// Loads every plugin file in `dirs` (missing folders are skipped). A plugin id already
    /// loaded from an earlier folder wins; later duplicates are refused.
    pub fn load_dirs(dirs: &[PathBuf]) -> Self {
        let mut set = Self::default();
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| is_plugin_file(p))
                .collect();
            files.sort();
            for file in files {
                set.add_file(&file);
            }
        }
        set
    }

    /// Loads one library file; a refusal is recorded in `refused` and returned.
    pub fn add_file(&mut self, path: &Path) -> Option<&PluginError> {
        match LoadedPlugin::load(path) {
            Ok(p) => {
                if let Some(first) = self.plugins.iter().find(|q| q.id == p.id) {
                    // Another copy of the same library (e.g. target/release and target/release/deps)
                    // is skipped; a different library claiming the same id is refused.
                    if first.path.file_name() != p.path.file_name() {
                        self.refused.push(PluginError::DuplicateId {
                            id: p.id.clone(),
                            first: first.path.clone(),
                            second: p.path.clone(),
                        });
                        return self.refused.last();
                    }
                    return None;
                }
                self.plugins.push(Arc::new(p));
                None
            }
            Err(e) => {
                self.refused.push(e);
                self.refused.last()
            }
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

//! Recently opened graphs: the File menu's *Open Recent* list, and the last graph offered at a
//! start without one. Kept newest first, one path a line, in `recent_graphs` under the user's
//! config folder (`$XDG_CONFIG_HOME/flipgraph`, `~/.config/flipgraph` on Linux).

use std::path::{Path, PathBuf};

/// Paths kept.
const KEPT: usize = 10;

/// The recently opened graphs and the file that lists them.
#[derive(Debug, Default)]
pub struct RecentFiles {
    /// Where the list is kept (`None`: not kept, e.g. scripted runs and tests).
    list: Option<PathBuf>,
    /// Newest first.
    paths: Vec<PathBuf>,
}

impl RecentFiles {
    /// The list's usual place in the user's config folder.
    pub fn default_list() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("flipgraph").join("recent_graphs"))
    }

    /// Reads the list kept in `list` (none yet, or unreadable: empty).
    pub fn load(list: Option<PathBuf>) -> Self {
        let text = list
            .as_deref()
            .and_then(|l| std::fs::read_to_string(l).ok());
        let paths = text
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(PathBuf::from)
            .take(KEPT)
            .collect();
        Self { list, paths }
    }

    /// The graphs that still exist, newest first.
    pub fn paths(&self) -> Vec<&Path> {
        (self.paths.iter())
            .map(PathBuf::as_path)
            .filter(|p| p.is_file())
            .collect()
    }

    /// Puts `path` first and writes the list.
    ///
    /// # Errors
    /// The list could not be written.
    pub fn opened(&mut self, path: &Path) -> std::io::Result<()> {
        self.paths.retain(|p| p != path);
        self.paths.insert(0, path.to_path_buf());
        self.paths.truncate(KEPT);
        let Some(list) = &self.list else {
            return Ok(());
        };
        if let Some(dir) = list.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text: String = (self.paths.iter())
            .map(|p| format!("{}\n", p.display()))
            .collect();
        let tmp = list.with_extension("tmp");
        std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, list))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_comes_first_once_and_the_list_survives_a_restart() {
        let dir = std::env::temp_dir().join(format!("flip-recent-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let graph = |n: &str| {
            let p = dir.join(n);
            std::fs::write(&p, "").unwrap();
            p
        };
        let (a, b) = (graph("a.ron"), graph("b.ron"));
        let list = dir.join("config").join("recent_graphs");
        let mut r = RecentFiles::load(Some(list.clone()));
        r.opened(&a).unwrap();
        r.opened(&b).unwrap();
        r.opened(&a).unwrap();
        let again = RecentFiles::load(Some(list));
        assert_eq!(again.paths(), [a.as_path(), b.as_path()]);
        // a graph deleted since is not offered
        std::fs::remove_file(&b).unwrap();
        assert_eq!(again.paths(), [a.as_path()]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

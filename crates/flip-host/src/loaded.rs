use super::mapped::Pointers;
use super::{elf, validate, PluginError};
use flip_abi::{self as abi, PluginTable};
use flip_sdk::ParamKind;
use libloading::Library;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Parameter schema read from a plugin (owned, validated, sanitised copy).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// snake_case name.
    pub name: String,
    /// Editor label.
    pub label: String,
    /// Help text.
    pub help: String,
    /// Kind.
    pub kind: ParamKind,
    /// Default value (choice: index).
    pub default: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Choice labels.
    pub choices: Vec<String>,
}

/// One algorithm of a loaded plugin.
#[derive(Clone, Debug)]
pub struct AlgorithmInfo {
    /// Plugin id.
    pub plugin: String,
    /// Index in the plugin's table.
    pub index: u32,
    /// Algorithm name (`"mic0-pcg"`).
    pub name: String,
    /// Label.
    pub label: String,
    /// Help text.
    pub help: String,
    /// `abi::CAP_*` bits.
    pub capabilities: u32,
    /// Parameter schemas.
    pub params: Vec<ParamInfo>,
}

impl AlgorithmInfo {
    /// Whether it solves LCPs (separating walls).
    pub fn supports_lcp(&self) -> bool {
        self.capabilities & abi::CAP_LCP != 0
    }
    /// Whether it solves linear systems.
    pub fn supports_linear(&self) -> bool {
        self.capabilities & abi::CAP_LINEAR != 0
    }
    /// Whether it accepts structured (grid stencil) problems.
    pub fn accepts_structured(&self) -> bool {
        self.capabilities & abi::CAP_STRUCTURED != 0
    }
    /// Whether it accepts general sparse (CSR) problems.
    pub fn accepts_csr(&self) -> bool {
        self.capabilities & abi::CAP_CSR != 0
    }
    /// Whether it solves a rank's slab through the distributed suite (`--mpi` runs).
    pub fn supports_distributed(&self) -> bool {
        self.capabilities & abi::CAP_DISTRIBUTED != 0
    }

    /// Whether it accepts tall-cell problems (a CSR system with its geometry).
    pub fn accepts_tallcell(&self) -> bool {
        self.capabilities & abi::CAP_TALLCELL != 0
    }

    /// Whether it accepts viscosity problems (the implicit viscosity system with its grid).
    pub fn accepts_viscosity(&self) -> bool {
        self.capabilities & abi::CAP_VISCOSITY != 0
    }

    /// Whether it accepts coupled problems (the structured problem with rigid bodies' terms).
    pub fn accepts_coupled(&self) -> bool {
        self.capabilities & abi::CAP_COUPLED != 0
    }

    /// Whether its instances keep learned state and save it ([`abi::CAP_SAVES_STATE`]).
    pub fn saves_state(&self) -> bool {
        self.capabilities & abi::CAP_SAVES_STATE != 0
    }
}

/// What a resumed run gets from a plugin's solvers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateSupport {
    /// Some algorithm keeps learned state and saves it: resumed runs continue bit for bit.
    Saves,
    /// The state entries are there but no algorithm keeps state (an empty state is saved).
    KeepsNone,
    /// No state entries: a resumed run re-creates the plugin's solvers.
    NotSaved,
}

/// A plugin library that passed every check.
pub struct LoadedPlugin {
    pub(super) table: *const PluginTable,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// SHA-256 of the file, lowercase hex: the plugin's identity.
    pub sha256: String,
    /// Whether it came from a bundled folder (next to the executable).
    pub bundled: bool,
    /// Plugin id, `[a-z0-9_-]{1,32}`.
    pub id: String,
    /// Human name (sanitised).
    pub name: String,
    /// Version string (sanitised).
    pub version: String,
    /// Algorithms offered.
    pub algorithms: Vec<AlgorithmInfo>,
    /// Whether the table has the state entries (`state_size`, `save_state`, `load_state`).
    pub state_entries: bool,
    pub(super) _library: Arc<Library>,
}

// SAFETY: the table is immutable static data of the library, which `library` keeps loaded; the
// ABI requires the table's functions to be callable from any thread (see `abi`'s thread-safety
// section).
unsafe impl Send for LoadedPlugin {}
// SAFETY: as above; nothing here is mutated after loading.
unsafe impl Sync for LoadedPlugin {}

impl std::fmt::Debug for LoadedPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedPlugin")
            .field("id", &self.id)
            .field("path", &self.path)
            .field("algorithms", &self.algorithms.len())
            .finish()
    }
}

impl LoadedPlugin {
    /// Checks `path` as a file, opens it in this process and checks that it is a plugin for
    /// this host's ABI. Discovery ([`super::PluginSet`]) probes it in a child process first.
    ///
    /// # Errors
    /// [`PluginError::NotALibrary`], [`PluginError::Open`], [`PluginError::MissingEntry`],
    /// [`PluginError::AbiMismatch`] or [`PluginError::Malformed`], each naming the file.
    pub fn load(path: &Path) -> Result<Self, PluginError> {
        let not_lib = |source: elf::LibraryFileError| PluginError::NotALibrary {
            path: path.into(),
            source,
        };
        // A bare name (`libm.so.6`) is resolved by the system loader: nothing to check here.
        let bare = path.components().count() == 1 && !path.exists();
        if !bare {
            elf::check_file(path).map_err(not_lib)?;
        }
        let sha256 = if bare {
            String::new()
        } else {
            super::probe::sha256_file(path).map_err(|e| not_lib(e.into()))?
        };
        Self::load_hashed(path, sha256)
    }

    /// Opens `path`, whose file checks passed and whose content hash is `sha256`.
    pub(super) fn load_hashed(path: &Path, sha256: String) -> Result<Self, PluginError> {
        Self::from_library(open_library(path)?, path, sha256)
    }

    /// Reads and checks the solver table of an opened library.
    pub(super) fn from_library(
        library: Arc<Library>,
        path: &Path,
        sha256: String,
    ) -> Result<Self, PluginError> {
        let malformed = |reason: String| PluginError::Malformed {
            path: path.into(),
            reason,
        };
        // SAFETY: the symbol's type is fixed by the ABI (`abi::EntryFn`).
        let entry: abi::EntryFn = unsafe { library.get::<abi::EntryFn>(abi::ENTRY_SYMBOL) }
            .map(|s| *s)
            .map_err(|_| PluginError::MissingEntry { path: path.into() })?;
        let pointers = Pointers::new(path);
        let symbol = "the entry point `flipgraph_plugin_entry`";
        pointers.code(symbol, entry as usize).map_err(malformed)?;
        // SAFETY: calling the entry point is the ABI's first step; it takes no arguments.
        let table = unsafe { entry() };
        if table.is_null() {
            return Err(malformed("the entry point returned a null table".into()));
        }
        let header_size = std::mem::size_of::<abi::PluginHeader>();
        pointers
            .readable("the table", table as usize, header_size)
            .map_err(malformed)?;
        // SAFETY: the header is the first field of every table version, and readable.
        let header = unsafe { &(*table).header };
        if header.abi_version != abi::ABI_VERSION {
            return Err(PluginError::AbiMismatch {
                path: path.into(),
                found: header.abi_version,
                expected: abi::ABI_VERSION,
            });
        }
        let expected_size = std::mem::size_of::<PluginTable>() as u32;
        if header.table_size != expected_size {
            return Err(malformed(format!(
                "table size {} != {expected_size}",
                header.table_size
            )));
        }
        let table_size = std::mem::size_of::<PluginTable>();
        pointers
            .readable("the table", table as usize, table_size)
            .map_err(malformed)?;
        // SAFETY: version and size matched and it is readable: the table has this ABI's layout.
        let t = unsafe { &*table };
        validate::check_entries(t).map_err(|e| malformed(e.to_string()))?;
        pointers.entries(t).map_err(malformed)?;
        let texts = [
            ("api", header.api),
            ("id", header.id),
            ("name", header.name),
            ("version", header.version),
        ];
        for (what, text) in texts.into_iter().filter(|(_, p)| !p.is_null()) {
            let at = text as usize;
            (pointers.readable(&format!("header {what}"), at, 1)).map_err(malformed)?;
        }
        let (api, id, name, version) = header_texts(header).map_err(malformed)?;
        let wanted = "flipgraph.pressure_solver";
        if api != wanted {
            return Err(malformed(format!(
                "implements API `{api}`, expected `{wanted}`"
            )));
        }
        if !flip_abi::text::is_valid_id(&id) {
            return Err(malformed(format!(
                "plugin id `{id}` is not an id of [a-z0-9_-]{{1,32}}"
            )));
        }
        // SAFETY: the table was checked above.
        let algorithms = unsafe { validate::algorithms(t, &id, &pointers) }.map_err(malformed)?;
        Ok(Self {
            table,
            path: path.into(),
            sha256,
            bundled: false,
            id,
            name,
            version,
            algorithms,
            state_entries: t.state_size.is_some(),
            _library: library,
        })
    }

    /// What a resumed run gets from this plugin's solvers.
    pub fn state_support(&self) -> StateSupport {
        if !self.state_entries {
            StateSupport::NotSaved
        } else if self.algorithms.iter().any(AlgorithmInfo::saves_state) {
            StateSupport::Saves
        } else {
            StateSupport::KeepsNone
        }
    }

    /// Finds an algorithm by name.
    pub fn algorithm(&self, name: &str) -> Option<&AlgorithmInfo> {
        self.algorithms.iter().find(|a| a.name == name)
    }

    /// The checked table.
    pub(super) fn table(&self) -> &PluginTable {
        // SAFETY: checked at load; the library stays loaded while `self` lives.
        unsafe { &*self.table }
    }
}

/// Opens `path` as a shared library (its file checks passed).
///
/// # Errors
/// [`PluginError::Open`].
pub(super) fn open_library(path: &Path) -> Result<Arc<Library>, PluginError> {
    // SAFETY: loading runs the library's initialisers. This is the trust boundary of plugins;
    // discovery probes new libraries in a child process before this.
    let library = unsafe { Library::new(path) }.map_err(|source| PluginError::Open {
        path: path.into(),
        source,
    })?;
    Ok(Arc::new(library))
}

/// Whether `library` exports the solver table's entry.
pub(super) fn has_solver_entry(library: &Library) -> bool {
    // SAFETY: only looks the symbol up; its type is fixed by the ABI.
    unsafe { library.get::<abi::EntryFn>(abi::ENTRY_SYMBOL) }.is_ok()
}

/// `(api, id, name, version)` of a header of this ABI.
fn header_texts(h: &abi::PluginHeader) -> Result<(String, String, String, String), String> {
    let read = |p, cap, what: &str| {
        // SAFETY: header strings are the plugin's statics; reads are bounded.
        unsafe { validate::read_text(p, cap) }.map_err(|e| format!("header {what} {e}"))
    };
    Ok((
        read(h.api, abi::MAX_TEXT_LEN, "api")?,
        read(h.id, abi::MAX_ID_LEN, "id")?,
        read(h.name, abi::MAX_TEXT_LEN, "name")?,
        read(h.version, abi::MAX_TEXT_LEN, "version")?,
    ))
}

use super::PluginError;
use crate::abi::{self, AlgorithmDesc, PluginTable};
use crate::sdk::ParamKind;
use libloading::Library;
use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Parameter schema read from a plugin (owned copy).
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
}

/// A plugin library that passed every check.
pub struct LoadedPlugin {
    pub(super) table: *const PluginTable,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// Plugin id.
    pub id: String,
    /// Human name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Algorithms offered.
    pub algorithms: Vec<AlgorithmInfo>,
    pub(super) _library: Arc<Library>,
}

// SAFETY: the table is immutable static data of the library, which `library` keeps loaded; the
// plugin's functions are required by the ABI to be callable from any thread.
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

/// Reads a plugin-owned C string, refusing null and non-UTF-8.
///
/// # Safety
/// `p` is null or a valid NUL-terminated string that outlives the call.
unsafe fn text(p: *const c_char, what: &str, path: &Path) -> Result<String, PluginError> {
    if p.is_null() {
        return Err(PluginError::Malformed {
            path: path.into(),
            reason: format!("{what} is null"),
        });
    }
    // SAFETY: non-null and NUL-terminated (caller's contract).
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map(str::to_owned)
        .map_err(|_| PluginError::Malformed {
            path: path.into(),
            reason: format!("{what} is not UTF-8"),
        })
}

impl LoadedPlugin {
    /// Opens `path` and checks that it is a plugin for this host's ABI.
    ///
    /// # Errors
    /// [`PluginError::Open`], [`PluginError::MissingEntry`], [`PluginError::AbiMismatch`] or
    /// [`PluginError::Malformed`], each naming the file.
    pub fn load(path: &Path) -> Result<Self, PluginError> {
        // SAFETY: loading runs the library's initialisers; plugin libraries are Rust cdylibs
        // without global constructors of their own. This is the trust boundary of plugins.
        let library = unsafe { Library::new(path) }.map_err(|source| PluginError::Open {
            path: path.into(),
            source,
        })?;
        // SAFETY: the symbol's type is fixed by the ABI (`abi::EntryFn`).
        let entry: abi::EntryFn = unsafe { library.get::<abi::EntryFn>(abi::ENTRY_SYMBOL) }
            .map(|s| *s)
            .map_err(|_| PluginError::MissingEntry { path: path.into() })?;
        // SAFETY: calling the entry point is the ABI's first step; it takes no arguments.
        let table = unsafe { entry() };
        if table.is_null() {
            return Err(PluginError::Malformed {
                path: path.into(),
                reason: "null table".into(),
            });
        }
        // SAFETY: the header is the first field of every table version; read it alone first.
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
            return Err(PluginError::Malformed {
                path: path.into(),
                reason: format!("table size {} != {expected_size}", header.table_size),
            });
        }
        // SAFETY: header strings are 'static in the plugin; ABI version and size matched.
        let (api, id, name, version) = unsafe {
            (
                text(header.api, "api", path)?,
                text(header.id, "id", path)?,
                text(header.name, "name", path)?,
                text(header.version, "version", path)?,
            )
        };
        let wanted =
            std::str::from_utf8(&abi::PRESSURE_SOLVER_API[..abi::PRESSURE_SOLVER_API.len() - 1])
                .expect("constant is ASCII");
        if api != wanted {
            return Err(PluginError::Malformed {
                path: path.into(),
                reason: format!("implements API `{api}`, expected `{wanted}`"),
            });
        }
        // SAFETY: the table layout matched (version and size).
        let algorithms = unsafe { read_algorithms(&*table, &id, path)? };
        Ok(Self {
            table,
            path: path.into(),
            id,
            name,
            version,
            algorithms,
            _library: Arc::new(library),
        })
    }

    /// Finds an algorithm by name.
    pub fn algorithm(&self, name: &str) -> Option<&AlgorithmInfo> {
        self.algorithms.iter().find(|a| a.name == name)
    }
}

/// # Safety
/// `table` is a checked table of the current ABI.
unsafe fn read_algorithms(
    table: &PluginTable,
    id: &str,
    path: &Path,
) -> Result<Vec<AlgorithmInfo>, PluginError> {
    let mut out = Vec::new();
    for index in 0..table.algorithm_count {
        let mut desc = std::mem::MaybeUninit::<AlgorithmDesc>::uninit();
        // SAFETY: `describe` fills the struct on STATUS_OK (ABI contract).
        let status = unsafe { (table.describe)(index, desc.as_mut_ptr()) };
        if status != abi::STATUS_OK {
            return Err(PluginError::Malformed {
                path: path.into(),
                reason: format!("describe({index}) returned status {status}"),
            });
        }
        // SAFETY: initialised on STATUS_OK.
        let desc = unsafe { desc.assume_init() };
        let mut params = Vec::new();
        for p in 0..desc.param_count as usize {
            // SAFETY: `params` holds `param_count` entries (ABI contract).
            let pd = unsafe { &*desc.params.add(p) };
            let mut choices = Vec::new();
            for c in 0..pd.choice_count as usize {
                // SAFETY: `choices` holds `choice_count` string pointers.
                choices.push(unsafe { text(*pd.choices.add(c), "choice", path)? });
            }
            let kind = match pd.kind {
                abi::PARAM_FLOAT => ParamKind::Float,
                abi::PARAM_INT => ParamKind::Int,
                abi::PARAM_BOOL => ParamKind::Bool,
                abi::PARAM_CHOICE => ParamKind::Choice,
                k => {
                    return Err(PluginError::Malformed {
                        path: path.into(),
                        reason: format!("unknown parameter kind {k}"),
                    })
                }
            };
            // SAFETY: description strings are 'static in the plugin.
            params.push(unsafe {
                ParamInfo {
                    name: text(pd.name, "parameter name", path)?,
                    label: text(pd.label, "parameter label", path)?,
                    help: text(pd.help, "parameter help", path)?,
                    kind,
                    default: pd.default,
                    min: pd.min,
                    max: pd.max,
                    choices,
                }
            });
        }
        // SAFETY: as above.
        out.push(unsafe {
            AlgorithmInfo {
                plugin: id.to_owned(),
                index,
                name: text(desc.name, "algorithm name", path)?,
                label: text(desc.label, "algorithm label", path)?,
                help: text(desc.help, "algorithm help", path)?,
                capabilities: desc.capabilities,
                params,
            }
        });
    }
    Ok(out)
}

//! Reading and checking a library's node suite: header, entries, kinds, ports, parameters.
//! Every error names the entry or field; the caller adds the file.

use crate::loaded::ParamInfo;
use crate::mapped::Pointers;
use crate::validate::{field, param};
use crate::PluginError;
use flip_abi::node::{self as abi, NodeKindDesc, NodeTable, PortDesc};
use flip_abi::text::is_valid_param_name;
use libloading::Library;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A port's data kind, one of `flip_abi::node::DATA_*`.
pub type DataKindTag = abi::DataKindTag;

/// One port of a plugin node kind (validated, sanitised).
#[derive(Clone, Debug, PartialEq)]
pub struct PortInfo {
    /// `[a-z0-9_]{1,32}`.
    pub name: String,
    /// Help text.
    pub help: String,
    /// Input (else output).
    pub input: bool,
    /// `DATA_*` tag.
    pub data_kind: DataKindTag,
    /// An input the graph may leave unconnected.
    pub optional: bool,
    /// An output that starts as a copy of the input of its name.
    pub from_input: bool,
}

/// One node kind of a loaded node plugin.
#[derive(Clone, Debug)]
pub struct NodeKindInfo {
    /// Plugin id.
    pub plugin: String,
    /// Index in the plugin's table.
    pub index: u32,
    /// Kind name (`"wind"`); graphs name it `<plugin>/<name>`.
    pub name: String,
    /// Editor label.
    pub label: String,
    /// Palette category.
    pub category: String,
    /// Help text.
    pub help: String,
    /// Ports in declaration order (the order of `eval`'s port array).
    pub ports: Vec<PortInfo>,
    /// Parameter schemas.
    pub params: Vec<ParamInfo>,
    /// Largest acceleration the node adds (m/s²).
    pub acceleration_hint: f64,
}

impl NodeKindInfo {
    /// Whether input `port`'s value is handed to an output [`flip_abi::node::PORT_FROM_INPUT`]
    /// (then `eval` sees the input absent).
    pub fn feeds_output(&self, port: &PortInfo) -> bool {
        port.input
            && self.ports.iter().any(|o| {
                !o.input && o.from_input && o.name == port.name && o.data_kind == port.data_kind
            })
    }

    /// The kind as graphs name it: `<plugin id>/<kind name>`.
    pub fn qualified(&self) -> String {
        format!("{}/{}", self.plugin, self.name)
    }
}

/// A library's node suite that passed every check.
pub struct LoadedNodePlugin {
    table: *const NodeTable,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: String,
    /// Whether it came from a bundled folder.
    pub bundled: bool,
    /// Plugin id, `[a-z0-9_-]{1,32}`.
    pub id: String,
    /// Human name (sanitised).
    pub name: String,
    /// Version string (sanitised).
    pub version: String,
    /// Node kinds offered.
    pub kinds: Vec<NodeKindInfo>,
    /// Whether the table has the state entries.
    pub state_entries: bool,
    _library: Arc<Library>,
}

// SAFETY: the table is immutable static data of the library, which `_library` keeps loaded;
// the ABI requires its functions to be callable from any thread.
unsafe impl Send for LoadedNodePlugin {}
// SAFETY: as above; nothing is mutated after loading.
unsafe impl Sync for LoadedNodePlugin {}

impl std::fmt::Debug for LoadedNodePlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedNodePlugin")
            .field("id", &self.id)
            .field("path", &self.path)
            .field("kinds", &self.kinds.len())
            .finish()
    }
}

/// Whether `library` exports the node suite's entry.
pub(crate) fn has_node_entry(library: &Library) -> bool {
    // SAFETY: only looks the symbol up; its type is fixed by the ABI.
    unsafe { library.get::<abi::NodeEntryFn>(abi::NODE_ENTRY_SYMBOL) }.is_ok()
}

impl LoadedNodePlugin {
    /// Reads and checks the node suite of `library` (which exports the node entry), refusing
    /// a kind named like one of `builtin_kinds`.
    ///
    /// # Errors
    /// [`PluginError::AbiMismatch`] or [`PluginError::Malformed`], naming the file.
    pub(crate) fn from_library(
        library: Arc<Library>,
        path: &Path,
        sha256: String,
        builtin_kinds: &[String],
    ) -> Result<Self, PluginError> {
        let malformed = |reason: String| PluginError::Malformed {
            path: path.into(),
            reason: format!("node suite: {reason}"),
        };
        // SAFETY: the symbol's type is fixed by the ABI (`NodeEntryFn`).
        let entry: abi::NodeEntryFn =
            unsafe { library.get::<abi::NodeEntryFn>(abi::NODE_ENTRY_SYMBOL) }
                .map(|s| *s)
                .map_err(|_| PluginError::MissingEntry { path: path.into() })?;
        let pointers = Pointers::new(path);
        (pointers.code("the entry point `flipgraph_node_entry`", entry as usize))
            .map_err(malformed)?;
        // SAFETY: the entry takes no arguments (ABI contract).
        let table = unsafe { entry() };
        if table.is_null() {
            return Err(malformed("the entry point returned a null table".into()));
        }
        let header_size = std::mem::size_of::<flip_abi::PluginHeader>();
        (pointers.readable("the table", table as usize, header_size)).map_err(malformed)?;
        // SAFETY: the header's layout is the same in every version, and readable.
        let header = unsafe { &(*table).header };
        if header.abi_version != abi::NODE_ABI_VERSION {
            return Err(PluginError::AbiMismatch {
                path: path.into(),
                found: header.abi_version,
                expected: abi::NODE_ABI_VERSION,
            });
        }
        let size = std::mem::size_of::<NodeTable>();
        if header.table_size as usize != size {
            return Err(malformed(format!(
                "table size {} != {size}",
                header.table_size
            )));
        }
        (pointers.readable("the table", table as usize, size)).map_err(malformed)?;
        // SAFETY: version and size matched and it is readable.
        let t = unsafe { &*table };
        check_entries(t, &pointers).map_err(malformed)?;
        let text = |p, cap, what: &str| {
            // SAFETY: bounded reads within readable memory.
            unsafe { field(p, cap, &format!("header {what}"), &pointers) }
        };
        let api = text(header.api, flip_abi::MAX_TEXT_LEN, "api").map_err(malformed)?;
        if api != "flipgraph.node" {
            return Err(malformed(format!(
                "implements API `{api}`, expected `flipgraph.node`"
            )));
        }
        let id = text(header.id, flip_abi::MAX_ID_LEN, "id").map_err(malformed)?;
        if !flip_abi::text::is_valid_id(&id) {
            return Err(malformed(format!(
                "plugin id `{id}` is not an id of [a-z0-9_-]{{1,32}}"
            )));
        }
        let name = text(header.name, flip_abi::MAX_TEXT_LEN, "name").map_err(malformed)?;
        let version = text(header.version, flip_abi::MAX_TEXT_LEN, "version").map_err(malformed)?;
        // SAFETY: the table was checked above.
        let kinds = unsafe { kinds(t, &id, builtin_kinds, &pointers) }.map_err(malformed)?;
        Ok(Self {
            table,
            path: path.into(),
            sha256,
            bundled: false,
            id,
            name,
            version,
            kinds,
            state_entries: t.state_size.is_some(),
            _library: library,
        })
    }

    /// Opens the node suite of the library at `path` (the isolated node's child: the host
    /// already refused built-in kind names).
    ///
    /// # Errors
    /// As [`crate::LoadedPlugin::load`], and [`PluginError::Malformed`] for a library without a
    /// valid node suite.
    pub(crate) fn load(path: &Path) -> Result<Self, PluginError> {
        let not_lib = |source: crate::elf::LibraryFileError| PluginError::NotALibrary {
            path: path.into(),
            source,
        };
        crate::elf::check_file(path).map_err(not_lib)?;
        let sha256 = crate::probe::sha256_file(path).map_err(|e| not_lib(e.into()))?;
        let library = crate::loaded::open_library(path)?;
        if !has_node_entry(&library) {
            return Err(PluginError::Malformed {
                path: path.into(),
                reason: "exports no node suite".into(),
            });
        }
        Self::from_library(library, path, sha256, &[])
    }

    /// The kind named `name` (bare, without the plugin id).
    pub fn kind(&self, name: &str) -> Option<&NodeKindInfo> {
        self.kinds.iter().find(|k| k.name == name)
    }

    /// The checked table.
    pub(super) fn table(&self) -> &NodeTable {
        // SAFETY: checked at load; the library stays loaded while `self` lives.
        unsafe { &*self.table }
    }
}

/// Required entries present, state entries all or none, every entry code of the library.
fn check_entries(t: &NodeTable, ptrs: &Pointers) -> Result<(), String> {
    let entries = [
        ("describe", t.describe.map(|f| f as usize), true),
        ("create", t.create.map(|f| f as usize), true),
        ("eval", t.eval.map(|f| f as usize), true),
        ("destroy", t.destroy.map(|f| f as usize), true),
        ("reset", t.reset.map(|f| f as usize), true),
        ("state_size", t.state_size.map(|f| f as usize), false),
        ("save_state", t.save_state.map(|f| f as usize), false),
        ("load_state", t.load_state.map(|f| f as usize), false),
    ];
    for (name, address, required) in entries {
        match address {
            None if required => return Err(format!("required entry `{name}` is null")),
            None => {}
            Some(a) => ptrs.code(&format!("entry `{name}`"), a)?,
        }
    }
    let present = [
        t.state_size.is_some(),
        t.save_state.is_some(),
        t.load_state.is_some(),
    ];
    if present.iter().any(|&p| p) && !present.iter().all(|&p| p) {
        return Err(
            "`state_size`, `save_state` and `load_state` must be all present or all null".into(),
        );
    }
    if t.kind_count == 0 || t.kind_count > abi::MAX_NODE_KINDS {
        return Err(format!(
            "kind_count {} is not within 1..={}",
            t.kind_count,
            abi::MAX_NODE_KINDS
        ));
    }
    Ok(())
}

/// Reads and checks every kind of a checked table.
///
/// # Safety
/// `t` passed [`check_entries`] and its header matched this suite's version.
unsafe fn kinds(
    t: &NodeTable,
    plugin: &str,
    builtin: &[String],
    ptrs: &Pointers,
) -> Result<Vec<NodeKindInfo>, String> {
    let describe = t.describe.ok_or("required entry `describe` is null")?;
    let mut out: Vec<NodeKindInfo> = Vec::with_capacity(t.kind_count as usize);
    for index in 0..t.kind_count {
        // SAFETY: plain data; all-zero is a valid (null) value.
        let mut desc: NodeKindDesc = unsafe { std::mem::zeroed() };
        // SAFETY: `describe` writes one NodeKindDesc (ABI contract).
        let status = unsafe { describe(index, &mut desc) };
        if status != flip_abi::STATUS_OK {
            return Err(format!("describe({index}) returned status {status}"));
        }
        if desc.name.is_null() {
            return Err(format!("describe({index}) wrote no kind name"));
        }
        // SAFETY: the description's pointers are the plugin's; every read is bounded.
        let info = unsafe { kind(&desc, index, plugin, ptrs) }
            .map_err(|e| format!("node kind #{index}: {e}"))?;
        if builtin.contains(&info.name) {
            return Err(format!(
                "node kind `{}` has the name of a built-in node; rename it",
                info.name
            ));
        }
        if out.iter().any(|k| k.name == info.name) {
            return Err(format!("node kind `{}` appears twice", info.name));
        }
        out.push(info);
    }
    Ok(out)
}

/// # Safety
/// `d` came from the plugin's `describe`.
unsafe fn kind(
    d: &NodeKindDesc,
    index: u32,
    plugin: &str,
    ptrs: &Pointers,
) -> Result<NodeKindInfo, String> {
    // SAFETY: the caller's contract; bounded reads.
    let name = unsafe { field(d.name, flip_abi::MAX_ID_LEN, "name", ptrs) }?;
    if !is_valid_param_name(&name) {
        return Err(format!("name `{name}` is not a name of [a-z0-9_]{{1,32}}"));
    }
    let what = |w: String| format!("`{name}`: {w}");
    let text = |p, cap, w: &str| {
        // SAFETY: as above.
        unsafe { field(p, cap, w, ptrs) }.map_err(what)
    };
    let label = text(d.label, flip_abi::MAX_TEXT_LEN, "label")?;
    let category = text(d.category, flip_abi::MAX_TEXT_LEN, "category")?;
    let help = text(d.help, flip_abi::MAX_HELP_LEN, "help")?;
    if !d.acceleration_hint.is_finite() || d.acceleration_hint < 0.0 {
        return Err(what(format!(
            "acceleration_hint {} is not a finite non-negative number",
            d.acceleration_hint
        )));
    }
    let ports = array(d.ports, d.port_count, abi::MAX_PORTS, "ports", ptrs).map_err(what)?;
    let mut port_infos: Vec<PortInfo> = Vec::with_capacity(ports.len());
    for (i, p) in ports.iter().enumerate() {
        // SAFETY: as above.
        let port = unsafe { port(p, ptrs) }.map_err(|e| what(format!("port #{i}: {e}")))?;
        if port_infos
            .iter()
            .any(|q| q.name == port.name && q.input == port.input)
        {
            return Err(what(format!("port `{}` appears twice", port.name)));
        }
        port_infos.push(port);
    }
    check_ports(&port_infos).map_err(what)?;
    let params = array(
        d.params,
        d.param_count,
        flip_abi::MAX_PARAMS,
        "params",
        ptrs,
    )
    .map_err(what)?;
    let mut param_infos: Vec<ParamInfo> = Vec::with_capacity(params.len());
    for (i, p) in params.iter().enumerate() {
        // SAFETY: as above.
        let info = unsafe { param(p, ptrs) }.map_err(|e| what(format!("parameter #{i}: {e}")))?;
        if param_infos.iter().any(|q| q.name == info.name) {
            return Err(what(format!("parameter `{}` appears twice", info.name)));
        }
        param_infos.push(info);
    }
    Ok(NodeKindInfo {
        plugin: plugin.into(),
        index,
        name,
        label,
        category,
        help,
        ports: port_infos,
        params: param_infos,
        acceleration_hint: d.acceleration_hint,
    })
}

/// The `count` entries at `p`, checked readable.
fn array<'a, T>(
    p: *const T,
    count: u32,
    limit: u32,
    what: &str,
    ptrs: &Pointers,
) -> Result<&'a [T], String> {
    if count > limit {
        return Err(format!("{what}: count {count} exceeds {limit}"));
    }
    if count == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(format!("{what} is null but its count is {count}"));
    }
    let size = count as usize * std::mem::size_of::<T>();
    ptrs.readable(what, p as usize, size)?;
    // SAFETY: non-null, `count` entries readable (checked), static in the plugin (ABI).
    Ok(unsafe { std::slice::from_raw_parts(p, count as usize) })
}

/// # Safety
/// `p` came from the plugin's description.
unsafe fn port(p: &PortDesc, ptrs: &Pointers) -> Result<PortInfo, String> {
    // SAFETY: bounded reads.
    let name = unsafe { field(p.name, flip_abi::MAX_ID_LEN, "name", ptrs) }?;
    if !is_valid_param_name(&name) {
        return Err(format!("name `{name}` is not a name of [a-z0-9_]{{1,32}}"));
    }
    let named = |e: String| format!("`{name}`: {e}");
    // SAFETY: as above.
    let help = unsafe { field(p.help, flip_abi::MAX_HELP_LEN, "help", ptrs) }.map_err(named)?;
    let input = match p.direction {
        abi::PORT_INPUT => true,
        abi::PORT_OUTPUT => false,
        d => return Err(named(format!("unknown direction {d}"))),
    };
    if p.data_kind >= abi::DATA_KIND_COUNT {
        return Err(named(format!("unknown data kind {}", p.data_kind)));
    }
    if p.flags & !abi::PORT_FLAGS_ALL != 0 {
        return Err(named(format!(
            "unknown flag bits {:#x}",
            p.flags & !abi::PORT_FLAGS_ALL
        )));
    }
    let optional = p.flags & abi::PORT_OPTIONAL != 0;
    let from_input = p.flags & abi::PORT_FROM_INPUT != 0;
    if (optional && !input) || (from_input && input) {
        return Err(named(
            "optional is for inputs and from-input for outputs".into(),
        ));
    }
    Ok(PortInfo {
        name,
        help,
        input,
        data_kind: p.data_kind,
        optional,
        from_input,
    })
}

/// Rules across a kind's ports: an output; a from-input output has a required input of its
/// name and kind; particle outputs are from-input (the host sizes them by their input);
/// solids are inputs only.
fn check_ports(ports: &[PortInfo]) -> Result<(), String> {
    if !ports.iter().any(|p| !p.input) {
        return Err("no output port".into());
    }
    for p in ports.iter().filter(|p| !p.input) {
        if p.data_kind == abi::DATA_SOLIDS_SDF {
            return Err(format!("output `{}`: solids are inputs only", p.name));
        }
        if p.data_kind == abi::DATA_PARTICLES && !p.from_input {
            return Err(format!(
                "particle output `{}` must start from its input (PORT_FROM_INPUT)",
                p.name
            ));
        }
        let source = ports
            .iter()
            .find(|q| q.input && q.name == p.name && q.data_kind == p.data_kind);
        if p.from_input && source.is_none_or(|q| q.optional) {
            return Err(format!(
                "output `{}` starts from its input, but there is no required input `{}` of its kind",
                p.name, p.name
            ));
        }
    }
    Ok(())
}

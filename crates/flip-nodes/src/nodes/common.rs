use flip_core::Solids;
use flip_graph::window::Window;
use flip_graph::{NodeSpec, ParamSpec, PortSpec};
use std::sync::Arc;

/// Builds a spec with less noise in the node files (each kind adds its role and memory model).
pub(crate) fn spec(
    kind: &str,
    label: &str,
    category: &str,
    help: &str,
    inputs: Vec<PortSpec>,
    outputs: Vec<PortSpec>,
    params: Vec<ParamSpec>,
) -> NodeSpec {
    NodeSpec::new(kind, label, category, help, inputs, outputs, params)
}

/// Turns a kernel-level string error into a node error.
pub(crate) fn failed(e: impl std::fmt::Display) -> flip_graph::NodeError {
    flip_graph::NodeError::Failed(e.to_string())
}

/// An error and its sources, `: `-separated (the sources sanitised: they may quote files).
pub(crate) fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&flip_abi::text::sanitize(&s.to_string()));
        source = s.source();
    }
    text
}

/// Refuses a cell field of input `name` that is not on the simulation grid.
pub(crate) fn check_grid(
    name: &str,
    field: &flip_core::Grid3<f32>,
    grid: &flip_core::GridSpec,
) -> Result<(), flip_graph::NodeError> {
    if field.dims() == grid.dims() {
        return Ok(());
    }
    Err(flip_graph::NodeError::Failed(format!(
        "input `{name}` has {:?} cells, the grid {:?}",
        field.dims(),
        grid.dims()
    )))
}

/// Refuses a velocity field of input `name` that is not on the simulation's MAC grid.
pub(crate) fn check_velocity_grid(
    name: &str,
    field: &crate::kinds::VelocityField,
    grid: &flip_core::GridSpec,
) -> Result<(), flip_graph::NodeError> {
    if flip_core::transfer::matches_spec(grid, &field.vel) {
        return Ok(());
    }
    Err(flip_graph::NodeError::Failed(format!(
        "input `{name}` is not on the grid's faces (its u component has {:?} faces)",
        field.vel.u.dims()
    )))
}

/// Where an output node writes: the folder named by parameter `folder` (relative to the run's
/// output folder) and the file-name prefix named by `prefix`. The one home of the checks of
/// the parameters that form output paths, made without creating anything:
/// - the folder stays inside the output folder unless the run allows otherwise, and it (or
///   its nearest existing ancestor) is a writable folder;
/// - the prefix is part of a file name: no path separator, whatever the run allows (folders
///   are the folder parameter's).
pub(crate) fn output_location(
    init: &flip_graph::NodeInit<'_>,
    folder: &str,
    prefix: &str,
) -> Result<(std::path::PathBuf, String), flip_graph::NodeError> {
    let params = crate::params::Params(init.params);
    let name = params.text(prefix)?;
    check_file_name_part(prefix, name)?;
    Ok((output_folder(init, folder)?, name.to_string()))
}

/// Refuses a part of a file name (parameter `param`) that could name another folder.
fn check_file_name_part(param: &str, part: &str) -> Result<(), flip_graph::NodeError> {
    if !part.contains(['/', '\\', '\0']) {
        return Ok(());
    }
    Err(flip_graph::NodeError::param(
        param,
        format!(
            "`{part}` is part of a file name and cannot hold `/`, `\\` or NUL; name folders \
             with `folder`"
        ),
    ))
}

/// The output folder named by parameter `param` ([`output_location`]).
fn output_folder(
    init: &flip_graph::NodeInit<'_>,
    param: &str,
) -> Result<std::path::PathBuf, flip_graph::NodeError> {
    use flip_graph::NodeError;
    use std::path::{Component, Path};
    let params = crate::params::Params(init.params);
    let rel = Path::new(params.text(param)?);
    let escapes = rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)));
    if escapes && !init.allow_outside_out {
        return Err(NodeError::param(
            param,
            format!(
                "`{}` leaves the output folder (absolute or `..`); pass --allow-outside-out \
                 to write there",
                rel.display()
            ),
        ));
    }
    let folder = init.out_dir.join(rel);
    let existing = folder.ancestors().find(|a| a.exists());
    match existing {
        Some(dir) if !dir.is_dir() => Err(NodeError::param(
            param,
            format!("{} is a file, not a folder", dir.display()),
        )),
        Some(dir) => check_writable(dir).map_err(|e| {
            NodeError::param(param, format!("cannot write in {}: {e}", dir.display()))
        }),
        None => Ok(()),
    }
    .map(|()| folder)
}

/// Creates and removes a probe file in `dir` (the only test of writability that also holds
/// for ACLs, read-only mounts and other users' folders).
fn check_writable(dir: &std::path::Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".flipgraph-write-test-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// The solids of the whole domain on rank 0 of a decomposed run, for the exports that write
/// what one process would: a window's solids resampled on the domain (shapes are placed in
/// domain coordinates), kept while the window's solids are the same (static solids: always).
#[derive(Default)]
pub(crate) struct DomainSolids {
    last: Option<(Arc<Solids>, Arc<Solids>)>,
}

impl DomainSolids {
    /// The domain's solids for the window solids `s` of `w`.
    pub fn of(&mut self, w: &Window, s: &Arc<Solids>) -> Arc<Solids> {
        match &self.last {
            Some((from, domain)) if Arc::ptr_eq(from, s) => domain.clone(),
            _ => {
                let domain = Arc::new(Solids::new(w.global, s.shapes.clone()));
                self.last = Some((s.clone(), domain.clone()));
                domain
            }
        }
    }
}

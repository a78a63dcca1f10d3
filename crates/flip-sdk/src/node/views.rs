//! Typed, safe views of the host's buffers in an `eval` call. Inputs are shared slices valid
//! for the call; each output is handed out once, as mutable slices, so no two views alias.

use super::{DataKind, Direction, NodeKind};
use crate::SolveError;
use flip_abi::node::{NodeContext, PortData};

/// What the host says about the substep being evaluated.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// Cells per axis (`nk = 1` in 2D).
    pub dims: [usize; 3],
    /// 2 or 3.
    pub dimension: usize,
    /// Cell size (m).
    pub dx: f32,
    /// Time step (s).
    pub dt: f32,
    /// Time at the start of the substep (s).
    pub time: f64,
    /// Substep counter since the start.
    pub step: u64,
    /// Frame (0-based).
    pub frame: u32,
}

impl Context {
    pub(super) fn from_abi(c: &NodeContext) -> Self {
        Self {
            dims: c.dims.map(|d| d as usize),
            dimension: c.dimension as usize,
            dx: c.dx,
            dt: c.dt,
            time: c.time,
            step: c.step,
            frame: c.frame,
        }
    }
    /// Whether the simulation is 2D.
    pub fn is_2d(&self) -> bool {
        self.dimension == 2
    }
    /// The centre of cell `(i, j, k)` in metres (the grid starts at the origin).
    pub fn cell_center(&self, i: usize, j: usize, k: usize) -> [f32; 3] {
        let z = if self.is_2d() {
            0.0
        } else {
            (k as f32 + 0.5) * self.dx
        };
        [(i as f32 + 0.5) * self.dx, (j as f32 + 0.5) * self.dx, z]
    }
    /// The centre of face `(i, j, k)` normal to `axis` in metres.
    pub fn face_center(&self, axis: usize, i: usize, j: usize, k: usize) -> [f32; 3] {
        let mut c = self.cell_center(i, j, k);
        c[axis] -= 0.5 * self.dx;
        if self.is_2d() {
            c[2] = 0.0;
        }
        c
    }
}

/// Read-only MAC velocity.
#[derive(Clone, Copy, Debug)]
pub struct FaceVelocity<'a> {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// x components on x faces, `(ni+1)·nj·nk`.
    pub u: &'a [f32],
    /// y components, `ni·(nj+1)·nk`.
    pub v: &'a [f32],
    /// z components, `ni·nj·(nk+1)`.
    pub w: &'a [f32],
    /// Valid-face masks (1 valid), same lengths.
    pub valid: [&'a [u8]; 3],
}

/// Writable MAC velocity (the masks stay read-only).
#[derive(Debug)]
pub struct FaceVelocityMut<'a> {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// x components on x faces.
    pub u: &'a mut [f32],
    /// y components.
    pub v: &'a mut [f32],
    /// z components.
    pub w: &'a mut [f32],
    /// Valid-face masks.
    pub valid: [&'a [u8]; 3],
}

impl FaceVelocityMut<'_> {
    /// The three components, x first.
    pub fn axes_mut(&mut self) -> [&mut [f32]; 3] {
        [&mut *self.u, &mut *self.v, &mut *self.w]
    }
    /// Dimensions of component `axis`'s array.
    pub fn face_dims(&self, axis: usize) -> [usize; 3] {
        face_dims(self.dims, axis)
    }
}

/// Dimensions of the face array normal to `axis` on a grid of `dims` cells.
pub fn face_dims(dims: [usize; 3], axis: usize) -> [usize; 3] {
    let mut d = dims;
    d[axis] += 1;
    d
}

/// A read-only cell field (scalar, level set or solid distance).
#[derive(Clone, Copy, Debug)]
pub struct CellField<'a> {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// One value per cell, x fastest.
    pub data: &'a [f32],
}

/// A writable cell field.
#[derive(Debug)]
pub struct CellFieldMut<'a> {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// One value per cell, x fastest.
    pub data: &'a mut [f32],
}

/// Read-only cell kinds (`abi::node::CELL_*`).
#[derive(Clone, Copy, Debug)]
pub struct CellKinds<'a> {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// One kind per cell.
    pub data: &'a [u8],
}

/// Writable cell kinds.
#[derive(Debug)]
pub struct CellKindsMut<'a> {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// One kind per cell.
    pub data: &'a mut [u8],
}

/// Read-only particles.
#[derive(Clone, Copy, Debug)]
pub struct Particles<'a> {
    /// Positions (m).
    pub position: &'a [[f32; 3]],
    /// Velocities (m/s).
    pub velocity: &'a [[f32; 3]],
    /// Ids (empty when the particles carry none).
    pub ids: &'a [u64],
}

/// Writable particles: positions and velocities change, count and ids do not.
#[derive(Debug)]
pub struct ParticlesMut<'a> {
    /// Positions (m).
    pub position: &'a mut [[f32; 3]],
    /// Velocities (m/s).
    pub velocity: &'a mut [[f32; 3]],
    /// Ids (read-only; empty when the particles carry none).
    pub ids: &'a [u64],
}

/// The ports of one `eval` call.
pub struct NodeIo<'a> {
    kind: &'static NodeKind,
    ports: &'a [PortData],
    taken: Vec<bool>,
}

/// A slice of `len` elements at `ptr`, refusing a null pointer for a non-empty slice.
///
/// # Safety
/// `ptr` is null or valid for reads of `len` elements for `'a`.
unsafe fn shared<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], SolveError> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(SolveError::BadValue(format!("{what}: null array")));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// As [`shared`], writable.
///
/// # Safety
/// `ptr` is null or valid for writes of `len` elements for `'a`, aliased by nothing else.
unsafe fn exclusive<'a, T>(ptr: *mut T, len: usize, what: &str) -> Result<&'a mut [T], SolveError> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(SolveError::BadValue(format!("{what}: null array")));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

fn cells(dims: [u32; 3]) -> usize {
    dims.iter().map(|&d| d as usize).product()
}

fn faces(dims: [u32; 3], axis: usize) -> usize {
    face_dims(dims.map(|d| d as usize), axis).iter().product()
}

impl<'a> NodeIo<'a> {
    /// The ports of a call.
    ///
    /// # Safety
    /// Every present port's arrays are valid for the lifetime `'a` with the lengths the ABI
    /// documents for their kind; input arrays are not written by anyone during `'a`; output
    /// arrays are aliased by nothing else.
    pub(super) unsafe fn new(kind: &'static NodeKind, ports: &'a [PortData]) -> Self {
        Self {
            kind,
            ports,
            taken: vec![false; ports.len()],
        }
    }

    fn find(&self, name: &str, dir: Direction, kind: DataKind) -> Result<usize, SolveError> {
        let i = self
            .kind
            .ports
            .iter()
            .position(|p| p.name == name && p.direction == dir)
            .ok_or_else(|| SolveError::Failed(format!("node has no {dir:?} port `{name}`")))?;
        let port = &self.kind.ports[i];
        if port.kind != kind {
            return Err(SolveError::Failed(format!(
                "port `{name}` carries {:?}, not {kind:?}",
                port.kind
            )));
        }
        match self.ports.get(i) {
            Some(d) if d.data_kind == kind.tag() => Ok(i),
            _ => Err(SolveError::BadValue(format!(
                "the host passed no {kind:?} for port `{name}`"
            ))),
        }
    }

    fn present_input(&self, name: &str, kind: DataKind) -> Result<&'a PortData, SolveError> {
        let i = self.find(name, Direction::Input, kind)?;
        let d = &self.ports[i];
        if d.present == 0 {
            return Err(SolveError::BadValue(format!("input `{name}` has no value")));
        }
        Ok(d)
    }

    fn take_output(&mut self, name: &str, kind: DataKind) -> Result<&'a PortData, SolveError> {
        let i = self.find(name, Direction::Output, kind)?;
        if std::mem::replace(&mut self.taken[i], true) {
            return Err(SolveError::Failed(format!(
                "output `{name}` was already taken in this call"
            )));
        }
        Ok(&self.ports[i])
    }

    /// Whether input `name` has a value (an optional input may be unconnected).
    pub fn has_input(&self, name: &str) -> bool {
        let i = self
            .kind
            .ports
            .iter()
            .position(|p| p.name == name && p.direction == Direction::Input);
        i.and_then(|i| self.ports.get(i))
            .is_some_and(|d| d.present != 0)
    }

    /// Input `name`, a face velocity.
    ///
    /// # Errors
    /// No such input, another kind, or no value.
    pub fn input_velocity(&self, name: &str) -> Result<FaceVelocity<'a>, SolveError> {
        let d = self.present_input(name, DataKind::FaceVelocity)?;
        // SAFETY: the kind tag matched; `new`'s contract makes the arrays valid for 'a.
        unsafe {
            let v = &d.view.velocity;
            Ok(FaceVelocity {
                dims: v.dims.map(|x| x as usize),
                u: shared(v.u, faces(v.dims, 0), name)?,
                v: shared(v.v, faces(v.dims, 1), name)?,
                w: shared(v.w, faces(v.dims, 2), name)?,
                valid: [
                    shared(v.valid_u, faces(v.dims, 0), name)?,
                    shared(v.valid_v, faces(v.dims, 1), name)?,
                    shared(v.valid_w, faces(v.dims, 2), name)?,
                ],
            })
        }
    }

    /// Output `name`, a face velocity (once per call).
    ///
    /// # Errors
    /// No such output, another kind, or already taken.
    pub fn output_velocity(&mut self, name: &str) -> Result<FaceVelocityMut<'a>, SolveError> {
        let d = self.take_output(name, DataKind::FaceVelocity)?;
        // SAFETY: as `input_velocity`; the output is handed out once, so nothing aliases it.
        unsafe {
            let v = &d.view.velocity;
            Ok(FaceVelocityMut {
                dims: v.dims.map(|x| x as usize),
                u: exclusive(v.u, faces(v.dims, 0), name)?,
                v: exclusive(v.v, faces(v.dims, 1), name)?,
                w: exclusive(v.w, faces(v.dims, 2), name)?,
                valid: [
                    shared(v.valid_u, faces(v.dims, 0), name)?,
                    shared(v.valid_v, faces(v.dims, 1), name)?,
                    shared(v.valid_w, faces(v.dims, 2), name)?,
                ],
            })
        }
    }

    fn field_kind(&self, name: &str, dir: Direction) -> DataKind {
        self.kind
            .ports
            .iter()
            .find(|p| p.name == name && p.direction == dir)
            .map_or(DataKind::CellScalar, |p| p.kind)
    }

    /// Input `name`, a cell field (scalar, level set or solid distance).
    ///
    /// # Errors
    /// No such input, another kind, or no value.
    pub fn input_field(&self, name: &str) -> Result<CellField<'a>, SolveError> {
        let kind = self.field_kind(name, Direction::Input);
        if !is_field(kind) {
            return Err(SolveError::Failed(format!(
                "input `{name}` is not a cell field"
            )));
        }
        let d = self.present_input(name, kind)?;
        // SAFETY: as `input_velocity`.
        unsafe {
            let f = &d.view.field;
            Ok(CellField {
                dims: f.dims.map(|x| x as usize),
                data: shared(f.data, cells(f.dims), name)?,
            })
        }
    }

    /// Output `name`, a cell field (once per call).
    ///
    /// # Errors
    /// No such output, another kind, or already taken.
    pub fn output_field(&mut self, name: &str) -> Result<CellFieldMut<'a>, SolveError> {
        let kind = self.field_kind(name, Direction::Output);
        if !is_field(kind) {
            return Err(SolveError::Failed(format!(
                "output `{name}` is not a cell field"
            )));
        }
        let d = self.take_output(name, kind)?;
        // SAFETY: as `output_velocity`.
        unsafe {
            let f = &d.view.field;
            Ok(CellFieldMut {
                dims: f.dims.map(|x| x as usize),
                data: exclusive(f.data, cells(f.dims), name)?,
            })
        }
    }

    /// Input `name`, cell kinds.
    ///
    /// # Errors
    /// No such input, another kind, or no value.
    pub fn input_cells(&self, name: &str) -> Result<CellKinds<'a>, SolveError> {
        let d = self.present_input(name, DataKind::CellKinds)?;
        // SAFETY: as `input_velocity`.
        unsafe {
            let c = &d.view.cells;
            Ok(CellKinds {
                dims: c.dims.map(|x| x as usize),
                data: shared(c.data, cells(c.dims), name)?,
            })
        }
    }

    /// Output `name`, cell kinds (once per call).
    ///
    /// # Errors
    /// No such output, another kind, or already taken.
    pub fn output_cells(&mut self, name: &str) -> Result<CellKindsMut<'a>, SolveError> {
        let d = self.take_output(name, DataKind::CellKinds)?;
        // SAFETY: as `output_velocity`.
        unsafe {
            let c = &d.view.cells;
            Ok(CellKindsMut {
                dims: c.dims.map(|x| x as usize),
                data: exclusive(c.data, cells(c.dims), name)?,
            })
        }
    }

    /// Input `name`, particles.
    ///
    /// # Errors
    /// No such input, another kind, or no value.
    pub fn input_particles(&self, name: &str) -> Result<Particles<'a>, SolveError> {
        let d = self.present_input(name, DataKind::Particles)?;
        // SAFETY: as `input_velocity`; `[f32; 3]` has the alignment of `f32`.
        unsafe {
            let p = &d.view.particles;
            let n = p.count as usize;
            Ok(Particles {
                position: shared(p.position.cast::<[f32; 3]>(), n, name)?,
                velocity: shared(p.velocity.cast::<[f32; 3]>(), n, name)?,
                ids: if p.ids.is_null() {
                    &[]
                } else {
                    shared(p.ids, n, name)?
                },
            })
        }
    }

    /// Output `name`, particles (once per call).
    ///
    /// # Errors
    /// No such output, another kind, or already taken.
    pub fn output_particles(&mut self, name: &str) -> Result<ParticlesMut<'a>, SolveError> {
        let d = self.take_output(name, DataKind::Particles)?;
        // SAFETY: as `output_velocity`.
        unsafe {
            let p = &d.view.particles;
            let n = p.count as usize;
            Ok(ParticlesMut {
                position: exclusive(p.position.cast::<[f32; 3]>(), n, name)?,
                velocity: exclusive(p.velocity.cast::<[f32; 3]>(), n, name)?,
                ids: if p.ids.is_null() {
                    &[]
                } else {
                    shared(p.ids, n, name)?
                },
            })
        }
    }
}

fn is_field(kind: DataKind) -> bool {
    matches!(
        kind,
        DataKind::CellScalar | DataKind::LevelSet | DataKind::SolidsSdf
    )
}

//! The graph values a plugin node's `eval` works on, held for the call: inputs shared, outputs
//! owned (an output that starts from its input takes that input's value; another starts at
//! zero), each lent to the host as a [`PortRef`]. Every written array is lent with a guard
//! after it: room at the end of its own allocation that the host fills with a canary and
//! checks after `eval` (`flip_host::node::guard`), removed again when the value goes back on
//! the edges.

use crate::kinds::{TypedInputs, VelocityField, CELLS, LEVEL_SET, PARTICLES, SCALAR, VELOCITY};
use bytemuck::Pod;
use flip_abi::node as abi;
use flip_core::{CellGrid, CellKind, Grid3, GridSpec, Particles, Solids};
use flip_graph::{DataKind, NodeError, NodeIo, Value};
use flip_host::node::guard::GUARD_BYTES;
use flip_host::{NodeKindInfo, PortInfo, PortRef};
use std::sync::Arc;

/// One port's value during a call.
pub(super) enum Held {
    /// Unconnected optional input, or an input an output took.
    Absent,
    /// Particles.
    Particles(Arc<Particles>, bool),
    /// Face velocity.
    Velocity(Arc<VelocityField>, bool),
    /// A scalar field or level set (of `DataKind`).
    Field(Arc<Grid3<f32>>, DataKind, bool),
    /// Solids, lent as their signed distance (inputs only).
    Solids(Arc<Solids>),
    /// Cell kinds as bytes (`CellKind` is `repr(u8)` with the ABI's numbers).
    Cells(Vec<u8>, [usize; 3], bool),
}

/// Elements of `T` that hold a guard.
fn guard_len<T>() -> usize {
    GUARD_BYTES.div_ceil(std::mem::size_of::<T>())
}

/// Appends room for a guard after `v`'s elements and lends the elements and the guard's bytes
/// ([`unguard`] removes it).
fn guarded<T: Pod>(v: &mut Vec<T>) -> (&mut [T], &mut [u8]) {
    let (len, extra) = (v.len(), guard_len::<T>());
    v.reserve_exact(extra);
    v.resize(len + extra, T::zeroed());
    let (data, guard) = v.split_at_mut(len);
    (data, bytemuck::cast_slice_mut(guard))
}

/// Removes the guard [`guarded`] appended.
fn unguard<T>(v: &mut Vec<T>) {
    v.truncate(v.len() - guard_len::<T>());
}

/// The cell kinds of `grid` as the ABI's bytes.
fn cell_bytes(grid: &CellGrid) -> Vec<u8> {
    grid.data.iter().map(|&c| c as u8).collect()
}

/// Takes input `p` from `io`, as its kind says (`output`: it becomes an output's value).
fn take_input(p: &PortInfo, io: &mut NodeIo, output: bool) -> Result<Held, NodeError> {
    let name = p.name.as_str();
    let held = match p.data_kind {
        abi::DATA_PARTICLES => io.particles_opt(name)?.map(|v| Held::Particles(v, output)),
        abi::DATA_FACE_VELOCITY => io.velocity_opt(name)?.map(|v| Held::Velocity(v, output)),
        abi::DATA_CELL_SCALAR => io.scalar_opt(name)?.map(|v| Held::Field(v, SCALAR, output)),
        abi::DATA_LEVEL_SET => io
            .level_set_opt(name)?
            .map(|v| Held::Field(v, LEVEL_SET, output)),
        abi::DATA_CELL_KINDS => io
            .cells_opt(name)?
            .map(|v| Held::Cells(cell_bytes(&v), v.dims(), output)),
        abi::DATA_SOLIDS_SDF => io.solids_opt(name)?.map(Held::Solids),
        _ => None,
    };
    match held {
        Some(h) => Ok(h),
        None if p.optional => Ok(Held::Absent),
        None => Err(NodeError::MissingInput(name.into())),
    }
}

/// A fresh output of `p`'s kind on `grid`, zeroed.
fn fresh_output(p: &PortInfo, grid: &GridSpec) -> Held {
    let cells = || Grid3::new(grid.ni, grid.nj, grid.nk, 0.0f32);
    match p.data_kind {
        abi::DATA_FACE_VELOCITY => Held::Velocity(Arc::new(VelocityField::zeros(grid)), true),
        abi::DATA_LEVEL_SET => Held::Field(Arc::new(cells()), LEVEL_SET, true),
        abi::DATA_CELL_KINDS => Held::Cells(vec![0; grid.cell_count()], grid.dims(), true),
        // particles come from their input and solids are inputs only (checked at load)
        _ => Held::Field(Arc::new(cells()), SCALAR, true),
    }
}

/// Every port's value for one call, in declaration order.
pub(super) fn take(
    kind: &NodeKindInfo,
    io: &mut NodeIo,
    grid: &GridSpec,
) -> Result<Vec<Held>, NodeError> {
    let mut held = Vec::with_capacity(kind.ports.len());
    for p in &kind.ports {
        held.push(if p.input && kind.feeds_output(p) {
            Held::Absent
        } else if p.input {
            take_input(p, io, false)?
        } else if p.from_input {
            let source = kind
                .ports
                .iter()
                .find(|q| q.input && q.name == p.name && q.data_kind == p.data_kind)
                .expect("checked at load");
            take_input(source, io, true)?
        } else {
            fresh_output(p, grid)
        });
    }
    Ok(held)
}

impl Held {
    /// Removes the guards [`Held::port`] appended to an output.
    fn unguard(&mut self) {
        match self {
            Held::Particles(p, true) => {
                let p = Arc::make_mut(p);
                unguard(&mut p.pos);
                unguard(&mut p.vel);
            }
            Held::Velocity(f, true) => {
                for g in Arc::make_mut(f).vel.axes_mut() {
                    unguard(&mut g.data);
                }
            }
            Held::Field(g, _, true) => unguard(&mut Arc::make_mut(g).data),
            Held::Cells(bytes, _, true) => unguard(bytes),
            _ => {}
        }
    }

    /// The host's view of this value (outputs copied first while shared).
    pub(super) fn port(&mut self, grid: [usize; 3]) -> PortRef<'_> {
        match self {
            Held::Absent => PortRef::Absent,
            Held::Particles(p, false) => PortRef::Particles {
                position: bytemuck::cast_slice(&p.pos),
                velocity: bytemuck::cast_slice(&p.vel),
                ids: &p.id,
            },
            Held::Particles(p, true) => {
                let p = Arc::make_mut(p);
                let (position, guard_position) = guarded(&mut p.pos);
                let (velocity, guard_velocity) = guarded(&mut p.vel);
                PortRef::ParticlesMut {
                    position: bytemuck::cast_slice_mut(position),
                    velocity: bytemuck::cast_slice_mut(velocity),
                    ids: &p.id,
                    guards: [guard_position, guard_velocity],
                }
            }
            Held::Velocity(f, false) => PortRef::Velocity {
                dims: grid,
                components: f.vel.axes().map(|g| g.data.as_slice()),
                valid: f.valid.axes().map(|g| g.data.as_slice()),
            },
            Held::Velocity(f, true) => {
                let f = Arc::make_mut(f);
                let [(u, gu), (v, gv), (w, gw)] = f.vel.axes_mut().map(|g| guarded(&mut g.data));
                PortRef::VelocityMut {
                    dims: grid,
                    components: [u, v, w],
                    valid: f.valid.axes().map(|g| g.data.as_slice()),
                    guards: [gu, gv, gw],
                }
            }
            Held::Field(g, _, false) => PortRef::Field {
                dims: g.dims(),
                data: &g.data,
            },
            Held::Field(g, _, true) => {
                let g = Arc::make_mut(g);
                let dims = g.dims();
                let (data, guard) = guarded(&mut g.data);
                PortRef::FieldMut { dims, data, guard }
            }
            Held::Solids(s) => PortRef::Field {
                dims: s.phi.dims(),
                data: &s.phi.data,
            },
            Held::Cells(bytes, dims, false) => PortRef::Cells {
                dims: *dims,
                data: bytes,
            },
            Held::Cells(bytes, dims, true) => {
                let (data, guard) = guarded(bytes);
                PortRef::CellsMut {
                    dims: *dims,
                    data,
                    guard,
                }
            }
        }
    }

    /// The value to put on the output's edges, its guards removed (outputs only; the host
    /// checked them).
    pub(super) fn into_value(mut self) -> Option<Value> {
        self.unguard();
        Some(match self {
            Held::Particles(p, true) => Value::shared(PARTICLES, p),
            Held::Velocity(f, true) => Value::shared(VELOCITY, f),
            Held::Field(g, kind, true) => Value::shared(kind, g),
            Held::Cells(bytes, [ni, nj, nk], true) => {
                let mut grid = CellGrid::new(ni, nj, nk, CellKind::Air);
                for (c, &b) in grid.data.iter_mut().zip(&bytes) {
                    *c = match b {
                        abi::CELL_FLUID => CellKind::Fluid,
                        abi::CELL_SOLID => CellKind::Solid,
                        _ => CellKind::Air,
                    };
                }
                Value::new(CELLS, grid)
            }
            _ => return None,
        })
    }
}

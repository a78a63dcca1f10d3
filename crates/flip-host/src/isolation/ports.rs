//! Where an isolated node's ports lie in the two shared segments ([`super::segment`]), how the
//! host brings the ports in and the outputs out, and the child's views of them. Both sides
//! compute the layout from the same [`EvalMeta`], so only the metadata crosses the pipe.
//! - *Inputs* (sealed read-only for the child): every array the node only reads, at 64-byte
//!   aligned offsets from 0: input ports whole, and the read-only parts of outputs (particle
//!   ids, valid-face masks), so the child cannot change them at all.
//! - *Exchange* (written by both): the 64-byte header of [`shm::HEADER`] (the cancel flag),
//!   then each written array (output positions and velocities, velocity components, fields,
//!   cell kinds), each followed by a guard of [`GUARD`] bytes ([`crate::node::guard`]) that
//!   the host checks after the call: a plugin writing past an output view changes it.
//!
//! Arrays of a port, in order: particles `position, velocity` (`3·count` f32) and `ids`
//! (`count` u64, or none); face velocity `u, v, w` (f32) and `valid_u, valid_v, valid_w` (u8);
//! a cell field's values (f32); cell kinds (u8).

use super::segment::Segment;
use super::shm;
use super::wire::{EvalMeta, PortMeta};
use crate::node::guard::{self, GUARD_BYTES as GUARD};
use crate::node::PortRef;

/// Alignment of every array.
const ALIGN: usize = 64;

/// One array of a port in the mappings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Slot {
    /// In the exchange segment (written by the node, guarded), else in the inputs.
    pub written: bool,
    /// Offset in its segment.
    pub offset: usize,
    /// Bytes.
    pub len: usize,
}

/// The layout of one evaluation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NodePlan {
    /// The slots of each port, in the order of the module doc.
    pub ports: Vec<Vec<Slot>>,
    /// Bytes of the input segment.
    pub inputs_len: usize,
    /// Bytes of the exchange segment.
    pub exchange_len: usize,
}

fn faces(dims: [usize; 3], axis: usize) -> usize {
    let mut d = dims;
    d[axis] += 1;
    d.iter().product()
}

/// `(element bytes, count, written)` of each array of `port` on a grid of `dims` cells.
fn arrays(port: &PortMeta, dims: [usize; 3]) -> Vec<(usize, usize, bool)> {
    let cells: usize = dims.iter().product();
    match *port {
        PortMeta::Absent => Vec::new(),
        PortMeta::Particles { count, ids, output } => {
            let n = count as usize;
            vec![
                (12, n, output),
                (12, n, output),
                (8, if ids { n } else { 0 }, false),
            ]
        }
        PortMeta::Velocity { output } => {
            let mut a: Vec<_> = (0..3).map(|a| (4, faces(dims, a), output)).collect();
            a.extend((0..3).map(|a| (1, faces(dims, a), false)));
            a
        }
        PortMeta::Field { output } => vec![(4, cells, output)],
        PortMeta::Cells { output } => vec![(1, cells, output)],
    }
}

/// The layout of the evaluation `meta` describes.
pub(crate) fn plan(meta: &EvalMeta) -> NodePlan {
    let dims = meta.context.dims.map(|d| d as usize);
    let (mut inputs_at, mut exchange_at) = (0usize, shm::HEADER);
    let ports = meta
        .ports
        .iter()
        .map(|port| {
            arrays(port, dims)
                .into_iter()
                .map(|(size, count, written)| {
                    let len = size * count;
                    let (at, guard) = if written {
                        (&mut exchange_at, GUARD)
                    } else {
                        (&mut inputs_at, 0)
                    };
                    let slot = Slot {
                        written,
                        offset: *at,
                        len,
                    };
                    *at = (*at + len + guard).div_ceil(ALIGN) * ALIGN;
                    slot
                })
                .collect()
        })
        .collect();
    NodePlan {
        ports,
        inputs_len: inputs_at.max(ALIGN),
        exchange_len: exchange_at,
    }
}

/// What travels of `port` (its arrays' sizes and which are written).
pub(crate) fn port_meta(port: &PortRef<'_>) -> PortMeta {
    match port {
        PortRef::Absent => PortMeta::Absent,
        PortRef::Particles { position, ids, .. } => PortMeta::Particles {
            count: position.len() as u64,
            ids: !ids.is_empty(),
            output: false,
        },
        PortRef::ParticlesMut { position, ids, .. } => PortMeta::Particles {
            count: position.len() as u64,
            ids: !ids.is_empty(),
            output: true,
        },
        PortRef::Velocity { .. } => PortMeta::Velocity { output: false },
        PortRef::VelocityMut { .. } => PortMeta::Velocity { output: true },
        PortRef::Field { .. } => PortMeta::Field { output: false },
        PortRef::FieldMut { .. } => PortMeta::Field { output: true },
        PortRef::Cells { .. } => PortMeta::Cells { output: false },
        PortRef::CellsMut { .. } => PortMeta::Cells { output: true },
    }
}

/// The bytes of every array of `port`, in layout order.
fn port_bytes<'p>(port: &'p PortRef<'_>) -> Vec<&'p [u8]> {
    use bytemuck::cast_slice as bytes;
    match port {
        PortRef::Absent => Vec::new(),
        PortRef::Particles {
            position,
            velocity,
            ids,
        } => vec![bytes(position), bytes(velocity), bytes(ids)],
        PortRef::ParticlesMut {
            position,
            velocity,
            ids,
            ..
        } => vec![bytes(position), bytes(velocity), bytes(ids)],
        PortRef::Velocity {
            components, valid, ..
        } => {
            let mut v: Vec<&[u8]> = components.iter().map(|c| bytes(c)).collect();
            v.extend(valid.iter().copied());
            v
        }
        PortRef::VelocityMut {
            components, valid, ..
        } => {
            let mut v: Vec<&[u8]> = components.iter().map(|c| bytes(c)).collect();
            v.extend(valid.iter().copied());
            v
        }
        PortRef::Field { data, .. } => vec![bytes(data)],
        PortRef::FieldMut { data, .. } => vec![bytes(data)],
        PortRef::Cells { data, .. } => vec![data],
        PortRef::CellsMut { data, .. } => vec![data],
    }
}

/// The written arrays of an output `port`, in layout order (none for an input).
fn written_bytes<'p>(port: &'p mut PortRef<'_>) -> Vec<&'p mut [u8]> {
    use bytemuck::cast_slice_mut as bytes;
    match port {
        PortRef::ParticlesMut {
            position, velocity, ..
        } => vec![bytes(position), bytes(velocity)],
        PortRef::VelocityMut { components, .. } => {
            components.iter_mut().map(|c| bytes(c)).collect()
        }
        PortRef::FieldMut { data, .. } => vec![bytes(data)],
        PortRef::CellsMut { data, .. } => vec![&mut **data],
        _ => Vec::new(),
    }
}

/// Copies every port into the segments and fills the guards.
///
/// # Safety
/// `plan` is the plan of these ports; `inputs` is private to the host (no other live
/// reference) and both segments hold at least the plan's bytes.
pub(crate) unsafe fn write_ports(
    inputs: &Segment,
    exchange: &Segment,
    plan: &NodePlan,
    ports: &[PortRef<'_>],
) {
    for (port, slots) in ports.iter().zip(&plan.ports) {
        for (data, slot) in port_bytes(port).into_iter().zip(slots) {
            let seg = if slot.written { exchange } else { inputs };
            // SAFETY: the slot lies in the segment (the plan) and nothing else borrows it.
            unsafe { seg.slice_mut::<u8>(slot.offset, slot.len) }.copy_from_slice(data);
            if slot.written {
                // SAFETY: the guard follows the slot inside the segment (the plan).
                guard::fill(unsafe { exchange.slice_mut::<u8>(slot.offset + slot.len, GUARD) });
            }
        }
    }
}

/// Checks the guards and copies the written arrays back into the outputs. `Err(i)`: port `i`
/// was written past its end (its outputs are then left as they were).
///
/// # Safety
/// As [`write_ports`]; the child has answered (it no longer writes the exchange).
pub(crate) unsafe fn read_outputs(
    exchange: &Segment,
    plan: &NodePlan,
    ports: &mut [PortRef<'_>],
) -> Result<(), usize> {
    for (i, slots) in plan.ports.iter().enumerate() {
        for slot in slots.iter().filter(|s| s.written) {
            // SAFETY: the guard lies in the segment (the plan).
            if !guard::intact(unsafe { exchange.slice::<u8>(slot.offset + slot.len, GUARD) }) {
                return Err(i);
            }
        }
    }
    for (port, slots) in ports.iter_mut().zip(&plan.ports) {
        let written = slots.iter().filter(|s| s.written);
        for (out, slot) in written_bytes(port).into_iter().zip(written) {
            // SAFETY: the slot lies in the segment; the child is done with it.
            out.copy_from_slice(unsafe { exchange.slice::<u8>(slot.offset, slot.len) });
        }
    }
    Ok(())
}

/// The child's view of every port in the segments: inputs read only, outputs writable.
///
/// # Safety
/// The host wrote the ports of `meta`, and nothing else in this process uses the exchange
/// mapping while the views live.
pub(crate) unsafe fn child_ports<'a>(
    inputs: &'a Segment,
    exchange: &'a Segment,
    meta: &EvalMeta,
) -> Result<Vec<PortRef<'a>>, String> {
    let plan = plan(meta);
    if plan.inputs_len > inputs.len() || plan.exchange_len > exchange.len() {
        return Err(format!(
            "ports of {} + {} bytes in mappings of {} + {}",
            plan.inputs_len,
            plan.exchange_len,
            inputs.len(),
            exchange.len()
        ));
    }
    let dims = meta.context.dims.map(|d| d as usize);
    let mut out = Vec::with_capacity(meta.ports.len());
    for (port, slots) in meta.ports.iter().zip(&plan.ports) {
        let s = |i: usize| slots[i];
        // SAFETY (every view below): the slot lies in its segment, is 64-byte aligned, holds
        // `len / size_of::<T>()` elements, and no two written slots overlap (the plan).
        let read = |i: usize| -> &'a [u8] { unsafe { inputs.slice(s(i).offset, s(i).len) } };
        let f32s = |i: usize| -> &'a [f32] {
            let seg = if s(i).written { exchange } else { inputs };
            unsafe { seg.slice(s(i).offset, s(i).len / 4) }
        };
        let f32s_mut = |i: usize| -> &'a mut [f32] {
            unsafe { exchange.slice_mut(s(i).offset, s(i).len / 4) }
        };
        let vec3s =
            |i: usize| -> &'a [[f32; 3]] { unsafe { inputs.slice(s(i).offset, s(i).len / 12) } };
        let vec3s_mut = |i: usize| -> &'a mut [[f32; 3]] {
            unsafe { exchange.slice_mut(s(i).offset, s(i).len / 12) }
        };
        let ids = |i: usize| -> &'a [u64] { unsafe { inputs.slice(s(i).offset, s(i).len / 8) } };
        let guard = |i: usize| -> &'a mut [u8] {
            unsafe { exchange.slice_mut(s(i).offset + s(i).len, GUARD) }
        };
        out.push(match *port {
            PortMeta::Absent => PortRef::Absent,
            PortMeta::Particles { output: false, .. } => PortRef::Particles {
                position: vec3s(0),
                velocity: vec3s(1),
                ids: ids(2),
            },
            PortMeta::Particles { output: true, .. } => PortRef::ParticlesMut {
                position: vec3s_mut(0),
                velocity: vec3s_mut(1),
                ids: ids(2),
                guards: [guard(0), guard(1)],
            },
            PortMeta::Velocity { output: false } => PortRef::Velocity {
                dims,
                components: [f32s(0), f32s(1), f32s(2)],
                valid: [read(3), read(4), read(5)],
            },
            PortMeta::Velocity { output: true } => PortRef::VelocityMut {
                dims,
                components: [f32s_mut(0), f32s_mut(1), f32s_mut(2)],
                valid: [read(3), read(4), read(5)],
                guards: [guard(0), guard(1), guard(2)],
            },
            PortMeta::Field { output: false } => PortRef::Field {
                dims,
                data: f32s(0),
            },
            PortMeta::Field { output: true } => PortRef::FieldMut {
                dims,
                data: f32s_mut(0),
                guard: guard(0),
            },
            PortMeta::Cells { output: false } => PortRef::Cells {
                dims,
                data: read(0),
            },
            PortMeta::Cells { output: true } => PortRef::CellsMut {
                dims,
                // SAFETY: as above.
                data: unsafe { exchange.slice_mut(s(0).offset, s(0).len) },
                guard: guard(0),
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
#[path = "ports_tests.rs"]
mod tests;

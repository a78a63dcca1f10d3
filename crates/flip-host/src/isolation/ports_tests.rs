//! The node layout: what the node writes lies in the exchange segment each array with its
//! guard, what it reads in the sealed inputs, nothing overlaps; ports travel there and back
//! unchanged, and a write past an output's end is found.

use super::super::segment::{Access, Segment};
use super::super::wire::{EvalMeta, PortMeta, WireContext};
use super::{child_ports, plan, port_meta, read_outputs, write_ports, GUARD};
use crate::node::PortRef;

fn context(dims: [u32; 3]) -> WireContext {
    WireContext {
        dims,
        dimension: 3,
        dx: 0.1,
        dt: 0.01,
        time: 0.0,
        step: 0,
        frame: 0,
    }
}

#[test]
fn written_arrays_lie_in_the_exchange_with_guards_and_nothing_overlaps() {
    let meta = EvalMeta {
        context: context([5, 4, 3]),
        ports: vec![
            PortMeta::Particles {
                count: 7,
                ids: true,
                output: true,
            },
            PortMeta::Velocity { output: false },
            PortMeta::Absent,
            PortMeta::Velocity { output: true },
            PortMeta::Field { output: true },
            PortMeta::Cells { output: false },
        ],
    };
    let plan = plan(&meta);
    let slots: Vec<_> = plan.ports.iter().flatten().copied().collect();
    // particles: position, velocity written, ids read; velocity: 3 + 3; field 1; cells 1
    assert_eq!(slots.len(), 3 + 6 + 6 + 1 + 1);
    assert!(!plan.ports[0][2].written, "ids are read only");
    assert!(
        plan.ports[3][3..].iter().all(|s| !s.written),
        "masks are read only"
    );
    assert!(plan.ports[3][..3].iter().all(|s| s.written));
    for written in [true, false] {
        let mut spans: Vec<(usize, usize)> = slots
            .iter()
            .filter(|s| s.written == written)
            .map(|s| (s.offset, s.offset + s.len + if written { GUARD } else { 0 }))
            .collect();
        spans.sort();
        let (start, end) = if written {
            (super::shm::HEADER, plan.exchange_len)
        } else {
            (0, plan.inputs_len)
        };
        assert!(spans[0].0 >= start && spans.last().unwrap().1 <= end);
        for pair in spans.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "{pair:?} overlap");
        }
    }
}

#[test]
fn ports_cross_unchanged_and_a_write_past_an_output_is_found() {
    let dims = [3usize, 2, 2];
    let cells: usize = dims.iter().product();
    let input: Vec<f32> = (0..cells).map(|i| i as f32 * 0.5).collect();
    let mut output: Vec<f32> = (0..cells).map(|i| -(i as f32)).collect();
    let mut no_guard = [0u8; 0];
    let mut ports = vec![
        PortRef::Field { dims, data: &input },
        PortRef::FieldMut {
            dims,
            data: &mut output,
            guard: &mut no_guard,
        },
    ];
    let meta = EvalMeta {
        context: context([3, 2, 2]),
        ports: ports.iter().map(port_meta).collect(),
    };
    let plan = plan(&meta);
    let inputs = Segment::create(plan.inputs_len, Access::ReadOnly).unwrap();
    let exchange = Segment::create(plan.exchange_len, Access::Shared).unwrap();
    // SAFETY: fresh segments of the plan's sizes, used by this test alone.
    unsafe { write_ports(&inputs, &exchange, &plan, &ports) };
    {
        // SAFETY: as above; the views are dropped before the host reads the outputs.
        let mut child = unsafe { child_ports(&inputs, &exchange, &meta) }.unwrap();
        let [PortRef::Field { data: seen, .. }, PortRef::FieldMut { data: out, .. }] =
            &mut child[..]
        else {
            panic!("the ports' kinds changed: {child:?}");
        };
        assert_eq!(*seen, &input[..]);
        for (o, i) in out.iter_mut().zip(seen.iter()) {
            *o += 2.0 * i;
        }
    }
    // SAFETY: as above.
    assert_eq!(
        unsafe { read_outputs(&exchange, &plan, &mut ports) },
        Ok(())
    );
    drop(ports);
    let expected: Vec<f32> = (0..cells).map(|i| -(i as f32) + i as f32).collect();
    assert_eq!(output, expected);

    let mut ports = vec![
        PortRef::Field { dims, data: &input },
        PortRef::FieldMut {
            dims,
            data: &mut output,
            guard: &mut no_guard,
        },
    ];
    // SAFETY: as above.
    unsafe { write_ports(&inputs, &exchange, &plan, &ports) };
    let end = plan.ports[1][0].offset + plan.ports[1][0].len;
    // SAFETY: the first guard byte after the output, in the exchange segment.
    unsafe { exchange.slice_mut::<u8>(end, 1)[0] = 0 };
    // SAFETY: as above.
    assert_eq!(
        unsafe { read_outputs(&exchange, &plan, &mut ports) },
        Err(1)
    );
}

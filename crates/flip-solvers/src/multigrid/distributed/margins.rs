//! The matrix of a divided coarse level on the layers beside a rank's own ones: each rank
//! builds only its own layers of the level, then takes [`MARGIN`] layers on each side from the
//! neighbours (their own layers), which is what completing this level and coarsening the next
//! one read there. The natural arrays travel packed (whole padded layers, one array at a time)
//! in the distributed suite's halo exchange of `MARGIN` fine layers.

use super::super::level::Level;
use super::setup::LOAD_MARGIN;
use super::slab::layer_rows;
use flip_abi::SlabLayout;
use flip_sdk::{Distributed, SolveError};
use std::ops::Range;

/// Layers taken from each neighbour: as many as the coarsening of the next level reads beyond
/// its children (the same margin level 0's slab carries).
pub(super) const MARGIN: usize = LOAD_MARGIN;

/// One natural array of a level, as f64 values.
trait NaturalArray {
    fn get(level: &Level, c: usize) -> f64;
    fn set(level: &mut Level, c: usize, v: f64);
}

macro_rules! natural {
    ($name:ident, |$l:ident, $c:ident| $get:expr, |$m:ident, $d:ident, $v:ident| $set:expr) => {
        struct $name;
        impl NaturalArray for $name {
            fn get($l: &Level, $c: usize) -> f64 {
                $get
            }
            fn set($m: &mut Level, $d: usize, $v: f64) {
                $set
            }
        }
    };
}

natural!(Kind, |l, c| f64::from(l.kind[c]), |l, c, v| l.kind[c] =
    v as u8);
natural!(Diag, |l, c| f64::from(l.diag[c]), |l, c, v| l.diag[c] =
    v as f32);
natural!(Excess, |l, c| f64::from(l.excess[c]), |l, c, v| l.excess
    [c] =
    v as f32);
natural!(Weight, |l, c| f64::from(l.dweight[c]), |l, c, v| l
    .dweight[c] =
    v as f32);
natural!(OffX, |l, c| f64::from(l.off[c][0]), |l, c, v| l.off[c][0] =
    v as f32);
natural!(OffY, |l, c| f64::from(l.off[c][1]), |l, c, v| l.off[c][1] =
    v as f32);
natural!(OffZ, |l, c| f64::from(l.off[c][2]), |l, c, v| l.off[c][2] =
    v as f32);

/// The halo exchange's scratch field and where this rank's margins sit in it.
struct Slots {
    /// Cells of `MARGIN` fine layers (the room for one side's packed layers).
    len: usize,
    /// Starts of the regions sent down and up, and received from below and above.
    send: [usize; 2],
    recv: [usize; 2],
    /// Whether there is a neighbour below, above.
    sides: [bool; 2],
}

impl Slots {
    fn of(l: &SlabLayout) -> Self {
        let layer = l.layer_len();
        let (lo, owned) = (l.ghost_lo as usize, l.owned as usize);
        Self {
            len: MARGIN * layer,
            send: [lo * layer, (lo + owned - MARGIN) * layer],
            recv: [(lo - MARGIN.min(lo)) * layer, (lo + owned) * layer],
            sides: [l.ghost_lo > 0, l.ghost_hi > 0],
        }
    }
}

/// Replaces `level`'s matrix on the [`MARGIN`] layers beside `own` (this rank's layers of it)
/// by the neighbours' own layers there. Collective; `field` is scratch.
///
/// # Errors
/// A failed halo exchange; [`SolveError::BadValue`] when the slab is too thin for the margin.
pub(super) fn exchange_margins(
    level: &mut Level,
    own: &Range<usize>,
    l: &SlabLayout,
    d: &Distributed,
    field: &mut Vec<f64>,
) -> Result<(), SolveError> {
    let pi = level.pdims[0];
    let cells = |layers: Range<usize>| {
        let rows = layer_rows(level, &layers);
        rows.start * pi..rows.end * pi
    };
    let n = level.dims[l.axis as usize];
    let sent = [
        cells(own.start..own.start + MARGIN),
        cells(own.end - MARGIN..own.end),
    ];
    let got = [
        cells(own.start.saturating_sub(MARGIN)..own.start),
        cells(own.end..(own.end + MARGIN).min(n)),
    ];
    let slots = Slots::of(l);
    // The same on every rank (the layouts share their ghost width and the level its layer).
    let held = |g: u32| g == 0 || g as usize >= MARGIN;
    let fits = own.len() >= MARGIN
        && (l.owned as usize) >= MARGIN
        && sent[0].len() <= slots.len
        && held(l.ghost_lo)
        && held(l.ghost_hi);
    if !fits {
        return Err(SolveError::BadValue(
            "a divided level's slab is thinner than its margin".into(),
        ));
    }
    field.resize(l.local_dims().iter().product(), 0.0);
    let m = Margins { sent, got, slots };
    m.exchange::<Kind>(level, field, d)?;
    m.exchange::<Diag>(level, field, d)?;
    m.exchange::<Excess>(level, field, d)?;
    m.exchange::<Weight>(level, field, d)?;
    m.exchange::<OffX>(level, field, d)?;
    m.exchange::<OffY>(level, field, d)?;
    m.exchange::<OffZ>(level, field, d)
}

/// The cells of a level a rank sends (its own layers nearest each neighbour) and receives
/// (the margins), below and above, and their places in the exchanged field.
struct Margins {
    sent: [Range<usize>; 2],
    got: [Range<usize>; 2],
    slots: Slots,
}

impl Margins {
    /// Array `A`'s margins from the neighbours: packed, exchanged, unpacked.
    fn exchange<A: NaturalArray>(
        &self,
        level: &mut Level,
        field: &mut [f64],
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let slots = &self.slots;
        for side in (0..2).filter(|&s| slots.sides[s]) {
            let at = slots.send[side];
            for (k, c) in self.sent[side].clone().enumerate() {
                field[at + k] = A::get(level, c);
            }
        }
        d.halo_exchange(field, MARGIN as u32)?;
        for side in (0..2).filter(|&s| slots.sides[s]) {
            // The neighbour sent its MARGIN layers nearest us, in order (it owns at least
            // MARGIN layers, so the domain's end never cuts them).
            let at = slots.recv[side];
            for (k, c) in self.got[side].clone().enumerate() {
                A::set(level, c, field[at + k]);
            }
        }
        Ok(())
    }
}

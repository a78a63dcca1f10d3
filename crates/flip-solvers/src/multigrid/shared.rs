//! Hierarchies shared by the solver instances of one process.
//!
//! Two solves of one simulation step often have the same matrix: the volume correction solves
//! the pressure solve's Poisson operator with another right-hand side. Building the hierarchy
//! is most of a multigrid solve that needs few iterations, so an instance whose fine matrix is
//! the one another instance's hierarchy was built (or is being built) for solves on that
//! hierarchy instead of building its own.
//!
//! Agreement is verified, not assumed: a fingerprint of the problem's matrix and face fractions
//! only picks the candidate, and [`Hierarchy::update`] then compares every coefficient and every
//! face weight behind a surface term with the level it holds (a difference rebuilds it for the
//! problem at hand, exactly as without sharing). A solve on a
//! shared hierarchy is therefore bit-identical to one on the instance's own.
//!
//! All waiting happens in [`SharedHierarchy::prepare`], which reserves a hierarchy for the next
//! solve. The SDK calls it on the host's thread before the solve moves onto the plugin's pool:
//! a pool worker that waited for another solve could be the one that solve's parallel loops
//! need (a worker waiting in a loop may pick up the waiting solve). The solve itself never
//! waits: by the reservation, the hierarchy it locks is free. The build happens in `prepare`
//! too (on a pool worker, waiting for nobody), so that an instance that was waiting for it
//! solves first: in a simulation step that is the pressure solve, which the next nodes wait
//! for, while the volume correction, usually first to arrive, is needed only at advection.

use super::hierarchy::Hierarchy;
use super::{Coarsening, MultigridConfig};
use flip_sdk::Problem;
use rayon::prelude::*;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

/// The configuration a hierarchy is built from: instances agreeing on it can share one.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Shape {
    coarsening: Coarsening,
    coarsest_size: usize,
    bubble_levels: usize,
    n_sweep: usize,
    n_sweep_coarse: usize,
}

impl Shape {
    fn of(c: &MultigridConfig) -> Self {
        Self {
            coarsening: c.coarsening,
            coarsest_size: c.coarsest_size,
            bubble_levels: c.bubble_levels,
            n_sweep: c.n_sweep,
            n_sweep_coarse: c.n_sweep_coarse,
        }
    }
}

/// The fingerprint of the matrix a slot's hierarchy holds or is being built for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Held {
    Nothing,
    Building(u64),
    Built(u64),
}

#[derive(Clone, Copy, Debug)]
struct State {
    held: Held,
    /// Reserved for a solve (its owner's or a borrower's).
    in_use: bool,
    /// Instances waiting in [`SharedHierarchy::prepare`] for this slot.
    waiting: usize,
}

/// One instance's hierarchy, findable by the others.
struct Slot {
    shape: Shape,
    state: Mutex<State>,
    /// Signalled whenever `state` changes.
    changed: Condvar,
    hierarchy: Mutex<Hierarchy>,
}

impl Slot {
    /// Sets what the slot holds and whether it is reserved (waiters stay counted).
    fn set(&self, held: Held, in_use: bool) {
        let mut s = lock(&self.state);
        (s.held, s.in_use) = (held, in_use);
        drop(s);
        self.changed.notify_all();
    }
}

/// Every slot of the process that others may borrow.
static SLOTS: Mutex<Vec<Weak<Slot>>> = Mutex::new(Vec::new());

/// How long [`SharedHierarchy::prepare`] waits for other solves before it gives up sharing.
const PATIENCE: Duration = Duration::from_secs(120);

/// How long a builder gives the instances that waited for its build to take it.
const HANDOVER: Duration = Duration::from_millis(100);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A reservation for the next solve.
struct Reserved {
    slot: Arc<Slot>,
    key: u64,
}

/// A solver instance's hierarchy, shared with the process's other sharing instances when their
/// matrices agree.
pub(crate) struct SharedHierarchy {
    own: Arc<Slot>,
    /// Whether others may borrow `own` and this instance may borrow theirs.
    sharing: bool,
    reserved: Option<Reserved>,
    /// [`SharedHierarchy::prepare`] ran out of patience: the next solve uses `spare`.
    gave_up: bool,
    /// A hierarchy of this instance alone, used when waiting for the others took too long.
    spare: Option<Hierarchy>,
    config: MultigridConfig,
    /// Times a hierarchy was built for a new matrix of this instance's solves.
    builds: usize,
    /// Fingerprint of the last matrix solved (`None` on the spare hierarchy) and the depth of
    /// its hierarchy.
    last: Option<(Option<u64>, usize)>,
    /// Set by [`SharedHierarchy::prepare`] when it built this instance's own slot from the
    /// problem it was given: that problem's arrays and the slot's build count after the build.
    built_here: Option<(ProblemArrays, usize)>,
}

/// Where a problem's arrays that [`Hierarchy::update`] reads live: two views with equal
/// addresses and lengths are the same problem (the host leaves a problem untouched from
/// `prepare` until its `solve` returns).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct ProblemArrays {
    dims: [usize; 3],
    slices: [(usize, usize); 10],
}

impl ProblemArrays {
    fn of(p: &Problem<'_>) -> Self {
        fn at<T>(s: &[T]) -> (usize, usize) {
            (s.as_ptr() as usize, s.len())
        }
        let [o0, o1, o2] = p.off.map(at);
        let [f0, f1, f2] = p.face_open.map(at);
        Self {
            dims: p.dims,
            slices: [
                at(p.cell_kind),
                at(p.diag),
                o0,
                o1,
                o2,
                f0,
                f1,
                f2,
                at(p.liquid_phi),
                at(p.solid_phi),
            ],
        }
    }
}

impl SharedHierarchy {
    /// An empty hierarchy for `config`, shared when `sharing`.
    pub fn new(config: &MultigridConfig, sharing: bool) -> Self {
        let own = Arc::new(Slot {
            shape: Shape::of(config),
            state: Mutex::new(State {
                held: Held::Nothing,
                in_use: false,
                waiting: 0,
            }),
            changed: Condvar::new(),
            hierarchy: Mutex::new(Hierarchy::new(config)),
        });
        if sharing {
            let mut slots = lock(&SLOTS);
            slots.retain(|s| s.strong_count() > 0);
            slots.push(Arc::downgrade(&own));
        }
        Self {
            own,
            sharing,
            reserved: None,
            gave_up: false,
            spare: None,
            config: *config,
            builds: 0,
            last: None,
            built_here: None,
        }
    }

    /// How many times a hierarchy was built for a new matrix of this instance's solves.
    pub fn builds(&self) -> usize {
        self.builds
    }

    /// Levels of the hierarchy of the last solve (0 before the first).
    pub fn depth(&self) -> usize {
        self.last.map_or(0, |(_, depth)| depth)
    }

    /// Reserves a hierarchy for solving `p`: another instance's that holds this matrix (waiting
    /// while it is being built or used), else this instance's own (waiting while another
    /// instance uses it), which it then brings up to date; if others wait for that build, they
    /// solve on it first. Blocks: call it outside the plugin's pool (see the module
    /// documentation). Without sharing, does nothing.
    pub fn prepare(&mut self, p: &Problem<'_>) {
        self.release();
        self.gave_up = false;
        self.built_here = None;
        if !self.sharing {
            return;
        }
        let key = fingerprint(p);
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline && !flip_sdk::cancelled() {
            match self.try_reserve(key) {
                Ok((reserved, false)) => {
                    self.reserved = Some(reserved);
                    return;
                }
                Ok((reserved, true)) => {
                    let generation = build(&reserved, p);
                    self.built_here = Some((ProblemArrays::of(p), generation));
                    if !self.yield_to_waiters() {
                        self.reserved = Some(reserved);
                        return;
                    }
                }
                Err(busy) => wait(&busy, key),
            }
        }
        self.gave_up = true;
    }

    /// After a build of this instance's own slot: when others wait for it, frees it for them
    /// and returns once one of them has taken it (or after [`HANDOVER`]); `false` when none
    /// waited.
    fn yield_to_waiters(&self) -> bool {
        let mut s = lock(&self.own.state);
        if s.waiting == 0 {
            return false;
        }
        s.in_use = false;
        self.own.changed.notify_all();
        let _ = self
            .own
            .changed
            .wait_timeout_while(s, HANDOVER, |s| !s.in_use)
            .unwrap_or_else(PoisonError::into_inner);
        true
    }

    /// Reserves the slot for `key`, saying whether it still has to be built for it, or returns
    /// the slot to wait for.
    fn try_reserve(&self, key: u64) -> Result<(Reserved, bool), Arc<Slot>> {
        let slots = lock(&SLOTS);
        let mut wait_for = None;
        for other in slots.iter().filter_map(Weak::upgrade) {
            if Arc::ptr_eq(&other, &self.own) || other.shape != self.own.shape {
                continue;
            }
            let mut s = lock(&other.state);
            match s.held {
                Held::Built(k) if k == key && !s.in_use => {
                    s.in_use = true;
                    drop(s);
                    return Ok((Reserved { slot: other, key }, false));
                }
                Held::Built(k) | Held::Building(k) if k == key => {
                    drop(s);
                    wait_for = Some(other);
                }
                _ => {}
            }
        }
        if let Some(other) = wait_for {
            return Err(other);
        }
        let mut s = lock(&self.own.state);
        if s.in_use {
            drop(s);
            return Err(self.own.clone());
        }
        let stale = s.held != Held::Built(key);
        if stale {
            s.held = Held::Building(key);
        }
        s.in_use = true;
        let slot = self.own.clone();
        Ok((Reserved { slot, key }, stale))
    }

    /// Gives back a reservation that was not used.
    fn release(&mut self) {
        if let Some(r) = self.reserved.take() {
            let held = lock(&r.slot.state).held;
            let held = if held == Held::Building(r.key) {
                Held::Nothing
            } else {
                held
            };
            r.slot.set(held, false);
        }
    }

    /// Runs `solve` on a hierarchy brought up to date with `p`'s matrix: the one reserved by
    /// [`SharedHierarchy::prepare`] (called here when it was not, which may block), or this
    /// instance's own when sharing is off or waiting took too long.
    pub fn solve_with<'p, R>(
        &mut self,
        p: &mut Problem<'p>,
        solve: impl FnOnce(&mut Hierarchy, &mut Problem<'p>) -> R,
    ) -> R {
        if self.reserved.is_none() && !std::mem::take(&mut self.gave_up) {
            self.prepare(p);
        }
        self.gave_up = false;
        let Some(r) = self.reserved.take() else {
            let config = &self.config;
            let h = self.spare.get_or_insert_with(|| Hierarchy::new(config));
            if h.update(p) {
                self.builds += 1;
            }
            self.last = Some((None, h.depth()));
            return solve(h, p);
        };
        let mut guard = Release {
            slot: &r.slot,
            held: Held::Nothing,
        };
        let mut h = lock(&r.slot.hierarchy);
        // Verifies every coefficient and rebuilds on any difference, unless `prepare` built
        // this very slot from this very problem and nobody has rebuilt it since (a borrower
        // that found another matrix would have): then it holds exactly that matrix.
        let built_here = std::mem::take(&mut self.built_here);
        let unchanged = built_here.is_some_and(|(arrays, generation)| {
            Arc::ptr_eq(&r.slot, &self.own)
                && h.build.built
                && h.build.rebuilds == generation
                && arrays == ProblemArrays::of(p)
        });
        let rebuilt = !unchanged && h.update(p);
        guard.held = Held::Built(r.key);
        if rebuilt || self.last.map(|(k, _)| k) != Some(Some(r.key)) {
            self.builds += 1;
        }
        self.last = Some((Some(r.key), h.depth()));
        solve(&mut h, p)
    }

    /// Forgets what was built: the next solve builds again.
    pub fn reset(&mut self) {
        self.release();
        lock(&self.own.hierarchy).build.built = false;
        let in_use = lock(&self.own.state).in_use;
        self.own.set(Held::Nothing, in_use);
        self.spare = None;
        self.last = None;
        self.built_here = None;
    }
}

impl Drop for SharedHierarchy {
    fn drop(&mut self) {
        self.release();
    }
}

/// Ends a reserved solve: the slot holds `held` (left `Nothing` when the update panicked) and
/// is free again.
struct Release<'a> {
    slot: &'a Slot,
    held: Held,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.slot.set(self.held, false);
    }
}

/// Brings the reserved slot's hierarchy up to date with `p` on a worker of the pool (its
/// parallel loops then start inside the pool) and marks it built for the reservation's key;
/// returns the hierarchy's build count afterwards. A panic leaves the slot empty and free, so
/// that nobody waits for it.
fn build(r: &Reserved, p: &Problem<'_>) -> usize {
    let mut guard = Release {
        slot: &r.slot,
        held: Held::Nothing,
    };
    let generation = {
        let mut h = lock(&r.slot.hierarchy);
        let h: &mut Hierarchy = &mut h;
        rayon::scope(|_| h.update(p));
        h.build.rebuilds
    };
    guard.held = Held::Built(r.key);
    let mut s = lock(&r.slot.state);
    s.held = guard.held;
    drop(s);
    std::mem::forget(guard); // still reserved
    r.slot.changed.notify_all();
    generation
}

/// Waits (at most a second, for cancellation and the deadline) while `busy` is in use or
/// being built for `key`, counted among its waiters.
fn wait(busy: &Slot, key: u64) {
    let mut s = lock(&busy.state);
    let still = |s: &State| s.in_use || s.held == Held::Building(key);
    if !still(&s) {
        return;
    }
    s.waiting += 1;
    let (mut s, _) = busy
        .changed
        .wait_timeout_while(s, Duration::from_secs(1), |s| still(s))
        .unwrap_or_else(PoisonError::into_inner);
    s.waiting -= 1;
    drop(s);
    busy.changed.notify_all();
}

/// A fingerprint of everything [`Hierarchy::update`] reads from `p`: cell kinds, diagonal,
/// couplings and face fractions (which the coarse levels read behind the surface terms).
fn fingerprint(p: &Problem<'_>) -> u64 {
    const CHUNK: usize = 1 << 14;
    let n = p.cell_count();
    let arrays: Vec<&[f32]> = [p.diag]
        .into_iter()
        .chain(p.off)
        .chain(p.face_open)
        .collect();
    let chunk_hash = |c: usize| {
        let range = c * CHUNK..((c + 1) * CHUNK).min(n);
        let mut h = Lanes::new(c as u64);
        h.add_bytes(&p.cell_kind[range.clone()]);
        arrays.iter().for_each(|a| h.add_floats(&a[range.clone()]));
        h.finish()
    };
    let chunks: Vec<u64> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(chunk_hash)
        .collect();
    let mut h = Mix::new(n as u64);
    p.dims.iter().for_each(|&d| h.add(d as u64));
    chunks.into_iter().for_each(|c| h.add(c));
    h.0
}

/// A small multiply-rotate hash (not for adversaries: a collision only costs a rebuild).
struct Mix(u64);

impl Mix {
    fn new(seed: u64) -> Self {
        Self(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    #[inline(always)]
    fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// Four [`Mix`]es taking words in turn: four independent chains of multiplies instead of one.
struct Lanes([Mix; 4]);

impl Lanes {
    fn new(seed: u64) -> Self {
        Self([0, 1, 2, 3].map(|l| Mix::new(seed.wrapping_mul(4) + l)))
    }
    fn add_bytes(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(32);
        for w in &mut words {
            for (l, lane) in self.0.iter_mut().enumerate() {
                let word: [u8; 8] = w[8 * l..8 * l + 8].try_into().expect("8 bytes");
                lane.add(u64::from_le_bytes(word));
            }
        }
        words
            .remainder()
            .iter()
            .for_each(|&b| self.0[0].add(b.into()));
    }
    fn add_floats(&mut self, floats: &[f32]) {
        let mut words = floats.chunks_exact(8);
        for w in &mut words {
            for (l, lane) in self.0.iter_mut().enumerate() {
                lane.add(u64::from(w[2 * l].to_bits()) << 32 | u64::from(w[2 * l + 1].to_bits()));
            }
        }
        let rest = words.remainder();
        rest.iter().for_each(|x| self.0[0].add(x.to_bits().into()));
    }
    fn finish(self) -> u64 {
        let mut h = Mix::new(0);
        self.0.iter().for_each(|l| h.add(l.0));
        h.0
    }
}

#[cfg(test)]
impl SharedHierarchy {
    /// Whether this instance's own hierarchy holds built levels.
    pub fn own_built(&self) -> bool {
        lock(&self.own.hierarchy).build.built
    }
}

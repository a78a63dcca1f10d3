//! A [`Communicator`] over threads of one process: "ranks" that are threads sharing a hub.
//! Tests and the in-process checks of the decomposed run use it where MPI is not built; it
//! keeps MPI's semantics (collectives in the same order on every rank, paired exchanges).
//! A rank that waits longer than [`STALL`] for the others panics with what every rank was
//! doing, so ranks that disagree on their calls fail with a diagnosis instead of hanging.

use crate::Communicator;
use bytemuck::{cast_slice, cast_slice_mut};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long a rank waits for the others before it reports a stall.
pub const STALL: Duration = Duration::from_secs(240);

/// Messages in flight by (from, to), oldest first.
type Mailboxes = HashMap<(u32, u32), VecDeque<Vec<u8>>>;

/// What the thread ranks of one group share.
struct Hub {
    /// Barrier rounds: (generation, ranks arrived in it).
    round: Mutex<(u64, u32)>,
    arrived: Condvar,
    slots: Mutex<Vec<Vec<u8>>>,
    mail: Mutex<Mailboxes>,
    posted: Condvar,
    /// The call each rank is in (for the stall report).
    doing: Mutex<Vec<String>>,
    stall: Duration,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One thread's rank of a group made by [`ThreadComm::group`].
pub struct ThreadComm {
    rank: u32,
    ranks: u32,
    hub: Arc<Hub>,
}

impl ThreadComm {
    /// `ranks` communicators of one group, rank order; hand each to its own thread.
    pub fn group(ranks: u32) -> Vec<Arc<ThreadComm>> {
        Self::group_with_stall(ranks, STALL)
    }

    /// [`Self::group`] whose ranks report a stall after `stall` instead of [`STALL`].
    pub fn group_with_stall(ranks: u32, stall: Duration) -> Vec<Arc<ThreadComm>> {
        let hub = Arc::new(Hub {
            round: Mutex::new((0, 0)),
            arrived: Condvar::new(),
            slots: Mutex::new(vec![Vec::new(); ranks as usize]),
            mail: Mutex::default(),
            posted: Condvar::new(),
            doing: Mutex::new(vec![String::new(); ranks as usize]),
            stall,
        });
        (0..ranks)
            .map(|rank| {
                Arc::new(ThreadComm {
                    rank,
                    ranks,
                    hub: hub.clone(),
                })
            })
            .collect()
    }

    /// Records the call this rank is in.
    fn enter(&self, call: String) {
        lock(&self.hub.doing)[self.rank as usize] = call;
    }

    /// Waits until every rank reached this barrier round.
    fn barrier(&self) {
        let hub = &*self.hub;
        let mut round = lock(&hub.round);
        let generation = round.0;
        round.1 += 1;
        if round.1 == self.ranks {
            *round = (generation + 1, 0);
            hub.arrived.notify_all();
            return;
        }
        let start = Instant::now();
        while round.0 == generation {
            round = self.wait(&hub.arrived, round, start);
        }
    }

    /// One wait on `cv`; panics with every rank's call once the rank waited its stall time.
    fn wait<'g, T>(
        &self,
        cv: &Condvar,
        guard: MutexGuard<'g, T>,
        start: Instant,
    ) -> MutexGuard<'g, T> {
        let stall = self.hub.stall;
        let left = stall.saturating_sub(start.elapsed());
        if left.is_zero() {
            let doing = lock(&self.hub.doing).clone();
            panic!(
                "thread rank {} waited {stall:?} for the other ranks; their calls: {doing:?}",
                self.rank
            );
        }
        cv.wait_timeout(guard, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }

    fn fold(&self, values: &mut [f64], f: fn(f64, f64) -> f64) {
        let n = values.len();
        let mut all = vec![0.0; n * self.ranks as usize];
        let bytes = vec![size_of_val(values); self.ranks as usize];
        self.gather_everywhere(cast_slice(values), cast_slice_mut(&mut all), &bytes);
        for (i, v) in values.iter_mut().enumerate() {
            *v = (1..self.ranks as usize).fold(all[i], |acc, r| f(acc, all[r * n + i]));
        }
    }
}

impl Communicator for ThreadComm {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn sum(&self, values: &mut [f64]) {
        self.enter(format!("sum of {}", values.len()));
        self.fold(values, |a, b| a + b);
    }
    fn max(&self, values: &mut [f64]) {
        self.enter(format!("max of {}", values.len()));
        self.fold(values, f64::max);
    }
    fn exchange_bytes(&self, peer: u32, send: &[u8], recv: &mut [u8]) {
        self.enter(format!("exchange of {} bytes with rank {peer}", send.len()));
        let start = Instant::now();
        let mut mail = lock(&self.hub.mail);
        mail.entry((self.rank, peer))
            .or_default()
            .push_back(send.to_vec());
        self.hub.posted.notify_all();
        loop {
            if let Some(v) = mail
                .get_mut(&(peer, self.rank))
                .and_then(VecDeque::pop_front)
            {
                recv.copy_from_slice(&v);
                return;
            }
            mail = self.wait(&self.hub.posted, mail, start);
        }
    }
    fn all_gather_bytes(&self, send: &[u8], recv: &mut [u8], counts: &[usize]) {
        self.enter(format!("all_gather of {} bytes", send.len()));
        self.gather_everywhere(send, recv, counts);
    }
    fn gather_bytes(&self, root: u32, send: &[u8], recv: &mut [u8], counts: &[usize]) {
        self.enter(format!("gather of {} bytes to rank {root}", send.len()));
        self.slots()[self.rank as usize] = send.to_vec();
        self.barrier();
        if self.rank == root {
            concatenate(&self.slots(), recv, counts);
        }
        self.barrier();
    }
    fn scatter_bytes(&self, root: u32, send: &[u8], counts: &[usize], recv: &mut [u8]) {
        self.enter(format!("scatter of {} bytes from rank {root}", recv.len()));
        if self.rank == root {
            let mut slots = self.slots();
            let starts = super::displacements(counts);
            for ((slot, &at), &n) in slots.iter_mut().zip(&starts).zip(counts) {
                *slot = send[at..at + n].to_vec();
            }
        }
        self.barrier();
        recv.copy_from_slice(&self.slots()[self.rank as usize]);
        self.barrier();
    }
}

impl ThreadComm {
    /// `all_gather` without recording the call (the reductions record their own).
    fn gather_everywhere(&self, send: &[u8], recv: &mut [u8], counts: &[usize]) {
        self.slots()[self.rank as usize] = send.to_vec();
        self.barrier();
        let slots = self.slots().clone();
        self.barrier();
        concatenate(&slots, recv, counts);
    }

    fn slots(&self) -> MutexGuard<'_, Vec<Vec<u8>>> {
        lock(&self.hub.slots)
    }
}

/// The `parts` of `counts[r]` bytes each, in rank order, into `recv`.
fn concatenate(parts: &[Vec<u8>], recv: &mut [u8], counts: &[usize]) {
    let mut at = 0;
    for (part, &n) in parts.iter().zip(counts) {
        recv[at..at + n].copy_from_slice(part);
        at += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommExt;

    /// Ranks that disagree on their calls fail with what each was doing instead of hanging.
    #[test]
    fn disagreeing_ranks_report_a_stall() {
        let comms = ThreadComm::group_with_stall(2, Duration::from_millis(200));
        let report = std::thread::scope(|s| {
            let handles: Vec<_> = comms
                .into_iter()
                .map(|c| {
                    s.spawn(move || {
                        if c.rank() == 0 {
                            c.sum(&mut [1.0]);
                        } else {
                            c.exchange(0, &[1.0, 2.0], &mut [0.0; 2]);
                        }
                    })
                })
                .collect();
            let panics: Vec<String> = handles
                .into_iter()
                .filter_map(|h| h.join().err())
                .filter_map(|e| e.downcast::<String>().ok().map(|s| *s))
                .collect();
            panics
        });
        assert_eq!(report.len(), 2, "both ranks report: {report:?}");
        assert!(
            report[0].contains("sum of 1")
                && report[0].contains("exchange of 16 bytes with rank 0"),
            "{}",
            report[0]
        );
    }

    /// Collectives in step agree, round after round.
    #[test]
    fn agreeing_ranks_sum_and_gather() {
        let comms = ThreadComm::group(3);
        std::thread::scope(|s| {
            for c in comms {
                s.spawn(move || {
                    for round in 0..50 {
                        let mut v = [f64::from(c.rank() + round)];
                        c.sum(&mut v);
                        assert_eq!(v[0], f64::from(3 * round + 3));
                        let mut all = [0.0; 3];
                        c.all_gather(&[f64::from(c.rank())], &mut all, &[1, 1, 1]);
                        assert_eq!(all, [0.0, 1.0, 2.0]);
                    }
                });
            }
        });
    }

    /// Ids travel as integers: `u64` values above 2^53, which f64 cannot hold, arrive exactly
    /// through every typed call.
    #[test]
    fn ids_beyond_f64_precision_arrive_exactly() {
        const BIG: u64 = (1 << 53) + 1;
        let comms = ThreadComm::group(2);
        std::thread::scope(|s| {
            for c in comms {
                s.spawn(move || {
                    let (rank, peer) = (u64::from(c.rank()), 1 - c.rank());
                    let mine = [BIG + rank, u64::MAX - rank, (1 << 63) | (BIG + 2 * rank)];
                    let theirs = [
                        BIG + 1 - rank,
                        u64::MAX - 1 + rank,
                        (1 << 63) | (BIG + 2 - 2 * rank),
                    ];
                    let mut got = [0u64; 3];
                    c.exchange(peer, &mine, &mut got);
                    assert_eq!(got, theirs);
                    assert_eq!(
                        c.exchange_any(peer, &mine[..=c.rank() as usize]),
                        theirs[..=peer as usize]
                    );
                    assert_eq!(c.all_gather_one(mine[0]), [BIG, BIG + 1]);
                    let mut all = [0u64; 4];
                    let counts = [2, 2];
                    c.gather(1, &mine[..2], &mut all, &counts);
                    if rank == 1 {
                        assert_eq!(all, [BIG, u64::MAX, BIG + 1, u64::MAX - 1]);
                    }
                    let mut back = [0u64; 2];
                    c.scatter(1, &all, &counts, &mut back);
                    assert_eq!(back, mine[..2]);
                });
            }
        });
    }
}

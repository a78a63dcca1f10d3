//! A [`Communicator`] over threads of one process: "ranks" that are threads sharing a hub.
//! Tests and the in-process checks of the decomposed run use it where MPI is not built; it
//! keeps MPI's semantics (collectives in the same order on every rank, paired exchanges).

use crate::Communicator;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Barrier, Condvar, Mutex, PoisonError};

/// Messages in flight by (from, to), oldest first.
type Mailboxes = HashMap<(u32, u32), VecDeque<Vec<f64>>>;

/// What the thread ranks of one group share.
struct Hub {
    barrier: Barrier,
    slots: Mutex<Vec<Vec<f64>>>,
    mail: Mutex<Mailboxes>,
    posted: Condvar,
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
        let hub = Arc::new(Hub {
            barrier: Barrier::new(ranks as usize),
            slots: Mutex::new(vec![Vec::new(); ranks as usize]),
            mail: Mutex::default(),
            posted: Condvar::new(),
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

    fn fold(&self, values: &mut [f64], f: fn(f64, f64) -> f64) {
        let n = values.len();
        let mut all = vec![0.0; n * self.ranks as usize];
        self.all_gather(values, &mut all, &vec![n; self.ranks as usize]);
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
        self.fold(values, |a, b| a + b);
    }
    fn max(&self, values: &mut [f64]) {
        self.fold(values, f64::max);
    }
    fn exchange(&self, peer: u32, send: &[f64], recv: &mut [f64]) {
        let mut mail = self.hub.mail.lock().unwrap_or_else(PoisonError::into_inner);
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
            mail = self
                .hub
                .posted
                .wait(mail)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
    fn all_gather(&self, send: &[f64], recv: &mut [f64], counts: &[usize]) {
        self.slots()[self.rank as usize] = send.to_vec();
        self.hub.barrier.wait();
        let slots = self.slots().clone();
        self.hub.barrier.wait();
        concatenate(&slots, recv, counts);
    }
    fn gather(&self, root: u32, send: &[f64], recv: &mut [f64], counts: &[usize]) {
        self.slots()[self.rank as usize] = send.to_vec();
        self.hub.barrier.wait();
        if self.rank == root {
            concatenate(&self.slots(), recv, counts);
        }
        self.hub.barrier.wait();
    }
    fn scatter(&self, root: u32, send: &[f64], counts: &[usize], recv: &mut [f64]) {
        if self.rank == root {
            let mut slots = self.slots();
            let starts = super::displacements(counts);
            for ((slot, &at), &n) in slots.iter_mut().zip(&starts).zip(counts) {
                *slot = send[at..at + n].to_vec();
            }
        }
        self.hub.barrier.wait();
        recv.copy_from_slice(&self.slots()[self.rank as usize]);
        self.hub.barrier.wait();
    }
}

impl ThreadComm {
    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Vec<f64>>> {
        self.hub
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The `parts` of `counts[r]` values each, in rank order, into `recv`.
fn concatenate(parts: &[Vec<f64>], recv: &mut [f64], counts: &[usize]) {
    let mut at = 0;
    for (part, &n) in parts.iter().zip(counts) {
        recv[at..at + n].copy_from_slice(part);
        at += n;
    }
}

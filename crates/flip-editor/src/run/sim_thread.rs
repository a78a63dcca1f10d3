//! A simulation thread behind two channels: the UI sends commands, the thread reports events
//! and wakes the UI after each. While playing, the thread simulates a frame whenever no command
//! is waiting. The run mode's and the compare mode's threads are such loops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;

/// What a simulation thread does with commands and while playing.
pub(crate) trait SimLoop: Send + 'static {
    /// The UI's requests.
    type Command: Send + 'static;
    /// Handles one request.
    fn handle(&mut self, cmd: Self::Command);
    /// Simulates the next frame (called while [`SimLoop::playing`]).
    fn frame(&mut self);
    /// Whether frames should be simulated without being asked.
    fn playing(&self) -> bool;
}

/// Sends events to the UI and wakes it.
pub(crate) struct Emitter<E> {
    tx: Sender<E>,
    wake: Box<dyn Fn() + Send>,
}

impl<E> Emitter<E> {
    pub(crate) fn new(tx: Sender<E>, wake: Box<dyn Fn() + Send>) -> Self {
        Self { tx, wake }
    }
    /// Sends `e` (ignored once the UI is gone) and wakes the UI.
    pub(crate) fn emit(&self, e: E) {
        let _ = self.tx.send(e);
        (self.wake)();
    }
}

/// The UI's handle on a simulation thread: commands `C` in, events `E` out.
pub struct SimThread<C, E> {
    tx: Sender<C>,
    /// Events from the thread.
    pub rx: Receiver<E>,
    handle: Option<JoinHandle<()>>,
    /// Stops the frame in progress (its pressure solves poll it through the plugin cancel
    /// service); the loop clears it when it handles the next command.
    stop: Arc<AtomicBool>,
}

impl<C: Send + 'static, E: Send + 'static> SimThread<C, E> {
    /// Starts a thread named `name` running the loop `make` builds from the event sender and
    /// the stop flag.
    pub(crate) fn start<L: SimLoop<Command = C>>(
        name: &str,
        make: impl FnOnce(Sender<E>, Arc<AtomicBool>) -> L + Send + 'static,
    ) -> Self {
        let (tx, crx) = channel();
        let (etx, rx) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                crate::run::priority::lower_this_thread();
                crate::run::priority::lower_global_pool();
                run(&mut make(etx, flag), &crx)
            })
            .expect("the simulation thread starts");
        Self {
            tx,
            rx,
            handle: Some(handle),
            stop,
        }
    }

    /// Abandons the frame in progress (before a Reset, Load or Quit that discards it anyway):
    /// a long pressure solve stops at its next cancel poll.
    pub fn interrupt(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Sends a command (ignored if the thread is gone).
    pub fn send(&self, cmd: C) {
        let _ = self.tx.send(cmd);
    }
}

impl<C, E> Drop for SimThread<C, E> {
    fn drop(&mut self) {
        // Closing the channel ends the thread after its current frame, which is cut short.
        self.stop.store(true, Ordering::SeqCst);
        let (tx, _) = channel();
        drop(std::mem::replace(&mut self.tx, tx));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn run<L: SimLoop>(sim: &mut L, rx: &Receiver<L::Command>) {
    loop {
        let cmd = if sim.playing() {
            match rx.try_recv() {
                Ok(c) => Some(c),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => return,
            }
        } else {
            match rx.recv() {
                Ok(c) => Some(c),
                Err(_) => return,
            }
        };
        match cmd {
            Some(c) => sim.handle(c),
            None => sim.frame(),
        }
    }
}

//! One substep as a dataflow: a node starts as soon as every node it reads from has finished,
//! not at the barrier of its dependency level, so independent branches (the volume correction
//! beside extrapolation and the pressure solve, marker beside P2G) overlap and fill each
//! other's serial stretches. Values move along edges as before: the last reader of a value
//! takes it, earlier readers share it.
//!
//! What a substep reports does not depend on the schedule: statistics, files and events are
//! gathered in level order afterwards, and the failure reported is the first failing node of
//! the lowest failing level (every node of that level or below still runs; later ones may not).

use super::{Simulation, StepReport};
use crate::compile::ExecPlan;
use crate::error::RunError;
use crate::levels::neighbours;
use crate::node::{EvalCtx, Node, NodeError, NodeIo};
use crate::value::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The plan's dependency structure, computed once per simulation.
#[derive(Debug)]
pub(crate) struct Dataflow {
    /// Distinct producer nodes of every node.
    preds: Vec<Vec<usize>>,
    /// Distinct consumer nodes of every node.
    succs: Vec<Vec<usize>>,
    /// Dependency level of every node.
    level_of: Vec<usize>,
    /// The levels, each sorted by node index (reporting order).
    levels: Vec<Vec<usize>>,
}

impl Dataflow {
    pub(crate) fn new(plan: &ExecPlan) -> Self {
        let (preds, succs) = neighbours(plan.nodes.iter().map(|p| &p.sources[..]));
        let mut level_of = vec![usize::MAX; plan.nodes.len()];
        for (l, level) in plan.levels.iter().enumerate() {
            level.iter().for_each(|&i| level_of[i] = l);
        }
        Self {
            preds,
            succs,
            level_of,
            levels: plan.levels.clone(),
        }
    }

    /// Longest chain of node times through the graph (the substep's lower bound on any number
    /// of cores).
    pub(crate) fn critical_path(&self, times: &[Duration]) -> Duration {
        let mut finish = vec![Duration::ZERO; times.len()];
        for &i in self.levels.iter().flatten() {
            let start = self.preds[i].iter().map(|&p| finish[p]).max();
            finish[i] = start.unwrap_or_default() + times[i];
        }
        finish.into_iter().max().unwrap_or_default()
    }
}

/// What a finished node left behind for the report.
struct Finished {
    io: NodeIo,
    elapsed: Duration,
    result: Result<(), NodeError>,
    /// The probed outputs (probe index, value), taken at the end of a frame.
    probed: Vec<(usize, Option<Value>)>,
}

/// Bookkeeping shared by the running nodes.
struct Board<'n> {
    nodes: Vec<Option<&'n mut Box<dyn Node>>>,
    slots: Vec<Vec<Option<Value>>>,
    left: Vec<Vec<usize>>,
    waiting: Vec<usize>,
    done: Vec<Option<Finished>>,
    /// No node of a later level starts (the lowest level with a failure).
    stop_after: usize,
}

/// What every task reads.
struct Env<'a> {
    plan: &'a ExecPlan,
    flow: &'a Dataflow,
    ctx: &'a EvalCtx,
    probes: &'a [(usize, usize)],
    board: Mutex<Board<'a>>,
}

type Ready<'n> = (usize, &'n mut Box<dyn Node>, NodeIo);

impl<'a> Env<'a> {
    fn board(&self) -> std::sync::MutexGuard<'_, Board<'a>> {
        self.board.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Node `i`'s inputs, each taken by its last reader and shared before.
    fn inputs_of(&self, b: &mut Board<'a>, i: usize) -> NodeIo {
        let p = &self.plan.nodes[i];
        let inputs = p
            .spec
            .inputs
            .iter()
            .zip(&p.sources)
            .map(|(port, src)| {
                let v = src.and_then(|(m, o)| {
                    b.left[m][o] -= 1;
                    if b.left[m][o] == 0 {
                        b.slots[m][o].take()
                    } else {
                        b.slots[m][o].clone()
                    }
                });
                (port.name.clone(), v)
            })
            .collect();
        let outs: Vec<String> = p.spec.outputs.iter().map(|o| o.name.clone()).collect();
        let mut io = NodeIo::new(inputs, &outs);
        if Some(i) != self.plan.step_output && Some(i) != self.plan.step_input {
            let probed = |o: usize| self.probes.contains(&(i, o));
            io.unread = (0..outs.len())
                .map(|o| b.left[i][o] == 0 && !probed(o))
                .collect();
        }
        io
    }

    /// Takes node `i` and its inputs for a run, unless its level is past a failure.
    fn claim(&self, b: &mut Board<'a>, i: usize) -> Option<Ready<'a>> {
        if self.flow.level_of[i] > b.stop_after {
            return None;
        }
        let node = b.nodes[i].take()?;
        let io = self.inputs_of(b, i);
        Some((i, node, io))
    }

    /// Records node `i`'s outcome; returns the nodes it made ready, claimed.
    fn finish(
        &self,
        i: usize,
        mut io: NodeIo,
        elapsed: Duration,
        result: Result<(), NodeError>,
    ) -> Vec<Ready<'a>> {
        if Some(i) != self.plan.step_output {
            // inputs the node left untaken are dropped now: held to the end of the substep,
            // they would make a later reader's in-place edit copy its value
            io.inputs.clear();
        }
        let mut b = self.board();
        let ok = result.is_ok();
        let mut probed = Vec::new();
        if !ok {
            b.stop_after = b.stop_after.min(self.flow.level_of[i]);
        } else {
            if self.ctx.frame_end {
                let mine = self.probes.iter().enumerate().filter(|(_, p)| p.0 == i);
                probed.extend(mine.map(|(k, &(_, po))| (k, io.outputs[po].clone())));
            }
            if Some(i) != self.plan.step_output && Some(i) != self.plan.step_input {
                // an output nobody reads is dropped now: held, it would make the next
                // in-place edit of a shared value (particles) copy it
                let mut outputs = std::mem::take(&mut io.outputs);
                let unread = outputs.iter_mut().zip(&b.left[i]).filter(|(_, &n)| n == 0);
                unread.for_each(|(v, _)| *v = None);
                b.slots[i] = outputs;
            }
        }
        b.done[i] = Some(Finished {
            io,
            elapsed,
            result,
            probed,
        });
        let mut ready = Vec::new();
        if ok {
            for &s in &self.flow.succs[i] {
                b.waiting[s] -= 1;
                if b.waiting[s] == 0 {
                    ready.extend(self.claim(&mut b, s));
                }
            }
        }
        ready
    }
}

/// Runs node `i` on the pool, then starts the nodes it made ready.
fn spawn<'s, 'a: 's>(s: &rayon::Scope<'s>, env: &'s Env<'a>, (i, node, mut io): Ready<'a>) {
    s.spawn(move |s| {
        let t = Instant::now();
        let result = eval_node(env, i, node, &mut io);
        for next in env.finish(i, io, t.elapsed(), result) {
            spawn(s, env, next);
        }
    });
}

/// Runs the nodes one at a time, lowest plan index first among the ready ones: the order a
/// decomposed run needs, so every rank reaches its collective calls in the same order.
fn run_serially<'a>(env: &Env<'a>, mut ready: Vec<Ready<'a>>) {
    while let Some(k) = (0..ready.len()).min_by_key(|&k| ready[k].0) {
        let (i, node, mut io) = ready.swap_remove(k);
        let t = Instant::now();
        let result = eval_node(env, i, node, &mut io);
        ready.extend(env.finish(i, io, t.elapsed(), result));
    }
}

/// Evaluates node `i`, a panic turned into an error.
fn eval_node(
    env: &Env<'_>,
    i: usize,
    node: &mut Box<dyn Node>,
    io: &mut NodeIo,
) -> Result<(), NodeError> {
    if Some(i) == env.plan.step_input {
        return Ok(()); // its values are in place already
    }
    match catch_unwind(AssertUnwindSafe(|| node.eval(env.ctx, io))) {
        Ok(r) => r,
        Err(payload) => Err(NodeError::Panicked(panic_text(payload.as_ref()))),
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

impl Simulation {
    /// Runs every node of a substep (`slots`: the values produced so far, `step_input`'s
    /// filled in; `left`: readers still to come of each value) and reports in level order.
    pub(super) fn run_nodes(
        &mut self,
        ctx: &EvalCtx,
        slots: Vec<Vec<Option<Value>>>,
        left: Vec<Vec<usize>>,
        report: &mut StepReport,
    ) -> Result<(), RunError> {
        let flow = self.flow.clone();
        let n = self.plan.nodes.len();
        let waiting: Vec<usize> = flow.preds.iter().map(Vec::len).collect();
        let env = Env {
            plan: &self.plan,
            flow: &flow,
            ctx,
            probes: &self.probes,
            board: Mutex::new(Board {
                nodes: self.nodes.iter_mut().map(Some).collect(),
                slots,
                left,
                waiting,
                done: (0..n).map(|_| None).collect(),
                stop_after: usize::MAX,
            }),
        };
        let roots: Vec<Ready<'_>> = {
            let mut b = env.board();
            let first = flow.levels.first().map_or(&[][..], |l| &l[..]);
            first.iter().filter_map(|&i| env.claim(&mut b, i)).collect()
        };
        if ctx.window.is_some() {
            run_serially(&env, roots);
        } else {
            rayon::scope(|s| roots.into_iter().for_each(|r| spawn(s, &env, r)));
        }
        let mut done = env
            .board
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .done;
        let mut failure = None;
        for &i in flow.levels.iter().flatten() {
            let Some(f) = done[i].take() else { continue };
            self.timings[i].total += f.elapsed;
            self.timings[i].calls += 1;
            report.node_times[i] = f.elapsed;
            report.node_stats[i] = f.io.stats;
            report.files.extend(f.io.files);
            let id = &self.plan.nodes[i].id;
            let events = f.io.events.into_iter().map(|e| (id.clone(), e));
            report.events.extend(events);
            if let Err(error) = f.result {
                let p = &self.plan.nodes[i];
                failure.get_or_insert(RunError::NodeFailed {
                    node: p.id.clone(),
                    kind: p.kind.clone(),
                    frame: self.frame,
                    error,
                });
                continue;
            }
            for (k, v) in f.probed {
                self.probed[k] = v;
            }
            if Some(i) == self.plan.step_output {
                self.state = f.io.inputs;
            }
        }
        report.critical_path = flow.critical_path(&report.node_times);
        failure.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests;

//! One dependency level of a substep (its nodes in parallel, values moved along edges) and
//! the end-of-substep state check.

use super::{Simulation, StepReport};
use crate::error::RunError;
use crate::node::{EvalCtx, Node, NodeIo};
use crate::value::Value;
use rayon::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

impl Simulation {
    pub(super) fn run_level(
        &mut self,
        level: &[usize],
        ctx: &EvalCtx,
        slots: &mut [Vec<Option<Value>>],
        left: &mut [Vec<usize>],
        report: &mut StepReport,
    ) -> Result<(), RunError> {
        // Gather inputs: the last reader of a value takes it, earlier readers share it.
        let mut ios: Vec<(usize, NodeIo)> = Vec::with_capacity(level.len());
        for &i in level {
            let p = &self.plan.nodes[i];
            let inputs = p
                .spec
                .inputs
                .iter()
                .zip(&p.sources)
                .map(|(port, src)| {
                    let v = src.and_then(|(m, o)| {
                        left[m][o] -= 1;
                        if left[m][o] == 0 {
                            slots[m][o].take()
                        } else {
                            slots[m][o].clone()
                        }
                    });
                    (port.name.clone(), v)
                })
                .collect();
            let outs: Vec<String> = p.spec.outputs.iter().map(|o| o.name.clone()).collect();
            ios.push((i, NodeIo::new(inputs, &outs)));
        }
        let step_in = self.plan.step_input;
        let mut work: Vec<(usize, &mut Box<dyn Node>, NodeIo)> = Vec::with_capacity(level.len());
        let mut ios = ios.into_iter().peekable();
        for (i, node) in self.nodes.iter_mut().enumerate() {
            if ios.peek().is_some_and(|(j, _)| *j == i) {
                let (_, io) = ios.next().expect("peeked");
                work.push((i, node, io));
            }
        }
        let run = |(i, node, mut io): (usize, &mut Box<dyn Node>, NodeIo)| {
            let t = Instant::now();
            let r = if Some(i) == step_in {
                Ok(())
            } else {
                match catch_unwind(AssertUnwindSafe(|| node.eval(ctx, &mut io))) {
                    Ok(r) => r.map_err(|e| e.to_string()),
                    Err(payload) => Err(panic_text(payload.as_ref())),
                }
            };
            (i, io, t.elapsed(), r)
        };
        // A lone node runs on this thread (handing it to the pool only adds latency); nodes of
        // a wider level run in parallel.
        let results: Vec<(usize, NodeIo, Duration, Result<(), String>)> = if work.len() == 1 {
            work.into_iter().map(run).collect()
        } else {
            work.into_par_iter().map(run).collect()
        };
        let mut failure = None;
        for (i, io, elapsed, r) in results {
            self.timings[i].total += elapsed;
            self.timings[i].calls += 1;
            report.node_times[i] = elapsed;
            report.node_stats[i] = io.stats;
            report.files.extend(io.files);
            let id = &self.plan.nodes[i].id;
            report
                .events
                .extend(io.events.into_iter().map(|e| (id.clone(), e)));
            if let Err(message) = r {
                let p = &self.plan.nodes[i];
                failure.get_or_insert(RunError::NodeFailed {
                    node: p.id.clone(),
                    kind: p.kind.clone(),
                    frame: self.frame,
                    message,
                });
                continue;
            }
            if ctx.frame_end {
                for (k, &(pi, po)) in self.probes.iter().enumerate() {
                    if pi == i {
                        self.probed[k] = io.outputs[po].clone();
                    }
                }
            }
            if Some(i) == self.plan.step_output {
                self.state = io.inputs;
            } else if Some(i) != step_in {
                // an output nobody reads is dropped now: held, it would make the next
                // in-place edit of a shared value (particles) copy it
                let mut outputs = io.outputs;
                let unread = outputs.iter_mut().zip(&left[i]).filter(|(_, &n)| n == 0);
                unread.for_each(|(v, _)| *v = None);
                slots[i] = outputs;
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// Refuses a blown-up state; returns the particle count and the largest carried speed
    /// (particles and, for smoke, the grid velocity).
    pub(super) fn check_state(&self, substep: u32) -> Result<(usize, f32), RunError> {
        let blow = |message: String| {
            Err(RunError::BlowUp {
                frame: self.frame,
                substep,
                message,
            })
        };
        let (mut count, mut speed) = (0, 0.0f32);
        for v in self.state.iter().flatten() {
            match v {
                Value::Particles(p) => {
                    let Some(s) = p.checked_max_speed() else {
                        return blow("a particle position or velocity is not finite".into());
                    };
                    (count, speed) = (p.len(), speed.max(s));
                }
                Value::Velocity(f) => {
                    let Some(s) = f.vel.checked_max_abs() else {
                        return blow("the carried grid velocity is not finite".into());
                    };
                    speed = speed.max(s);
                }
                Value::TallLiquid(l) => {
                    let fields = [&l.u, &l.v, &l.phi];
                    if !fields.iter().all(|f| f.iter().all(|x| x.is_finite())) {
                        return blow(
                            "the tall-cell liquid's velocity or level set is not finite".into(),
                        );
                    }
                    speed = speed.max(l.max_speed());
                }
                Value::Scalar(g) if !g.data.iter().all(|x| x.is_finite()) => {
                    return blow(
                        "a carried scalar field (density or temperature) is not finite".into(),
                    );
                }
                _ => {}
            }
        }
        let extent = self.settings.grid_spec().extent().max_element();
        if speed * (1.0 / self.settings.fps) > 100.0 * extent {
            return blow(format!(
                "speed {speed:.3e} m/s crosses the domain 100× per frame"
            ));
        }
        Ok((count, speed))
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("panicked: {text}")
}

//! The host's side of an isolated solver's or node's shared memory: the sealed input segment (lent to
//! the pressure node's problem when it asks, so assembly writes where the child reads) and the
//! exchange segment, replaced when a problem outgrows them; the child maps each new pair.

use super::segment::{Access, Segment};
use super::shm::{self, Plan};
use super::views;
use super::wire::Request;
use flip_sdk::OwnedProblem;
use std::sync::Arc;

/// The host's segments and whether the child has mapped the current pair.
#[derive(Default)]
pub(crate) struct SharedMemory {
    /// Inputs: held also by the arrays of a problem they were lent to.
    inputs: Option<Arc<Segment>>,
    exchange: Option<Segment>,
    mapped: bool,
}

impl SharedMemory {
    /// The input segment, if any.
    pub fn inputs(&self) -> Option<&Segment> {
        self.inputs.as_deref()
    }

    /// The exchange segment, if any.
    pub fn exchange(&self) -> Option<&Segment> {
        self.exchange.as_ref()
    }

    /// Makes sure there is an input segment of at least `bytes` that no problem borrows (a
    /// new one when the current one is too small or lent).
    fn private_inputs(&mut self, bytes: usize) -> std::io::Result<&Arc<Segment>> {
        let keep = self
            .inputs
            .as_ref()
            .is_some_and(|s| Arc::strong_count(s) == 1 && s.len() >= bytes);
        if !keep {
            self.inputs = Some(Arc::new(Segment::create(bytes, Access::ReadOnly)?));
            self.mapped = false;
        }
        Ok(self.inputs.as_ref().expect("just made"))
    }

    /// Makes sure there are segments of `inputs_len` and `exchange_len` bytes: a private input
    /// segment unless the problem's inputs already lie in the current one (`lent`), and an
    /// exchange segment large enough.
    pub fn prepare(
        &mut self,
        inputs_len: usize,
        exchange_len: usize,
        lent: bool,
    ) -> std::io::Result<()> {
        if !lent {
            self.private_inputs(inputs_len)?;
        }
        if self
            .exchange
            .as_ref()
            .is_none_or(|s| s.len() < exchange_len)
        {
            self.exchange = Some(Segment::create(exchange_len, Access::Shared)?);
            self.mapped = false;
        }
        Ok(())
    }

    /// The request that makes the child map the current segments, if it has not yet.
    pub fn map_request(&self) -> Option<Request> {
        if self.mapped {
            return None;
        }
        let (inputs, exchange) = (self.inputs.as_ref()?, self.exchange.as_ref()?);
        Some(Request::Map {
            inputs: inputs.proc_path()?,
            inputs_len: inputs.len() as u64,
            exchange: exchange.proc_path()?,
            exchange_len: exchange.len() as u64,
        })
    }

    /// The child has mapped the current segments.
    pub fn set_mapped(&mut self) {
        self.mapped = true;
    }

    /// Whether every input array of `p` lies in the current input segment.
    pub fn holds(&self, plan: &Plan, p: &flip_sdk::Problem<'_>) -> bool {
        self.inputs
            .as_ref()
            .is_some_and(|s| shm::holds_structured(s, plan, p))
    }

    /// Moves the input arrays of `p` into the input segment (see [`views::lend_structured`]);
    /// whether they now lie there. Already lent: nothing to do.
    pub fn lend(&mut self, p: &mut OwnedProblem) -> bool {
        let plan = shm::structured_plan(p.dims.iter().product());
        if self.holds(&plan, &p.view()) {
            return true;
        }
        let Ok(seg) = self.private_inputs(plan.inputs_len) else {
            return false;
        };
        // SAFETY: a private segment (no array or reference of this process uses it) of at
        // least the plan's size; the host writes it only through these arrays from now on.
        unsafe { views::lend_structured(seg, &plan, p) }
    }
}

//! A refused step (`do_step`): what it may rewrite of the coupling before its test is kept at
//! its start and put back, so that a refused step changes nothing but what the coupling learnt
//! from the master's motion at the step's start.

use super::ElastoGap;
use crate::coupling::{Coupling, Rewritten};

impl ElastoGap {
    /// What a step may rewrite of the coupling before its test (`dynamic`: through the mass):
    /// the dynamic step plans in the coupling as it goes, its prediction of f_next included, and
    /// the kinematic step holds its probe there. Where the step replays a contact, which
    /// rewrites the contact's episode too, the whole coupling.
    #[inline(always)]
    pub(super) fn before_the_step(&self, dynamic: bool) -> BeforeTheStep {
        let coupling = &self.co_simulation.coupling;
        let whole = if dynamic && coupling.replay_is_pending() {
            Some(*coupling)
        } else {
            None
        };
        BeforeTheStep {
            whole,
            rewritten: coupling.before_the_step(dynamic),
            #[cfg(test)]
            learnt: *coupling,
        }
    }

    /// A refused step leaves the coupling as it learnt from the master's motion at the step's
    /// start.
    pub(super) fn put_back(&mut self, before: BeforeTheStep) {
        match before.whole {
            Some(coupling) => self.co_simulation.coupling = coupling,
            None => self.co_simulation.coupling.put_back(before.rewritten),
        }
        #[cfg(test)]
        assert_eq!(
            format!("{:?}", self.co_simulation.coupling),
            format!("{:?}", before.learnt),
            "a refused step leaves the coupling as it learnt from the step's start"
        );
    }
}

/// What a refused step puts back of the coupling ([`ElastoGap::before_the_step`]).
pub(super) struct BeforeTheStep {
    whole: Option<Coupling>,
    rewritten: Rewritten,
    /// The coupling as it learnt from the step's start, which a refused step must leave.
    #[cfg(test)]
    learnt: Coupling,
}

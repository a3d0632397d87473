//! A refused step (`do_step`): what it may rewrite of the coupling before its test is kept at
//! its start and put back, so that a refused step changes nothing but what the coupling learnt
//! from the master's motion at the step's start.

use super::ElastoGap;
#[cfg(test)]
use crate::coupling::Coupling;
use crate::coupling::Rewritten;

impl ElastoGap {
    /// What a step may rewrite of the coupling before its test (`dynamic`: through the mass):
    /// the dynamic step replays and plans in the coupling as it goes, its prediction of f_next
    /// included, and the kinematic step holds its probe there.
    #[inline(always)]
    pub(super) fn before_the_step(&self, dynamic: bool) -> BeforeTheStep {
        let coupling = &self.co_simulation.coupling;
        BeforeTheStep {
            rewritten: coupling.before_the_step(dynamic),
            #[cfg(test)]
            learnt: *coupling,
        }
    }

    /// A refused step leaves the coupling as it learnt from the master's motion at the step's
    /// start.
    pub(super) fn put_back(&mut self, before: BeforeTheStep) {
        self.co_simulation.coupling.put_back(before.rewritten);
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
    rewritten: Rewritten,
    /// The coupling as it learnt from the step's start, which a refused step must leave.
    #[cfg(test)]
    learnt: Coupling,
}

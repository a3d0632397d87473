//! A co-simulation step that stops at the contact's first switch (FMI 3.0's early return), and the
//! switch taken in event mode.
//!
//! The step is taken whole first, as `do_step` takes it. Where it locates a switch inside (a
//! contact that starts or ends), the instance goes back to the step's start and steps again to
//! that instant, so that the master gets a communication point there. Going back is exact: the
//! step's start is a copy the caller keeps (no allocation), and a step to the instant is the same
//! step cut short, its means (`f_mean`, `E_loss`, `E_port`) over the step actually taken. A step
//! with an effective mass plans over its own length, so the shorter step can locate the switch a
//! little earlier: it is cut again there, at most [`MAX_CUTS`] times.
//!
//! At the instant it stops, `contact` keeps its value before the switch, so that a master in
//! event mode reads the values before and after it: [`ElastoGap::take_switch`] gives the value
//! after, as does the next step.

use super::{ElastoGap, NonFiniteStep, StepReport};

/// How often a step is cut shorter at a switch its shorter self located earlier.
pub const MAX_CUTS: usize = 3;

/// The step's switch the master is told of, and where it stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Switch {
    /// Into the step (s): where it stopped.
    pub tau: f64,
    /// The contact starts there (or ends).
    pub entering: bool,
}

impl ElastoGap {
    /// Advances from `self.time` by `h`, or to the contact's first switch inside the step and no
    /// further; `start` is the caller's slot for the step's start (its contents are replaced).
    /// `Ok(None)`: the whole step, as [`Self::do_step`] takes it.
    pub fn do_step_to_switch(
        &mut self,
        h: f64,
        start: &mut ElastoGap,
        report: &mut StepReport,
    ) -> Result<Option<Switch>, NonFiniteStep> {
        start.clone_from(self);
        self.do_step(h, report)?;
        let Some(mut switch) = self.first_switch_inside(h, report) else {
            return Ok(None);
        };
        for _ in 0..MAX_CUTS {
            self.clone_from(start);
            *report = StepReport::default();
            self.do_step(switch.tau, report)?;
            match self.first_switch_inside(switch.tau, report) {
                Some(earlier) => switch = earlier,
                None => break,
            }
        }
        self.contact_latch = Some(!switch.entering);
        Ok(Some(switch))
    }

    /// The first switch of the step that lies inside it, more than a rounding from either end: a
    /// step that starts at a switch (after an early return) locates it again at its start.
    fn first_switch_inside(&self, h: f64, report: &StepReport) -> Option<Switch> {
        let margin = 1e-9 * h + 8.0 * f64::EPSILON * self.time.abs();
        report
            .integral
            .transitions()
            .find(|t| t.tau > margin && t.tau < h - margin)
            .map(|t| Switch {
                tau: t.tau,
                entering: t.entering,
            })
    }

    /// Co-simulation in event mode: the switch the last step stopped at takes effect (`contact`
    /// reads its value after the switch). Returns whether `contact` changed.
    pub fn take_switch(&mut self) -> bool {
        match self.contact_latch {
            Some(before) => {
                self.contact_latch = Some(!before);
                true
            }
            None => false,
        }
    }
}

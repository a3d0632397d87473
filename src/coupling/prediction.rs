//! The prediction of `f_next`: the mean force over the coming step, for a master that steps all
//! units at once and holds what it read before the step. It is made at the first read only (a
//! master that steps the gap first never reads it), bounded by the port like every held force,
//! and where a probe is made in it, that probe's answer is awaited like a step's own.

use super::free_plan::free_plan;
use super::probe::only_grazes;
use super::{Correction, Coupling, Plan, PlanStart, ProbeSizing, PROBE_SHARE};
use crate::laws::ContactLaw;
use crate::step::{integrate_step, Motion, SubstepLimits};

/// `f_next`, made or still to be made: a master that steps the gap first never reads it, and
/// for it the prediction would double the work of every step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Prediction {
    Known(f64),
    /// Along the motion extrapolated from the step's end (no mass); a probe's share of it
    /// where the step is to probe the mass.
    Kinematic {
        start: Motion,
        h: f64,
        probe: Option<ProbeSizing>,
    },
    /// The coupled model's plan one step ahead, from where the master will be then.
    Dynamic(PlanStart),
}

impl Default for Prediction {
    fn default() -> Self {
        Prediction::Known(0.0)
    }
}

impl Prediction {
    /// The step the prediction is made over (0 where it is made already).
    pub fn step(&self) -> f64 {
        match *self {
            Prediction::Known(_) => 0.0,
            Prediction::Kinematic { h, .. } => h,
            Prediction::Dynamic(from) => from.h,
        }
    }

    /// The predicted mean force, and whether it holds a probe.
    pub fn force<L: ContactLaw>(&self, law: &L, limits: SubstepLimits) -> (f64, bool) {
        let (force, _, probes) = self.planned_probing(law, limits);
        (force, probes)
    }

    /// The predicted mean force and the correction plan after it.
    pub fn planned<L: ContactLaw>(&self, law: &L, limits: SubstepLimits) -> (f64, Correction) {
        let (force, continuation, _) = self.planned_probing(law, limits);
        (force, continuation)
    }

    /// [`Self::planned`], and whether the force holds a probe (a prediction along the motion of a
    /// contact that does not only graze its step, while no mass is known).
    fn planned_probing<L: ContactLaw>(
        &self,
        law: &L,
        limits: SubstepLimits,
    ) -> (f64, Correction, bool) {
        match *self {
            Prediction::Known(force) => (force, Correction::default(), false),
            Prediction::Kinematic { start, h, probe } => {
                let impulse = integrate_step(law, start, h, limits).impulse;
                // A contact new to the master that only grazes the step is held in full, and the
                // next step probes it; the prediction judges that more strictly than the step
                // itself does (`only_grazes` with half the share), so that the step agrees.
                let sizing = probe.filter(|sizing| {
                    let end = start.at(h);
                    !sizing.fresh || !only_grazes(law, 0.5 * PROBE_SHARE, impulse, end, h, limits)
                });
                let share = sizing.and_then(|sizing| sizing.share(impulse));
                let force = share.unwrap_or(1.0) * impulse / h;
                (force, Correction::default(), sizing.is_some())
            }
            Prediction::Dynamic(from) => {
                let plan = Coupling::plan(law, &from);
                (plan.force, continuation(&plan), false)
            }
        }
    }

    /// [`Self::planned`] where the prediction is a free step's plan (`free_plan`); None where it
    /// is not, without planning it whole.
    pub(super) fn planned_if_free<L: ContactLaw>(&self, law: &L) -> Option<(f64, Correction)> {
        let Prediction::Dynamic(from) = self else {
            return None;
        };
        let plan = free_plan(law, from)?;
        Some((plan.force, continuation(&plan)))
    }
}

/// The correction plan after a predicted step's `plan`, where the master holds it.
fn continuation(plan: &Plan) -> Correction {
    Correction {
        expected: plan.owed,
        ..plan.correction
    }
}

impl Coupling {
    /// `f_next`, made now if it was not yet (it is then kept however often it is read).
    pub fn make_f_next<L: ContactLaw>(
        &mut self,
        law: &L,
        limits: SubstepLimits,
        least_mass: f64,
        held: f64,
    ) -> f64 {
        if let Prediction::Known(force) = self.f_next {
            return force;
        }
        let prediction = self.f_next;
        let (planned, continuation, probes) = prediction.planned_probing(law, limits);
        let force =
            self.bound_noting_the_reading(planned, prediction.step(), least_mass, Some(held));
        self.f_next = Prediction::Known(force);
        // A plan the bound cut does not go on: the step after it plans anew from the master.
        self.f_next_continuation = if planned == force {
            continuation
        } else {
            Correction::default()
        };
        self.note_probe_in_next(&prediction, probes, force);
        force
    }

    /// `f_next` as predicted, within the port's bound, and the correction plan after it.
    pub fn predicted_next<L: ContactLaw>(
        &self,
        law: &L,
        limits: SubstepLimits,
        least_mass: f64,
        held: f64,
    ) -> (f64, Correction) {
        let (force, continuation) = self.f_next.planned(law, limits);
        let h = self.f_next.step();
        (self.bound_next(force, h, least_mass, held), continuation)
    }

    /// A master that holds `f_next` holds a probe made in it over the step ahead (the contact
    /// foreseen a step early), before any step's own `f_mean` probes: its answer is to be read
    /// as a probe's, and the step that meets the contact probes too.
    pub fn note_probe_in_next(&mut self, prediction: &Prediction, probes: bool, force: f64) {
        if let Prediction::Kinematic { start, h, .. } = *prediction {
            if probes && force != 0.0 {
                self.probe_pending = true;
                self.assume_probe(force * h, start.v.abs());
            }
        }
    }
}

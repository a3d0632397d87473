//! The prediction of `f_next`: the mean force over the coming step, for a master that steps all
//! units at once and holds what it read before the step. It is made at the first read only (a
//! master that steps the gap first never reads it), bounded by the port like every held force,
//! and where a probe is made in it, that probe's answer is awaited like a step's own.

use super::probe::only_grazes;
use super::{Correction, Coupling, ProbeSizing, PROBE_SHARE};
use crate::laws::ContactLaw;
use crate::step::dynamic::Dynamics;
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
    Dynamic {
        owed: (f64, f64),
        correction: Correction,
        master: Motion,
        dynamics: Dynamics,
        h: f64,
        passivity: f64,
    },
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
            Prediction::Kinematic { h, .. } | Prediction::Dynamic { h, .. } => h,
        }
    }

    /// The predicted mean force.
    pub fn force<L: ContactLaw>(&self, law: &L, limits: SubstepLimits) -> f64 {
        self.planned(law, limits).0
    }

    /// The predicted mean force and the correction plan after it.
    pub fn planned<L: ContactLaw>(&self, law: &L, limits: SubstepLimits) -> (f64, Correction) {
        match *self {
            Prediction::Known(force) => (force, Correction::default()),
            Prediction::Kinematic { start, h, .. } => {
                let impulse = integrate_step(law, start, h, limits).impulse;
                let share = self
                    .probe_held(law, limits, impulse)
                    .and_then(|sizing| sizing.share(impulse))
                    .unwrap_or(1.0);
                let force = share * impulse / h;
                (force, Correction::default())
            }
            Prediction::Dynamic {
                owed,
                correction,
                master,
                dynamics,
                h,
                passivity,
            } => {
                let plan = Coupling::plan(owed, correction, law, master, dynamics, h, passivity);
                let continuation = Correction {
                    expected: plan.owed,
                    ..plan.correction
                };
                (plan.force, continuation)
            }
        }
    }

    /// The probe a prediction along the motion holds of its step's `impulse` (N.s): none where
    /// a contact new to the master only grazes that step ([`only_grazes`], more strictly than
    /// the step itself judges it, so that the step agrees): it is held in full, and the next
    /// step is probed.
    fn probe_held<L: ContactLaw>(
        &self,
        law: &L,
        limits: SubstepLimits,
        impulse: f64,
    ) -> Option<ProbeSizing> {
        let Prediction::Kinematic { start, h, probe } = *self else {
            return None;
        };
        probe.filter(|sizing| {
            !sizing.fresh || !only_grazes(law, 0.5 * PROBE_SHARE, impulse, start.at(h), h, limits)
        })
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
        let (planned, continuation) = prediction.planned(law, limits);
        let force = self.bound_next(planned, prediction.step(), least_mass, held);
        self.f_next = Prediction::Known(force);
        // A plan the bound cut does not go on: the step after it plans anew from the master.
        self.f_next_continuation = if planned == force {
            continuation
        } else {
            Correction::default()
        };
        self.note_probe_in_next(&prediction, law, limits, force);
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
    pub fn note_probe_in_next<L: ContactLaw>(
        &mut self,
        prediction: &Prediction,
        law: &L,
        limits: SubstepLimits,
        force: f64,
    ) {
        if let Prediction::Kinematic { start, h, .. } = *prediction {
            let impulse = integrate_step(law, start, h, limits).impulse;
            let probed = prediction.probe_held(law, limits, impulse).is_some();
            if probed && force != 0.0 {
                self.probe_pending = true;
                self.assume_probe(force * h, start.v.abs());
            }
        }
    }
}

//! The coupling's part in a dynamic step (the relative motion integrated through a mass): a
//! contact replayed with a newly adopted mass ([`Coupling::replay_the_contact`]), the correction
//! set up, the step planned ([`Coupling::plan`]), the force the master holds over it taken, and
//! `f_next` predicted one step ahead ([`Coupling::plan_the_dynamic_step`]). The instance gives
//! where the master starts ([`DynamicSetting`]) and takes the [`DynamicPlan`].

use super::{
    held_over, passivity_force, replay, Correction, Coupling, Episode, Extrapolation, Pace, Plan,
    PlanStart, Prediction, SpeedFuse, MAX_STEPS_OF_AN_UNRESOLVED_CONTACT, PASSIVITY_TOLERANCE,
    SPEED_FUSE_FACTOR, STEADY_ADOPTION,
};
use crate::laws::{contact_duration, distance_outside, ContactLaw};
use crate::step::dynamic::Dynamics;
use crate::step::Motion;

/// Where the master starts a dynamic step and how the model moves with it.
#[derive(Clone, Copy)]
pub struct DynamicSetting {
    pub time: f64,
    pub h: f64,
    /// The master's relative motion at the step start, under the external acceleration.
    pub master: Motion,
    pub dynamics: Dynamics,
    /// The master supplied its acceleration (input derivatives), which then holds for the next
    /// step too; else the acceleration is extrapolated.
    pub supplied: bool,
    pub extrapolation: Extrapolation,
    /// Without `m_eff`: the correction is held to the energy the port received.
    pub energy_bounded: bool,
    /// [`Coupling::passivity_deficit`] at the step start.
    pub deficit: f64,
    pub settled: bool,
}

/// The dynamic step as planned and held.
pub struct DynamicPlan {
    pub plan: Plan,
    /// Where the model started the step: the master's motion plus what was owed.
    pub start: Motion,
    /// The work the force assumed held over the step does on the master's bodies as the model
    /// predicts their motion (J), where the mass is one the master's latest answer agreed with;
    /// else 0.
    pub predicted_port_work: f64,
}

/// The dynamic step as planned, before the force the master holds over it is known: what the
/// model owes the master after the step follows from that force ([`PlannedStep::after`]).
pub(super) struct PlannedStep<'p> {
    pub(super) setting: &'p DynamicSetting,
    pub(super) plan: &'p Plan,
    /// The `f_next` the master read before this step, if it read one.
    pub(super) next_before: Option<f64>,
    /// The plan the `f_next` made one step ago goes on with.
    pub(super) continuation: Correction,
    /// A replay restarted the contact's correction in this step.
    pub(super) replayed: bool,
    /// The correction's pace before this step's plan.
    pub(super) prior_pace: Pace,
    pub(super) fuse: SpeedFuse,
}

impl Coupling {
    /// Whether a mass was adopted since the contact episode started, so that the step replays
    /// the episode with it.
    pub fn replay_is_pending(&self) -> bool {
        self.replay_pending
    }

    /// What the port returned beyond what the model says the contact dissipated (J), where that
    /// is more than the model's own error (`PASSIVITY_TOLERANCE` of the contact's dissipation);
    /// else 0. A replay corrects the model's figure; `E_loss`, which never falls, may still hold
    /// an over-report of a contact integrated along the motion.
    #[inline(always)]
    pub fn passivity_deficit(&self) -> f64 {
        let deficit = self.model_loss - self.e_port - self.initial_energy;
        if deficit > PASSIVITY_TOLERANCE * self.episode.dissipated.abs() {
            deficit
        } else {
            0.0
        }
    }

    /// The contact so far was integrated with another mass (or along the motion); replayed with
    /// the adopted one, it tells where the master should be now, and the correction takes it
    /// there. A contact the steps resolve (more than a few of them) goes on from the master's
    /// motion: each of its steps was integrated from there. Returns, where it replayed, what
    /// the master still owed then and by how much `E_loss` had over-reported the contact's
    /// dissipation.
    #[inline(always)]
    pub fn replay_the_contact<L: ContactLaw>(
        &mut self,
        law: &L,
        setting: &DynamicSetting,
        without_a_given_mass: bool,
    ) -> Option<((f64, f64), f64)> {
        let (master, dynamics) = (setting.master, setting.dynamics);
        // A probe held over a step the contact had not begun in (f_next held up to an early
        // return at the touch-down) told the mass before any contact: that free step is
        // replayed, and the probe's impulse is owed back.
        let free_step_probed =
            without_a_given_mass && !self.episode.open && self.last_contact_impulse == 0.0;
        let episode = if !free_step_probed {
            self.episode
        } else {
            Episode {
                open: true,
                start: self.before_last,
                a_ext: dynamics.a_ext,
                ..Episode::default()
            }
        };
        let duration = setting.time - episode.start.time;
        if !(episode.contact_steps <= MAX_STEPS_OF_AN_UNRESOLVED_CONTACT && duration > 0.0) {
            return None;
        }
        let replayed = replay(law, &episode, dynamics, duration);
        // The replay owes the contact's motion, position and velocity, dead-beat, where the
        // contact so far held no force the master's bodies answered through a wrong mass: a
        // step the master held no force over, or, without a given mass, the probes of a master
        // that holds f_next inside a contact of two steps or more. Such a master held the probe
        // a step late and nothing over the step before its answer: the position two steps of
        // the contact's force owe is restored while the replayed contact lasts. A given m_eff
        // the answers contradicted sent the bodies where that mass took them, and a contact
        // over within two steps, or one the replay has left, is over with the master deeper
        // than any force put it: the velocity counts first (`Pace::VelocityFirst`).
        let resolved = contact_duration(law, dynamics.mass, episode.start.v.abs())
            .is_some_and(|lasts| 2.0 * setting.h <= lasts);
        let probed_inside = without_a_given_mass
            && self.master_holds_next == Some(true)
            && resolved
            && distance_outside(law.contact_ends(), replayed.end.s) < 0.0;
        let velocity_first = self.mass_estimate > 0.0 && !probed_inside;
        self.owed_s = replayed.end.s - master.s;
        self.owed_v = replayed.end.v - master.v;
        self.correction = Correction {
            pace: if velocity_first {
                Pace::VelocityFirst
            } else {
                Pace::DeadBeat
            },
            ..Correction::default()
        };
        let excess = episode.dissipated - replayed.integral.dissipated;
        self.episode.dissipated = replayed.integral.dissipated;
        Some(((self.owed_s, self.owed_v), excess))
    }

    /// The step through the mass: the correction set up, the step planned, the force the
    /// master holds over it taken and `f_next` predicted over `h_next`. `next_before` is the
    /// `f_next` the master read before this step, `replayed` whether a replay restarted the
    /// contact's correction in it.
    #[inline(always)]
    pub fn plan_the_dynamic_step<L: ContactLaw>(
        &mut self,
        law: &L,
        setting: &DynamicSetting,
        next_before: Option<f64>,
        replayed: bool,
        h_next: f64,
    ) -> DynamicPlan {
        let (master, mass) = (setting.master, setting.dynamics.mass);
        self.replay_pending = false;
        self.forgive_position(law, master, mass);
        self.fund_the_model_start(law, master, mass);
        let from = self.plan_start(setting);
        let plan = Coupling::plan(law, &from);
        let planned = self.planned(setting, &from, plan, next_before, replayed, h_next);
        self.take_the_plan(&planned);
        planned.dynamic
    }

    /// Where this step's plan starts ([`PlanStart`]), the correction's settings for it set up:
    /// recovery, the energy bound, the speed fuse, robustness while the mass is not confirmed.
    #[inline(always)]
    pub(super) fn plan_start(&self, setting: &DynamicSetting) -> PlanStart {
        let fuse = SpeedFuse {
            limit: SPEED_FUSE_FACTOR * self.passive_speed,
            a_free: self.a_free,
        };
        let correction = Correction {
            recover: self.master_holds_next != Some(true),
            energy_bounded: setting.energy_bounded,
            fuse,
            robust: !self.mass_confirmed,
            ..self.correction
        };
        PlanStart {
            owed: (self.owed_s, self.owed_v),
            correction,
            master: setting.master,
            dynamics: setting.dynamics,
            h: setting.h,
            passivity: self.passivity_over(setting),
        }
    }

    /// The step planned from `from` as `plan`: the force the master holds over it, `f_next`'s
    /// prediction, and what the coupling takes of them ([`Self::take_the_plan`]).
    #[inline(always)]
    pub(super) fn planned(
        &self,
        setting: &DynamicSetting,
        from: &PlanStart,
        plan: Plan,
        next_before: Option<f64>,
        replayed: bool,
        h_next: f64,
    ) -> Planned {
        let step = PlannedStep {
            setting,
            plan: &plan,
            next_before,
            continuation: self.f_next_continuation,
            replayed,
            prior_pace: from.correction.pace,
            fuse: from.correction.fuse,
        };
        let held = self.held(&step);
        let (passivity_in_next, prediction) = self.prediction(&step, &held, h_next);
        let predicted_port_work =
            self.predicted_port_work(&held, setting.master, setting.dynamics.mass);
        Planned {
            dynamic: DynamicPlan {
                plan,
                start: from.model_start(),
                predicted_port_work,
            },
            held,
            passivity_in_next,
            prediction,
        }
    }

    /// The coupling takes a planned step: the force assumed held, what is then owed, the
    /// correction from there and `f_next`'s prediction with the passivity controller's part.
    #[inline(always)]
    pub(super) fn take_the_plan(&mut self, planned: &Planned) {
        self.assumed_held = planned.held.force;
        (self.owed_s, self.owed_v) = planned.held.owed;
        self.correction = planned.held.correction;
        self.passivity_in_next = planned.passivity_in_next;
        self.f_next = planned.prediction;
    }

    /// The passivity controller: once settled, a port that returned more than the contact
    /// dissipated is damped until it has taken the excess back.
    #[inline(always)]
    pub(super) fn passivity_over(&self, setting: &DynamicSetting) -> f64 {
        if setting.settled {
            passivity_force(
                setting.deficit,
                setting.master.v,
                setting.dynamics.mass,
                setting.h,
            )
        } else {
            0.0
        }
    }

    /// The work the held force does over the step as the model predicts the master's motion,
    /// only through a mass the master's latest answer agreed with: a wrong one would raise
    /// E_loss, which never falls, by work the bodies never did.
    #[inline(always)]
    pub(super) fn predicted_port_work(&self, held: &Held, master: Motion, mass: f64) -> f64 {
        let port_work = held.force * (held.master_next.s - master.s);
        if (self.last_estimate / mass - 1.0).abs() <= STEADY_ADOPTION {
            port_work
        } else {
            0.0
        }
    }

    /// The force the master holds over this step, where it leaves the master and what the model
    /// then owes it, and the correction from there.
    #[inline(always)]
    pub(super) fn held(&self, planned: &PlannedStep<'_>) -> Held {
        let plan = planned.plan;
        // A master that steps all units at once holds the f_next it read before this step, with
        // the passivity controller's part predicted then.
        let (force, passivity_held) = match (self.master_holds_next, planned.next_before) {
            (Some(true), Some(next)) => (next, self.passivity_in_next),
            _ => (plan.force, plan.passivity),
        };
        let (master_next, owed, mut correction) = planned.after(force, passivity_held);
        correction.robust = !self.mass_confirmed;
        Held {
            force,
            master_next,
            owed,
            correction,
        }
    }

    /// `f_next`'s prediction, and the passivity controller's part of it: the same plan one step
    /// ahead (over `h_next`), from where the master will be then, after this step's `held`.
    #[inline(always)]
    pub(super) fn prediction(
        &self,
        planned: &PlannedStep<'_>,
        held: &Held,
        h_next: f64,
    ) -> (f64, Prediction) {
        let DynamicSetting {
            time,
            h,
            master,
            dynamics,
            ..
        } = *planned.setting;
        let (a_ext, mass, plan) = (master.a, dynamics.mass, planned.plan);
        // f_next is held only by a master that steps all units at once, which held the f_next
        // it read before this one too: predicted on that assumption while the reading is not
        // known (a master that reads both forces), whatever this step's bookkeeping assumed.
        let (master_next, owed_next, mut correction_next, held_next) =
            match (self.master_holds_next, planned.next_before) {
                (None, Some(next)) if next != held.force => {
                    let (m, o, c) = planned.after(next, self.passivity_in_next);
                    (m, o, c, next)
                }
                // Not readable before this step: the master that will hold it reads it from now
                // on (cofmupy reads every output after a step, none before the first), and held
                // its own start value over this step, no force. To any other it is only an output.
                (None, None) if held.force != 0.0 => {
                    let (m, o, c) = planned.after(0.0, 0.0);
                    (m, o, c, 0.0)
                }
                _ => (held.master_next, held.owed, held.correction, held.force),
            };
        correction_next.robust = !self.mass_confirmed;
        correction_next.recover = false;
        correction_next.energy_bounded = planned.setting.energy_bounded;
        correction_next.fuse = planned.fuse;
        // Only a force the master held answers: over a step it held nothing for (a Jacobi
        // master's first), the contact is delivered without waiting; a contact or a correction
        // held through a mass in doubt is answered before anything more is planned through it.
        correction_next.answer_pending = held_next != 0.0;
        let next_dynamics = Dynamics {
            a_ext: if planned.setting.supplied {
                a_ext
            } else {
                self.a_ext(planned.setting.extrapolation, time + h, h_next)
            },
            ..dynamics
        };
        // The controller goes on over the next step with what this one leaves of the excess.
        let next_passivity = if planned.setting.settled && plan.step.integral.substeps == 0 {
            let taken = held_next * (master_next.s - master.s);
            passivity_force(planned.setting.deficit - taken, master_next.v, mass, h_next)
        } else {
            0.0
        };
        let prediction = Prediction::Dynamic(PlanStart {
            owed: owed_next,
            correction: correction_next,
            master: master_next,
            dynamics: next_dynamics,
            h: h_next,
            passivity: next_passivity,
        });
        (next_passivity, prediction)
    }
}

/// A dynamic step as planned, before the coupling takes it ([`Coupling::planned`]).
pub(super) struct Planned {
    pub(super) dynamic: DynamicPlan,
    pub(super) held: Held,
    pub(super) passivity_in_next: f64,
    pub(super) prediction: Prediction,
}

/// The force the master holds over a dynamic step ([`Coupling::held`]), where it leaves the
/// master, what the model then owes it and the correction from there.
#[derive(Clone, Copy)]
pub(super) struct Held {
    pub(super) force: f64,
    pub(super) master_next: Motion,
    pub(super) owed: (f64, f64),
    pub(super) correction: Correction,
}

impl PlannedStep<'_> {
    /// Where the master is after this step under a held force (the passivity controller's part
    /// of it `passivity_held`), what the model then owes it and the correction from there.
    #[inline(always)]
    fn after(&self, held: f64, passivity_held: f64) -> (Motion, (f64, f64), Correction) {
        let DynamicSetting {
            master,
            dynamics,
            h,
            ..
        } = *self.setting;
        let (a_ext, mass, plan) = (master.a, dynamics.mass, self.plan);
        let master_next = held_over(master, a_ext - held / mass, h);
        // The passivity controller's part of the held force moves the master, not the
        // model: what stays owed is the model against the master without it.
        let undamped = held_over(master, a_ext - (held - passivity_held) / mass, h);
        let owed = (plan.step.end.s - undamped.s, plan.step.end.v - undamped.v);
        let correction = if held == plan.force {
            Correction {
                expected: owed,
                ..plan.correction
            }
        } else if Some(held) == self.next_before && self.continuation.count > 0 && !self.replayed {
            // The master held the f_next made one step ago: its plan goes on.
            Correction {
                robust: false,
                answer_pending: false,
                ..self.continuation
            }
        } else {
            // The master held another force than this plan's first shift: plan anew from
            // where it is, the same way for the f_next below and the next step's f_mean.
            Correction {
                pace: self.prior_pace,
                ..Correction::default()
            }
        };
        (master_next, owed, correction)
    }
}

//! The normal contact over a co-simulation step. Without a mass (`kinematic_step`) the law is
//! integrated along the motion extrapolated from the inputs; with one (`dynamic_step`) the
//! relative motion is integrated under the contact's own force through that mass, from where the
//! model is (the master's motion plus what the model still owes it), and the step plans its
//! correction and the prediction of `f_next` in the coupling as it goes (docs/coupling.md).
//! Either returns the [`StepEnd`] that the step's test checks before the instance takes it.

use super::{ElastoGap, StepReport};
use crate::coupling::{
    held_over, passivity_force, replay, Correction, Coupling, Episode, Extrapolation, Pace, Plan,
    Prediction, SpeedFuse, MAX_STEPS_OF_AN_UNRESOLVED_CONTACT, PASSIVITY_TOLERANCE,
    SPEED_FUSE_FACTOR, STEADY_ADOPTION,
};
use crate::laws::{contact_duration, distance_outside, ContactLaw};
use crate::step::dynamic::Dynamics;
use crate::step::kinematic::integrate_step_into;
use crate::step::{Motion, SubstepLimits};

/// The end of a step, checked before the instance takes it.
pub(super) struct StepEnd {
    /// The dynamic step's `f_mean`, its correction included. None for the kinematic step, whose
    /// `f_mean` is the impulse over `h`: computed once the step is taken, so that the step's test
    /// does not wait on the division.
    pub(super) planned_f_mean: Option<f64>,
    /// The relative motion at the step's end.
    pub(super) end: Motion,
    /// Where the step's integration started, and with which dynamics (none: along the motion):
    /// the friction's pass integrates the same.
    pub(super) start: Motion,
    pub(super) dynamics: Option<Dynamics>,
    /// The work the force assumed held over the step does on the master's bodies as the model
    /// predicts their motion (J): what the port receives in this step, known exactly only once
    /// the master reports where the bodies went. 0 along the motion.
    pub(super) predicted_port_work: f64,
}

impl ElastoGap {
    #[inline(always)]
    pub(super) fn kinematic_step<L: ContactLaw>(
        &self,
        law: &L,
        h: f64,
        limits: SubstepLimits,
        report: &mut StepReport,
    ) -> StepEnd {
        let (s, v) = self.inputs.relative_at(self.time);
        let start = Motion {
            s,
            v,
            a: self.relative_acceleration(self.time, h),
        };
        integrate_step_into(law, start, h, limits, &mut report.integral);
        if let Some((start, end)) = report.integral.contact_within() {
            report.contact_within_step = Some(end - start);
        }
        StepEnd {
            planned_f_mean: None,
            end: start.at(h),
            start,
            dynamics: None,
            predicted_port_work: 0.0,
        }
    }

    /// The step through the effective `mass`: the contact so far replayed where the mass was
    /// newly adopted, the correction set up, the step planned ([`Coupling::plan`]), the force
    /// the master holds over it taken, and `f_next` predicted one step ahead.
    pub(super) fn dynamic_step<L: ContactLaw>(
        &mut self,
        law: &L,
        mass: f64,
        h: f64,
        next_before: Option<f64>,
        settled: bool,
        report: &mut StepReport,
    ) -> StepEnd {
        let setting = self.dynamic_setting(mass, h, settled);
        let DynamicSetting {
            master, dynamics, ..
        } = setting;
        let a_ext = master.a;
        if self.coupling.replay_pending {
            self.replay_the_contact(law, &setting, report);
        }
        let fuse = self.set_up_the_correction(law, &setting);
        let coupling = &self.coupling;
        // The passivity controller: once settled, a port that returned more than the contact
        // dissipated is damped until it has taken the excess back.
        let passivity = if settled {
            passivity_force(setting.deficit, master.v, mass, h)
        } else {
            0.0
        };
        let start = Motion {
            s: master.s + coupling.owed_s,
            v: master.v + coupling.owed_v,
            a: a_ext,
        };
        let plan = Coupling::plan(
            (coupling.owed_s, coupling.owed_v),
            coupling.correction,
            law,
            master,
            dynamics,
            h,
            passivity,
        );
        let planned = PlannedStep {
            setting: &setting,
            plan: &plan,
            next_before,
            continuation: coupling.f_next_continuation,
            replayed: report.replayed_owed.is_some(),
            prior_pace: coupling.correction.pace,
            fuse,
        };
        let (held, master_next, owed) = self.hold_the_plan(&planned);
        // The work the held force does over the step as the model predicts the master's motion.
        let port_work = held * (master_next.s - master.s);
        self.predict_f_next(&planned, held, master_next, owed);
        report.integral = plan.step.integral;
        report.passivity_force = plan.passivity;
        report.passivity_deficit = setting.deficit;
        report.dynamic = true;
        StepEnd {
            planned_f_mean: Some(plan.force),
            end: plan.step.end,
            start,
            dynamics: Some(dynamics),
            // Only through a mass the master's latest answer agreed with: a wrong one would
            // raise E_loss, which never falls, by work the bodies never did.
            predicted_port_work: if (self.coupling.last_estimate / mass - 1.0).abs()
                <= STEADY_ADOPTION
            {
                port_work
            } else {
                0.0
            },
        }
    }

    /// Where the master starts the step, under which external acceleration, and the dynamics
    /// the model is integrated with.
    #[inline(always)]
    fn dynamic_setting(&self, mass: f64, h: f64, settled: bool) -> DynamicSetting {
        let time = self.time;
        let deficit = self.passivity_deficit();
        let extrapolation = match self.parameters.acceleration_estimate {
            0 => Extrapolation::None,
            1 => Extrapolation::Constant,
            _ => Extrapolation::Linear,
        };
        let energy_bounded = self.parameters.m_eff == 0.0;
        let coupling = &self.coupling;
        // A supplied input derivative is the master's relative acceleration at the step start,
        // with the force it held over the last step in it.
        let supplied = match (self.supplied.a, self.supplied.b) {
            (None, None) => None,
            // With a mass adopted from a probe's answer (no m_eff given), the external
            // acceleration is the FMU's own, measured through that mass: the supplied one,
            // taken through it, puts the rebound off at steps of a tenth of the contact duration
            // (tests/impact_accuracy.rs), where the FMU's own gives it exactly.
            _ if coupling.mass_estimate > 0.0 && self.parameters.m_eff == 0.0 => None,
            (a, b) => Some(b.unwrap_or(0.0) - a.unwrap_or(0.0) + coupling.last_force / mass),
        };
        let a_ext = supplied.unwrap_or_else(|| coupling.a_ext(extrapolation, time, h));
        let dynamics = Dynamics {
            mass,
            a_ext,
            tolerance: self.parameters.relative_tolerance,
        };
        let (s, v) = self.inputs.relative_at(time);
        let master = Motion { s, v, a: a_ext };
        DynamicSetting {
            time,
            h,
            master,
            dynamics,
            supplied: supplied.is_some(),
            extrapolation,
            energy_bounded,
            deficit,
            settled,
        }
    }

    /// What the port returned beyond what the model says the contact dissipated (J), where that
    /// is more than the model's own error (`PASSIVITY_TOLERANCE` of the contact's dissipation);
    /// else 0. A replay corrects the model's figure; `E_loss`, which never falls, may still hold
    /// an over-report of a contact integrated along the motion.
    #[inline(always)]
    fn passivity_deficit(&self) -> f64 {
        let deficit =
            self.coupling.model_loss - self.coupling.e_port - self.coupling.initial_energy;
        if deficit > PASSIVITY_TOLERANCE * self.coupling.episode.dissipated.abs() {
            deficit
        } else {
            0.0
        }
    }

    /// The contact so far was integrated with another mass (or along the motion); replayed with
    /// the adopted one, it tells where the master should be now, and the correction takes it
    /// there. A contact the steps resolve (more than a few of them) goes on from the master's
    /// motion: each of its steps was integrated from there.
    #[inline(always)]
    fn replay_the_contact<L: ContactLaw>(
        &mut self,
        law: &L,
        setting: &DynamicSetting,
        report: &mut StepReport,
    ) {
        let (master, dynamics) = (setting.master, setting.dynamics);
        let without_a_given_mass = self.parameters.m_eff == 0.0;
        let coupling = &mut self.coupling;
        // A probe held over a step the contact had not begun in (f_next held up to an early
        // return at the touch-down) told the mass before any contact: that free step is
        // replayed, and the probe's impulse is owed back.
        let free_step_probed =
            without_a_given_mass && !coupling.episode.open && coupling.last_contact_impulse == 0.0;
        let episode = if !free_step_probed {
            coupling.episode
        } else {
            Episode {
                open: true,
                start: coupling.before_last,
                a_ext: dynamics.a_ext,
                ..Episode::default()
            }
        };
        let duration = setting.time - episode.start.time;
        if episode.contact_steps <= MAX_STEPS_OF_AN_UNRESOLVED_CONTACT && duration > 0.0 {
            let replayed = replay(law, &episode, dynamics, duration);
            // The replay owes the contact's motion, position and velocity, dead-beat, where the
            // contact so far held no force the master's bodies answered through a wrong mass: a
            // step the master held no force over, or, without a given mass, the probes of a
            // master that holds f_next inside a contact of two steps or more. Such a master held
            // the probe a step late and nothing over the step before its answer: the position two
            // steps of the contact's force owe is restored while the replayed contact lasts. A
            // given m_eff the answers contradicted sent the bodies where that mass took them, and
            // a contact over within two steps, or one the replay has left, is over with the
            // master deeper than any force put it: the velocity counts first
            // (`Pace::VelocityFirst`).
            let resolved = contact_duration(law, dynamics.mass, episode.start.v.abs())
                .is_some_and(|lasts| 2.0 * setting.h <= lasts);
            let probed_inside = without_a_given_mass
                && coupling.master_holds_next == Some(true)
                && resolved
                && distance_outside(law.contact_ends(), replayed.end.s) < 0.0;
            let velocity_first = coupling.mass_estimate > 0.0 && !probed_inside;
            coupling.owed_s = replayed.end.s - master.s;
            coupling.owed_v = replayed.end.v - master.v;
            coupling.correction = Correction {
                pace: if velocity_first {
                    Pace::VelocityFirst
                } else {
                    Pace::DeadBeat
                },
                ..Correction::default()
            };
            report.replayed_owed = Some((coupling.owed_s, coupling.owed_v));
            report.replayed_e_loss_excess = episode.dissipated - replayed.integral.dissipated;
            coupling.episode.dissipated = replayed.integral.dissipated;
        }
    }

    /// The correction's start for this step: what the model may forgive or fund of where it
    /// starts, and its settings (recovery, the energy bound, the speed fuse, robustness while
    /// the mass is not confirmed). Returns the fuse, which the prediction of `f_next` takes too.
    #[inline(always)]
    fn set_up_the_correction<L: ContactLaw>(
        &mut self,
        law: &L,
        setting: &DynamicSetting,
    ) -> SpeedFuse {
        let (master, mass) = (setting.master, setting.dynamics.mass);
        let coupling = &mut self.coupling;
        coupling.replay_pending = false;
        coupling.forgive_position(law, master, mass);
        coupling.fund_the_model_start(law, master, mass);
        coupling.correction.recover = coupling.master_holds_next != Some(true);
        coupling.correction.energy_bounded = setting.energy_bounded;
        let fuse = SpeedFuse {
            limit: SPEED_FUSE_FACTOR * coupling.passive_speed,
            a_free: coupling.a_free,
        };
        coupling.correction.fuse = fuse;
        coupling.correction.robust = !coupling.mass_confirmed;
        fuse
    }

    /// The force the master holds over this step, and what the model owes it after: the
    /// coupling takes the correction from there. Returns the force held, where the master is
    /// after the step and what is owed it.
    #[inline(always)]
    fn hold_the_plan(&mut self, planned: &PlannedStep<'_>) -> (f64, Motion, (f64, f64)) {
        let plan = planned.plan;
        let coupling = &mut self.coupling;
        // A master that steps all units at once holds the f_next it read before this step, with
        // the passivity controller's part predicted then.
        let (held, passivity_held) = match (coupling.master_holds_next, planned.next_before) {
            (Some(true), Some(next)) => (next, coupling.passivity_in_next),
            _ => (plan.force, plan.passivity),
        };
        coupling.assumed_held = held;
        let (master_next, owed, correction) = planned.after(held, passivity_held);
        (coupling.owed_s, coupling.owed_v) = owed;
        coupling.correction = correction;
        coupling.correction.robust = !coupling.mass_confirmed;
        (held, master_next, owed)
    }

    /// `f_next`'s prediction: the same plan one step ahead, from where the master will be then.
    /// `held`, `master_next` and `owed` are this step's held force, where it leaves the master
    /// and what the model then owes it.
    #[inline(always)]
    fn predict_f_next(
        &mut self,
        planned: &PlannedStep<'_>,
        held: f64,
        master_next: Motion,
        owed: (f64, f64),
    ) {
        let DynamicSetting {
            time,
            h,
            master,
            dynamics,
            ..
        } = *planned.setting;
        let (a_ext, mass, plan) = (master.a, dynamics.mass, planned.plan);
        let coupling = &mut self.coupling;
        // f_next is held only by a master that steps all units at once, which held the f_next
        // it read before this one too: predicted on that assumption while the reading is not
        // known (a master that reads both forces), whatever this step's bookkeeping assumed.
        let (master_next, owed_next, mut correction_next, held_next) =
            match (coupling.master_holds_next, planned.next_before) {
                (None, Some(next)) if next != held => {
                    let (m, o, c) = planned.after(next, coupling.passivity_in_next);
                    (m, o, c, next)
                }
                // Not readable before this step: the master that will hold it reads it from now
                // on (cofmupy reads every output after a step, none before the first), and held
                // its own start value over this step, no force. To any other it is only an output.
                (None, None) if held != 0.0 => {
                    let (m, o, c) = planned.after(0.0, 0.0);
                    (m, o, c, 0.0)
                }
                _ => (master_next, owed, coupling.correction, held),
            };
        correction_next.robust = !coupling.mass_confirmed;
        correction_next.recover = false;
        correction_next.energy_bounded = planned.setting.energy_bounded;
        correction_next.fuse = planned.fuse;
        // Only a force the master held answers: over a step it held nothing for (a Jacobi
        // master's first), the contact is delivered without waiting; a contact or a correction
        // held through a mass in doubt is answered before anything more is planned through it.
        correction_next.answer_pending = held_next != 0.0;
        // Over the next step: as long as this one, unless an early return tells otherwise.
        let h_next = self.next_step.unwrap_or(h);
        let next_dynamics = Dynamics {
            a_ext: if planned.setting.supplied {
                a_ext
            } else {
                coupling.a_ext(planned.setting.extrapolation, time + h, h_next)
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
        coupling.passivity_in_next = next_passivity;
        coupling.f_next = Prediction::Dynamic {
            owed: owed_next,
            correction: correction_next,
            master: master_next,
            dynamics: next_dynamics,
            h: h_next,
            passivity: next_passivity,
        };
    }
}

/// Where the master starts a dynamic step and how the model moves with it.
#[derive(Clone, Copy)]
struct DynamicSetting {
    time: f64,
    h: f64,
    /// The master's relative motion at the step start, under the external acceleration.
    master: Motion,
    dynamics: Dynamics,
    /// The master supplied its acceleration (input derivatives), which then holds for the next
    /// step too; else the acceleration is extrapolated.
    supplied: bool,
    extrapolation: Extrapolation,
    /// Without `m_eff`: the correction is held to the energy the port received.
    energy_bounded: bool,
    /// [`ElastoGap::passivity_deficit`] at the step start.
    deficit: f64,
    settled: bool,
}

/// The dynamic step as planned, before the force the master holds over it is known: what the
/// model owes the master after the step follows from that force ([`PlannedStep::after`]).
struct PlannedStep<'p> {
    setting: &'p DynamicSetting,
    plan: &'p Plan,
    /// The `f_next` the master read before this step, if it read one.
    next_before: Option<f64>,
    /// The plan the `f_next` made one step ago goes on with.
    continuation: Correction,
    /// A replay restarted the contact's correction in this step.
    replayed: bool,
    /// The correction's pace before this step's plan.
    prior_pace: Pace,
    fuse: SpeedFuse,
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

//! The normal contact over a co-simulation step. Without a mass (`kinematic_step`) the law is
//! integrated along the motion extrapolated from the inputs; with one (`dynamic_step`) the
//! relative motion is integrated under the contact's own force through that mass, from where the
//! model is (the master's motion plus what the model still owes it), and the coupling plans the
//! correction and the prediction of `f_next` as it goes (docs/coupling.md); a free step through
//! the mass (`free_step`) is planned whole first and taken only after the step's test. Along the
//! motion, a contact new to the master is probed (`probing_kinematic_step`).
//! Each returns the [`StepEnd`] that the step's test checks before the instance takes it.

use super::do_step::{HandedForces, StepStart};
use super::{ElastoGap, StepReport};
use crate::coupling::{
    only_grazes, DynamicPlan, DynamicSetting, Extrapolation, FreeStep, PROBE_SHARE,
};
use crate::laws::{distance_outside, ContactLaw};
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

impl StepEnd {
    /// The end of a step planned through the mass in `setting`, and what the step reports of
    /// the plan.
    #[inline(always)]
    fn through_the_mass(
        setting: &DynamicSetting,
        planned: &DynamicPlan,
        report: &mut StepReport,
    ) -> StepEnd {
        let plan = &planned.plan;
        report.integral = plan.step.integral;
        report.passivity_force = plan.passivity;
        report.passivity_deficit = setting.deficit;
        report.dynamic = true;
        StepEnd {
            planned_f_mean: Some(plan.force),
            end: plan.step.end,
            start: planned.start,
            dynamics: Some(setting.dynamics),
            predicted_port_work: planned.predicted_port_work,
        }
    }
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

    /// The step through the effective `mass`: the coupling replays the contact so far where the
    /// mass was newly adopted, sets up the correction, plans the step, takes the force the master
    /// holds over it and predicts `f_next` one step ahead
    /// ([`crate::coupling::Coupling::plan_the_dynamic_step`]).
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
        if self.co_simulation.coupling.replay_is_pending() {
            let without_a_given_mass = self.parameters.m_eff == 0.0;
            let replayed =
                self.co_simulation
                    .coupling
                    .replay_the_contact(law, &setting, without_a_given_mass);
            if let Some((owed, e_loss_excess)) = replayed {
                report.replayed_owed = Some(owed);
                report.replayed_e_loss_excess = e_loss_excess;
            }
        }
        // Over the next step: as long as this one, unless an early return tells otherwise.
        let h_next = self.co_simulation.next_step.unwrap_or(h);
        let replayed = report.replayed_owed.is_some();
        let planned = self.co_simulation.coupling.plan_the_dynamic_step(
            law,
            &setting,
            next_before,
            replayed,
            h_next,
        );
        StepEnd::through_the_mass(&setting, &planned, report)
    }

    /// The step through `mass` where it is a free one
    /// ([`crate::coupling::Coupling::plan_a_free_step`]): nothing of a contact under way or met.
    /// It writes nothing to the coupling before the step's test; the coupling takes the
    /// [`FreeStep`] once the step passed it. None where the step is not a free one.
    #[inline(always)]
    pub(super) fn free_step<L: ContactLaw>(
        &self,
        law: &L,
        mass: f64,
        h: f64,
        at_start: &StepStart,
        report: &mut StepReport,
    ) -> Option<(FreeStep, StepEnd, HandedForces)> {
        let setting = self.dynamic_setting(mass, h, at_start.settled);
        let h_next = self.co_simulation.next_step.unwrap_or(h);
        let next_before = at_start.next_before;
        let free =
            self.co_simulation
                .coupling
                .plan_a_free_step(law, &setting, next_before, h_next)?;
        let step_end = StepEnd::through_the_mass(&setting, free.dynamic(), report);
        report.cut_for_want_of_a_reading = free.cut_reported;
        let handed = HandedForces {
            f_mean: free.f_mean,
            next: free.next,
        };
        Some((free, step_end, handed))
    }

    /// Where the master starts the step, under which external acceleration, and the dynamics
    /// the model is integrated with.
    #[inline(always)]
    fn dynamic_setting(&self, mass: f64, h: f64, settled: bool) -> DynamicSetting {
        let time = self.time;
        let deficit = self.co_simulation.coupling.passivity_deficit();
        let extrapolation = match self.parameters.acceleration_estimate {
            0 => Extrapolation::None,
            1 => Extrapolation::Constant,
            _ => Extrapolation::Linear,
        };
        let energy_bounded = self.parameters.m_eff == 0.0;
        let coupling = &self.co_simulation.coupling;
        // A supplied input derivative is the master's relative acceleration at the step start,
        // with the force it held over the last step in it.
        let supplied = match (self.supplied.a, self.supplied.b) {
            (None, None) => None,
            // With a mass adopted from a probe's answer (no m_eff given), the external
            // acceleration is the FMU's own, measured through that mass: the supplied one,
            // taken through it, puts the rebound off at steps of a tenth of the contact duration
            // (tests/impact_accuracy.rs), where the FMU's own gives it exactly.
            _ if coupling.adopted_mass().is_some() && self.parameters.m_eff == 0.0 => None,
            (a, b) => Some(b.unwrap_or(0.0) - a.unwrap_or(0.0) + coupling.last_mean_force() / mass),
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

    /// The step without a mass: the law along the motion. A step with contact holds a probe (a
    /// share of the impulse along the motion) until an answer tells the mass; its dissipation is
    /// the probe's too, corrected by the replay once the mass is known.
    #[inline(always)]
    pub(super) fn probing_kinematic_step<L: ContactLaw>(
        &mut self,
        law: &L,
        h: f64,
        at_start: &StepStart,
        report: &mut StepReport,
    ) -> StepEnd {
        let step_end = self.kinematic_step(law, h, at_start.limits, report);
        // New to the master: no force it could have held over the step before; not a run
        // that starts compressed (unless the bodies stepped into the contact unseen).
        // Compressed where the master started it, not where its bodies stepped to unseen.
        let start = at_start
            .initial
            .map_or(step_end.start.s, |initial| initial.s);
        let compressed_start = self.co_simulation.coupling.last_step_length() == 0.0
            && distance_outside(law.contact_ends(), start) < 0.0
            && !self.co_simulation.coupling.replay_is_pending();
        // A probe of a contact that began at the very end of the last step may have been
        // too small for an answer; one this step's probe dwarfs leaves it new.
        let held_before = self.co_simulation.coupling.largest_force_held_before();
        // Compared as impulses: a division by h here would wait for the integration
        // on every kinematic step.
        let dwarfed = 1e-3 * PROBE_SHARE * report.integral.impulse.abs();
        // A contact the last step only grazed, and held in full, is still new.
        let unheld = held_before == 0.0
            || held_before * h < dwarfed
            || self.co_simulation.coupling.grazed_last();
        let new_contact = unheld && !compressed_start;
        let fresh = !at_start.plain
            && self.co_simulation.coupling.probing(true)
            && !self.co_simulation.coupling.probe_is_due();
        let impulse = report.integral.impulse;
        report.grazed = fresh
            && impulse != 0.0
            && only_grazes(law, PROBE_SHARE, impulse, step_end.end, h, at_start.limits);
        self.co_simulation.coupling.note_the_graze(report.grazed);
        let probe = !at_start.plain
            && self.co_simulation.coupling.probing(new_contact)
            && impulse != 0.0
            && !report.grazed;
        let full = (report.integral.impulse, report.integral.dissipated);
        let share = probe
            .then(|| {
                let speed = step_end.start.v.abs();
                self.co_simulation
                    .coupling
                    .hold_probe(full, at_start.next_before, speed, h)
            })
            .flatten();
        let (impulse, dissipated) = self
            .co_simulation
            .coupling
            .note_the_probe_held(share, full.0);
        if let Some(share) = share {
            report.integral.impulse *= share;
            report.integral.dissipated *= share;
        }
        report.integral.impulse += impulse;
        report.integral.dissipated += dissipated;
        step_end
    }
}

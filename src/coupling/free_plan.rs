//! The free step through a mass: nothing of a contact under way, and none met in the step. Most
//! steps an end stop sees are such steps, and a master that holds the force on a body asks for
//! one on each of them. [`Coupling::plan`] plans one as the free flight it is (`free_plan`);
//! [`Coupling::plan_a_free_step`] plans the whole dynamic step so, without touching the
//! coupling, and [`Coupling::take_the_free_step`] takes it once it passed its test: what the
//! dynamic step (`dynamic.rs`) and the bound on the forces (`port.rs`) would leave, as they
//! would leave it.

use super::dynamic::{DynamicPlan, DynamicSetting, Planned};
use super::plan::{held_over, through_the_speed_fuse, Plan, PlanStart};
use super::{Correction, Coupling, Prediction};
use crate::laws::{distance_outside, ContactLaw};
use crate::step::dynamic::{free_flight_step, Dynamics};

/// A free step through the mass as planned ([`Coupling::plan_a_free_step`]): its plan and the
/// forces it hands out, and what it leaves of the coupling once it passes its test.
pub struct FreeStep {
    planned: Planned,
    /// `f_mean` and `f_next` as the master reads them (`f_next` 0 where it does not).
    pub f_mean: f64,
    pub next: f64,
    /// A cut of an earlier force for want of a reading is reported with this step.
    pub cut_reported: bool,
    f_next_continuation: Correction,
}

impl FreeStep {
    /// The step through the mass as planned.
    pub fn dynamic(&self) -> &DynamicPlan {
        &self.planned.dynamic
    }
}

impl Coupling {
    /// The dynamic step through `setting` where it is a free one: nothing replayed or owed, the
    /// master outside the contact range (so that forgiving and funding the model's start change
    /// nothing), the plan a free flight (`free_plan`) and `f_next`, where the master reads it,
    /// no force either (a force of 0 is never cut, so no bound acts). None otherwise: the whole
    /// step then gives what this one would.
    #[inline(always)]
    pub fn plan_a_free_step<L: ContactLaw>(
        &self,
        law: &L,
        setting: &DynamicSetting,
        next_before: Option<f64>,
        h_next: f64,
    ) -> Option<FreeStep> {
        let quiet = !self.replay_pending
            && (self.owed_s, self.owed_v) == (0.0, 0.0)
            && distance_outside(law.contact_ends(), setting.master.s) >= 0.0;
        if !quiet {
            return None;
        }
        let from = self.plan_start(setting);
        let plan = free_plan(law, &from)?;
        let mut planned = self.planned(setting, &from, plan, next_before, false, h_next);
        let (next, f_next_continuation) = if self.master_reads_next() {
            // Made now, as the whole step makes it on the master's read (`make_f_next`); where
            // the next step is no free one either, the whole step plans it, once.
            let (force, continuation) = planned.prediction.planned_if_free(law)?;
            planned.prediction = Prediction::Known(force);
            (force, continuation)
        } else {
            (0.0, self.f_next_continuation)
        };
        let force = planned.dynamic.plan.force;
        if force != 0.0 || next != 0.0 {
            return None;
        }
        let f_mean = if self.may_hold_the_mean_late() {
            next
        } else {
            force
        };
        Some(FreeStep {
            planned,
            f_mean,
            next,
            cut_reported: self.cut_unread && !self.told_which_force_to_name,
            f_next_continuation,
        })
    }

    /// A free step passed its test: the coupling takes what it leaves.
    #[inline(always)]
    pub fn take_the_free_step(&mut self, free: FreeStep) {
        self.replay_pending = false;
        self.take_the_plan(&free.planned);
        self.f_next_continuation = free.f_next_continuation;
        self.cut_unread = false;
        self.told_which_force_to_name |= free.cut_reported;
    }
}

/// [`Coupling::plan`] where the step is a free flight and nothing of a contact is under way:
/// nothing owed, no correction planned, no passivity force, and a model that meets no contact
/// end in the step ([`free_flight_step`]). The correction's shift is then 0 (`Correction::next`
/// of no offset and no contact's shape), which no energy bound cuts, so the force is the speed
/// fuse's of none: the same plan as the whole one, without its contact machinery. None where
/// any of that does not hold.
#[inline(always)]
pub(super) fn free_plan<L: ContactLaw>(law: &L, from: &PlanStart) -> Option<Plan> {
    let PlanStart {
        owed,
        correction,
        master,
        dynamics,
        h,
        passivity,
    } = *from;
    if owed != (0.0, 0.0) || correction.count != 0 || passivity != 0.0 || !h.is_finite() {
        return None;
    }
    let Dynamics { mass, a_ext, .. } = dynamics;
    let fuse = correction.fuse;
    let step = free_flight_step(law, from.model_start(), dynamics, h)?;
    // `Correction::next` with no offset: a plan that waits for an answer keeps its pace.
    let correction = if correction.answer_pending && correction.robust {
        Correction {
            pace: correction.pace,
            robust: correction.robust,
            ..Correction::default()
        }
    } else {
        Correction::default()
    };
    let shift = 0.0;
    let force = step.integral.impulse / h - mass * shift / (h * h);
    let (force, passivity, correction) =
        through_the_speed_fuse(fuse, force, passivity, correction, master, mass, h);
    let master_end = held_over(master, a_ext - force / mass, h);
    Some(Plan {
        force: force + passivity,
        passivity,
        step,
        owed: (step.end.s - master_end.s, step.end.v - master_end.v),
        correction,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::{Coupling, Pace, SpeedFuse};
    use crate::laws::GapLaw;
    use crate::step::Motion;
    use crate::test_random::Xorshift;

    /// A drawn step whose plan may be a free one: a master near the contact or far from it, in
    /// it or not, a correction that waits for an answer or none, a speed fuse that cuts or not.
    fn drawn(rng: &mut Xorshift) -> (GapLaw, Motion, Dynamics, Correction, f64) {
        let mut pick = |low: f64, high: f64| low + (high - low) * rng.unit();
        let law = GapLaw {
            c: 10f64.powf(pick(2.0, 8.0)),
            d: 10f64.powf(pick(-1.0, 3.0)),
            s_rel0: [0.0, pick(-0.1, 0.1)][(pick(0.0, 2.0)) as usize],
            n: [1.0, 1.5, pick(1.0, 3.0)][(pick(0.0, 3.0)) as usize],
            ..GapLaw::default()
        };
        let h = 10f64.powf(pick(-5.0, -1.0));
        let v = pick(-2.0, 2.0);
        let a_ext = [0.0, -9.81, pick(-1e3, 1e3)][(pick(0.0, 3.0)) as usize];
        // Within a few steps' travel of the contact's edge, either side, or far from it.
        let reach = (v.abs() * h + a_ext.abs() * h * h).max(1e-12);
        let offset = [pick(-3.0, 3.0) * reach, pick(-1.0, 1.0)][(pick(0.0, 2.0)) as usize];
        let master = Motion {
            s: law.s_rel0 + offset,
            v,
            a: a_ext,
        };
        let dynamics = Dynamics {
            mass: 10f64.powf(pick(-3.0, 3.0)),
            a_ext,
            tolerance: 1e-9,
        };
        let correction = Correction {
            pace: [Pace::ThreeStep, Pace::DeadBeat, Pace::VelocityFirst][(pick(0.0, 3.0)) as usize],
            robust: pick(0.0, 1.0) < 0.5,
            answer_pending: pick(0.0, 1.0) < 0.5,
            recover: pick(0.0, 1.0) < 0.5,
            energy_bounded: pick(0.0, 1.0) < 0.5,
            fuse: SpeedFuse {
                limit: [0.0, pick(0.0, 3.0)][(pick(0.0, 2.0)) as usize],
                a_free: pick(-20.0, 20.0),
            },
            ..Correction::default()
        };
        (law, master, dynamics, correction, h)
    }

    /// Wherever the free plan is taken, it is the whole plan bit for bit (forces, motion, what is
    /// owed and the correction after it, compared as printed, so that a sign of zero counts);
    /// it is taken for most free steps and for no step that meets the contact.
    #[test]
    fn a_free_plan_is_the_whole_plan_bit_for_bit() {
        let mut rng = Xorshift(0x5eed_f1ee);
        let (mut taken, mut contact_steps) = (0, 0);
        let cases = 100_000;
        for case in 0..cases {
            let (law, master, dynamics, correction, h) = drawn(&mut rng);
            let owed = [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0)][case % 3];
            let from = PlanStart {
                owed,
                correction,
                master,
                dynamics,
                h,
                passivity: 0.0,
            };
            let whole = Coupling::plan_in_full(&law, &from);
            if whole.step.integral.substeps > 0 {
                contact_steps += 1;
            }
            let Some(free) = free_plan(&law, &from) else {
                continue;
            };
            taken += 1;
            assert_eq!(
                whole.step.integral.substeps, 0,
                "case {case}: a contact step taken"
            );
            assert_eq!(
                format!("{whole:?}"),
                format!("{free:?}"),
                "case {case}: {law:?} {from:?}"
            );
        }
        assert!(taken > cases / 3, "taken {taken} of {cases}");
        assert!(
            contact_steps > cases / 10,
            "contact steps {contact_steps} of {cases}"
        );
    }

    /// Anything owed, a correction under way or a passivity force: the whole plan.
    #[test]
    fn a_step_with_a_correction_or_a_passivity_force_is_not_free() {
        let law = GapLaw::default();
        let master = Motion {
            s: 1.0,
            v: 0.0,
            a: 0.0,
        };
        let dynamics = Dynamics {
            mass: 1.0,
            a_ext: 0.0,
            tolerance: 1e-9,
        };
        let idle = Correction::default();
        let planned = Correction { count: 1, ..idle };
        let h = 1e-3;
        let free = |owed, correction, passivity| {
            let from = PlanStart {
                owed,
                correction,
                master,
                dynamics,
                h,
                passivity,
            };
            free_plan(&law, &from).is_some()
        };
        assert!(free((0.0, 0.0), idle, 0.0));
        assert!(!free((1e-9, 0.0), idle, 0.0));
        assert!(!free((0.0, 1e-9), idle, 0.0));
        assert!(!free((0.0, 0.0), planned, 0.0));
        assert!(!free((0.0, 0.0), idle, 1.0));
    }
}

//! What a step's answer tells: [`Coupling::observe`] takes in the master's motion at each step
//! start and applies, in this order, the rules that read it (each in the function named in the
//! module overview, `mod.rs`). Before the first step, [`Coupling::begin_after_unseen_step`] takes
//! in a step the master took before the FMU saw one, and at a step start with a mass,
//! [`Coupling::begin_after_missed_contact`] a contact the model's last step missed.

use super::external::force_acceleration;
use super::{Coupling, Learned, Observed};
use crate::laws::{distance_outside, ContactLaw};
use crate::step::{integrate_step, Motion, SubstepLimits};

impl Coupling {
    /// Takes in the master's motion at a step start: the external acceleration of the last step
    /// (where the force the master held is known in acceleration, i.e. with a mass or without a
    /// force), and the contact episode bookkeeping behind the mass estimate.
    #[inline(always)]
    pub fn observe(
        &mut self,
        now: Observed,
        mass: Option<f64>,
        ends: (Option<f64>, f64),
    ) -> Learned {
        let mut learned = Learned::default();
        let Some(h1) = self.step_since_last(now) else {
            return learned;
        };
        let dv = now.v - self.last.v;
        self.forget_next_read_after_step();
        let holds_before = self.master_holds_next;
        self.holds_next_if_it_reads_only_next();
        self.read_which_force_was_held(now, mass, h1, dv);
        learned.late_mean = self.tell_a_late_mean(now, mass, h1, dv);
        self.estimate_from_a_step_both_readings_share(mass, h1, dv);
        let applied = self.held_force();
        self.account_the_ports_work(now, holds_before, applied);
        self.measure_the_ports_miss(now, applied, mass, h1);
        self.owe_what_another_force_did(mass, applied, h1);
        let from_force = force_acceleration(applied, mass);
        let before = self.known_before_step();
        let learned_mean = self.learn_the_steps_external_acceleration(from_force, applied, dv, now);
        self.trust_the_mass_under_changing_forces(mass, now, h1);
        self.open_an_episode_at_a_contact(ends, h1, applied, from_force, learned_mean, before);
        self.count_the_step_in_the_episode(h1);
        let coupled = self.asked_a_coupled_force(applied, mass, now, h1);
        if mass.is_none() {
            self.learn_without_a_mass(&mut learned, applied, dv, h1, before.a_ext, now);
        }
        if let (true, Some(force)) = (coupled, applied) {
            let answer = self.answer_to(force, before, now, dv, h1);
            self.learn_from_answer(&mut learned, answer, now, mass);
        }
        self.close_the_episode(&mut learned, now, mass);
        self.adopt_the_candidate(learned_mean, mass);
        self.note_passive_speed(now);
        self.move_on_to(now);
        learned
    }

    /// The step just taken, from the last step start to `now` (s). None at the first step start,
    /// where only the motion is taken in (and its speed, which the port has not paid for), and
    /// where the time did not advance.
    #[inline(always)]
    fn step_since_last(&mut self, now: Observed) -> Option<f64> {
        if self.last_h <= 0.0 {
            if now.v.is_finite() {
                self.passive_speed = self.passive_speed.max(now.v.abs());
            }
            self.last = now;
            self.before_last = now;
            return None;
        }
        let h1 = now.time - self.last.time;
        if h1.is_nan() || h1 <= 0.0 {
            self.last = now;
            return None;
        }
        Some(h1)
    }

    /// The step start `now` becomes the last one.
    #[inline(always)]
    fn move_on_to(&mut self, now: Observed) {
        self.before_last = self.last;
        self.last_held_before = self.last_held;
        self.last = now;
    }

    /// Before the first step: where the master moved its bodies since initialization by one
    /// step (it stepped them first), that step is taken as one the master held no force over,
    /// from the initial motion, and tells the external acceleration. A contact the motion met in
    /// it opens the contact episode there, to be replayed with the mass at once (without one, as
    /// soon as a probe's answer tells it), so that the impulse the master missed is delivered in
    /// the following steps.
    pub fn begin_after_unseen_step<L: ContactLaw>(
        &mut self,
        law: &L,
        initial: Observed,
        now: Observed,
        h: f64,
        limits: SubstepLimits,
    ) {
        let moved = initial.s != now.s || initial.v != now.v;
        // One step's motion, not start values the master replaced before stepping: the position
        // moved by about the mean of the two velocities times the step (exactly so under a
        // constant acceleration; a force that changes within the step bends it by a fraction of
        // the velocity change times the step).
        let mean_motion = 0.5 * (initial.v + now.v) * h;
        let slack = 0.25 * (now.v - initial.v).abs() * h
            + 1e-9 * (now.s.abs().max(initial.s.abs()) + mean_motion.abs());
        let plausible = (now.s - initial.s - mean_motion).abs() <= slack;
        if self.last_h != 0.0 || !moved || !plausible {
            return;
        }
        // A step like any other, over which the master held no force: its velocity change is
        // the external acceleration's, which the answer to the first probe needs (taken as 0,
        // gravity's change of a ball's speed over the step would be read as the answer to a
        // probe 1e-5 of the contact's, the mass would come out negative, and the next step would
        // deliver the contact along the motion from a step's fall deep in the floor, throwing
        // the ball back far faster than it fell).
        self.last = Observed {
            time: now.time - h,
            ..initial
        };
        self.last_h = h;
        self.last_force = 0.0;
        self.mean_before_last = 0.0;
        self.last_next = 0.0;
        self.assumed_held = 0.0;
        if let Some(impulse) = contact_over_unheld_step(law, initial, now, h, limits) {
            self.last_contact_impulse = impulse;
            self.replay_pending = true;
        }
    }

    /// At a step start, with a mass: a master inside the contact range that the model's last step
    /// did not bring into contact, over which nothing was held (the model missed it: in the first
    /// step no external acceleration is known yet, so a body falling under gravity from rest was
    /// taken as standing still). That step is taken as one the master held no force over, as
    /// after an unseen step: its contact opens the episode at its start, replayed at once with
    /// the external acceleration the step has just shown, and the impulse the master missed is
    /// delivered in the following steps. Integrated from where the master is instead, the contact
    /// would start deep in the stop: a ball dropped onto it at steps several contact durations
    /// long would be thrown back far faster than it fell.
    pub fn begin_after_missed_contact<L: ContactLaw>(
        &mut self,
        law: &L,
        now: Observed,
        limits: SubstepLimits,
    ) {
        let ends = law.contact_ends();
        let h = now.time - self.last.time;
        let missed = self.last_h > 0.0
            && h > 0.0
            && self.last_contact_impulse == 0.0
            && self.last_force == 0.0
            && self.last_next == 0.0
            && !self.episode.open
            && !self.replay_pending
            && distance_outside(ends, now.s) < 0.0
            && distance_outside(ends, self.last.s) >= 0.0;
        if !missed {
            return;
        }
        if let Some(impulse) = contact_over_unheld_step(law, self.last, now, h, limits) {
            self.last_contact_impulse = impulse;
            self.replay_pending = true;
        }
    }
}

/// The impulse of the contact that the master's motion from `from` to `now` (a step of `h` over
/// which it held no force, so uniformly accelerated) met along the way, if it met one: what a
/// step the FMU did not see, or saw and missed, owes the master.
fn contact_over_unheld_step<L: ContactLaw>(
    law: &L,
    from: Observed,
    now: Observed,
    h: f64,
    limits: SubstepLimits,
) -> Option<f64> {
    let motion = Motion {
        s: from.s,
        v: from.v,
        a: (now.v - from.v) / h,
    };
    let integral = integrate_step(law, motion, h, limits);
    (integral.substeps > 0 && integral.impulse.is_finite()).then_some(integral.impulse)
}

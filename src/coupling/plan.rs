//! The plan of the held force over one step and what the model owes the master after it.
//!
//! [`Coupling::plan`] integrates the model of the relative motion (the master's motion plus what
//! is owed) under the contact force and makes the force the master is to hold: the contact's
//! impulse over the step, the correction's shift ([`Correction::next`]) held to the model's energy
//! where the mass is estimated ([`energy_bounded_shift`]), the passivity controller's force
//! between contacts, and the speed fuse over all of it. What the model owes the master is kept
//! honest by three rules: a contact given through a wrong mass is replayed from its start with
//! the mass then known ([`replay`]), an offset left outside the contact is forgiven
//! ([`Coupling::forgive_position`]), and the model starts no deeper in a contact than the energy
//! it can account for ([`Coupling::fund_the_model_start`]).

use super::correction::Situation;
use super::free_plan::free_plan;
use super::{Correction, Coupling, Episode, Pace, SpeedFuse};
use crate::laws::{distance_outside, ContactLaw};
use crate::step::dynamic::{entry_time, integrate_dynamics, Dynamics};
use crate::step::{ContactSpan, DynamicStep, Motion};

/// How far the spring energy at the model's start may exceed what the coupling can account for
/// before the start is taken back towards the contact's edge ([`Coupling::fund_the_model_start`]).
const UNFUNDED_MARGIN: f64 = 2.0;

/// Newton steps to the funded depth at most ([`Coupling::fund_the_model_start`]).
const MAX_FUNDING_ITERATIONS: usize = 30;

/// The spring energy a one-sided contact holds at `depth` past its edge (J), by three-point
/// Gauss–Legendre on the spring force: exact for a linear spring, about 1e-3 for `n` = 1.5. It
/// tests a bound with a margin of two on every dynamic step that starts in contact, where the
/// quadrature to 1e-10 of `laws::spring_work` (336 evaluations) would make a prescribed motion's
/// steps many times slower.
fn stored_spring_energy<L: ContactLaw>(law: &L, depth: f64) -> f64 {
    const NODES: [(f64, f64); 3] = [
        (0.112_701_665_379_258_3, 5.0 / 18.0),
        (0.5, 8.0 / 18.0),
        (0.887_298_334_620_741_7, 5.0 / 18.0),
    ];
    let upper = law.contact_ends().1;
    NODES.iter().fold(0.0, |sum, &(x, w)| {
        sum + w * law.evaluate(upper - x * depth, 0.0).f_c.abs()
    }) * depth
}

impl Coupling {
    /// One step of the coupled model from where it starts (`from`, [`PlanStart`]): the force the
    /// master should hold (contact impulse over the step plus the correction, plus the passivity
    /// controller's force), the model's step, and what stays owed.
    pub fn plan<L: ContactLaw>(law: &L, from: &PlanStart) -> Plan {
        free_plan(law, from).unwrap_or_else(|| Coupling::plan_in_full(law, from))
    }

    /// [`Coupling::plan`] through the contact's machinery, whatever the step holds.
    pub(super) fn plan_in_full<L: ContactLaw>(law: &L, from: &PlanStart) -> Plan {
        let PlanStart {
            owed,
            correction,
            master,
            dynamics,
            h,
            passivity,
        } = *from;
        let Dynamics { mass, a_ext, .. } = dynamics;
        let fuse = correction.fuse;
        let start = from.model_start();
        let step = integrate_dynamics(law, start, dynamics, h);
        let impulse = step.integral.impulse;
        // Where the model ends against where a held force of impulse/h would have taken it;
        // without contact in the step the two agree (up to rounding, which is not an offset).
        let in_contact = step.integral.substeps > 0;
        let shape = if in_contact {
            let held = Motion {
                a: a_ext - impulse / (mass * h),
                ..start
            };
            step.end.s - held.at(h).s
        } else {
            0.0
        };
        let (situation, bound_to_model_energy) =
            situation_of_the_step(law, correction, master, start, &step, dynamics, h);
        let (shift, correction) = correction.next(owed, shape, h, situation);
        let (shift, correction) = if bound_to_model_energy {
            energy_bounded_shift(
                shift,
                correction,
                master,
                step.end,
                impulse / mass,
                a_ext,
                h,
            )
        } else {
            (shift, correction)
        };
        let force = impulse / h - mass * shift / (h * h);
        // The passivity controller acts between contacts only: in one, the contact's own force
        // decides what the port receives.
        let passivity = if in_contact { 0.0 } else { passivity };
        let (force, passivity, correction) =
            through_the_speed_fuse(fuse, force, passivity, correction, master, mass, h);
        let master_end = held_over(master, a_ext - force / mass, h);
        Plan {
            // The passivity controller's force acts on the master alone: the model does not
            // owe it back.
            force: force + passivity,
            passivity,
            step,
            owed: (step.end.s - master_end.s, step.end.v - master_end.v),
            correction,
        }
    }

    /// After a contact given through a wrong mass, whose velocity the correction restores: once
    /// the master and the model are both clear of the contact (or the master is, and the model
    /// rests in it for good), the model takes the master's position. The offset the wrong mass
    /// left is the master's motion, which the FMU does not steer toward its own; inside the
    /// contact range the model's position decides the contact force, so it is kept there.
    ///
    /// A master that is not taken back to the model's position (it holds `f_next`) and is still
    /// in the contact range, heading in, while the model is clear of it, meets the contact again
    /// with the model at the contact's edge: the rest of the offset is penetration that no force
    /// of the contact stored. Kept whole, the stop would lie that much further in: a body a second
    /// body pushes back in would go on into it without any force, and many times the initial
    /// energy would come out.
    pub fn forgive_position<L: ContactLaw>(&mut self, law: &L, master: Motion, mass: f64) {
        let ends = law.contact_ends();
        let master_outside = distance_outside(ends, master.s);
        let model_outside = distance_outside(ends, master.s + self.owed_s);
        // A model resting in a one-sided contact, its motion and spring too weak to climb out
        // against the external acceleration, would hold the master's bodies where they are by a
        // contact they are clear of (a ball thrown up by a contact through too large a mass
        // would be held above the floor by the force of a model resting on it, and rise).
        let model_v = master.v + self.owed_v;
        let depth = -model_outside;
        let model_rests = ends.0.is_none()
            && model_outside < 0.0
            && master.a < 0.0
            && 0.5 * model_v * model_v + stored_spring_energy(law, depth) / mass
                < -master.a * depth;
        if self.correction.pace == Pace::VelocityFirst
            && self.owed_s != 0.0
            && master_outside > 0.0
            && (model_outside > 0.0 || model_rests)
        {
            self.owed_s = 0.0;
            self.correction.count = 0;
        }
        if ends.0.is_none()
            && self.master_holds_next == Some(true)
            && master_outside < 0.0
            && model_outside > 0.0
            && master.v + self.owed_v <= 0.0
        {
            self.owed_s -= model_outside;
        }
    }

    /// The model starts no deeper in a one-sided contact than the energy it can account for:
    /// what the port has received and the contact has not dissipated, and what the master's
    /// bodies still have to give (their kinetic energy above the model's, which the correction
    /// takes from them). A model deeper than that got there along a motion no force of the contact
    /// answered (a probe's step, a first step integrated without the acceleration that took the
    /// body in), and integrated from there it would throw the bodies out with spring energy
    /// nothing stored: a ball whose contact is met in its first step, at steps many contact
    /// durations long, can start far into the floor and leave far faster than it came. Such a
    /// start is taken back towards the contact's edge, to the depth whose spring energy is
    /// accounted for.
    pub fn fund_the_model_start<L: ContactLaw>(&mut self, law: &L, master: Motion, mass: f64) {
        let (lower, upper) = law.contact_ends();
        let start = master.s + self.owed_s;
        let depth = upper - start;
        // Not under a master one step behind: it holds the f_next planned from the start as it
        // was, and a start moved after that leaves the step's account at odds with the force it
        // holds (which can turn a bounded run into a blow-up).
        if lower.is_some() || depth <= 0.0 || self.master_holds_next == Some(true) {
            return;
        }
        let model_v = master.v + self.owed_v;
        let to_give = 0.5 * mass * (master.v * master.v - model_v * model_v);
        let paid = (self.e_port + self.initial_energy - self.model_loss).max(0.0);
        let funded = (paid + to_give).max(0.0);
        // Twice the accounted energy is let pass: the mean force a master holds over a contact's
        // step does not do the model's work exactly, and such a start is the model's own motion.
        if stored_spring_energy(law, depth) <= UNFUNDED_MARGIN * funded {
            return;
        }
        // The stored energy grows with the depth, convex for a spring that stiffens: Newton's
        // steps from the deep side come down to the funded depth without overshooting it.
        let mut funded_depth = if funded > 0.0 { depth } else { 0.0 };
        for _ in 0..MAX_FUNDING_ITERATIONS {
            if funded_depth == 0.0 {
                break;
            }
            let excess = stored_spring_energy(law, funded_depth) - funded;
            let force = law.evaluate(upper - funded_depth, 0.0).f_c.abs();
            if excess <= 1e-9 * funded || force <= 0.0 {
                break;
            }
            funded_depth = (funded_depth - excess / force).max(0.0);
        }
        self.owed_s = upper - funded_depth - master.s;
    }
}

/// What the correction must allow for in the step `step` the model takes from `start` (the
/// master at `master`), and whether its shift is held to the model's energy.
fn situation_of_the_step<L: ContactLaw>(
    law: &L,
    correction: Correction,
    master: Motion,
    start: Motion,
    step: &DynamicStep,
    dynamics: Dynamics,
    h: f64,
) -> (Situation, bool) {
    let Dynamics { mass, a_ext, .. } = dynamics;
    let impulse = step.integral.impulse;
    let in_contact = step.integral.substeps > 0;
    // A contact due within the next two steps would meet a three-step correction half done (the
    // bodies' positions then carry the offset into it): plan the two-step one instead.
    let end = step.end;
    let free = Motion {
        s: end.s - law.s_rel0(),
        v: end.v,
        a: a_ext,
    };
    // Still in contact at the end, the next step plans anew anyway.
    let span = ContactSpan::of(law);
    let contact_soon = span.outside(free.s) >= 0.0 && entry_time(free, span, 2.0 * h).is_some();
    // While the mass is in doubt: the bodies' speed, and what the contact's own impulse in this
    // step changes it by, bound the shift (`Correction::next`).
    let speed = start.v.abs().max(master.v.abs());
    let contact_change = (impulse / mass).abs();
    let cap = (1.5 * speed - contact_change).max(0.0) * h;
    // A master inside the contact range that its velocity will not take out of it (a ball the first
    // steps let through the floor), or any master while the model is in contact (a resting
    // contact), is taken back to the model's position.
    let depth = -span.outside(master.s - law.s_rel0());
    let leaves = end.v > 0.0 && (a_ext >= 0.0 || end.v * end.v >= 2.0 * depth * -a_ext);
    let one_sided = law.contact_ends().0.is_none();
    // The model in contact: where the master is decides the contact force it answers with.
    let model_in_contact = span.outside(start.s - law.s_rel0()) < 0.0;
    let stuck = correction.recover && one_sided && depth > 0.0 && (!leaves || model_in_contact);
    // Held to the model's energy only where the model ends the step clear of the contact.
    let bound_to_model_energy = correction.energy_bounded && span.outside(free.s) >= 0.0;
    let situation = Situation {
        in_contact,
        contact_soon,
        stuck,
        cap,
    };
    (situation, bound_to_model_energy)
}

/// The speed fuse over the force the master is to hold, the correction's and the passivity
/// controller's together ([`SpeedFuse`]).
pub(super) fn through_the_speed_fuse(
    fuse: SpeedFuse,
    force: f64,
    passivity: f64,
    correction: Correction,
    master: Motion,
    mass: f64,
    h: f64,
) -> (f64, f64, Correction) {
    let held = force + passivity;
    let fused = fuse.apply(held, master.v, mass, h);
    if fused == held {
        (force, passivity, correction)
    } else {
        // Cut: planned anew from where the master then is.
        let anew = Correction {
            pace: correction.pace,
            ..Correction::default()
        };
        (fused, 0.0, anew)
    }
}

/// The largest part of the shift `shift` that leaves the master's bodies, at the step's end, with
/// no more mechanical energy than the model's (per unit of mass: the kinetic energy and the
/// potential of the external acceleration `a_ext`), or no more than they would have without it.
/// A correction through an estimated mass takes the master toward the model, never above the
/// model's energy: a ball whose position lags behind the model's is not thrown faster than its
/// rebound to catch up. Cut, the plan is made anew at the next step: the offset is caught up as
/// fast as the energy allows (under gravity, as the lag in height pays for). Forgiving the rest
/// instead (`Pace::VelocityFirst`) would leave more balls resting in the floor, and make a
/// prescribed motion (`tests/memcheck.rs`'s workload) several times slower, its model wandering
/// deep into the stop.
fn energy_bounded_shift(
    shift: f64,
    correction: Correction,
    master: Motion,
    model_end: Motion,
    velocity_change: f64,
    a_ext: f64,
    h: f64,
) -> (f64, Correction) {
    let unshifted = held_over(master, a_ext - velocity_change / h, h);
    let energy = |s: f64, v: f64| 0.5 * v * v - a_ext * s;
    let model_energy = energy(model_end.s, model_end.v);
    let unshifted_energy = energy(unshifted.s, unshifted.v);
    let unshifted_excess = unshifted_energy - model_energy;
    // A shift w moves the end by w/2 and its velocity by w/h: the excess is a*w^2 + b*w + c.
    let a = 0.5 / (h * h);
    let b = unshifted.v / h - 0.5 * a_ext;
    let excess = |w: f64| (a * w + b) * w + unshifted_excess;
    let allowed = unshifted_excess.max(0.0);
    // Rounding of the excess itself is no excess: a shift within it passes whole (cut at every
    // step instead, the demo's plans would be made anew each step and its bodies would leave the
    // MSL tube).
    let scale = model_energy.abs() + unshifted_energy.abs();
    let rounding = 1e-12 * scale;
    // NaN (a motion that is not finite): passed on whole, the step's own test refuses it.
    let over = excess(shift);
    if shift == 0.0 || over.is_nan() || over <= allowed + rounding {
        return (shift, correction);
    }
    // The excess is convex in w and within bounds at 0: the bound is met up to the root on the
    // shift's side.
    let c = unshifted_excess - allowed;
    let root = (b * b - 4.0 * a * c).max(0.0).sqrt();
    let bounded = if shift > 0.0 {
        (-b + root) / (2.0 * a)
    } else {
        (-b - root) / (2.0 * a)
    };
    let kept = Correction {
        pace: correction.pace,
        robust: correction.robust,
        ..Correction::default()
    };
    // A hair short of the root: at the root itself rounding lets a ball bouncing for many steps
    // gain a little of its energy on every flight (tests/contact_dynamics.rs).
    let bounded = (1.0 - 1e-9) * bounded;
    (bounded.clamp(shift.min(0.0), shift.max(0.0)), kept)
}

/// Where the master's relative motion is after `h` under a held force, i.e. a constant
/// acceleration.
pub fn held_over(master: Motion, acceleration: f64, h: f64) -> Motion {
    Motion {
        a: acceleration,
        ..master
    }
    .at(h)
}

/// Where [`Coupling::plan`] plans a step from: what the model owes the master (model minus
/// master, position and velocity), the correction under way, the master's motion (its `a` the
/// external acceleration), the dynamics the model moves with, the step, and the passivity
/// controller's force.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanStart {
    pub owed: (f64, f64),
    pub correction: Correction,
    pub master: Motion,
    pub dynamics: Dynamics,
    pub h: f64,
    pub passivity: f64,
}

impl PlanStart {
    /// Where the model starts: the master's motion plus what is owed, under the external
    /// acceleration.
    pub fn model_start(&self) -> Motion {
        Motion {
            s: self.master.s + self.owed.0,
            v: self.master.v + self.owed.1,
            a: self.dynamics.a_ext,
        }
    }
}

/// What [`Coupling::plan`] decided for one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The mean force to hold over the step.
    pub force: f64,
    /// The passivity controller's part of it.
    pub passivity: f64,
    pub step: DynamicStep,
    /// Model minus master at the step's end, if the master holds `force`.
    pub owed: (f64, f64),
    /// The correction plan after this step (its `expected` offsets for the caller to set).
    pub correction: Correction,
}

/// The model's motion over `[0, duration]` from the master's motion at a contact's start, with a
/// mass now known: what the first contact should have been.
pub fn replay<L: ContactLaw>(
    law: &L,
    episode: &Episode,
    dynamics: Dynamics,
    duration: f64,
) -> DynamicStep {
    // A contact starts at its edge: a master already deep in it at the episode's start was
    // there without the model (an offset a wrong mass or a probed contact left), and a replay
    // from there would return spring energy no force of the contact stored.
    let ends = law.contact_ends();
    let depth = -distance_outside(ends, episode.start.s);
    let s = if ends.0.is_none() && depth > 0.0 {
        episode.start.s + depth
    } else {
        episode.start.s
    };
    let start = Motion {
        s,
        v: episode.start.v,
        a: episode.a_ext,
    };
    integrate_dynamics(
        law,
        start,
        Dynamics {
            a_ext: episode.a_ext,
            ..dynamics
        },
        duration,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::Observed;
    use crate::laws::GapLaw;

    #[test]
    fn a_position_offset_is_removed_in_three_steps_without_net_impulse() {
        // Far from contact the law gives no force: only the correction acts.
        let law = GapLaw {
            s_rel0: -1.0,
            ..GapLaw::default()
        };
        let dynamics = Dynamics {
            mass: 2.0,
            a_ext: 0.0,
            tolerance: 1e-9,
        };
        let h = 0.01;
        let mut master = Motion {
            s: 0.0,
            v: 0.5,
            a: 0.0,
        };
        let mut owed = (1e-3, 0.0);
        let mut correction = Correction::default();
        let mut impulse = 0.0;
        let mut largest_offset: f64 = 0.0;
        for _ in 0..3 {
            let from = PlanStart {
                owed,
                correction,
                master,
                dynamics,
                h,
                passivity: 0.0,
            };
            let plan = Coupling::plan(&law, &from);
            impulse += plan.force * h;
            let a = -plan.force / dynamics.mass;
            master = Motion {
                s: master.s + h * (master.v + 0.5 * a * h),
                v: master.v + a * h,
                a: 0.0,
            };
            owed = plan.owed;
            correction = Correction {
                expected: owed,
                ..plan.correction
            };
            largest_offset = largest_offset.max(owed.0.abs());
        }
        // In between, the offset is at most a quarter of the original one.
        assert!(largest_offset <= 0.25e-3 * (1.0 + 1e-9), "{largest_offset}");
        assert!(owed.0.abs() < 1e-15 && owed.1.abs() < 1e-12, "{owed:?}");
        // Against the 0.2 N.s each of the two steps gives.
        assert!(impulse.abs() < 1e-12, "{impulse}");
        // The master now moves exactly as the model: 1 mm ahead of where it was headed.
        assert!((master.s - (1e-3 + 0.5 * 3.0 * h)).abs() < 1e-14);
        assert!((master.v - 0.5).abs() < 1e-13);
    }

    #[test]
    fn a_replay_starts_the_contact_at_its_edge_and_releases_no_spring_energy_it_did_not_store() {
        // A master 5 cm deep in a 1e6 N/m stop at rest at the episode's start: no force of the
        // contact put it there. From the edge at rest, under no external force, nothing moves;
        // from the depth the spring alone would throw 1 kg out at 50 m/s.
        let law = GapLaw {
            c: 1e6,
            d: 0.0,
            ..GapLaw::default()
        };
        let episode = Episode {
            open: true,
            start: Observed {
                time: 0.0,
                s: -0.05,
                v: 0.0,
            },
            ..Episode::default()
        };
        let dynamics = Dynamics {
            mass: 1.0,
            a_ext: 0.0,
            tolerance: 1e-9,
        };
        let replayed = replay(&law, &episode, dynamics, 0.01);
        assert_eq!(replayed.end.s, 0.0);
        assert_eq!(replayed.end.v, 0.0);
        // Met at 1 m/s from the edge, the undamped contact returns the body at 1 m/s.
        let moving = Episode {
            start: Observed {
                v: -1.0,
                ..episode.start
            },
            ..episode
        };
        let replayed = replay(&law, &moving, dynamics, 0.01);
        assert!((replayed.end.v - 1.0).abs() < 1e-6, "{:?}", replayed.end);
    }

    #[test]
    fn a_model_start_deeper_than_the_port_paid_for_is_taken_back_to_the_funded_depth() {
        // A linear stop of 1e6 N/m: 0.5 J of spring energy at 1 mm.
        let law = GapLaw {
            c: 1e6,
            d: 0.0,
            ..GapLaw::default()
        };
        let master = Motion {
            s: -0.05,
            v: -1.0,
            a: 0.0,
        };
        let deep = |e_port: f64, owed_v: f64| {
            let mut coupling = Coupling {
                e_port,
                owed_v,
                ..Coupling::default()
            };
            coupling.fund_the_model_start(&law, master, 2.0);
            master.s + coupling.owed_s
        };
        // Nothing paid, nothing to give (the model moves as the master): at the edge.
        assert!(deep(0.0, 0.0).abs() < 1e-15, "{}", deep(0.0, 0.0));
        // 0.5 J received: 1 mm deep, to Newton's tolerance.
        assert!((deep(0.5, 0.0) + 1e-3).abs() < 1e-9, "{}", deep(0.5, 0.0));
        // The master still to give 2 kg's kinetic energy above the model's (1 m/s against 0.5):
        // 0.75 J more, 1.581 mm.
        let expected = -(2.0 * 1.25 / 1e6_f64).sqrt();
        assert!(
            (deep(0.5, 0.5) - expected).abs() < 1e-9,
            "{}",
            deep(0.5, 0.5)
        );
        // A start whose spring energy (1,250 J at 5 cm) the port paid for stays where it is.
        assert_eq!(deep(1250.0, 0.0), -0.05);
    }

    #[test]
    fn a_shift_through_an_estimated_mass_gives_the_master_no_more_energy_than_the_model() {
        // A ball under gravity 2 mm below the model, both rising at 0.8 m/s after a bounce, 5 ms
        // steps: the three-step plan's first shift (1.5 times the offset) would throw it up at
        // 1.4 m/s.
        let (g, h) = (9.81, 5e-3);
        let master = Motion {
            s: 0.0,
            v: 0.8,
            a: -g,
        };
        let model_end = Motion {
            s: 0.002 + 0.8 * h - 0.5 * g * h * h,
            v: 0.8 - g * h,
            a: -g,
        };
        let planned = 1.5 * 0.002;
        let (shift, after) = energy_bounded_shift(
            planned,
            Correction::default(),
            master,
            model_end,
            0.0,
            -g,
            h,
        );
        // Per kilogram: the kinetic energy and g times the height, at the end of the step under
        // the held shift (a velocity change of shift/h, a position change of shift/2).
        let energy = |s: f64, v: f64| 0.5 * v * v + g * s;
        let free_end = (master.s + master.v * h - 0.5 * g * h * h, master.v - g * h);
        let shifted = energy(free_end.0 + 0.5 * shift, free_end.1 + shift / h);
        let model = energy(model_end.s, model_end.v);
        assert!(shift > 0.0 && shift < planned, "{shift}");
        assert!(
            shifted <= model && model - shifted < 1e-9 * model,
            "{shifted} against {model}"
        );
        // What the ball may gain is g times its 2 mm lag, 0.0196 J/kg: at 0.751 m/s, a velocity
        // u more with u^2/2 + (v + g*h/2)*u = g*lag, 24.9 mm/s.
        let v_end = master.v - g * h;
        let reach = v_end + 0.5 * g * h;
        let u = -reach + (reach * reach + 2.0 * g * 0.002).sqrt();
        assert!((shift / h - u).abs() < 1e-9, "{} against {u}", shift / h);
        // Planned anew at the next step, at the same pace.
        assert_eq!((after.count, after.pace), (0, Pace::ThreeStep));
        // A shift that takes energy from the master (a ball above the model) passes whole.
        let above = Motion { s: 0.004, ..master };
        let slowing = -1.5 * 0.002;
        let (kept, plan) =
            energy_bounded_shift(slowing, Correction::default(), above, model_end, 0.0, -g, h);
        assert_eq!((kept, plan), (slowing, Correction::default()));
    }

    #[test]
    fn a_master_clear_of_a_contact_its_model_rests_in_for_good_is_not_held_by_it() {
        // A ball a contact through a wrong mass threw up: the master is 15 cm above a 5e3 N/m
        // floor under 9.81 m/s^2, the model 0.98 mm deep in it (its weight's static deflection
        // for 0.5 kg) with the master's velocity. Resting there, the model would hold the ball
        // up with its weight's force: its position gives way to the master's. Moving out at
        // 1 m/s, it would leave the floor on its own: kept until it has.
        let law = GapLaw {
            c: 5e3,
            d: 0.0,
            ..GapLaw::default()
        };
        let (mass, depth) = (0.5, 0.5 * 9.81 / 5e3);
        let forgiven = |v: f64| {
            let mut coupling = Coupling {
                owed_s: -0.15 - depth,
                correction: Correction {
                    pace: Pace::VelocityFirst,
                    ..Correction::default()
                },
                ..Coupling::default()
            };
            let master = Motion {
                s: 0.15,
                v,
                a: -9.81,
            };
            coupling.forgive_position(&law, master, mass);
            coupling.owed_s == 0.0
        };
        assert!(forgiven(0.01));
        assert!(!forgiven(1.0));
    }
}

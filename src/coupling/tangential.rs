//! The master's answers in the contact's tangential plane, and the mass they tell.
//!
//! The FMU sees the slip velocity only, not the body behind it, and no parameter gives that body's
//! tangential mass: `m_eff` is the normal motion's, and a contact point off a body's centre of
//! mass, or a rolling body, has a smaller one across; a master may also prescribe the slip (a
//! belt, a test rig), where any mass is wrong. So the friction takes a mass only from the master's
//! own answers: each step's velocity change against the mean force the master held over it, fitted
//! per direction over the last six answers ([`AnswerWindow`], without its position term: a sticking
//! contact's force follows the body's position, and would pass for a spring behind it). A
//! prescribed slip answers no force and never gives one; a body held by stiction on a slip held
//! over the step oscillates on the stiction spring, and gives one within a few steps.
//!
//! A Jacobi master holds the force of the step before: its answers fit that force, not the step's.
//! They are kept apart; which of the two fits tells which force the master holds.

use super::mass_fit::AnswerWindow;
use crate::laws::slip_speed;
use crate::step::PlaneDynamics;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TangentialAnswers {
    /// Per direction, the velocity changes the master reported against the mean force of the
    /// same step (what a Gauss–Seidel master holds)...
    pub against_same: [AnswerWindow; 2],
    /// ... and against the force of the step before (what a Jacobi master holds).
    pub against_before: [AnswerWindow; 2],
    /// The last step taken: its start (s), size (s) and slip velocity (m/s).
    pub last_time: f64,
    pub last_h: f64,
    pub last_v: [f64; 2],
    /// The mean forces of the last three steps, newest first (N).
    pub forces: [[f64; 2]; 3],
    /// The steps recorded without a break in time (saturates at 3).
    pub steps: usize,
    /// The master's latest velocity change per unit time (m/s^2), set when it answered, and the
    /// one before it.
    pub rate: [f64; 2],
    pub rate_before: [f64; 2],
    /// Whether the latest answer came after a step recorded without a break, and whether the
    /// one before it did too.
    pub answered: bool,
    pub answered_before: bool,
    /// The tangential mass the answers told (kg); 0 while none has.
    pub mass: f64,
    /// Whether the answers told that the master holds the step before's force (Jacobi).
    pub holds_earlier: bool,
    /// A fit that disagreed with the mass in use, and whether it had the master hold the step
    /// before's force: adopted when the next fit agrees with it.
    pub candidate: f64,
    pub candidate_holds_earlier: bool,
    /// The slip the last step predicted for its end through the mass, if it did.
    pub predicted: Option<[f64; 2]>,
    /// The answers in a row the prediction missed.
    pub misses: usize,
}

/// What an answer told about the tangential mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Told {
    /// A mass (kg), new or changed by more than [`SAME_MASS`].
    Mass(f64),
    /// The answers missed the slip the mass (kg) predicted, [`MISSES_TO_DROP`] times in a row, by more than
    /// [`MISS_SHARE`] of the predicted change: the slip is not that mass's (a slip the master
    /// prescribes, which a body on the stiction spring can look like while it sticks).
    Contradicted(f64),
}

/// The masses an answer may tell (kg): beyond, a fit of the rounding in nearly equal answers,
/// whose dynamics would overflow.
const PLAUSIBLE_MASS: std::ops::RangeInclusive<f64> = 1e-12..=1e12;

/// Fits within this share of each other tell the same mass.
const SAME_MASS: f64 = 0.1;
/// The share of the predicted change of the slip over a step, and of `v_s`, an answer may miss
/// by and still agree with the mass.
const MISS_SHARE: f64 = 0.5;
const MISS_FLOOR: f64 = 0.05;
/// The answers in a row that must miss before a mass goes: one or two miss near a switch of the
/// friction at large steps (the switch falls between substeps), and a good mass dropped leaves
/// the stiction spring coupled explicitly again.
const MISSES_TO_DROP: usize = 3;

/// The slip's dynamics over a step, as the master's answers tell them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlipDynamics {
    /// The mass, and the external acceleration over the step (at its middle).
    pub plane: PlaneDynamics,
    /// How fast that acceleration changes (m/s^3), to carry it to the next step.
    pub a_ext_slope: [f64; 2],
    /// The force a Jacobi master holds over this step (the FMU's last output); None for one
    /// that holds the step's own.
    pub held: Option<[f64; 2]>,
}

impl SlipDynamics {
    /// The dynamics a step later (`h` on).
    pub fn later(&self, h: f64) -> PlaneDynamics {
        PlaneDynamics {
            mass: self.plane.mass,
            a_ext: std::array::from_fn(|axis| self.plane.a_ext[axis] + h * self.a_ext_slope[axis]),
        }
    }
}

/// The mass one window of answers tells, fitted without the external acceleration's term in
/// the position (a spring behind the body): a sticking contact's force follows the position
/// itself, and with that term a body on the stiction spring tells no mass. (With it, in the
/// slips between, the oscillators of tests/stick_slip.rs would fit better, but a Jacobi master's
/// answers would then also fit the step's own force, and its masters would lose energy of the
/// order of what the stiction spring holds.)
fn fitted_mass(window: &AnswerWindow) -> Option<f64> {
    window.fit().map(|fit| fit.mass)
}

impl TangentialAnswers {
    /// Takes the master's slip velocity at the start of the step from `time`: an answer to the
    /// last step if it ended there. `v_s` scales the slips an answer may miss a prediction by.
    /// Returns what the answer told about the mass, if anything new.
    pub fn observe(&mut self, time: f64, v_t: [f64; 2], v_s: f64) -> Option<Told> {
        let end = self.last_time + self.last_h;
        let slack = 1e-9 * time.abs().max(1.0);
        self.answered_before = self.answered && self.steps > 2;
        self.rate_before = self.rate;
        self.answered = self.steps > 0 && (time - end).abs() <= slack;
        if !self.answered {
            self.against_same = Default::default();
            self.against_before = Default::default();
            self.steps = 0;
            return None;
        }
        let middle = self.last_time + 0.5 * self.last_h;
        for (axis, &v) in v_t.iter().enumerate() {
            let rate = (v - self.last_v[axis]) / self.last_h;
            self.rate[axis] = rate;
            self.against_same[axis].push(middle, 0.0, rate, self.forces[0][axis]);
            if self.steps > 1 {
                self.against_before[axis].push(middle, 0.0, rate, self.forces[1][axis]);
            }
        }
        // The master is the truth: a mass whose predictions its answers keep missing goes.
        if let Some(predicted) = self.predicted.filter(|_| self.mass > 0.0) {
            let difference = |a: [f64; 2], b: [f64; 2]| slip_speed([a[0] - b[0], a[1] - b[1]]);
            let miss = difference(v_t, predicted);
            let change = difference(predicted, self.last_v);
            self.misses = if miss > MISS_SHARE * change + MISS_FLOOR * v_s {
                self.misses + 1
            } else {
                0
            };
            if self.misses >= MISSES_TO_DROP {
                let dropped = self.mass;
                (self.mass, self.candidate, self.misses) = (0.0, 0.0, 0);
                self.against_same = Default::default();
                self.against_before = Default::default();
                return Some(Told::Contradicted(dropped));
            }
        }
        let least =
            |windows: &[AnswerWindow; 2]| windows.iter().filter_map(fitted_mass).reduce(f64::min);
        let plausible = |mass: Option<f64>| mass.filter(|m| PLAUSIBLE_MASS.contains(m));
        let fits = (
            plausible(least(&self.against_same)),
            plausible(least(&self.against_before)),
        );
        let (mass, holds_earlier) = match fits {
            (Some(mass), None) => (mass, false),
            (None, Some(mass)) => (mass, true),
            // Neither, or both (forces too regular to tell apart): as before.
            _ => return None,
        };
        let agrees = |other: f64, other_holds_earlier: bool| {
            other > 0.0
                && other_holds_earlier == holds_earlier
                && (mass / other - 1.0).abs() <= SAME_MASS
        };
        if agrees(self.mass, self.holds_earlier) {
            // The same mass, refined.
            (self.mass, self.candidate) = (mass, 0.0);
            return None;
        }
        // Without a mass the first fit is taken; one that disagrees with the mass in use (a
        // window across a switch of the friction can fit a mass many times off) must be told
        // twice.
        if self.mass > 0.0 && !agrees(self.candidate, self.candidate_holds_earlier) {
            (self.candidate, self.candidate_holds_earlier) = (mass, holds_earlier);
            return None;
        }
        (self.mass, self.holds_earlier, self.candidate) = (mass, holds_earlier, 0.0);
        Some(Told::Mass(mass))
    }

    /// The slip's dynamics over the step about to be taken (`h`): through the mass the answers
    /// told, the external acceleration the latest two answers give through it (each velocity
    /// change with the force the master held added back), carried linearly to this step's
    /// middle. None without a mass or without an answer this step.
    pub fn dynamics(&self, h: f64) -> Option<SlipDynamics> {
        if !(self.answered && self.mass > 0.0) {
            return None;
        }
        let mass = self.mass;
        // The force held over the step an answer answers: a Jacobi master's is a step older.
        let lag = usize::from(self.holds_earlier);
        let latest: [f64; 2] =
            std::array::from_fn(|axis| self.rate[axis] + self.forces[lag][axis] / mass);
        let a_ext_slope = if self.answered_before {
            std::array::from_fn(|axis| {
                let before = self.rate_before[axis] + self.forces[lag + 1][axis] / mass;
                (latest[axis] - before) / self.last_h
            })
        } else {
            [0.0; 2]
        };
        // The latest answer's middle lies half a step before this step's start, this step's
        // middle half a step after it.
        let ahead = 0.5 * (self.last_h + h);
        Some(SlipDynamics {
            plane: PlaneDynamics {
                mass,
                a_ext: std::array::from_fn(|axis| latest[axis] + ahead * a_ext_slope[axis]),
            },
            a_ext_slope,
            held: self.holds_earlier.then_some(self.forces[0]),
        })
    }

    /// Records the step taken from `time` by `h` at the slip `v_t`, with the mean force `force`
    /// it gave and the slip it predicted for its end through the mass, if it did.
    pub fn record(
        &mut self,
        time: f64,
        h: f64,
        v_t: [f64; 2],
        force: [f64; 2],
        predicted: Option<[f64; 2]>,
    ) {
        self.predicted = predicted;
        self.forces = [force, self.forces[0], self.forces[1]];
        (self.last_time, self.last_h, self.last_v) = (time, h, v_t);
        self.steps = (self.steps + 1).min(3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1.5 kg body pushed along x with 3 N, under a force of its own that varies by step, as a
    /// master holding `holds(k)` over step k answers it.
    fn answers(holds_before: bool) -> TangentialAnswers {
        let (mass, push, h) = (1.5, 3.0, 1e-3);
        let forces: Vec<f64> = (0..12).map(|k| 2.0 + (0.7 * k as f64).sin()).collect();
        let mut answers = TangentialAnswers::default();
        let mut v = 0.2;
        for (k, &force) in forces.iter().enumerate() {
            let time = k as f64 * h;
            answers.observe(time, [v, 0.0], 0.01);
            answers.record(time, h, [v, 0.0], [force, 0.0], None);
            let held = if holds_before {
                k.checked_sub(1).map_or(0.0, |before| forces[before])
            } else {
                force
            };
            v += (push - held) / mass * h;
        }
        answers.observe(12.0 * h, [v, 0.0], 0.01);
        answers
    }

    #[test]
    fn a_gauss_seidel_masters_answers_tell_the_mass_and_the_push() {
        let answers = answers(false);
        assert!((answers.mass - 1.5).abs() < 1e-9, "{answers:?}");
        assert!(!answers.holds_earlier);
        let dynamics = answers.dynamics(1e-3).expect("a mass");
        assert!((dynamics.plane.a_ext[0] - 2.0).abs() < 1e-9, "{dynamics:?}");
        assert!(dynamics.plane.a_ext[1].abs() < 1e-12, "{dynamics:?}");
        assert_eq!(dynamics.held, None);
    }

    #[test]
    fn a_jacobi_masters_answers_tell_the_mass_and_the_force_it_holds() {
        let answers = answers(true);
        assert!((answers.mass - 1.5).abs() < 1e-9, "{answers:?}");
        assert!(answers.holds_earlier);
        let dynamics = answers.dynamics(1e-3).expect("a mass");
        assert!((dynamics.plane.a_ext[0] - 2.0).abs() < 1e-9, "{dynamics:?}");
        assert_eq!(dynamics.held, Some(answers.forces[0]));
    }

    #[test]
    fn a_prescribed_slip_gives_no_mass_and_a_break_in_time_forgets_the_answers() {
        let mut answers = TangentialAnswers::default();
        for k in 0..12 {
            let time = k as f64 * 1e-3;
            let v = 0.1 * (30.0 * time).cos();
            answers.observe(time, [v, 0.0], 0.01);
            answers.record(time, 1e-3, [v, 0.0], [1.0 + (k % 3) as f64, 0.0], None);
        }
        assert_eq!(answers.mass, 0.0, "{answers:?}");
        answers.observe(0.5, [0.0; 2], 0.01);
        assert_eq!(answers.steps, 0);
        assert_eq!(answers.against_same[0].count, 0);
    }
}

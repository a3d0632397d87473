//! The momentum-free correction that takes the master's relative motion to the model's.

use super::passivity::SpeedFuse;

/// The momentum-free correction of what the master owes, planned over three steps.
///
/// With `p` the position offset (including the one the held force leaves in this step) and
/// `q = e_v*h` the velocity offset in position units, a held extra acceleration `w/h^2` moves the
/// offsets by `p' = p + q - w/2`, `q' = q - w`. Three steps reach zero offset and zero velocity;
/// of those plans, `w1 = 1.5p + 1.75q`, `w2 = p + 2.5q - 2*w1`, `w3 = q - w1 - w2` keeps the
/// offsets at the two communication points in between smallest (a quarter of a position offset,
/// against half for the two-step dead-beat law). The plan is followed as long as nothing new
/// happens; a new contact or an offset other than planned starts a new one. Where the model
/// meets the stop again within two steps, the two-step dead-beat law (`w1 = p + 1.5q`) finishes
/// the correction before that contact instead.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Correction {
    /// The shifts `w` still to apply, in order, and how many.
    pub remaining: [f64; 2],
    pub count: u32,
    /// The offsets (m, m/s) the plan expects at the next step's start.
    pub expected: (f64, f64),
    /// How fast the next correction goes.
    pub pace: Pace,
    /// No answer of the master has confirmed the mass yet: the shifts are bounded (`cap` of
    /// [`Correction::next`]), and a step planned before the answer to a contact waits for it.
    pub robust: bool,
    /// The step planned follows a contact step whose answer the plan cannot know yet (`f_next`,
    /// planned before it): with the mass in doubt, it waits for that answer. Only in a
    /// prediction, never kept.
    pub answer_pending: bool,
    /// Whether a master stuck inside the contact range is taken back to the model's position
    /// (not under a master one step behind, for which the recovery, planned a step ahead,
    /// overshoots); set for each step.
    pub recover: bool,
    /// Whether a shift may give the master's bodies no more energy than the model has (no mass
    /// given: the mass is the FMU's estimate); set for each step.
    pub energy_bounded: bool,
    /// The last guard of passivity ([`super::passivity::SpeedFuse`]); set for each step.
    pub fuse: SpeedFuse,
}

/// The share of the position offset a velocity-first correction takes back per step from a
/// master stuck inside the contact range.
pub const POSITION_RECOVERY: f64 = 0.25;

/// How fast a correction removes what is owed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pace {
    /// The three-step plan (the offsets in between smallest).
    #[default]
    ThreeStep,
    /// Two steps: where the correction waited for the master's answer, or after the replay of a
    /// contact the master could not be told about (the bodies stepped first) with the mass it
    /// was integrated with, or of one probed without a given mass by a master that holds
    /// `f_next` (`Coupling::replay_the_contact`); position and velocity are both the contact's.
    DeadBeat,
    /// After the replay of a contact with a newly adopted mass otherwise: the velocity the
    /// bodies should have is restored in one step (it is what their energy is made of); the
    /// position the wrong mass left them at is the master's, not corrected (the master is the
    /// truth): once both the master and the model are clear of the contact the model takes the
    /// master's position (`Coupling::forgive_position`).
    VelocityFirst,
}

impl Pace {
    /// Its number in a serialized state.
    pub fn code(self) -> f64 {
        match self {
            Pace::ThreeStep => 0.0,
            Pace::DeadBeat => 1.0,
            Pace::VelocityFirst => 2.0,
        }
    }

    pub fn from_code(code: f64) -> Pace {
        match code as i64 {
            1 => Pace::DeadBeat,
            2 => Pace::VelocityFirst,
            _ => Pace::ThreeStep,
        }
    }
}

/// What the step being planned is like, for [`Correction::next`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Situation {
    /// The model is in contact in the step.
    pub(super) in_contact: bool,
    /// The model meets the contact within the next two steps.
    pub(super) contact_soon: bool,
    /// The master is inside the contact range and will not leave it on its own (or the model
    /// rests in contact), and may be taken back to the model's position.
    pub(super) stuck: bool,
    /// The largest shift while the mass is in doubt (m).
    pub(super) cap: f64,
}

impl Correction {
    /// The shift `w` (m) for this step and the plan after it. While the mass is in doubt
    /// (`robust`), no shift may change the master's speed by more than `cap` (m, a velocity
    /// times the step): one and a half times the bodies' speed less the contact's own change
    /// of it, so that a shift through a mass up to twice the real one leaves them below three
    /// times their approach speed.
    pub(super) fn next(
        self,
        owed: (f64, f64),
        shape: f64,
        h: f64,
        situation: Situation,
    ) -> (f64, Correction) {
        let Situation {
            in_contact: disturbed,
            contact_soon,
            stuck,
            cap,
        } = situation;
        let tolerance = 1e-12 * (owed.0.abs() + self.expected.0.abs() + h * owed.1.abs()) + 1e-300;
        let on_plan = !disturbed
            && self.count > 0
            && (owed.0 - self.expected.0).abs() <= tolerance
            && ((owed.1 - self.expected.1) * h).abs() <= tolerance;
        if on_plan {
            let rest = Correction {
                remaining: [self.remaining[1], 0.0],
                count: self.count - 1,
                expected: self.expected,
                ..Correction::default()
            };
            return (self.remaining[0], rest);
        }
        if self.answer_pending && self.robust {
            // While the mass is in doubt, the step after a contact step that is planned before
            // the master's answer to it (f_next) waits for that answer: a correction planned
            // through a wrong mass would add its error to the contact's.
            return (
                0.0,
                Correction {
                    pace: self.pace,
                    robust: self.robust,
                    ..Correction::default()
                },
            );
        }
        let p = owed.0 + shape;
        let q = owed.1 * h;
        if p == 0.0 && q == 0.0 {
            return (0.0, Correction::default());
        }
        let (w, plan) = self.planned(p, q, contact_soon, stuck);
        if self.robust && w.abs() > cap {
            // Capped: planned anew from where the master then is.
            let kept = Correction {
                pace: self.pace,
                robust: true,
                ..Correction::default()
            };
            return (w.clamp(-cap, cap), kept);
        }
        (
            w,
            Correction {
                robust: self.robust,
                ..plan
            },
        )
    }

    /// The first shift of the plan for offsets `p` and `q = e_v*h`, and the plan after it.
    fn planned(self, p: f64, q: f64, contact_soon: bool, stuck: bool) -> (f64, Correction) {
        if self.pace == Pace::VelocityFirst {
            // A master stuck inside the contact range is taken back to the model's position
            // too, a share per step.
            let recovery = if stuck { POSITION_RECOVERY * p } else { 0.0 };
            return (
                q + recovery,
                Correction {
                    pace: Pace::VelocityFirst,
                    ..Correction::default()
                },
            );
        }
        if contact_soon || self.pace == Pace::DeadBeat {
            // The dead-beat law: zero offset and velocity after two steps.
            let w1 = p + 1.5 * q;
            let (p1, q1) = (p + q - 0.5 * w1, q - w1);
            let w2 = p1 + 1.5 * q1;
            return (
                w1,
                Correction {
                    remaining: [w2, 0.0],
                    count: 1,
                    ..Correction::default()
                },
            );
        }
        let w1 = 1.5 * p + 1.75 * q;
        let w2 = p + 2.5 * q - 2.0 * w1;
        let w3 = q - w1 - w2;
        (
            w1,
            Correction {
                remaining: [w2, w3],
                count: 2,
                ..Correction::default()
            },
        )
    }
}

//! What a step rewrites of the coupling before its test, to put back where the step is refused:
//! through the mass, the plan (what is owed, the correction, the force assumed held, `f_next` and
//! the passivity controller's part of it, `f_next`'s continuation); along the motion, the probe
//! (its share, what it held back, the mass it takes for granted, the graze) and the correction's
//! pace, which a cut of the force changes; either, the note of a cut made for want of a reading.
//! A step that replays a contact ([`Coupling::replay_the_contact`]) rewrites the episode's
//! dissipation too.

use super::{Correction, Coupling, Pace, Prediction, RoughAnswer};

/// The part of the coupling a step rewrites before its test.
#[derive(Clone, Copy, Debug)]
pub struct Rewritten {
    cut_unread: bool,
    told_which_force_to_name: bool,
    part: Part,
}

/// The plan's or the probe's part of [`Rewritten`]. Kept on the stack for one step: boxed, the
/// larger part would allocate in the step.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
enum Part {
    Plan {
        correction: Correction,
        replay_pending: bool,
        episode_dissipated: f64,
        owed: (f64, f64),
        assumed_held: f64,
        passivity_in_next: f64,
        f_next: Prediction,
        f_next_continuation: Correction,
    },
    Probe {
        pace: Pace,
        pending: bool,
        grazed: (bool, bool),
        last_probed: Option<f64>,
        port_work_held_back: f64,
        rest: (f64, f64),
        rest_waiting: (f64, f64),
        assumed_mass: f64,
        unclear: u32,
        rough_answer: RoughAnswer,
    },
}

impl Coupling {
    /// What a step may rewrite, as it is before the step: through the mass (`dynamic`), or
    /// along the motion.
    #[inline(always)]
    pub fn before_the_step(&self, dynamic: bool) -> Rewritten {
        let part = if dynamic {
            Part::Plan {
                correction: self.correction,
                replay_pending: self.replay_pending,
                episode_dissipated: self.episode.dissipated,
                owed: (self.owed_s, self.owed_v),
                assumed_held: self.assumed_held,
                passivity_in_next: self.passivity_in_next,
                f_next: self.f_next,
                f_next_continuation: self.f_next_continuation,
            }
        } else {
            Part::Probe {
                pace: self.correction.pace,
                pending: self.probe_pending,
                grazed: (self.grazed, self.grazed_before_last),
                last_probed: self.last_probed,
                port_work_held_back: self.port_work_held_back,
                rest: self.probe_rest,
                rest_waiting: self.probe_rest_waiting,
                assumed_mass: self.probe_assumed_mass,
                unclear: self.unclear_probes,
                rough_answer: self.rough_answer,
            }
        };
        Rewritten {
            cut_unread: self.cut_unread,
            told_which_force_to_name: self.told_which_force_to_name,
            part,
        }
    }

    /// A refused step: the coupling as it was before the step.
    pub fn put_back(&mut self, before: Rewritten) {
        self.cut_unread = before.cut_unread;
        self.told_which_force_to_name = before.told_which_force_to_name;
        match before.part {
            Part::Plan {
                correction,
                replay_pending,
                episode_dissipated,
                owed,
                assumed_held,
                passivity_in_next,
                f_next,
                f_next_continuation,
            } => {
                self.correction = correction;
                self.replay_pending = replay_pending;
                self.episode.dissipated = episode_dissipated;
                (self.owed_s, self.owed_v) = owed;
                self.assumed_held = assumed_held;
                self.passivity_in_next = passivity_in_next;
                self.f_next = f_next;
                self.f_next_continuation = f_next_continuation;
            }
            Part::Probe {
                pace,
                pending,
                grazed,
                last_probed,
                port_work_held_back,
                rest,
                rest_waiting,
                assumed_mass,
                unclear,
                rough_answer,
            } => {
                self.correction.pace = pace;
                self.probe_pending = pending;
                (self.grazed, self.grazed_before_last) = grazed;
                self.last_probed = last_probed;
                self.port_work_held_back = port_work_held_back;
                self.probe_rest = rest;
                self.probe_rest_waiting = rest_waiting;
                self.probe_assumed_mass = assumed_mass;
                self.unclear_probes = unclear;
                self.rough_answer = rough_answer;
            }
        }
    }
}

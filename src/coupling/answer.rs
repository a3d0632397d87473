//! The mass a step's answer tells: the force the master held over a step against the velocity
//! change it caused, the external acceleration taken as it was before the contact (or the step).
//! Every force the coupling made the master hold is such a question: the contact's and the
//! corrections after it. With a mass in use, an answer that stands out clearly and disagrees
//! replaces it (beyond [`STEADY_ADOPTION`] through a steady external acceleration, beyond
//! [`UNMEASURED_DRIFT_ADOPTION`] in a contact met before the acceleration's change per step was
//! measured, beyond [`DISAGREEMENT`] otherwise, warned beyond the latter) and the contact is
//! replayed with it; an answer that cannot tell, or agrees, confirms it
//! ([`Coupling::trust_mass_in_use`]). Without a mass, the estimate is only published: the contact
//! episode's estimate or a probe's answer is adopted instead (`episode.rs`, `probe.rs`).

use super::external::KnownBefore;
use super::{bend_off_parabola, Coupling, Learned, Observed, Pace, ANSWER_ROUNDING, DISAGREEMENT};

/// How far from the mass in use one answer read with the external acceleration unknown (taken
/// as 0) may put the mass before a second answer confirms it: the errors of a user's `m_eff`
/// this product is made for, with a margin.
const UNKNOWN_ACCELERATION_RANGE: f64 = 2.2;

/// The disagreement beyond which the FMU adopts an answer through a steady external acceleration
/// (a lone body, gravity), which is exact to rounding. Any other answer is adopted only beyond
/// [`DISAGREEMENT`]: a body pushed by springs or a drive during the contact answers a few per cent
/// off (the estimate takes the external acceleration as it was before), and a given `m_eff` stays.
pub const STEADY_ADOPTION: f64 = 0.005;

/// The disagreement beyond which an answer in a contact met before two steps had measured the
/// external acceleration replaces a given mass, where that acceleration is not seen steady: how
/// much it drifts per step is not known, and answers of the right mass under springs and drives
/// can read far off it. A user's mass half or twice the right one reads 100 % or 50 % off, and
/// is still replaced in that contact; a mass less far off waits for the next contact.
pub const UNMEASURED_DRIFT_ADOPTION: f64 = 0.4;

/// The factor beyond which one answer does not doubt a mass in use: an answer that puts the mass
/// more than this many times above it, or as many times below, is ignored, the errors of a
/// user's `m_eff` this product is made for being within a factor of two.
pub const ANSWER_RANGE: f64 = 4.0;

/// The share of a contact's mean force below which a step's force in it tells no mass where the
/// external acceleration changes ([`Coupling::minor_in_the_episode`]).
const MINOR_SHARE: f64 = 0.1;

/// One step's answer: the force the master held over it, the external acceleration taken for
/// it, how much that changed over the step before and how many steps ago it was measured, the
/// velocity change it reported.
#[derive(Clone, Copy, Debug)]
pub(super) struct Answer {
    pub(super) force: f64,
    pub(super) a_before: f64,
    pub(super) trend: f64,
    pub(super) age: f64,
    /// Whether `a_before` was measured rather than taken as 0.
    pub(super) a_known: bool,
    pub(super) dv: f64,
    pub(super) h: f64,
}

impl Coupling {
    /// Every force the coupling made the master hold answers with the mass: the contact's,
    /// and the corrections after it. Returns whether the step's force was one.
    #[inline(always)]
    pub(super) fn asked_a_coupled_force(
        &mut self,
        applied: Option<f64>,
        mass: Option<f64>,
        now: Observed,
        h1: f64,
    ) -> bool {
        let coupled = !self.ignore_answers
            && (self.last_contact_impulse != 0.0 || self.episode.open || self.owed_s != 0.0);
        let largest_held = self.last_force.abs().max(self.last_next.abs());
        if coupled && applied.is_none() && self.asks(largest_held, h1, mass, now) {
            // The master answered, but which force it held is not known yet: nothing contradicts
            // the mass in use.
            self.trust_mass_in_use(mass);
        }
        coupled
    }

    /// The answer to the held force `force`: the external acceleration it is read against, the
    /// steps since that was measured (it has drifted by the trend that many times since: a
    /// correction step well after a contact's start is read against the acceleration before the
    /// contact, and the trend is then at least the one before the contact), and whether it was
    /// measured at all.
    #[inline(always)]
    pub(super) fn answer_to(
        &self,
        force: f64,
        before: KnownBefore,
        now: Observed,
        dv: f64,
        h1: f64,
    ) -> Answer {
        let (a_before, age, a_known, trend) = if self.episode.open {
            let steps_since = ((now.time - self.episode.start.time) / h1).round();
            (
                self.episode.a_ext,
                steps_since.max(1.0),
                self.episode.a_ext_known,
                before.trend.max(self.episode.a_ext_trend),
            )
        } else {
            (before.a_ext, 1.0, before.known, before.trend)
        };
        Answer {
            force,
            a_before,
            trend,
            age,
            a_known,
            dv,
            h: h1,
        }
    }

    /// What one step's answer says of the mass: the force the master held over it against the
    /// velocity change it caused, the external acceleration taken as it was before the contact
    /// (or the step). Published as `m_eff_estimate`; where a mass is in use and the answer stands
    /// out clearly, adopted beyond [`STEADY_ADOPTION`] or [`DISAGREEMENT`] (warned beyond the
    /// latter), and the contact is then replayed with it. Without a mass the estimate waits for
    /// the contact's end (`Candidate`): a master that prescribes the motion answers no force, and
    /// one step cannot tell.
    pub(super) fn learn_from_answer(
        &mut self,
        learned: &mut Learned,
        answer: Answer,
        now: Observed,
        mass: Option<f64>,
    ) {
        let Answer {
            force,
            trend,
            age,
            dv,
            h: h1,
            ..
        } = answer;
        if !self.asks(force, h1, mass, now) {
            return;
        }
        let Some(a_before) = self.external_acceleration_of(answer, mass) else {
            return;
        };
        let rounding = self.rounding(now, ANSWER_ROUNDING);
        let answered = dv - a_before * h1;
        let estimate = -force * h1 / answered;
        if !(answered.abs() > rounding && estimate.is_finite() && estimate > 0.0) {
            // No mass can be read from it (a body pushed by springs or a drive during the
            // contact): the mass in use stays trusted.
            self.trust_mass_in_use(mass);
            return;
        }
        // The estimate takes the external acceleration as it was before: an answer counts where
        // it stands well out of what that acceleration changed by since it was measured (a
        // spring behind the body, a drive), as far as the two steps before tell (`trend`, per
        // step, times the steps since). Counted over the last step only, a correction several
        // steps into a second contact of a body with another behind it on a spring can read a
        // mass far below the right one, replace the given mass, and cost the bodies energy.
        // Within the step, an external acceleration that changes (linearly, as a spring's does)
        // bends the master's position off the parabola its velocities span, by a twelfth of the
        // change times h^2: what it changed by over the step follows from the positions.
        let bend = bend_off_parabola(self.last, now);
        let change_within = 12.0 * bend.abs() / h1;
        let variation = trend * age * h1 + change_within;
        let unclear = rounding + 10.0 * variation;
        // An external acceleration seen constant (a lone body, gravity) makes the answer exact:
        // then even a small disagreement is the mass's, and even a small force's answer tells it.
        let steady = self.a_ext_count == 2 && variation <= 1e-6 * answered.abs();
        let stands_out = answered.abs() > unclear + 0.1 * (a_before * h1).abs()
            && (steady || !self.minor_in_the_episode(force, h1, age));
        // An answer that does not stand out tells no mass: a driven body holding a correction's
        // rounding residue answers with its drive's change, and m_eff_estimate would read a mass
        // far below the body's for many steps.
        if stands_out {
            self.last_estimate = estimate;
        }
        let Some(m) = mass else {
            return;
        };
        let adoption = if steady {
            STEADY_ADOPTION
        } else if self.episode.open && !self.episode.a_ext_trend_known {
            UNMEASURED_DRIFT_ADOPTION
        } else {
            DISAGREEMENT
        };
        self.weigh_against_mass_in_use(learned, m, estimate, a_before, stands_out, adoption);
    }

    /// Whether `force`, held over `h1` in an open episode `age` steps after its start, is less
    /// than [`MINOR_SHARE`] of the contact's mean force so far. Such an answer, read against the
    /// external acceleration from before the contact, is as much that acceleration's drift since
    /// (a drive, a spring) as the force's, and the trend of the last two steps does not bound
    /// the drift summed over the contact: the last step of a driven body's contact, holding a
    /// small correction, would otherwise tell a mass far off the right one.
    fn minor_in_the_episode(&self, force: f64, h1: f64, age: f64) -> bool {
        let episode = &self.episode;
        let impulse = episode
            .impulse_if_mean
            .abs()
            .max(episode.impulse_if_next.abs());
        episode.open && (force * h1).abs() * age < MINOR_SHARE * impulse
    }

    /// The external acceleration an answer is read against: as measured, or where none was
    /// (taken as 0), as two answers to different forces tell it together with the mass. None
    /// where one such answer alone would put the mass beyond a user's errors: it waits.
    fn external_acceleration_of(&mut self, answer: Answer, mass: Option<f64>) -> Option<f64> {
        let Answer {
            force,
            mut a_before,
            a_known,
            dv,
            h: h1,
            ..
        } = answer;
        if a_known {
            self.unknown_answer = (0.0, 0.0);
        } else {
            // Taken as 0, the external acceleration is a second unknown: one answer cannot tell
            // it from the mass (gravity's part of a first step's answer, read as the contact's,
            // can tell a mass several times the body's, and the contact then throws the body
            // back far faster than it came). Two answers to different forces tell both, the
            // acceleration taken as the same; until then one answer is taken with the
            // acceleration as 0 only within the mass errors a user makes (a factor of 2), beyond
            // which it waits.
            let (first_force, first_rate) = self.unknown_answer;
            let rate = dv / h1;
            let distinct = (force - first_force).abs() > 0.1 * force.abs().max(first_force.abs());
            let mass_told = -(force - first_force) / (rate - first_rate);
            if first_force != 0.0 && distinct && mass_told > 0.0 && mass_told.is_finite() {
                self.unknown_answer = (0.0, 0.0);
                a_before = rate + force / mass_told;
                if self.episode.open {
                    // Told by two answers that took it as the same: read as steady from here.
                    self.episode.a_ext = a_before;
                    self.episode.a_ext_known = true;
                    self.episode.a_ext_trend_known = true;
                }
            } else {
                self.unknown_answer = (force, rate);
                let alone = -force / rate;
                let plausible = mass.is_none_or(|m| {
                    (1.0 / UNKNOWN_ACCELERATION_RANGE..=UNKNOWN_ACCELERATION_RANGE)
                        .contains(&(alone / m))
                });
                if !plausible {
                    return None;
                }
            }
        }
        Some(a_before)
    }

    /// An answer through the mass in use `m` that told `estimate` (read against `a_before`, and
    /// standing out of the external acceleration's change where `stands_out`): beyond the
    /// disagreement `adoption`, the estimate replaces the mass and the contact is replayed.
    fn weigh_against_mass_in_use(
        &mut self,
        learned: &mut Learned,
        m: f64,
        estimate: f64,
        a_before: f64,
        stands_out: bool,
        adoption: f64,
    ) {
        // A mass in use is doubted only on an answer that also stands out of the external
        // acceleration itself, and never by more than a factor of four in one answer.
        if stands_out && !(1.0 / ANSWER_RANGE..=ANSWER_RANGE).contains(&(estimate / m)) {
            return;
        }
        // An answer that cannot tell (a body pushed by springs or a drive during the contact)
        // leaves the mass in use trusted, as one that agrees confirms it.
        self.trust_mass_in_use(Some(m));
        if !stands_out {
            return;
        }
        let disagreement = (estimate / m - 1.0).abs();
        if disagreement > adoption {
            // The step's external acceleration was measured through the wrong mass: the estimate
            // took it as before the contact.
            if self.a_ext_count > 0 {
                self.a_ext_means[0] = a_before;
            }
            if disagreement > DISAGREEMENT && !self.disagreement_reported {
                learned.disagreement = Some((estimate, m));
                self.disagreement_reported = true;
            }
            self.mass_estimate = estimate;
            self.replay_pending = true;
        }
    }

    /// The master has answered a force the coupling made: the mass in use (if any) is trusted
    /// from now on, unless the answer adopts another. A correction that waited for the answer
    /// catches up in two steps instead of three.
    pub(super) fn trust_mass_in_use(&mut self, mass: Option<f64>) {
        if mass.is_none() || self.mass_confirmed {
            return;
        }
        if self.correction.pace == Pace::ThreeStep {
            self.correction.pace = Pace::DeadBeat;
        }
        self.mass_confirmed = true;
    }

    /// A body pushed by changing forces (springs, a drive) cannot test the mass in use:
    /// its answers take the external acceleration as it was before. That mass is then
    /// trusted from the start, as only a steady one (a lone body, gravity) can be doubted.
    #[inline(always)]
    pub(super) fn trust_the_mass_under_changing_forces(
        &mut self,
        mass: Option<f64>,
        now: Observed,
        h1: f64,
    ) {
        if !self.mass_confirmed && mass.is_some() && self.a_ext_count == 2 {
            let scale = self.a_ext_means[0].abs() + now.v.abs() / h1;
            if self.a_ext_trend() > 1e-6 * scale {
                self.mass_confirmed = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::Episode;

    /// A coupling that has read one answer: the master's relative motion left `v0` at time 0 and
    /// changed by the answer's `dv` over its step, at a constant acceleration (the position
    /// follows from the two velocities).
    fn after_one_answer(v0: f64, answer: Answer, mass: Option<f64>) -> Coupling {
        after_one_answer_in(Episode::default(), v0, answer, mass).0
    }

    /// [`after_one_answer`] with the contact episode `episode`, and what the answer taught.
    fn after_one_answer_in(
        episode: Episode,
        v0: f64,
        answer: Answer,
        mass: Option<f64>,
    ) -> (Coupling, Learned) {
        let Answer { dv, h, .. } = answer;
        let mut coupling = Coupling {
            episode,
            last: Observed {
                time: 0.0,
                s: 0.0,
                v: v0,
            },
            ..Coupling::default()
        };
        let now = Observed {
            time: h,
            s: (v0 + 0.5 * dv) * h,
            v: v0 + dv,
        };
        let mut learned = Learned::default();
        coupling.learn_from_answer(&mut learned, answer, now, mass);
        (coupling, learned)
    }

    #[test]
    fn an_answer_read_against_an_acceleration_measured_steps_ago_allows_for_its_drift() {
        // 1 kg with a spring behind it whose push grows by 1 m/s^2 per 5 ms step, held a 22 N
        // correction five steps after the contact's start. Read against the acceleration before
        // the contact, the answer says 22/17 kg; the push drifted by 5 m/s^2 since, which is
        // all the answer's shortfall, and the given 1 kg stays. Measured one step ago, the same
        // reading would be a mass 29 % off, doubted and replaced.
        let h = 0.005;
        let answer_after = |age: f64| {
            let (a_before, trend, force) = (-20.0, 1.0, -22.0);
            let a_now = a_before - 5.0;
            let answer = Answer {
                force,
                a_before,
                trend,
                age,
                a_known: true,
                dv: (a_now - force / 1.0) * h,
                h,
            };
            after_one_answer(0.5, answer, Some(1.0))
        };
        let five_steps_on = answer_after(5.0);
        assert_eq!(five_steps_on.mass_estimate, 0.0);
        assert!(!five_steps_on.replay_pending);
        let one_step_on = answer_after(1.0);
        assert!((one_step_on.mass_estimate - 22.0 / 17.0).abs() < 1e-9);
        assert!(one_step_on.replay_pending);
    }

    #[test]
    fn two_answers_through_an_unknown_acceleration_tell_the_mass_and_the_acceleration() {
        // A 0.5 kg ball under 9.81 m/s^2 nothing had measured, given m_eff = 0.75 kg, meets the
        // stop late in the first step: the step held 6 N, the next 1,279 N. Read with the
        // acceleration as 0, the first answer says 2.7 kg: beyond a user's error of the mass,
        // it waits. The second, to a force 200 times larger, tells both: 0.5 kg and -9.81 m/s^2.
        let (mass, gravity, h) = (0.5, -9.81, 2.5e-3);
        let mut coupling = Coupling {
            episode: Episode {
                open: true,
                ..Episode::default()
            },
            ..Coupling::default()
        };
        let (mut s, mut v) = (0.0, -1.0);
        let mut answer_to = |coupling: &mut Coupling, force: f64, time: f64| {
            let dv = (gravity - force / mass) * h;
            coupling.last = Observed {
                time: time - h,
                s,
                v,
            };
            s += (v + 0.5 * dv) * h;
            v += dv;
            let now = Observed { time, s, v };
            let answer = Answer {
                force,
                a_before: 0.0,
                trend: 0.0,
                age: 1.0,
                a_known: false,
                dv,
                h,
            };
            coupling.learn_from_answer(&mut Learned::default(), answer, now, Some(0.75));
        };
        answer_to(&mut coupling, -6.0, h);
        assert_eq!(coupling.mass_estimate, 0.0);
        assert!(!coupling.replay_pending);
        answer_to(&mut coupling, -1279.0, 2.0 * h);
        assert!(
            (coupling.mass_estimate / mass - 1.0).abs() < 1e-9,
            "{}",
            coupling.mass_estimate
        );
        assert!((coupling.episode.a_ext / gravity - 1.0).abs() < 1e-9);
        assert!(coupling.episode.a_ext_known);
        assert!(coupling.replay_pending);
    }

    #[test]
    fn an_answer_within_a_drives_change_tells_no_mass() {
        // A 1 kg body on a drive whose acceleration changes by 2 m/s^2 per 10 ms step, held a
        // force: the estimate is published where the answer stands out of that change, never
        // from one it drowns in (a correction's rounding residue would read a mass far below the
        // body's).
        let h = 0.01;
        let ask = |force: f64| {
            // The drive's acceleration grows linearly: 1 m/s^2 over the step before, 3 over
            // this one's end, so its mean over the step is 2 against the 1 taken before.
            let (a_before, trend, a_mean) = (1.0, 2.0, 2.0);
            let answer = Answer {
                force,
                a_before,
                trend,
                age: 1.0,
                a_known: true,
                dv: (a_mean - force / 1.0) * h,
                h,
            };
            after_one_answer(0.1, answer, None).last_estimate
        };
        // Pushes of 7e-16 N and 1 mN change the velocity by far less than the drive's change.
        assert_eq!(ask(-7e-16), 0.0);
        assert_eq!(ask(-1e-3), 0.0);
        // 500 N stands out: the estimate is the mass up to the drive's change over the step
        // (-F*h/(dv - a_before*h) = 500/(500 + 1)).
        let told = ask(-500.0);
        assert!((told - 500.0 / 501.0).abs() < 1e-9, "{told}");
    }

    #[test]
    fn a_small_force_late_in_a_driven_contact_tells_no_mass() {
        // A 4.3 kg body driven into the stop, 1 ms steps, eight steps into a contact that has
        // held 1.5 N.s: a 7.8 N correction, answered while the drive's acceleration drifted by
        // 0.47 m/s^2 since the contact began and by 0.007 m/s^2 over the last step. Read against
        // the acceleration from before the contact, the answer says 5.8 kg: the drift, not the
        // force, and the given mass stays. A force as large as the contact's, answered through
        // the same drift, tells the mass up to it.
        let (mass, h, drift, held_before) = (4.3, 1e-3, 0.47, 1.5);
        let ask = |force: f64| {
            let answer = Answer {
                force,
                a_before: 0.0,
                trend: 0.007,
                age: 8.0,
                a_known: true,
                dv: (drift - force / mass) * h,
                h,
            };
            let episode = Episode {
                open: true,
                impulse_if_mean: held_before + force * h,
                impulse_if_next: held_before + force * h,
                ..Episode::default()
            };
            after_one_answer_in(episode, 0.2, answer, Some(mass))
        };
        let (late, learned) = ask(7.8);
        assert_eq!(late.last_estimate, 0.0);
        assert_eq!(late.mass_estimate, 0.0);
        assert!(learned.disagreement.is_none());
        let (large, learned) = ask(780.0);
        let told = -780.0 / (drift - 780.0 / mass);
        assert!(
            (large.last_estimate - told).abs() < 1e-9,
            "{}",
            large.last_estimate
        );
        assert!((told / mass - 1.0).abs() < 0.01);
        assert!(learned.disagreement.is_none());
    }

    #[test]
    fn the_drift_before_a_contact_bounds_its_answers_when_its_own_steps_turn() {
        // 1 kg pressed by a spring behind it that pushed 1 m/s^2 harder each 1 ms step before the
        // contact. Five steps in, the spring's push has drifted by 4 m/s^2, but over the last two
        // steps (the body turning) by 0.05. A 30 N step, as large as the contact's others, reads
        // 0.88 kg against the push from before the contact. Bounded by the drift before the
        // contact, the answer tells nothing and the given 1 kg stays; bounded by the last two
        // steps' drift alone, the answer would replace the mass, with a warning.
        let (mass, h, force, drift) = (1.0, 1e-3, -30.0, 4.0);
        let answer_with = |trend_before: f64| {
            let mut coupling = Coupling {
                episode: Episode {
                    open: true,
                    a_ext_known: true,
                    a_ext_trend: trend_before,
                    a_ext_trend_known: true,
                    impulse_if_mean: 5.0 * force * h,
                    impulse_if_next: 5.0 * force * h,
                    ..Episode::default()
                },
                last: Observed {
                    time: 4.0 * h,
                    s: 0.0,
                    v: 0.1,
                },
                ..Coupling::default()
            };
            let dv = (drift - force / mass) * h;
            let now = Observed {
                time: 5.0 * h,
                s: (0.1 + 0.5 * dv) * h,
                v: 0.1 + dv,
            };
            let before = KnownBefore {
                a_ext: 0.0,
                known: true,
                trend: 0.05,
                trend_known: true,
            };
            let answer = coupling.answer_to(force, before, now, dv, h);
            let mut learned = Learned::default();
            coupling.learn_from_answer(&mut learned, answer, now, Some(mass));
            (coupling, learned)
        };
        let (bounded, learned) = answer_with(1.0);
        assert_eq!(bounded.last_estimate, 0.0);
        assert_eq!(bounded.mass_estimate, 0.0);
        assert!(learned.disagreement.is_none());
        let (unbounded, learned) = answer_with(0.0);
        assert!((unbounded.mass_estimate - 30.0 / 34.0).abs() < 1e-9);
        assert!(learned.disagreement.is_some());
    }

    #[test]
    fn a_contact_met_before_the_drift_was_measured_replaces_only_a_mass_far_off() {
        // A contact met in the second step, a given 1 kg, and answers read against the one
        // acceleration measured before it, its drift unknown: an answer 12 % off is published
        // (the held forces are bounded through it) but leaves the mass; one that reads 0.5 kg, a
        // user's mass twice the right one, replaces it and is warned about.
        let h = 1e-3;
        let answer = |told: f64| {
            let force = -300.0;
            let episode = Episode {
                open: true,
                a_ext_known: true,
                impulse_if_mean: force * h,
                impulse_if_next: force * h,
                ..Episode::default()
            };
            let answer = Answer {
                force,
                a_before: 0.0,
                trend: 0.0,
                age: 1.0,
                a_known: true,
                dv: -force / told * h,
                h,
            };
            after_one_answer_in(episode, -0.5, answer, Some(1.0))
        };
        let (near, learned) = answer(0.88);
        assert!((near.last_estimate - 0.88).abs() < 1e-9);
        assert_eq!(near.mass_estimate, 0.0);
        assert!(learned.disagreement.is_none());
        let (far, learned) = answer(0.5);
        assert!((far.mass_estimate - 0.5).abs() < 1e-9);
        assert!(learned.disagreement.is_some());
    }
}

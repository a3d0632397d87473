//! Without a mass: the probe. A step whose contact is new to the master holds a small share of
//! the impulse along the motion, and the master's answer tells the mass (docs/coupling.md,
//! "Without a mass: the probe").

use super::{bend_off_parabola, Coupling, Learned, Observed, PLAIN_STEP};
use crate::laws::{contact_duration, ContactLaw};
use crate::step::{integrate_step, Motion, SubstepLimits};

/// A mass a probe's answer gave through a changing external acceleration: adopted only once a
/// probe at least [`CONFIRMING_GROWTH`] times larger answers the same mass within both answers'
/// doubts. A body answers in proportion to the force it is given; a master that prescribes the
/// motion does not (its "answer" is what the extrapolation of its acceleration missed).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoughAnswer {
    /// kg; 0: none.
    pub(super) mass: f64,
    /// The relative doubt of `mass`.
    pub(super) doubt: f64,
    /// The probe's force (N).
    pub(super) force: f64,
}

/// How many times larger than a rough answer's probe the one that confirms it must be.
const CONFIRMING_GROWTH: f64 = 2.0;

/// The share of the contact's impulse along the extrapolated motion that a step holds while no
/// mass is known (a probe): that impulse grows with the square of the contact's time in the step
/// over the contact's duration (2.5e4 times what a body needs at a hundred contact durations),
/// so a share of 1e-5 changes an approach speed by at most about half of it there, and is still
/// a millionth of it, far above rounding, at a tenth of a contact duration.
pub const PROBE_SHARE: f64 = 1e-5;

/// The share of the speeds below which a velocity change in a probe's answer is taken for rounding:
/// the answer is small (a millionth of the approach speed at a tenth of a contact duration), and a
/// master's velocities are exact to a few units of 1e-16 of them.
pub(super) const PROBE_ROUNDING: f64 = 1e-12;

/// The share of the speeds within which a motion that answered no force changed as the external
/// acceleration before had it: an input file's motion changes by nothing at all (constant speed)
/// or by its own acceleration to the last bits, a body by what the force gave it.
const SILENCE: f64 = 1e-14;

/// How many times [`SILENCE`] the least force held must have changed the speed of the heaviest body
/// the steps do not resolve, for a silent answer to tell a prescribed motion: a body is silent only
/// where it is that many times heavier, and so resolved by the steps.
pub(super) const SILENCE_CLARITY: f64 = 1e3;

/// Unclear probes after which the FMU stops probing: the master prescribes the motion (or the
/// bodies are pushed by forces that hide the answer even from a grown probe), and the contact is
/// integrated along it.
pub const PROBE_LIMIT: u32 = 3;

/// How many times the change of the external acceleration over a step (as a velocity change) a
/// probe's answer must stand out of where that change is not steady (a body pushed by a spring
/// or a drive): the mass it tells is then within -20 % and +33 %, inside the range the robust
/// correction is built for (0.5-2x), and later answers refine it.
const PROBE_CLARITY: f64 = 4.0;

/// How many times what the acceleration linear in the position missed a probe's answer read
/// through it must stand out for the mass it tells to be exact (to a thousandth).
const POSITION_EXACT: f64 = 1e3;

/// The share of the approach speed a grown probe may change the bodies' speed by, through the
/// least mass the unclear answer before it allows.
const PROBE_RESPONSE: f64 = 0.1;

/// The largest share of the step's impulse a grown probe holds.
const PROBE_SHARE_LIMIT: f64 = 0.1;

/// A probe's answer weighed ([`Coupling::weigh_probe_answer`]).
struct Weighed {
    /// kg.
    mass: f64,
    told: bool,
    exact: bool,
    /// The velocity change less the external acceleration's, and what that can miss (m/s).
    through_trend: f64,
    hidden: f64,
    /// Whether the bodies moved on the parabolas of forces held constant.
    constant_forces: bool,
    /// The acceleration the contact is replayed through where that is not the one before it.
    replay_a_ext: Option<f64>,
}

/// How large a probe is: [`PROBE_SHARE`] of the impulse along the motion at first; after an answer
/// that the external acceleration's change hid, as large as the least mass that answer allows
/// lets it be without changing the bodies' speed by more than [`PROBE_RESPONSE`] of `speed`.
/// A probe that is to confirm a rough answer holds at least [`CONFIRMING_GROWTH`] times that
/// answer's impulse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeSizing {
    /// No probe awaits an answer: the contact is new to the master.
    pub fresh: bool,
    pub mass_floor: f64,
    pub speed: f64,
    /// N.s; 0 where no rough answer waits.
    pub least_impulse: f64,
}

impl ProbeSizing {
    /// The share of an impulse `impulse` (N.s) along the motion that the probe holds; None where
    /// the whole impulse changes the speed by less than [`PROBE_RESPONSE`] of it even through the
    /// least mass (a step short against the contact's duration): there the impulse along the
    /// motion is safe, and probing ends.
    pub fn share(self, impulse: f64) -> Option<f64> {
        if self.mass_floor <= 0.0 || impulse == 0.0 {
            return Some(PROBE_SHARE);
        }
        let safe = PROBE_RESPONSE * self.speed * self.mass_floor;
        let share = safe.max(self.least_impulse) / impulse.abs();
        if share.is_nan() {
            Some(PROBE_SHARE)
        } else if safe >= impulse.abs() {
            None
        } else {
            Some(share.clamp(PROBE_SHARE, PROBE_SHARE_LIMIT))
        }
    }
}

/// Whether a contact's `impulse` (N.s) along the motion over a step is less than `share` of the
/// impulse along the motion over the step after it, from `end` over `h`: the contact only
/// grazes the step. A probe of it would be too small for any answer (a touch-down within
/// rounding of a communication point holds a rounding's worth), and what that probe took for
/// granted would bound the next one to as little. Held in full it is no larger than the next
/// step's probe.
pub fn only_grazes<L: ContactLaw>(
    law: &L,
    share: f64,
    impulse: f64,
    end: Motion,
    h: f64,
    limits: SubstepLimits,
) -> bool {
    impulse.abs() < share * integrate_step(law, end, h, limits).impulse.abs()
}

/// The heaviest body (kg) whose contact met at `speed` lasts less than a step of `h` over
/// [`PLAIN_STEP`]: heavier ones are right along the motion. Infinite where the law gives no
/// contact duration to measure it by.
pub fn heaviest_unresolved_mass<L: ContactLaw>(law: &L, speed: f64, h: f64) -> f64 {
    let longest = h / PLAIN_STEP;
    let lasts_longer = |exponent: f64| matches!(contact_duration(law, exponent.exp2(), speed), Some(d) if d >= longest);
    let (mut light, mut heavy) = (-200.0f64, 200.0f64);
    if !lasts_longer(heavy) {
        return f64::INFINITY;
    }
    // The duration grows with the mass: the exponent's interval halved to a thousandth.
    while heavy - light > 1e-3 {
        let middle = 0.5 * (light + heavy);
        if lasts_longer(middle) {
            heavy = middle;
        } else {
            light = middle;
        }
    }
    heavy.exp2()
}

impl Coupling {
    /// The answer to a probe (a step held a share of the contact's impulse while no mass is
    /// known). A clear one from a steady external acceleration (a lone body, gravity) gives the
    /// mass exactly; one that stands [`PROBE_CLARITY`] times out of the external acceleration's
    /// change (a body pushed by a spring or a drive) gives it roughly, and the robust correction
    /// takes it from there. Either is adopted at once: the contact is replayed with it and its
    /// velocity restored in the following step. An answer that change hid grows the next probe
    /// (`probe_mass_floor`); one with nothing to hide it (a master that prescribes the motion) or
    /// the last of [`PROBE_LIMIT`] ends probing, and the impulse the probes held back is delivered
    /// along the motion with the next step. Returns whether the step ahead probes again (the
    /// answer is still to come, or the probe grows).
    pub(super) fn learn_from_probe(
        &mut self,
        learned: &mut Learned,
        applied: Option<f64>,
        dv: f64,
        h: f64,
        a_before: f64,
        now: Observed,
    ) -> bool {
        let rounding = self.rounding(now, PROBE_ROUNDING);
        // Which force the master held may not be known yet: one that moved as if free held
        // none, otherwise the one of the two that is not zero.
        let unforced = (dv - a_before * h).abs() <= rounding;
        if unforced && self.answer_may_come_late() {
            self.silently_answered = self.least_force_held_in_time();
            return true;
        }
        let Some((force, force_doubt)) = self.probed_force(applied, unforced) else {
            self.unclear_probes += 1;
            return self.end_probing();
        };
        if force == 0.0 {
            // The master held no force over the probed step (it holds f_next, made a step
            // earlier, and holds the probe now): the answer comes with the next step.
            return true;
        }
        let Weighed {
            mass,
            told,
            exact,
            through_trend,
            hidden,
            constant_forces,
            replay_a_ext,
        } = self.weigh_probe_answer(force, force_doubt, dv, h, a_before, now);
        // Where no external acceleration was known (a contact met in the first step, taken as
        // 0), an answer that tells no mass may be gravity's: that is no sign of a master that
        // prescribes the motion. Two answers of a body under constant forces (positions on the
        // parabolas of the velocities) to probes of different size tell the mass and the
        // acceleration together. Ended as a prescribed motion instead, a body under a weak
        // external acceleration, met in the first step of steps many contact durations long,
        // would be given the whole impulse along the motion and thrown far faster than it came.
        if self.a_ext_count == 0 && constant_forces {
            let clear = self.rounding(now, SILENCE);
            if let Some(probes_again) = self.pair_answers_to_probes(learned, force, dv, h, clear) {
                return probes_again;
            }
        }
        let (told, mass) = self.told_at_the_last_chance(told, mass);
        if told && a_before.is_finite() {
            if let Some(a_ext) = replay_a_ext {
                self.episode.a_ext = a_ext;
            }
            self.adopt_probed_mass(learned, mass, exact, a_before, h);
            return false;
        }
        self.unclear_probes += 1;
        // No answer at all, where a body would have answered whatever hid it, is a master that
        // prescribes the motion: a larger probe would only delay the contact's force.
        let grows = hidden > rounding
            && through_trend.abs() > rounding
            && self.unclear_probes < PROBE_LIMIT;
        self.measure_misses_by_a_probe(now, dv, h);
        // The answer lies within `hidden` of what was measured: the mass is at least the
        // probe's impulse over the largest velocity change it can have caused.
        self.raise_mass_floor(now, dv, h, force.abs() - force_doubt);
        if !grows {
            return self.end_probing();
        }
        true
    }

    /// A probe's answer to `force` (within `force_doubt`, N) weighed: the mass it tells, whether
    /// that is told (exact, or rough and confirmed by a larger probe), and through what it was read.
    fn weigh_probe_answer(
        &mut self,
        force: f64,
        force_doubt: f64,
        dv: f64,
        h: f64,
        a_before: f64,
        now: Observed,
    ) -> Weighed {
        let rounding = self.rounding(now, PROBE_ROUNDING);
        // Where no free step has shown the external acceleration (a contact in the first
        // step), it is taken as zero: a first contact's answer stands out of gravity over a step.
        let answered = dv - a_before * h;
        let steady = self.a_ext_count < 2 || self.a_ext_trend() * h <= 1e-6 * answered.abs();
        let constant_forces = self.moved_under_constant_forces(now);
        // Through an external acceleration taken as 0 (none measured yet) no single answer is
        // exact: a 1e-5 probe's answer under a steady external acceleration can tell a mass many
        // times the body's, and the contact replayed through it would throw the body far faster
        // than it came (two answers tell both, below).
        let steady_exact = steady && self.a_ext_count > 0 && force_doubt == 0.0 && constant_forces;
        let (through_trend, hidden, by_position) = self.read_answer(now, dv, h);
        let rough = through_trend.abs() >= PROBE_CLARITY * hidden
            && force_doubt <= force.abs() / PROBE_CLARITY;
        // Read through the acceleration linear in the position (a spring to ground, whose
        // bodies bend off the parabola of constant forces), an answer that stands
        // [`POSITION_EXACT`] times out of what that line missed is as exact.
        let exact = steady_exact
            || (by_position
                && force_doubt == 0.0
                && through_trend.abs() >= POSITION_EXACT * hidden);
        let answered = if steady_exact {
            answered
        } else {
            through_trend
        };
        let mass = -force * h / answered;
        // Nor below half the least mass an earlier answer allowed.
        let usable =
            answered.abs() > rounding && mass.is_finite() && mass > 0.0 && self.floor_allows(mass);
        // A rough answer counts once a larger probe has answered the same mass.
        let doubt = (hidden / answered.abs() + force_doubt / force.abs()).min(1.0);
        let confirmed = self.confirm_rough_answer(mass, doubt, force, usable, rough, exact);
        Weighed {
            mass,
            told: usable && (exact || (rough && confirmed)),
            exact,
            through_trend,
            hidden,
            constant_forces,
            // The contact is replayed through the acceleration the answer was read against.
            replay_a_ext: (by_position && !steady_exact).then(|| (dv - through_trend) / h),
        }
    }

    /// Whether the master's motion at `now` answered none of the force it was given over the last
    /// step: a probe's answer is due, every force the master may have held was not zero (`f_mean`,
    /// the `f_next` it read before the step, and `f_mean` one step late), and its velocity changed
    /// exactly as the external acceleration before had it (to [`SILENCE`] of the speeds), on the
    /// parabola of constant forces. A body answers every force; a motion from a file answers none. A contact
    /// met in free flight is told so at its third step: over its first, a master one step late
    /// held the free step's nothing.
    /// Through the heaviest body whose contact under `law` the steps do not resolve
    /// ([`heaviest_unresolved_mass`]; heavier ones are right along the motion) the least force
    /// held must have moved the velocity by [`SILENCE_CLARITY`] times the silence, or the silence
    /// of a body the steps do not resolve could pass for a prescribed motion. That mass, a search,
    /// is found last, once the motion has shown silence.
    pub fn answers_no_force<L: ContactLaw>(&self, law: &L, now: Observed) -> bool {
        let h = now.time - self.last.time;
        let stepped = h > 0.0;
        if !self.probe_pending || self.held_told || self.mass_estimate > 0.0 || !stepped {
            return false;
        }
        let Some(held) = self.least_force_held() else {
            return false;
        };
        let silence = self.rounding(now, SILENCE);
        let expected = self.known_before_step().a_ext * h;
        let dv = now.v - self.last.v;
        if (dv - expected).abs() > silence || !self.moved_under_constant_forces(now) {
            return false;
        }
        let heaviest = heaviest_unresolved_mass(law, now.v.abs(), h);
        held * h / heaviest > SILENCE_CLARITY * silence
    }

    /// Silent over a contact's first step: a master one step late held the free step's nothing
    /// (or a graze, `grazed_before_last`) over it, and answers with the next step (a motion from
    /// a file never does, [`Coupling::answers_no_force`]). Not where `f_next` was read only
    /// after the step.
    fn answer_may_come_late(&self) -> bool {
        (self.mean_before_last == 0.0 || self.grazed_before_last)
            && self.last_force != 0.0
            && self.least_force_held().is_some()
    }

    /// The least force (N, in size) a master may have held over the last step: `f_mean`, `f_mean`
    /// one step late, and the `f_next` it read before the step. None where it read `f_next` only
    /// after the step: it may have held that output's start value, nothing.
    fn least_force_held(&self) -> Option<f64> {
        if self.f_next_read && !self.next_readable {
            return None;
        }
        Some(
            self.least_force_held_in_time()
                .min(self.mean_before_last.abs()),
        )
    }

    /// The least force (N, in size) a master that holds `f_mean` or the `f_next` it read before
    /// the step held over the last step.
    fn least_force_held_in_time(&self) -> f64 {
        let next = if self.next_readable {
            self.last_next.abs()
        } else {
            f64::INFINITY
        };
        self.last_force.abs().min(next)
    }

    /// The master prescribes the motion: probing ends, and what the probes held back of the
    /// contact's dissipation counts as dissipated, and of the port's work as received, as along
    /// the motion they were. Returns the impulse they held back (N.s), which a prescribed motion
    /// never takes.
    pub fn take_the_motion_as_prescribed(&mut self) -> f64 {
        self.motion_prescribed = true;
        self.probe_pending = false;
        self.rough_answer = RoughAnswer::default();
        let waiting = std::mem::take(&mut self.probe_rest_waiting);
        let rest = std::mem::take(&mut self.probe_rest);
        self.model_loss += waiting.1 + rest.1;
        self.e_port += std::mem::take(&mut self.port_work_held_back);
        waiting.0 + rest.0
    }

    /// Without a mass: a probe's answer tells it, and every force held tells how heavy the
    /// bodies are at least.
    #[inline(always)]
    pub(super) fn learn_without_a_mass(
        &mut self,
        learned: &mut Learned,
        applied: Option<f64>,
        dv: f64,
        h1: f64,
        a_before: f64,
        now: Observed,
    ) {
        if self.probe_pending {
            self.probe_pending = self.learn_from_probe(learned, applied, dv, h1, a_before, now);
        } else if !self.grazed {
            // Every force held without a mass tells how heavy the bodies are at least.
            self.raise_mass_floor(now, dv, h1, f64::INFINITY);
        }
    }

    /// The force a probed step held and its doubt (N). Of two probes of the same sign (f_mean
    /// and the f_next made a step earlier, both sized along the motion, the master not yet told
    /// apart), the answer is read through the smaller, within their difference: the lighter mass
    /// it tells asks the smaller forces, where a mass heavier than the body's throws it off the
    /// stop. Two of opposite signs tell nothing (None).
    fn probed_force(&self, applied: Option<f64>, unforced: bool) -> Option<(f64, f64)> {
        match applied {
            Some(force) => Some((force, 0.0)),
            None if unforced => Some((0.0, 0.0)),
            None if self.last_force == 0.0 || self.last_next == 0.0 => {
                Some((self.last_force + self.last_next, 0.0))
            }
            None if self.last_force * self.last_next > 0.0 => {
                let lighter = if self.last_force.abs() <= self.last_next.abs() {
                    self.last_force
                } else {
                    self.last_next
                };
                Some((lighter, (self.last_force - self.last_next).abs()))
            }
            None => None,
        }
    }

    /// A body under a force held constant moves on a parabola: its positions follow from its
    /// velocities (`s1 - s0 = (v0 + v1)/2*h`), bent by h^2/12 times the external
    /// acceleration's change over the step. Inputs that do not (a master that prescribes the
    /// motion, a body pushed by changing forces) tell no exact mass.
    pub(super) fn moved_under_constant_forces(&self, now: Observed) -> bool {
        // So must the step before it, where the master saw one: a smooth prescribed motion bends
        // off the parabola by h^3/12 times its third derivative, which passes through zero at
        // one step now and then, but not at two in a row.
        let seen_before = self.before_last.time < self.last.time;
        on_parabola(self.last, now) && (!seen_before || on_parabola(self.before_last, self.last))
    }

    /// Whether a probe's answer of `mass` (within `doubt`, relative) to `force` confirms the rough
    /// answer before it; a grown probe's answer that is usable and rough, and neither exact nor
    /// confirming, becomes the rough answer to confirm.
    fn confirm_rough_answer(
        &mut self,
        mass: f64,
        doubt: f64,
        force: f64,
        usable: bool,
        rough: bool,
        exact: bool,
    ) -> bool {
        // A probe that did not grow (a master one step behind holds one made before the rough
        // answer came) can neither confirm it nor replace it.
        let previous = self.rough_answer;
        let grown = force.abs() >= CONFIRMING_GROWTH * previous.force.abs();
        let confirmed = previous.mass > 0.0
            && grown
            && (mass - previous.mass).abs() <= mass * doubt + previous.mass * previous.doubt;
        if grown {
            self.rough_answer = if usable && rough && !exact && !confirmed {
                RoughAnswer { mass, doubt, force }
            } else {
                RoughAnswer::default()
            };
        }
        confirmed
    }

    /// Two answers to probes of different size through an external acceleration nobody measured
    /// (taken as 0) tell the mass and that acceleration together, where their velocity changes
    /// differ by more than `clear` (m/s): a master that held the same force over both steps (one
    /// holding `f_mean` a step late holds the first probe twice) answers the same to rounding,
    /// and a mass read through a rounding's difference is any mass at all.
    /// Some(whether the step ahead probes again) where that settles the probe: the mass is
    /// adopted, or the answer waits for a second one; None where probing goes on as for any
    /// answer.
    fn pair_answers_to_probes(
        &mut self,
        learned: &mut Learned,
        force: f64,
        dv: f64,
        h: f64,
        clear: f64,
    ) -> Option<bool> {
        let rate = dv / h;
        let (first_force, first_rate) = self.unknown_answer;
        let distinct = first_force != 0.0
            && (force - first_force).abs() > 0.1 * force.abs().max(first_force.abs())
            && ((rate - first_rate) * h).abs() > clear;
        let paired = -(force - first_force) * h / ((rate - first_rate) * h);
        if distinct && paired.is_finite() && paired > 0.0 && self.floor_allows(paired) {
            let a_ext = rate + force / paired;
            self.unknown_answer = (0.0, 0.0);
            // Exact as one answer through a measured steady acceleration is: both steps' forces
            // were constant, and so was the acceleration over them.
            self.adopt_probed_mass(learned, paired, true, a_ext, h);
            self.episode.a_ext_known = true;
            return Some(false);
        }
        if self.unclear_probes + 1 < PROBE_LIMIT {
            self.unknown_answer = (force, rate);
            self.unclear_probes += 1;
            return Some(true);
        }
        None
    }

    /// The last probe allowed: a rough answer still unconfirmed is adopted all the same (a
    /// body whose answers the forces on it blur, within the robust correction's range),
    /// rather than the contact's whole impulse along a motion that went on deep into it.
    fn told_at_the_last_chance(&self, told: bool, mass: f64) -> (bool, f64) {
        let last_chance = self.unclear_probes + 1 >= PROBE_LIMIT
            && self.rough_answer.mass > 0.0
            && self.floor_allows(self.rough_answer.mass);
        if !told && last_chance {
            (true, self.rough_answer.mass)
        } else {
            (told, mass)
        }
    }

    /// A probe's answer told `mass` (`exact`: through a steady external acceleration, else
    /// roughly, to be confirmed by the next answers) with the external acceleration `a_ext` over
    /// the probed step of `h`: the contact is replayed with it.
    fn adopt_probed_mass(
        &mut self,
        learned: &mut Learned,
        mass: f64,
        exact: bool,
        a_ext: f64,
        h: f64,
    ) {
        self.rough_answer = RoughAnswer::default();
        self.probe_rest_waiting = (0.0, 0.0);
        self.probe_mass_floor = 0.0;
        learned.new_estimate = Some(mass);
        self.last_estimate = mass;
        self.mass_estimate = mass;
        self.mass_confirmed = exact;
        self.replay_pending = true;
        if self.a_ext_count == 0 {
            // The contact's replay and the steps after it take the acceleration the probes
            // told.
            self.episode.a_ext = a_ext;
            self.a_ext_means = [a_ext, a_ext];
            self.a_ext_times = [self.last.time + 0.5 * h, self.last.time - 0.5 * h];
            self.a_ext_count = 1;
        }
    }

    /// The share of a contact step's impulse and dissipation (`full`, N.s and J along the motion)
    /// a step that probes holds, the rest kept back for later; None where probing is not needed
    /// (the least mass shows the whole impulse safe: probing ends). Where the master read a
    /// probe in f_next before the step (`next_before`), the step holds the same force: a master
    /// whose reading is not told yet (it has held only zeros so far) then answers the same probe
    /// whichever of the two it holds.
    pub fn hold_probe(
        &mut self,
        full: (f64, f64),
        next_before: Option<f64>,
        speed: f64,
        h: f64,
    ) -> Option<f64> {
        let probe_in_next = next_before
            .filter(|&next| {
                self.probe_pending && next * full.0 > 0.0 && (next * h).abs() <= full.0.abs()
            })
            .map(|next| next * h / full.0);
        let share = probe_in_next.or_else(|| self.probe_sizing(speed, h).share(full.0));
        match share {
            Some(share) => {
                self.assume_probe(share * full.0, speed);
                self.probe_rest_waiting.0 += full.0 - share * full.0;
                self.probe_rest_waiting.1 += full.1 - share * full.1;
            }
            None => self.probe_not_needed(),
        }
        share
    }

    /// The first probe, of `impulse` (N.s) held against a master moving at `speed`, takes for
    /// granted a mass it does not reverse faster than it came, `|impulse|/(2*speed)`, until an
    /// answer tells more. Later probes are sized by what the answers allow and assume nothing
    /// more (a probe grown against a body a spring has slowed down would take for granted a
    /// mass well above the body's).
    pub(super) fn assume_probe(&mut self, impulse: f64, speed: f64) {
        let mass = impulse.abs() / (2.0 * speed);
        let first = self.probe_assumed_mass == 0.0 && self.probe_mass_floor == 0.0;
        if first && mass.is_finite() {
            self.probe_assumed_mass = mass;
        }
    }

    /// The least mass shows the whole impulse along the motion safe (`ProbeSizing::share` is
    /// None): probing ends for the run, and what earlier probes held back comes with this step.
    fn probe_not_needed(&mut self) {
        self.unclear_probes = PROBE_LIMIT;
        self.end_probing();
    }

    /// Probing ends without a mass: what the probes held back is delivered along the motion with
    /// the next step.
    fn end_probing(&mut self) -> bool {
        self.rough_answer = RoughAnswer::default();
        let waiting = std::mem::take(&mut self.probe_rest_waiting);
        self.probe_rest = (self.probe_rest.0 + waiting.0, self.probe_rest.1 + waiting.1);
        false
    }

    /// How large the next probe is, over a step of `h` where the master moves at `speed` (m/s).
    pub fn probe_sizing(&self, speed: f64, h: f64) -> ProbeSizing {
        ProbeSizing {
            fresh: !self.probe_pending,
            mass_floor: self.probe_mass_floor,
            speed,
            least_impulse: CONFIRMING_GROWTH * (self.rough_answer.force * h).abs(),
        }
    }

    /// Whether a step without a mass holds a probe instead of the contact's impulse along the
    /// motion: until an answer tells the mass or [`PROBE_LIMIT`] answers told nothing, a step
    /// whose contact is new to the master (no contact force in the step before; `new_contact`)
    /// is probed, and so is every step while a probe's answer is still to come (a master that
    /// holds `f_next` holds the probe one step later). A run's first step that starts compressed
    /// is not: its contact is under way (unless the bodies stepped into it unseen).
    pub fn probing(&self, new_contact: bool) -> bool {
        self.mass_estimate == 0.0
            && self.unclear_probes < PROBE_LIMIT
            && (self.probe_pending || new_contact)
    }
}

/// Whether the master's position moved from `from` to `to` on the parabola its two velocities span
/// (to 1e-9 of the motion): the body was under forces held constant over the step.
fn on_parabola(from: Observed, to: Observed) -> bool {
    let (moved, h) = (to.s - from.s, to.time - from.time);
    let bend = bend_off_parabola(from, to);
    let scale = moved.abs() + (to.v.abs() + from.v.abs()) * h;
    bend.abs() <= 1e-9 * scale
}

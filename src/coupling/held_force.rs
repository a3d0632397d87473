//! Which force the master held over the step just taken: `f_mean`, if it stepped the gap first,
//! or the `f_next` it read before the step, if it stepped all units at once. The master never says
//! which; unless the user told it (`heldForce`), its answer does: the velocity change against the
//! external acceleration seen so far. A master does not change its scheme during a run, so a clear
//! answer settles the reading, and only a far clearer one ([`OVERTURN`]) overturns it. The rest of
//! the coupling reads the outcome through [`Coupling::held_force`]: the force known to be held, or
//! none while the two differ and nothing told.

use super::probe::{PROBE_ROUNDING, SILENCE_CLARITY};
use super::{Coupling, Extrapolation, Observed, Prediction, ANSWER_ROUNDING, DISAGREEMENT};

/// How many times clearer than the external acceleration's change and the mass's margin a step's
/// answer must be to overturn which force the master was told to hold.
const OVERTURN: f64 = 4.0;

/// How many times a contact step's `f_mean` must exceed the one before it for a master one step
/// late to have held nothing of the contact over that step: a free step's nothing, or a contact
/// that only grazed it (`only_grazes`), held in full.
const LATE_NOTHING: f64 = 1e3;

/// How many times the margin of [`Coupling::tell_a_late_mean`] the late reading must fit an
/// answer better than every other before `f_mean` is also bounded as a late master holds it.
const SUSPICION: f64 = 2.0;

/// How far from the mass in use, as a factor either way, the mass an answer tells through one
/// reading may lie for that reading to fit: a mass the user gave up to twice off, and a tenth
/// more for the answer's own error.
const MASS_SPREAD: f64 = 2.2;

/// How one step's answer, read through a mass, fits each force the master may have held: the
/// acceleration the held force gave (`answer`, m/s^2, the velocity change less the external
/// acceleration's), the misfits (m/s^2) of the `f_mean` handed out a step before the last
/// (`late`), of the last one (`mean`) and of the `f_next` read before the step (`next`, infinite
/// where none was read), and the margin within which misfits tell nothing.
struct Misfits {
    answer: f64,
    late: f64,
    mean: f64,
    next: f64,
    margin: f64,
}

/// What one step's answer tells of the held force: whether it was `f_next`, and whether the answer
/// is clear enough to settle the reading and to overturn a settled one.
type Reading = (bool, (bool, bool));

impl Coupling {
    /// Whether the master may have held either force over the step just taken: it read both,
    /// and the user did not tell which it holds (`heldForce`). The answers do not count: a
    /// driven body's answers can seem to prove, clearer than anything hides, that a Jacobi
    /// master holds `f_mean`; a bound through that account would let the bodies' energy grow
    /// without limit.
    pub fn holds_either(&self) -> bool {
        !self.held_told && self.f_mean_read && self.next_readable
    }

    /// The force a master that holds `f_next` held over the step just taken: the `f_next` it
    /// read before it, or nothing where it read none.
    pub fn next_held(&self) -> f64 {
        if self.next_readable {
            self.last_next
        } else {
            0.0
        }
    }

    /// A master that read `f_next` only after the step held none of it over the step.
    #[inline(always)]
    pub(super) fn forget_next_read_after_step(&mut self) {
        if self.f_next_read && !self.next_readable {
            // Read only after the step: no master held it over the step.
            self.last_next = 0.0;
        }
    }

    /// A master that reads f_next and never f_mean holds f_next: it steps all units at once.
    #[inline(always)]
    pub(super) fn holds_next_if_it_reads_only_next(&mut self) {
        if !self.held_told && self.f_next_read && !self.f_mean_read {
            self.master_holds_next = Some(true);
            self.holds_next_settled = true;
        }
    }

    /// Which force did the master hold: f_mean (it stepped the gap first) or the f_next output
    /// before the step (it stepped all units at once)? Where they differ, the one that fits
    /// the external acceleration seen so far; the model then owes the master the difference.
    #[inline(always)]
    pub(super) fn read_which_force_was_held(
        &mut self,
        now: Observed,
        mass: Option<f64>,
        h1: f64,
        dv: f64,
    ) {
        if self.last_next != self.last_force && !self.held_told && self.f_mean_read {
            // An answer settles the reading where it is clearer than what the change of the
            // external acceleration over the last step could explain; until then each step's
            // answer may change it. A master does not change its scheme during a run: once
            // settled, a step overturns the reading only where its answer is [`OVERTURN`] times
            // clearer than that and a mass off by the warning margin together. A body pushed
            // through a contact by a spring behind it can answer a Jacobi master's step closer
            // to f_mean; were the reading to flip, E_port and the owed motion would go off by
            // the difference of the two forces.
            let doubt = self.a_ext_trend();
            // A force a rounding away from zero is none: a body on a spring driven near resonance,
            // held a rounding's residue by a Jacobi master, can answer closer to f_mean through
            // the extrapolation's miss, and E_port would then go off by that force's work.
            let rounding_apart = 1e-9 * self.last_force.abs().max(self.last_next.abs());
            let next_is_none = self.last_next.abs() <= rounding_apart;
            let mean_is_none = self.last_force.abs() <= rounding_apart;
            let told = match mass {
                // Both within rounding of zero: no force either way.
                _ if mean_is_none && next_is_none => None,
                _ if mean_is_none || next_is_none => {
                    self.tell_by_a_force_felt(now, mass, h1, dv, doubt, next_is_none)
                }
                Some(m) if self.a_ext_count > 0 => self.tell_by_the_better_fit(m, h1, dv, doubt),
                _ => None,
            };
            if let Some((holds_next, (settles, overturns))) = told {
                if !self.holds_next_settled || overturns {
                    self.master_holds_next = Some(holds_next);
                    self.holds_next_settled |= settles;
                }
            }
        }
    }

    /// Where one of the two forces is zero, the velocity change tells without a mass (a wrong one
    /// can tie the fit of [`Self::tell_by_the_better_fit`]): did the master's bodies feel a force
    /// at all? In the first step the external acceleration is taken as 0: a contact's answer
    /// stands out of any gravity.
    #[inline(always)]
    fn tell_by_a_force_felt(
        &self,
        now: Observed,
        mass: Option<f64>,
        h1: f64,
        dv: f64,
        doubt: f64,
        next_is_none: bool,
    ) -> Option<Reading> {
        let expected = self.a_ext(Extrapolation::Linear, self.last.time, h1);
        let forced_change =
            self.last_force.abs().max(self.last_next.abs()) * h1 / mass.unwrap_or(f64::INFINITY);
        // With a mass, the boundary lies where a force answered through a mass 2x off still falls
        // on its side; without one, only rounding is unforced.
        let tolerance = if mass.is_some() {
            0.25 * forced_change
        } else {
            self.rounding(now, ANSWER_ROUNDING)
        };
        let unexplained = (dv - expected * h1).abs();
        let unforced = unexplained <= tolerance;
        let margin = (unexplained - tolerance).abs();
        // Before any external acceleration is known, a change that is not zero may be its: a
        // reading, not a settled one. Gravity's change over a Jacobi master's first step, read as
        // the answer to a f_mean it never held, would settle that the master holds f_mean, and a
        // ball would then fly off far faster than it came.
        // Without a mass, a probe's answer within rounding is no sign that the master held
        // nothing: the probe may be too small for the bodies to answer at all.
        let silent_probe = unforced && mass.is_none() && self.probe_pending;
        let measured = !silent_probe && (self.a_ext_count > 0 || unforced);
        // Overturned only out of what the extrapolation has been missing by as well: a body a
        // spring pushes in and out of a resting contact is extrapolated through masses its answers
        // blur, and a passivity force can turn a Jacobi master's reading to f_mean.
        let clear = (
            measured && margin > doubt * h1,
            measured && margin > OVERTURN * (doubt + self.a_ext_miss) * h1,
        );
        // Before any external acceleration is known, a velocity change may be gravity's; no change
        // at all is no force (the held one would have to cancel an unseen one exactly).
        if measured || mass.is_some() {
            Some((next_is_none == unforced, clear))
        } else {
            None
        }
    }

    /// With a mass: whether the answer fits the `f_mean` handed out a step before the last, and
    /// neither the last one nor the `f_next` read before the step, by more than the external
    /// acceleration's change (taken as 0 where none was measured) and the mass's margin: the
    /// master steps every unit at once and holds `f_mean`, one step late. It is then told to hold
    /// `f_next`, which `f_mean` gives from now on ([`Self::hold_the_mean_as_late`]). Without a
    /// mass, [`Self::tell_a_late_mean_by_the_probe`]. Short of being told, an answer may leave it
    /// suspected ([`Self::suspect_a_late_mean`]).
    pub(super) fn tell_a_late_mean(
        &mut self,
        now: Observed,
        mass: Option<f64>,
        h1: f64,
        dv: f64,
    ) -> bool {
        // What the last answer left to this one, taken whichever way this one is read.
        let silently_answered = std::mem::take(&mut self.silently_answered);
        let undecided = std::mem::take(&mut self.late_or_next_undecided);
        if self.held_told || self.mean_held_late || !self.f_mean_read {
            return false;
        }
        let Some(m) = mass else {
            if self.tell_a_late_mean_by_three_answers(now, h1, dv) {
                self.hold_the_mean_as_late();
                return true;
            }
            return self.tell_a_late_mean_by_the_probe(now, h1, dv, silently_answered);
        };
        let fits = self.misfits(now, m, h1, dv);
        let on_a_grid = self.on_a_grid(h1);
        if on_a_grid {
            self.suspect_a_late_mean(&fits);
        }
        if undecided && on_a_grid && self.only_the_late_mass_is_near(&fits, m) {
            self.hold_the_mean_as_late();
            return true;
        }
        let Misfits {
            late,
            mean,
            next,
            margin,
            ..
        } = fits;
        let others = mean.min(next);
        // Told where it tells most clearly: the contact's first step, whose f_mean the master
        // did not feel, as the one before it was nothing (or a graze).
        // Or the step after it, where the `f_next` read before the first was nothing too, so
        // that its answer could not tell the late `f_mean` from it.
        let first = LATE_NOTHING * self.mean_before_last.abs() < self.last_force.abs();
        if !(first || undecided) || !on_a_grid || late > margin {
            return false;
        }
        // The second answer weighs the two readings the first left open on their own: the late
        // one where it fits the mass in use several times better.
        let told = if undecided {
            OVERTURN * late < others
        } else {
            others - late > OVERTURN * margin
        };
        if !told {
            // Weighed through a mass the user gave: one the answers gave may be what refutes
            // `f_mean`.
            let mean_refuted = mean - late > OVERTURN * margin;
            let given = self.mass_estimate == 0.0;
            let no_next_held = self.next_held() == 0.0;
            self.late_or_next_undecided = first && given && mean_refuted && no_next_held;
            return false;
        }
        self.hold_the_mean_as_late();
        true
    }

    /// Whether the step of `h1` just taken is as long as the one before it (or follows the run's
    /// first step start): on the grid of a master that steps every unit at once. A step cut short
    /// (an early return) is followed by one to the grid, and what it held is no late reading.
    pub(super) fn on_a_grid(&self, h1: f64) -> bool {
        let before_last = self.last.time - self.before_last.time;
        before_last == 0.0 || (before_last - h1).abs() <= 1e-9 * h1
    }

    /// How the answer `dv` over `h1`, read through `m`, fits each force the master may have held,
    /// against the external acceleration extrapolated linearly ([`Misfits`]).
    fn misfits(&self, now: Observed, m: f64, h1: f64, dv: f64) -> Misfits {
        let expected = self.a_ext(Extrapolation::Linear, self.last.time, h1);
        let misfit = |force: f64| (dv / h1 + force / m - expected).abs();
        // A master that read `f_next` only after the step held that output's start value,
        // nothing, over it (cofmupy's first step).
        let next = if self.f_next_read {
            misfit(self.next_held())
        } else {
            f64::INFINITY
        };
        let largest = self.mean_before_last.abs().max(self.last_force.abs()) / m;
        // Told apart beyond the velocities' rounding: forces of a free step's rounding residue
        // are no answer.
        let rounding = self.rounding(now, ANSWER_ROUNDING) / h1;
        // The bodies' own acceleration, where the answers have shown it change faster than the
        // means follow, may explain any reading.
        let unsteady = self.a_doubt * self.last.v.abs().max(now.v.abs());
        Misfits {
            answer: dv / h1 - expected,
            late: misfit(self.mean_before_last),
            mean: misfit(self.last_force),
            next,
            margin: self.a_ext_trend() + unsteady + DISAGREEMENT * largest + rounding,
        }
    }

    /// After a first answer that left the late `f_mean` and `f_next` undecided: whether the mass
    /// the next answer tells through the late `f_mean` lies within [`MASS_SPREAD`] of `m`, the
    /// mass the user gave, and the one through `f_next` does not. Through a mass twice off, the
    /// misfits alone do not tell them apart: a lone body given twice its mass can answer as the
    /// late reading has it, yet fit it less than [`OVERTURN`] times better than `f_next`; read as
    /// holding `f_next`, its answer would tell several times the body's mass, and the body would
    /// leave with many times its energy.
    fn only_the_late_mass_is_near(&self, fits: &Misfits, m: f64) -> bool {
        let near = |force: f64| {
            let mass = -force / fits.answer;
            mass > 0.0 && mass.is_finite() && (mass / m).ln().abs() <= MASS_SPREAD.ln()
        };
        near(self.mean_before_last) && !near(self.next_held())
    }

    /// An answer on a grid that fits the late `f_mean` within the margin, and [`SUSPICION`] times
    /// the margin better than every other reading, leaves the master suspected of holding
    /// `f_mean` one step late: from then on `f_mean` is bounded as such a master holds it too
    /// ([`Coupling::bound_as_if_late`]), the safe side of two readings the answers have not told
    /// apart. Not before a free step has shown the external acceleration: a drive's own push is
    /// then unknown, and a Gauss–Seidel master's first answer can look like a late one.
    fn suspect_a_late_mean(&mut self, fits: &Misfits) {
        if self.a_ext_count == 0 {
            return;
        }
        let others = fits.mean.min(fits.next);
        if fits.late <= fits.margin && others - fits.late > SUSPICION * fits.margin {
            self.late_suspected = true;
        }
    }

    /// Without a mass: a contact's first probe was answered by no force, while a master holding
    /// `f_mean` or the `f_next` it read would have held at least `silently_answered` (N) over it.
    /// The answer now, beyond rounding and on the parabola of a force held constant (a motion
    /// from a file that only now changes its speed is not), tells through either of those
    /// readings a mass that force would have moved by [`SILENCE_CLARITY`] times the rounding:
    /// their silence refutes both, and the answer is to the `f_mean` given for the probed step,
    /// a step late. Forces a rounding's residue large (a touch-down on a communication point)
    /// refute nothing.
    fn tell_a_late_mean_by_the_probe(
        &mut self,
        now: Observed,
        h1: f64,
        dv: f64,
        silently_answered: f64,
    ) -> bool {
        if silently_answered == 0.0 {
            return false;
        }
        let answered = dv - self.known_before_step().a_ext * h1;
        let rounding = self.rounding(now, PROBE_ROUNDING);
        // Through the mass either reading tells, what the silent step's force would have moved.
        let larger_held = self.last_force.abs().max(self.next_held().abs());
        let unheard = silently_answered * answered.abs() / larger_held;
        let pushed = -self.mean_before_last * answered > 0.0;
        if answered.abs() <= rounding
            || unheard <= SILENCE_CLARITY * rounding
            || !pushed
            || !self.moved_under_constant_forces(now)
        {
            return false;
        }
        self.hold_the_mean_as_late();
        true
    }

    /// Whether the master holds `f_mean` one step late, or may, where the `f_next` it reads
    /// besides is the other reading left: `f_mean` then gives what `f_next` gives, which a master
    /// holding `f_next` does not hold.
    pub fn may_hold_the_mean_late(&self) -> bool {
        self.mean_held_late || self.late_or_next_undecided
    }

    /// The master holds `f_mean` one step late: it is told to hold `f_next`, which `f_mean`
    /// gives from now on; the force it held over the last step, read as `f_next`, is the `f_mean`
    /// before the last, and over the coming step it holds the last one, handed out before this
    /// was told. The port's account is the late one.
    pub(super) fn hold_the_mean_as_late(&mut self) {
        self.mean_held_late = true;
        self.f_next_read = true;
        self.master_holds_next = Some(true);
        self.holds_next_settled = true;
        self.last_next = self.mean_before_last;
        self.next_readable = true;
        self.e_port = self.e_port_if_late;
        self.e_port_if_next = self.e_port_if_late;
        self.f_next = Prediction::Known(self.last_force);
    }

    /// With a mass and a measured external acceleration: the force whose answer misfits the
    /// extrapolated acceleration less.
    #[inline(always)]
    fn tell_by_the_better_fit(&self, m: f64, h1: f64, dv: f64, doubt: f64) -> Option<Reading> {
        let expected = self.a_ext(Extrapolation::Linear, self.last.time, h1);
        let misfit = |force: f64| (dv / h1 + force / m - expected).abs();
        // Two forces a rounding apart (the prediction made one step earlier is the force itself
        // while nothing new happens) cannot be told apart: the misfits then differ by noise, which
        // can make a master that holds f_mean look as if it held f_next (`model::tests`).
        let separation = (self.last_next - self.last_force).abs() / m;
        let noise = 1e-9 * (dv.abs() / h1 + self.last_force.abs() / m + expected.abs());
        if separation > noise {
            let (if_next, if_mean) = (misfit(self.last_next), misfit(self.last_force));
            let largest = self.last_next.abs().max(self.last_force.abs()) / m;
            let margin = (if_next - if_mean).abs();
            // Before the acceleration's change per step is measured, a drive's change over the
            // step may tell the two apart as well as the mass's margin does.
            let unmeasured = if self.a_ext_count < 2 {
                DISAGREEMENT * largest
            } else {
                0.0
            };
            let clear = (
                margin > doubt + unmeasured,
                margin > OVERTURN * (doubt + DISAGREEMENT * largest),
            );
            Some((if_next < if_mean, clear))
        } else {
            None
        }
    }

    /// A step whose force is the same under both readings and not zero answers with the mass
    /// on its own; kept to settle which force the master held when a contact window cannot.
    #[inline(always)]
    pub(super) fn estimate_from_a_step_both_readings_share(
        &mut self,
        mass: Option<f64>,
        h1: f64,
        dv: f64,
    ) {
        if mass.is_none()
            && self.master_holds_next.is_none()
            && self.last_force == self.last_next
            && self.last_force != 0.0
            && self.a_ext_count > 0
        {
            let expected = self.a_ext(Extrapolation::Linear, self.last.time, h1);
            let answered = dv - expected * h1;
            let estimate = -self.last_force * h1 / answered;
            if estimate.is_finite() && estimate > 0.0 {
                self.step_estimate = estimate;
            }
        }
    }

    /// The force the master held, where it is known which one it was (two forces a rounding
    /// apart are the same answer).
    #[inline(always)]
    pub(super) fn held_force(&self) -> Option<f64> {
        match self.master_holds_next {
            Some(true) => Some(self.last_next),
            Some(false) => Some(self.last_force),
            None => ((self.last_next - self.last_force).abs()
                <= 1e-9 * self.last_force.abs().max(self.last_next.abs()))
            .then_some(self.last_force),
        }
    }

    /// The model owes the master what a force other than the assumed one did.
    #[inline(always)]
    pub(super) fn owe_what_another_force_did(
        &mut self,
        mass: Option<f64>,
        applied: Option<f64>,
        h1: f64,
    ) {
        if let (Some(m), Some(applied)) = (mass, applied) {
            let extra = (applied - self.assumed_held) / m;
            self.owed_s += 0.5 * extra * h1 * h1;
            self.owed_v += extra * h1;
        }
    }
}

//! The external relative acceleration: what moves the master's bodies besides the held force
//! (gravity, springs, drives, bodies behind them). It is measured as a step's mean wherever the
//! force held over the step is known as an acceleration (through a mass, or no force at all); the
//! last two means are kept and extrapolated over the coming step ([`Extrapolation`]). Every answer
//! of the master is read against it, as it was before the contact. An answer without a mass may
//! instead be read against the acceleration linear in the position through the same two means
//! (a spring to ground), where that predicted the newest mean far better
//! ([`Coupling::a_ext_by_position`]).

use super::{Coupling, Observed};

/// The largest change of the external acceleration with the position, over the step squared
/// (`(omega*h)^2` for a spring), through which an answer is read: a spring the steps resolve,
/// some twenty steps to its period. Over a period of a few steps neither the position nor the
/// time follows the mean acceleration from one step to the next.
const RESOLVED_SPRING: f64 = 0.1;

/// How many times closer than the time extrapolation the acceleration linear in the position
/// must have predicted the newest mean: a spring to ground is linear in the position to
/// rounding, a body that other contacts or moving walls push is not, and its answers read
/// through a line in the position tell wrong masses.
const POSITION_CLARITY: f64 = 1e3;

/// How the external acceleration over a step is extrapolated from the past ones; the values of the
/// parameter `accelerationEstimate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extrapolation {
    None,
    Constant,
    Linear,
}

/// The external acceleration as known before a step's own mean joins the means: a contact's
/// first step measures it only through the mass it is to test.
#[derive(Clone, Copy, Debug)]
pub(super) struct KnownBefore {
    /// The newest mean (0 where none is known).
    pub(super) a_ext: f64,
    /// Whether a mean was known.
    pub(super) known: bool,
    /// How much it changed between the last two means (0 where fewer than two were known).
    pub(super) trend: f64,
    /// Whether two means were known, and so the change.
    pub(super) trend_known: bool,
}

/// The acceleration that the held force `applied` gave the master's bodies through `mass`: none
/// for no force, whatever the mass; unknown without a mass, or while the held force is.
#[inline(always)]
pub(super) fn force_acceleration(applied: Option<f64>, mass: Option<f64>) -> Option<f64> {
    match applied {
        Some(0.0) => Some(0.0),
        Some(force) => mass.map(|m| force / m),
        None => None,
    }
}

impl Coupling {
    /// The mean external relative acceleration over `[start, start + h]`.
    pub fn a_ext(&self, extrapolation: Extrapolation, start: f64, h: f64) -> f64 {
        match (extrapolation, self.a_ext_count) {
            (Extrapolation::None, _) | (_, 0) => 0.0,
            (Extrapolation::Constant, _) | (_, 1) => self.a_ext_means[0],
            (Extrapolation::Linear, _) => {
                let [m1, m2] = self.a_ext_means;
                let [t1, t2] = self.a_ext_times;
                let slope = (m1 - m2) / (t1 - t2);
                let a = m1 + slope * (start + 0.5 * h - t1);
                if a.is_finite() {
                    a
                } else {
                    m1
                }
            }
        }
    }

    /// The mean position over the step from the last step start to `now`, on the parabola of
    /// the two velocities (forces held constant).
    fn mean_position(&self, now: Observed) -> f64 {
        let h = now.time - self.last.time;
        0.5 * (self.last.s + now.s) - (now.v - self.last.v) * h / 12.0
    }

    /// How the external acceleration changes with the position through the last two means.
    fn a_ext_slope_in_position(&self) -> f64 {
        let [m1, m2] = self.a_ext_means;
        let [p1, p2] = self.a_ext_positions;
        (m1 - m2) / (p1 - p2)
    }

    /// The mean external acceleration over a step of mean position `position`, linear in the
    /// position through the last two means.
    fn a_ext_at(&self, position: f64) -> f64 {
        let m1 = self.a_ext_means[0];
        let a = m1 + self.a_ext_slope_in_position() * (position - self.a_ext_positions[0]);
        if a.is_finite() {
            a
        } else {
            m1
        }
    }

    /// The external acceleration over the step from the last step start to `now` of `h`, linear
    /// in the position, and its last miss (m/s^2): where it predicted the newest mean
    /// [`POSITION_CLARITY`] times closer than the time extrapolation and the steps resolve it
    /// ([`RESOLVED_SPRING`]); else None.
    pub(super) fn a_ext_by_position(&self, now: Observed, h: f64) -> Option<(f64, f64)> {
        let clearer = POSITION_CLARITY * self.a_ext_miss_position < self.a_ext_miss;
        let resolved = self.a_ext_slope_in_position().abs() * h * h <= RESOLVED_SPRING;
        (self.a_ext_count == 2 && clearer && resolved).then(|| {
            (
                self.a_ext_at(self.mean_position(now)),
                self.a_ext_miss_position,
            )
        })
    }

    /// Where two free means are known and nothing has yet shown how well either extrapolation
    /// of them predicts a third, an unclear probe's step shows it: each misses that step's
    /// velocity change by its own error and the probe's answer together, so both misses are
    /// at most that much. Where the line in the position missed [`POSITION_CLARITY`] times
    /// less, both are kept, and the next answer is read through the line
    /// ([`Coupling::a_ext_by_position`]).
    pub(super) fn measure_misses_by_a_probe(&mut self, now: Observed, dv: f64, h: f64) {
        let unmeasured = self.a_ext_miss == 0.0 && self.a_ext_miss_position == 0.0;
        if self.a_ext_count < 2 || !unmeasured {
            return;
        }
        let (by_time, by_position) = self.misses_of(dv / h, now, h);
        if by_time.is_finite() && POSITION_CLARITY * by_position < by_time {
            self.a_ext_miss = by_time;
            self.a_ext_miss_position = by_position;
        }
    }

    /// How far a step's mean external acceleration `mean` over `h` up to `now` lies from the two
    /// means' extrapolation in time and from their line in the position (m/s^2).
    fn misses_of(&self, mean: f64, now: Observed, h: f64) -> (f64, f64) {
        let by_time = (mean - self.a_ext(Extrapolation::Linear, self.last.time, h)).abs();
        let by_position = (mean - self.a_ext_at(self.mean_position(now))).abs();
        (by_time, by_position)
    }

    /// How much the external acceleration changed between the last two steps it is known for.
    pub(super) fn a_ext_trend(&self) -> f64 {
        if self.a_ext_count == 2 {
            (self.a_ext_means[0] - self.a_ext_means[1]).abs()
        } else {
            0.0
        }
    }

    /// The external acceleration of the free step before a contact: the newest mean, which the
    /// contact's step could not give.
    fn a_ext_before_contact(&self) -> f64 {
        if self.a_ext_count > 0 {
            self.a_ext_means[0]
        } else {
            0.0
        }
    }

    /// The external acceleration before this step's mean joins the means.
    #[inline(always)]
    pub(super) fn known_before_step(&self) -> KnownBefore {
        KnownBefore {
            a_ext: self.a_ext_before_contact(),
            known: self.a_ext_count > 0,
            trend: self.a_ext_trend(),
            trend_known: self.a_ext_count == 2,
        }
    }

    /// The step's mean external acceleration joins the last two where the force held over it is
    /// known as an acceleration (`from_force`); a step held no force over also gives the speed
    /// fuse's prediction (`a_free`). Returns whether the mean was learned.
    #[inline(always)]
    pub(super) fn learn_the_steps_external_acceleration(
        &mut self,
        from_force: Option<f64>,
        applied: Option<f64>,
        dv: f64,
        now: Observed,
    ) -> bool {
        let h1 = now.time - self.last.time;
        let mut learned_mean = false;
        if let Some(force_acceleration) = from_force {
            let mean = dv / h1 + force_acceleration;
            if applied == Some(0.0) && mean.is_finite() {
                self.a_free = mean;
                self.a_free_known = true;
            }
            if mean.is_finite() {
                learned_mean = true;
                // How far the linear extrapolations of the two before missed it: what a probe's
                // answer read through either must stand out of.
                (self.a_ext_miss, self.a_ext_miss_position) = if self.a_ext_count == 2 {
                    self.misses_of(mean, now, h1)
                } else {
                    (0.0, 0.0)
                };
                let position = self.mean_position(now);
                self.a_ext_positions = [position, self.a_ext_positions[0]];
                self.a_ext_means = [mean, self.a_ext_means[0]];
                self.a_ext_times = [self.last.time + 0.5 * h1, self.a_ext_times[0]];
                self.a_ext_count = (self.a_ext_count + 1).min(2);
            }
        }
        learned_mean
    }
}

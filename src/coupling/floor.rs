//! Without a mass, what each answer tells: the velocity change a held force caused, read through
//! the external acceleration's extrapolation, and the least mass it allows (`probe_mass_floor`).

use super::probe::PROBE_ROUNDING;
use super::{bend_off_parabola, Coupling, Extrapolation, Observed};

/// How many times what the external acceleration's extrapolation can miss (as estimated from its
/// past misses) a mass floor allows for: a driven body's answer can miss by several times the
/// estimate, and a floor through it would lie above the body's mass.
const FLOOR_DOUBT: f64 = 4.0;

impl Coupling {
    /// A step's answer read through the external acceleration extrapolated linearly (a body
    /// pushed by a spring or a drive): the velocity change `dv` over `h` less the extrapolation,
    /// and what that extrapolation can miss: its last miss between free steps, grown with the
    /// square of how many steps ahead of the last mean it reaches (no mean is known while no
    /// mass is), or the step's own bend off a parabola where fewer steps are known. Where the
    /// acceleration linear in the position predicted the last free mean far better (a spring to
    /// ground, `Coupling::a_ext_by_position`), through that and its own miss: the bend is then the
    /// spring's, which the position follows.
    pub(super) fn read_answer(&self, now: Observed, dv: f64, h: f64) -> (f64, f64, bool) {
        let as_velocity = |from: Observed, to: Observed| {
            12.0 * bend_off_parabola(from, to) / (to.time - from.time)
        };
        let bend_now = as_velocity(self.last, now);
        let seen_before = self.before_last.time < self.last.time;
        let ahead = ((self.last.time + 0.5 * h - self.a_ext_times[0]) / h).max(1.0);
        // A miss of the mean acceleration, as a velocity change over this step that many steps on.
        let grown = |miss: f64| miss * h * 0.5 * ahead * (ahead + 1.0);
        let by_position = self.a_ext_by_position(now, h);
        if let Some((a_ext, miss)) = by_position.filter(|_| seen_before) {
            return (dv - a_ext * h, grown(miss), true);
        }
        let hidden = if seen_before && self.a_ext_count == 2 {
            let bend_before = as_velocity(self.before_last, self.last);
            grown(self.a_ext_miss).max((bend_now - bend_before).abs())
        } else {
            bend_now.abs()
        };
        let through_trend = dv - self.a_ext(Extrapolation::Linear, self.last.time, h) * h;
        (through_trend, hidden, false)
    }

    /// Raises the least mass the answers allow without a mass (`probe_mass_floor`) by a step's
    /// answer to the force held over `h` (at most `force`, N): the body moved by at most the
    /// velocity change read through the extrapolation plus [`FLOOR_DOUBT`] times what that can
    /// miss, so its mass is at least the impulse over that. A master that read f_next before the
    /// step may have held either force: unless the user told which (`heldForce`), the smaller
    /// counts (a driven body's answer to no force at all can look like one to a large force,
    /// and a floor through it would lie many times above its mass).
    pub(super) fn raise_mass_floor(&mut self, now: Observed, dv: f64, h: f64, force: f64) {
        let next = self.next_held().abs();
        let held = match (self.holds_either(), self.master_holds_next) {
            (true, _) => self.last_force.abs().min(next),
            (false, Some(true)) => next,
            (false, _) => self.last_force.abs(),
        };
        // A force that is not a number tells nothing.
        let force = force.min(held);
        if force <= 0.0 || force.is_nan() {
            return;
        }
        let (through_trend, hidden, _) = self.read_answer(now, dv, h);
        let rounding = self.rounding(now, PROBE_ROUNDING);
        let floor = force * h / (through_trend.abs() + FLOOR_DOUBT * hidden + rounding);
        if floor.is_finite() && floor > self.probe_mass_floor {
            self.probe_mass_floor = floor;
        }
    }

    /// Whether `mass` is at least half the least mass an earlier answer allowed: a velocity jump
    /// of a prescribed motion read as the answer to a small probe can give a mass orders of
    /// magnitude below the least mass, and the dynamic step through it would not be finite.
    pub(super) fn floor_allows(&self, mass: f64) -> bool {
        mass >= 0.5 * self.probe_mass_floor
    }
}

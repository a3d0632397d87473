//! The port's bound: no held force may give the master's bodies energy the port has not received.
//!
//! A force `F` (at flange_b; the body there feels `-F`) held over a step of `h` does the work
//! `F*Δs` on the port, exactly, whatever else moves the bodies (`Δs` the relative displacement the
//! master then reports): that is what `E_port` sums. The port holds `B = E_port + E_0 - S`
//! (`E_0` the spring energy of a compressed start, `S` what settled contacts dissipated:
//! `Coupling::settle_port`), and it stays passive as long as the step's work `F*Δs >= -B`.
//!
//! `Δs` depends on the force itself through the mass it moves. With the relative velocity `v` and
//! external acceleration `a` at the step start and a mass of at least `m`,
//! `Δs = v*h + a*h^2/2 - F*h^2/(2*m_true)`, and for `m_true >= m` the work is at least
//! `F*(v*h + a*h^2/2) - F^2*h^2/(2*m)`. Keeping that above `-B` is a quadratic condition on `F`:
//! the admissible forces are the interval between its roots, which always holds `F = 0` when
//! `B >= 0`. For a body approaching a housing (`a = 0`, `B = 0`) its push side is the impulse
//! `2*m*|v|` that reverses the body's velocity, no more. Where `B < 0` the port has already given
//! energy away: nothing but forces that take energy back (between 0 and the force whose work is
//! zero) may be held until the account is square.
//!
//! The external acceleration is the one measured over the last step without a held force, and
//! the bodies have been seen to move away from what it predicts by up to `a_doubt` times their
//! speed (the largest miss the master's answers to held forces showed beyond the mass's own
//! range, over the speed of its step: a body on a spring misses in proportion to its swing).
//! Once the port owes energy, the displacement over the step is taken to lie up to
//! `δ = a_doubt*u*h^2/2` away from the prediction (`u` the largest of the speeds at the step's
//! start, unforced at its end, and the passive speed): a push (`F > 0`) is bounded as if
//! the bodies moved `δ` further along it, a pull as if `δ` further against it. A body on a spring
//! whose period is a few steps is in this way held to forces whose work the port can pay for,
//! whatever the spring did over the step; where the acceleration is steady (a lone body, gravity)
//! nothing misses, and nothing changes.
//!
//! Nothing here estimates anything: the velocity and the port's account are the master's own
//! numbers, the mass is the least one every answer so far allows (`m_eff` until contradicted),
//! the acceleration the one measured over a step without a held force, its doubt the largest
//! miss measured over steps with one.

/// What the bound needs of the step ahead: the master's relative velocity and external
/// acceleration at its start, the energy the port holds by then (what it received less what
/// settled contacts spent) and the least mass the held force can move (`f64::INFINITY` for an
/// infinitely heavy, prescribed motion); how far the acceleration has been seen to miss, per
/// unit of speed (1/s), and the fastest speed seen while the port was passive (m/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortState {
    pub v: f64,
    pub a: f64,
    pub received: f64,
    pub least_mass: f64,
    pub a_doubt: f64,
    pub passive_speed: f64,
}

impl PortState {
    /// The interval of forces that may be held over a step of `h` from this state, `(low, high)`
    /// with `low <= high`. Where a number is not finite, no mass is known or the motion is
    /// prescribed (an infinite mass), `(-inf, inf)`: the caller's own checks refuse a non-finite
    /// step, without a mass nothing can be said, and a prescribed motion takes no energy.
    pub fn admissible(self, h: f64) -> (f64, f64) {
        let PortState {
            v,
            a,
            received,
            least_mass,
            ..
        } = self;
        let unbounded = (f64::NEG_INFINITY, f64::INFINITY);
        if !(v.is_finite() && a.is_finite() && received.is_finite() && h > 0.0 && h.is_finite())
            || least_mass.is_nan()
            || least_mass <= 0.0
            || least_mass == f64::INFINITY
        {
            // An infinite mass: the master prescribes the motion, which no force changes.
            return unbounded;
        }
        // Work on the port: W(F) = b*F - q*F^2 >= -B, with b moved by the doubt against F.
        let b = v * h + 0.5 * a * h * h;
        let doubt = if received < 0.0 {
            self.displacement_doubt(h)
        } else {
            0.0
        };
        let q = 0.5 * h * h / least_mass;
        // Without doubt both ends come from the same interval: b + doubt and b - doubt are b
        // bit for bit, save a zero's sign.
        if doubt == 0.0 && b != 0.0 {
            return one_sided(b, q, received);
        }
        (
            one_sided(b + doubt, q, received).0,
            one_sided(b - doubt, q, received).1,
        )
    }

    /// How far the bodies' displacement over a step of `h` may lie from the one the measured
    /// acceleration predicts (m): 0 where no step has missed its prediction.
    fn displacement_doubt(self, h: f64) -> f64 {
        let speed = self
            .v
            .abs()
            .max((self.v + self.a * h).abs())
            .max(self.passive_speed);
        let doubt = 0.5 * self.a_doubt * speed * h * h;
        if doubt.is_finite() {
            doubt
        } else {
            0.0
        }
    }

    /// `force` brought into the admissible interval of a step of `h`.
    pub fn bound(self, force: f64, h: f64) -> f64 {
        let (low, high) = self.admissible(h);
        force.clamp(low, high)
    }

    /// `force` bounded over this step (`held` None: `f_mean`) or over the step after one that
    /// holds `held` (`f_next`, [`Self::admissible_after`]).
    pub fn bound_held(self, force: f64, h: f64, held: Option<f64>) -> f64 {
        // Every admissible interval holds 0 (`one_sided`): no force is never cut, and a free
        // step, which holds none, skips the interval.
        if force == 0.0 {
            return force;
        }
        let (low, high) = match held {
            None => self.admissible(h),
            Some(held) => self.admissible_after(held, h),
        };
        force.clamp(low, high)
    }

    /// The state a step of `h` holding `force` leaves, through a mass of `mass` (the port's
    /// account and velocity predicted; the mass, the acceleration and its doubt kept).
    pub fn after(self, force: f64, h: f64, mass: f64) -> PortState {
        let displacement = self.v * h + 0.5 * (self.a - force / mass) * h * h;
        PortState {
            v: self.v + (self.a - force / mass) * h,
            received: self.received + force * displacement,
            ..self
        }
    }

    /// The interval admissible over the step after one that holds `held`, whatever mass at least
    /// `least_mass` that force moves: the intersection over the two ends of that range (the work
    /// and the velocity are monotonic in the inverse mass).
    pub fn admissible_after(self, held: f64, h: f64) -> (f64, f64) {
        let light = self.after(held, h, self.least_mass).admissible(h);
        let heavy = self.after(held, h, f64::INFINITY).admissible(h);
        let (low, high) = (light.0.max(heavy.0), light.1.min(heavy.1));
        if low <= high {
            (low, high)
        } else {
            (0.0, 0.0)
        }
    }
}

/// The forces `F` with `b*F - q*F^2 >= -received`, as an interval that holds 0 where the port has
/// received energy (`received >= 0`); where it has given energy away, the forces between 0 and
/// the one whose work is zero.
fn one_sided(b: f64, q: f64, received: f64) -> (f64, f64) {
    let unbounded = (f64::NEG_INFINITY, f64::INFINITY);
    if q == 0.0 {
        // A mass so large that the step's response to the force underflows: the work is
        // linear in F.
        return match (b > 0.0, b < 0.0) {
            _ if received >= 0.0 && b == 0.0 => unbounded,
            (true, _) => (-received.max(0.0) / b, f64::INFINITY),
            (_, true) => (f64::NEG_INFINITY, -received.max(0.0) / b),
            _ => (0.0, 0.0),
        };
    }
    let discriminant = b * b + 4.0 * q * received;
    if received < 0.0 || discriminant < 0.0 || !discriminant.is_finite() {
        // Energy given away: only forces whose work the port receives, between 0 and b/q.
        let zero_work = b / q;
        return if zero_work.is_finite() {
            (zero_work.min(0.0), zero_work.max(0.0))
        } else {
            (0.0, 0.0)
        };
    }
    let root = discriminant.sqrt();
    // The two roots (b ± root)/(2q), each in the form that does not cancel.
    if b >= 0.0 {
        let high = (b + root) / (2.0 * q);
        let low = -2.0 * received / (b + root);
        (
            finite_or(low, f64::NEG_INFINITY),
            finite_or(high, f64::INFINITY),
        )
    } else {
        let low = (b - root) / (2.0 * q);
        let high = 2.0 * received / (root - b);
        (
            finite_or(low, f64::NEG_INFINITY),
            finite_or(high, f64::INFINITY),
        )
    }
}

fn finite_or(value: f64, otherwise: f64) -> f64 {
    if value.is_nan() {
        otherwise
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEADY: PortState = PortState {
        v: 0.0,
        a: 0.0,
        received: 0.0,
        least_mass: 1.0,
        a_doubt: 0.0,
        passive_speed: 0.0,
    };

    fn work(state: PortState, force: f64, h: f64, mass: f64) -> f64 {
        force * (state.v * h + 0.5 * (state.a - force / mass) * h * h)
    }

    #[test]
    fn an_approaching_body_may_be_sent_back_no_faster_than_it_came() {
        let state = PortState {
            v: -2.0,
            a: 0.0,
            received: 0.0,
            least_mass: 3.0,
            ..STEADY
        };
        let h = 0.01;
        let (low, high) = state.admissible(h);
        // The impulse that reverses 2 m/s through 3 kg: 12 N.s.
        assert!((low * h + 12.0).abs() < 1e-12, "{low}");
        assert_eq!(high, 0.0);
        let after = state.after(low, h, 3.0);
        assert!((after.v - 2.0).abs() < 1e-12);
    }

    #[test]
    fn the_bound_keeps_the_port_passive_for_every_heavier_mass() {
        let mut random = crate::test_random::Xorshift(0x2545_f491_4f6c_dd1d);
        let mut unit = || random.unit();
        for _ in 0..10_000 {
            let state = PortState {
                v: 10.0 * (unit() - 0.5),
                a: 20.0 * (unit() - 0.5),
                received: if unit() < 0.2 { -unit() } else { 5.0 * unit() },
                least_mass: 0.01 + 5.0 * unit(),
                ..STEADY
            };
            let h = 1e-3 + 0.1 * unit();
            let (low, high) = state.admissible(h);
            assert!(low <= high);
            for force in [low, high, 0.5 * (low + high)] {
                for factor in [1.0, 1.5, 10.0, 1e6] {
                    let w = work(state, force, h, state.least_mass * factor);
                    let floor = -state.received.max(0.0);
                    let tolerance = 1e-9 * (1.0 + w.abs() + state.received.abs());
                    if state.received >= 0.0 {
                        assert!(w >= floor - tolerance, "{state:?} {force} {w}");
                    } else {
                        // Energy given away: the step may only take some back.
                        assert!(w >= -tolerance, "{state:?} {force} {w}");
                    }
                }
            }
        }
    }

    #[test]
    fn with_a_doubt_a_port_that_owes_energy_gives_none_wherever_the_bodies_end_within_it() {
        // Owing energy, the bodies end anywhere within the doubt of the predicted displacement,
        // through the least mass or any heavier one: the port receives what the step does.
        let mut random = crate::test_random::Xorshift(0x6a09_e667_f3bc_c908);
        let mut unit = || random.unit();
        for _ in 0..10_000 {
            let state = PortState {
                v: 10.0 * (unit() - 0.5),
                a: 20.0 * (unit() - 0.5),
                received: -unit(),
                least_mass: 0.01 + 5.0 * unit(),
                a_doubt: 50.0 * unit(),
                passive_speed: 3.0 * unit(),
            };
            let h = 1e-3 + 0.1 * unit();
            let (low, high) = state.admissible(h);
            assert!(low <= high, "{state:?}");
            let doubt = state.displacement_doubt(h);
            for force in [low, high, 0.5 * (low + high)] {
                for factor in [1.0, 3.0, 1e6] {
                    for shift in [-doubt, doubt] {
                        let w = work(state, force, h, state.least_mass * factor) + force * shift;
                        let tolerance = 1e-9 * (1.0 + w.abs() + state.received.abs());
                        assert!(w >= -tolerance, "{state:?} {force} {shift} {w}");
                    }
                }
            }
        }
        // A doubt as large as the step's own motion holds nothing while the port owes energy;
        // while it does not, the bound is the steady one.
        let owing = PortState {
            v: -2.0,
            received: -0.1,
            least_mass: 1.0,
            ..STEADY
        };
        let h = 0.01;
        assert!(owing.admissible(h).0 < 0.0);
        // A displacement doubt of a_doubt*|v|*h^2/2 = 0.02 m: the step's own motion.
        let unsure = PortState {
            a_doubt: 200.0,
            ..owing
        };
        assert_eq!(unsure.admissible(h), (0.0, 0.0));
        let paid = PortState {
            received: 0.1,
            ..unsure
        };
        let steady = PortState {
            a_doubt: 0.0,
            ..paid
        };
        assert_eq!(paid.admissible(h), steady.admissible(h));
    }

    #[test]
    fn without_a_mass_nothing_is_bounded() {
        let state = PortState {
            v: -1.0,
            a: 0.0,
            received: 0.0,
            least_mass: 0.0,
            ..STEADY
        };
        assert_eq!(state.admissible(0.01), (f64::NEG_INFINITY, f64::INFINITY));
    }
}

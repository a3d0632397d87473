//! Tangential friction on top of a normal force law (laws 1–6), in the contact's tangential
//! plane: `f_t = mu(|v_t|)*|f|*v_t/|v_t|` for the slip velocity `v_t = (v_tx, v_ty)`, its
//! magnitude bounded by `f_t_max` where it is set, with `mu` after MSC Adams or RecurDyn. The body
//! at flange_b feels `-f_t`, so friction opposes its slip as a whole, not each axis on its own
//! (as a contact point sliding in a plane does in Adams and RecurDyn), and takes the power
//! `f_t.v_t = mu(|v_t|)*|f|*|v_t| >= 0`.
//!
//! [`TangentialPass`] is a normal law whose dissipated power is the friction's alone: integrated by
//! the same step integrators along the same motion, it gives the friction's energy over a step.

use super::tangential::{slip_speed, PlaneForce, Tangential};
use super::{step, step_slope, AffineRegion, ContactLaw, Forces, Partials};

indexed_choice! {
    /// The parameter `frictionLaw`, in the order of the Enumeration type `FrictionLaw`.
    FrictionLaw {
        None = 1,
        Adams = 2,
        RecurDyn = 3,
    }
}

indexed_choice! {
    /// The parameter `frictionInterpolation` (RecurDyn's friction): how `mu` goes between its
    /// thresholds.
    FrictionInterpolation {
        Step = 1,
        Linear = 2,
    }
}

/// The friction parameters; `law` and `interpolation` as the importer set them (refused out of
/// range when the parameters take effect).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Friction {
    pub law: i32,
    pub interpolation: i32,
    pub mu_s: f64,
    pub mu_d: f64,
    pub v_s: f64,
    pub v_d: f64,
    /// 0: no bound.
    pub f_t_max: f64,
    /// m; 0: no stick–slip (the curve alone, 0 at rest).
    pub max_stiction_deformation: f64,
}

impl Friction {
    pub fn is_on(&self) -> bool {
        FrictionLaw::from_index(self.law).is_some_and(|law| law != FrictionLaw::None)
    }

    /// `mu(v_t)` and its slope; odd in `v_t`, 0 at rest.
    pub fn coefficient(&self, v_t: f64) -> (f64, f64) {
        let speed = v_t.abs();
        let sign = if v_t < 0.0 { -1.0 } else { 1.0 };
        let (mu_s, mu_d, v_s, v_d) = (self.mu_s, self.mu_d, self.v_s, self.v_d);
        match FrictionLaw::from_index(self.law) {
            None | Some(FrictionLaw::None) => (0.0, 0.0),
            Some(FrictionLaw::Adams) => {
                if speed <= v_s {
                    // STEP(v, -v_s, -mu_s, v_s, mu_s): odd, through 0.
                    (
                        step(v_t, -v_s, -mu_s, v_s, mu_s),
                        step_slope(v_t, -v_s, -mu_s, v_s, mu_s),
                    )
                } else {
                    (
                        sign * step(speed, v_s, mu_s, v_d, mu_d),
                        step_slope(speed, v_s, mu_s, v_d, mu_d),
                    )
                }
            }
            Some(FrictionLaw::RecurDyn) => {
                let linear = self.interpolation == FrictionInterpolation::Linear as i32;
                let piece = |x: f64, x0: f64, h0: f64, x1: f64, h1: f64| {
                    if linear {
                        let r = (x - x0) / (x1 - x0);
                        (h0 + (h1 - h0) * r, (h1 - h0) / (x1 - x0))
                    } else {
                        (step(x, x0, h0, x1, h1), step_slope(x, x0, h0, x1, h1))
                    }
                };
                let (mu, slope) = if speed <= v_s {
                    piece(speed, 0.0, 0.0, v_s, mu_s)
                } else if speed < v_d {
                    piece(speed, v_s, mu_s, v_d, mu_d)
                } else {
                    (mu_d, 0.0)
                };
                (sign * mu, slope)
            }
        }
    }

    /// A bound on `|d mu / d v_t|` over the whole curve (1/(m/s)): the cubic steps are 1.5 times
    /// steeper at their middle than their chord. An integrator sizes its steps by it.
    pub fn steepest_slope(&self) -> f64 {
        let chord = |rise: f64, run: f64| {
            if run > 0.0 {
                rise.abs() / run
            } else {
                0.0
            }
        };
        let chords =
            chord(self.mu_s, self.v_s).max(chord(self.mu_s - self.mu_d, self.v_d - self.v_s));
        if chords.is_finite() {
            1.5 * chords
        } else {
            0.0
        }
    }

    /// `f_t` at normal force `f` and tangential velocity `v_t`, with its slopes by `|f|` and by
    /// `v_t`.
    pub fn force(&self, f: f64, v_t: f64) -> (f64, f64, f64) {
        let (mu, mu_slope) = self.coefficient(v_t);
        let normal = f.abs();
        let f_t = mu * normal;
        if self.f_t_max > 0.0 && f_t.abs() > self.f_t_max {
            return (self.f_t_max.copysign(mu), 0.0, 0.0);
        }
        (f_t, mu, mu_slope * normal)
    }
}

impl Friction {
    /// `f_t` at normal force `f` and slip velocity `v_t`: the magnitude `g = mu(|v_t|)*|f|`
    /// (bounded) along `v_t`. Its Jacobian is `g' u u^T + g/|v_t| (I - u u^T)` with `u` the slip
    /// direction: across the slip the force turns with it, along the slip it follows the curve.
    /// At rest the curve's slope at 0 in every direction (`g/|v_t|` tends to it).
    pub fn force_in_plane(&self, f: f64, v_t: [f64; 2]) -> PlaneForce {
        let speed = slip_speed(v_t);
        let (magnitude, by_normal, slope) = self.force(f, speed);
        if speed == 0.0 || speed.is_nan() {
            return PlaneForce {
                by_velocity: [[slope, 0.0], [0.0, slope]],
                ..PlaneForce::default()
            };
        }
        // The direction from the components scaled to the largest: |v_t| of two finite ones
        // near the largest double overflows (such a slip would get no friction; fuzz/fmi_calls
        // sets such slips), and the curve's value there is mu_d all the same.
        let largest = v_t[0].abs().max(v_t[1].abs());
        let scaled = v_t.map(|v| v / largest);
        let norm = slip_speed(scaled);
        let u = scaled.map(|v| v / norm);
        let across = magnitude / speed;
        let by_velocity: [[f64; 2]; 2] = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let identity = if i == j { 1.0 } else { 0.0 };
                slope * u[i] * u[j] + across * (identity - u[i] * u[j])
            })
        });
        let f_t = [magnitude * u[0], magnitude * u[1]];
        // The power f_t.v_t = magnitude*speed, all of it dissipated; its slope by v_t[j] is
        // f_t[j] + sum_i v_t[i]*by_velocity[i][j].
        PlaneForce {
            f_t,
            by_normal: [by_normal * u[0], by_normal * u[1]],
            by_velocity,
            loss_power: magnitude * speed,
            loss_by_normal: by_normal * speed,
            loss_by_velocity: std::array::from_fn(|j| {
                f_t[j] + v_t[0] * by_velocity[0][j] + v_t[1] * by_velocity[1][j]
            }),
        }
    }
}

/// A normal law seen by the step integrators with the tangential force's pass rate
/// ([`Tangential::pass_rate`]: the friction's power, or 1 in range for the Gap Force's dampers),
/// times `scale`, as its dissipated power, at a slip speed `v_t` held over the step. The force and the motion
/// are the law's own: only the dissipated energy differs. Never affine, so that the friction's
/// kinks (where `|f|` turns and where `f_t_max` bounds it) fall inside pieces integrated to the
/// tolerance. The dynamic step holds the dissipated energy to its tolerance of the motion's
/// kinetic energy: `scale` brings the friction's energy, often far smaller, to that size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TangentialPass<L> {
    pub law: L,
    pub rate: PassRate,
    pub v_t: f64,
    pub scale: f64,
}

/// What a [`TangentialPass`] integrates along the contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PassRate {
    /// [`Tangential::pass_rate`].
    Tangential(Tangential),
    /// The normal force's magnitude `|f|`: its integral over a stretch of a step is the normal
    /// impulse a sticking contact's friction is a share of.
    NormalForce,
    /// 1: the time in contact.
    ContactTime,
}

impl<L: ContactLaw + Copy> ContactLaw for TangentialPass<L> {
    fn s_rel0(&self) -> f64 {
        self.law.s_rel0()
    }

    fn contact_ends(&self) -> (Option<f64>, f64) {
        self.law.contact_ends()
    }

    fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        let forces = self.law.evaluate(s_rel, v_rel);
        if !forces.contact {
            return forces;
        }
        Forces {
            loss_power: self.scale
                * match self.rate {
                    PassRate::Tangential(tangential) => tangential.pass_rate(&forces, self.v_t),
                    PassRate::NormalForce => forces.f.abs(),
                    PassRate::ContactTime => 1.0,
                },
            ..forces
        }
    }

    fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        self.law.partials(s_rel, v_rel)
    }

    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        self.law.kink_indicator(s_rel, v_rel)
    }

    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64 {
        self.law.kink_indicator_rate(s_rel, v_rel, a_rel)
    }

    fn affine_region(&self, _s_rel: f64, _v_rel: f64) -> Option<AffineRegion> {
        None
    }

    fn length_scale(&self) -> f64 {
        self.law.length_scale()
    }

    fn touched_down(&self, v_rel: f64) -> Option<Self> {
        self.law
            .touched_down(v_rel)
            .map(|law| TangentialPass { law, ..*self })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn friction(law: FrictionLaw, interpolation: FrictionInterpolation) -> Friction {
        Friction {
            law: law as i32,
            interpolation: interpolation as i32,
            mu_s: 0.5,
            mu_d: 0.3,
            v_s: 0.01,
            v_d: 0.1,
            f_t_max: 0.0,
            max_stiction_deformation: 0.0,
        }
    }

    /// The cubic STEP written out again: h0 + (h1 - h0)*r^2*(3 - 2r).
    fn cubic(x: f64, x0: f64, h0: f64, x1: f64, h1: f64) -> f64 {
        let r = ((x - x0) / (x1 - x0)).clamp(0.0, 1.0);
        h0 + (h1 - h0) * r * r * (3.0 - 2.0 * r)
    }

    #[test]
    fn adams_friction_is_its_three_steps() {
        let adams = friction(FrictionLaw::Adams, FrictionInterpolation::Step);
        for v in [0.0, 0.004, -0.004, 0.01, 0.03, -0.07, 0.1, 0.5, -2.0] {
            let speed: f64 = f64::abs(v);
            let expected = if speed <= 0.01 {
                cubic(v, -0.01, -0.5, 0.01, 0.5)
            } else if speed < 0.1 {
                v.signum() * cubic(speed, 0.01, 0.5, 0.1, 0.3)
            } else {
                v.signum() * 0.3
            };
            let (mu, _) = adams.coefficient(v);
            assert!(
                (mu - expected).abs() < 1e-15,
                "v = {v}: {mu} against {expected}"
            );
        }
        // Static peak at v_s, odd, 0 at rest.
        assert_eq!(adams.coefficient(0.0).0, 0.0);
        assert!((adams.coefficient(0.01).0 - 0.5).abs() < 1e-15);
        assert!((adams.coefficient(-0.01).0 + 0.5).abs() < 1e-15);
    }

    #[test]
    fn recurdyn_friction_rises_to_the_static_value_then_falls_to_the_dynamic_one() {
        let linear = friction(FrictionLaw::RecurDyn, FrictionInterpolation::Linear);
        let stepped = friction(FrictionLaw::RecurDyn, FrictionInterpolation::Step);
        for (v, line, cubic_value) in [
            (0.0, 0.0, 0.0),
            (0.005, 0.25, cubic(0.005, 0.0, 0.0, 0.01, 0.5)),
            (-0.005, -0.25, -cubic(0.005, 0.0, 0.0, 0.01, 0.5)),
            (0.01, 0.5, 0.5),
            (0.055, 0.4, cubic(0.055, 0.01, 0.5, 0.1, 0.3)),
            (0.1, 0.3, 0.3),
            (-3.0, -0.3, -0.3),
        ] {
            assert!((linear.coefficient(v).0 - line).abs() < 1e-15, "v = {v}");
            assert!(
                (stepped.coefficient(v).0 - cubic_value).abs() < 1e-15,
                "v = {v}"
            );
        }
    }

    #[test]
    fn slopes_match_differences_and_the_bound_caps_the_force() {
        for law in [FrictionLaw::Adams, FrictionLaw::RecurDyn] {
            for interpolation in FrictionInterpolation::ALL.iter().copied() {
                let friction = friction(law, interpolation);
                for v in [-0.06, -0.004, 0.002, 0.007, 0.02, 0.09] {
                    let h = 1e-7;
                    let numeric =
                        (friction.coefficient(v + h).0 - friction.coefficient(v - h).0) / (2.0 * h);
                    let (_, analytic) = friction.coefficient(v);
                    assert!(
                        (analytic - numeric).abs() < 1e-6 * analytic.abs().max(1.0),
                        "{law:?} {interpolation:?} at {v}: {analytic} against {numeric}"
                    );
                }
            }
        }
        let bounded = Friction {
            f_t_max: 20.0,
            ..friction(FrictionLaw::Adams, FrictionInterpolation::Step)
        };
        assert_eq!(bounded.force(-100.0, 1.0), (20.0, 0.0, 0.0));
        assert_eq!(bounded.force(-100.0, -1.0), (-20.0, 0.0, 0.0));
        let (f_t, by_normal, _) = bounded.force(-50.0, 1.0);
        assert!((f_t - 15.0).abs() < 1e-12 && (by_normal - 0.3).abs() < 1e-15);
        assert_eq!(
            friction(FrictionLaw::None, FrictionInterpolation::Step).force(-100.0, 1.0),
            (0.0, 0.0, 0.0)
        );
    }

    #[test]
    fn the_plane_jacobian_matches_differences_and_its_limit_at_rest() {
        for law in [FrictionLaw::Adams, FrictionLaw::RecurDyn] {
            for interpolation in FrictionInterpolation::ALL.iter().copied() {
                let friction = friction(law, interpolation);
                for v_t in [[0.004, 0.002], [-0.03, 0.05], [0.0, -0.2], [1e-4, -3e-4]] {
                    let plane = friction.force_in_plane(-80.0, v_t);
                    for j in 0..2 {
                        let step = 1e-9;
                        let (mut up, mut down) = (v_t, v_t);
                        up[j] += step;
                        down[j] -= step;
                        let (above, below) = (
                            friction.force_in_plane(-80.0, up).f_t,
                            friction.force_in_plane(-80.0, down).f_t,
                        );
                        for i in 0..2 {
                            let numeric = (above[i] - below[i]) / (2.0 * step);
                            let analytic = plane.by_velocity[i][j];
                            assert!(
                                (analytic - numeric).abs() <= 1e-5 * analytic.abs().max(1.0),
                                "{law:?} {interpolation:?} at {v_t:?}, [{i}][{j}]: {analytic} against {numeric}"
                            );
                        }
                    }
                }
                // A slip near the largest double: |v_t| overflows, the force is mu_d*|f| along it.
                let huge = [f64::MAX, -0.5 * f64::MAX];
                let far = friction.force_in_plane(-80.0, huge);
                let direction = [2.0 / 5f64.sqrt(), -1.0 / 5f64.sqrt()];
                for (f_t, u) in far.f_t.iter().zip(direction) {
                    assert!((f_t - 0.3 * 80.0 * u).abs() <= 1e-12 * 24.0, "{far:?}");
                }
                // At rest the force is 0 and its Jacobian the curve's slope at 0 in every
                // direction, which a slip of 1e-9 m/s approaches (to the curve's change over it).
                let rest = friction.force_in_plane(-80.0, [0.0, 0.0]);
                let near = friction.force_in_plane(-80.0, [6e-10, -8e-10]);
                assert_eq!(rest.f_t, [0.0, 0.0]);
                // Across the slip the limit is 0: compared on the scale of the slope along it.
                let scale = 1e-5 * rest.by_velocity[0][0].abs() + 1e-2;
                let slope_at_rest = friction.coefficient(0.0).1 * 80.0;
                assert_eq!(
                    rest.by_velocity,
                    [[slope_at_rest, 0.0], [0.0, slope_at_rest]]
                );
                for i in 0..2 {
                    for j in 0..2 {
                        let (limit, close) = (rest.by_velocity[i][j], near.by_velocity[i][j]);
                        assert!(
                            (limit - close).abs() <= scale,
                            "{law:?}: {rest:?} against {near:?}"
                        );
                    }
                }
            }
        }
    }
}

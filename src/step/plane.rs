//! The slip's own motion through a mass, over a stretch of a co-simulation step: `m*v_t' =
//! m*a_ext - f_t` in the contact's tangential plane, with the friction (its curve, and its
//! stick–slip where set) as `f_t` and the normal force's magnitude constant over the stretch.
//!
//! A slip held over the step couples the friction explicitly: the sticking spring
//! `k = mu_s*|f|/delta` against the master's mass gains a factor `1 + (omega*h)^2/2` of energy per
//! step (omega^2 = k/m), which at 5 ms steps would break the stick–slip oscillator of
//! `tests/friction.rs` into spurious slips. Through the mass a stretch is the motion of a body
//! alone: inside the stiction circle in closed form (an oscillator under a constant force, exact
//! at any step), elsewhere by RK4 on substeps short against the spring's period and the curve's
//! time constant `m/(|f|*mu')`.
//!
//! Pure Rust: no FFI, no allocation.

use crate::laws::{
    deformation_rate, dot, on_stiction_circle, pushed_out_of_stiction_circle, slip_speed,
    within_stiction_circle, Friction,
};

/// The tangential motion: the stiction deformation (m) and the slip velocity (m/s).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlaneMotion {
    pub xi: [f64; 2],
    pub v: [f64; 2],
}

/// The tangential relative motion's mass (kg, > 0; infinite for a slip the contact's force does
/// not move) and the acceleration everything but the contact gives it (m/s², constant over the
/// step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaneDynamics {
    pub mass: f64,
    pub a_ext: [f64; 2],
}

/// What a stretch produced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlaneStretch {
    /// `∫ f_t dt` (N.s).
    pub impulse: [f64; 2],
    /// The energy the friction dissipated (J): `f_t.v_t` while slipping, the part of it the
    /// deformation does not store while sticking (sliding on the circle).
    pub dissipated: f64,
    /// `∫ v_t dt` (m): how far the slip moved.
    pub travelled: [f64; 2],
    /// The motion at the stretch's end.
    pub end: PlaneMotion,
}

impl PlaneStretch {
    /// This stretch and `next` after it; `released`: out of contact at `next`'s end, where the
    /// deformation is let go.
    pub fn followed_by(&self, next: &PlaneStretch, released: bool) -> PlaneStretch {
        let mut end = next.end;
        if released {
            end.xi = [0.0; 2];
        }
        PlaneStretch {
            impulse: std::array::from_fn(|axis| self.impulse[axis] + next.impulse[axis]),
            dissipated: self.dissipated + next.dissipated,
            travelled: std::array::from_fn(|axis| self.travelled[axis] + next.travelled[axis]),
            end,
        }
    }
}

/// The most substeps one stretch takes (a step has sixteen stretches): beyond it a stretch is
/// less accurate, never unbounded, since the friction's force is.
const MAX_SUBSTEPS: f64 = 256.0;

/// The least phase of the sticking spring over a stretch for which the closed form is used.
const MIN_CLOSED_FORM_PHASE: f64 = 1e-3;

/// The fewest substeps a stretch takes: a slip the force does not move (an infinite mass, a
/// motion the master holds to) still turns on the circle and crosses `v_s` within it.
const MIN_SUBSTEPS: f64 = 4.0;

/// The phase of the sticking spring, or the fraction of the curve's time constant, one substep
/// spans at most.
const SUBSTEP_SPAN: f64 = 0.1;

/// The tangential motion from `start` over `dt`, through `dynamics`, under the friction at the
/// normal force's magnitude `normal`. Sticking (below `v_s`, with a stiction deformation set) and
/// slipping switch at the substeps' ends: a slip that falls below `v_s` sticks again with the
/// deformation `delta` along it, a stick that reaches `v_s` slips.
pub fn integrate_plane_stretch(
    friction: &Friction,
    normal: f64,
    start: PlaneMotion,
    dynamics: PlaneDynamics,
    dt: f64,
) -> PlaneStretch {
    let delta = friction.max_stiction_deformation;
    let normal = normal.abs();
    let mass = dynamics.mass;
    let stiffness = if delta > 0.0 {
        friction.mu_s * normal / delta
    } else {
        0.0
    };
    let omega = (stiffness / mass).sqrt();
    let rate = omega.max(friction.steepest_slope() * normal / mass);
    let count = (rate * dt / SUBSTEP_SPAN).ceil();
    let count = if count.is_nan() {
        1.0
    } else {
        count.clamp(MIN_SUBSTEPS, MAX_SUBSTEPS)
    };
    let tau = dt / count;
    // The spring alone (not bounded by f_t_max) has the closed form. One that barely turns over
    // a stretch against a mass near the largest double would lose the deformation in the
    // cancellation about its far rest position: RK4 takes it.
    let free_spring = stiffness > 0.0
        && omega.is_finite()
        && omega * dt >= MIN_CLOSED_FORM_PHASE
        && !(friction.f_t_max > 0.0 && friction.mu_s * normal > friction.f_t_max);
    let mut out = PlaneStretch {
        end: start,
        ..PlaneStretch::default()
    };
    for _ in 0..count as u32 {
        let motion = out.end;
        let sticking = friction.sticks(motion.v);
        let outward = on_stiction_circle(motion.xi, delta) && dot(motion.xi, motion.v) > 0.0;
        let piece = if sticking && !outward && free_spring {
            inside_then_on_circle(friction, normal, motion, stiffness, dynamics, tau)
        } else {
            runge_kutta(friction, normal, sticking, motion, dynamics, tau)
        };
        let mut next = piece.end;
        if sticking {
            next.xi = within_stiction_circle(next.xi, delta);
            if !friction.sticks(next.v) {
                next.xi = friction.deformation_after_slip(next.v);
            }
        } else {
            // Slipping, the deformation lies along the slip; slowed below v_s, it sticks
            // again from there.
            let along = if slip_speed(next.v) > 0.0 {
                next.v
            } else {
                motion.v
            };
            next.xi = friction.deformation_after_slip(along);
        }
        out = out.followed_by(&PlaneStretch { end: next, ..piece }, false);
    }
    out
}

/// Sticking from inside the circle: the oscillator up to where the deformation reaches the
/// circle (located by bisection on the closed form), then on the circle. Clipping the
/// deformation back onto the circle at the substep's end instead would drop the spring energy
/// beyond it from the account (the energy balance of a breaking stick would not close).
fn inside_then_on_circle(
    friction: &Friction,
    normal: f64,
    start: PlaneMotion,
    stiffness: f64,
    dynamics: PlaneDynamics,
    tau: f64,
) -> PlaneStretch {
    let delta = friction.max_stiction_deformation;
    let whole = oscillator(start, stiffness, dynamics, tau);
    if slip_speed(whole.end.xi) <= delta {
        return whole;
    }
    let (mut inside, mut outside) = (0.0, tau);
    for _ in 0..60 {
        let middle = 0.5 * (inside + outside);
        if slip_speed(oscillator(start, stiffness, dynamics, middle).end.xi) <= delta {
            inside = middle;
        } else {
            outside = middle;
        }
    }
    let first = oscillator(start, stiffness, dynamics, outside);
    let at_circle = PlaneMotion {
        xi: within_stiction_circle(first.end.xi, delta),
        ..first.end
    };
    let rest = runge_kutta(friction, normal, true, at_circle, dynamics, tau - outside);
    first.followed_by(&rest, false)
}

/// Sticking inside the circle: `m*xi'' = m*a_ext - k*xi` (the deformation follows the slip), an
/// oscillator about `m*a_ext/k` in each direction.
fn oscillator(
    start: PlaneMotion,
    stiffness: f64,
    dynamics: PlaneDynamics,
    tau: f64,
) -> PlaneStretch {
    let omega = (stiffness / dynamics.mass).sqrt();
    let phase = omega * tau;
    let (sin, cos) = phase.sin_cos();
    // sin(omega*tau)/omega and (1 - cos(omega*tau))/omega^2 through sinc, without the
    // cancellation of small phases.
    let sin_over_omega = tau * sinc(phase);
    let one_less_cos_over_omega2 = 0.5 * tau * tau * sinc(0.5 * phase).powi(2);
    let mut end = start;
    let impulse = std::array::from_fn(|axis| {
        let rest = dynamics.mass * dynamics.a_ext[axis] / stiffness;
        let offset = start.xi[axis] - rest;
        let v = start.v[axis];
        end.xi[axis] = rest + offset * cos + v * sin_over_omega;
        end.v[axis] = -offset * omega * sin + v * cos;
        stiffness * (rest * tau + offset * sin_over_omega + v * one_less_cos_over_omega2)
    });
    PlaneStretch {
        impulse,
        dissipated: 0.0,
        // Inside the circle the deformation is the slip's path.
        travelled: [end.xi[0] - start.xi[0], end.xi[1] - start.xi[1]],
        end,
    }
}

/// `sin(x)/x`, 1 at 0.
fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-4 {
        1.0 - x * x / 6.0
    } else {
        x.sin() / x
    }
}

/// The rates of the motion in one mode.
fn rates(
    friction: &Friction,
    normal: f64,
    sticking: bool,
    motion: PlaneMotion,
    dynamics: PlaneDynamics,
) -> Rates {
    let v = motion.v;
    let (force, xi_rate) = if sticking {
        let force = friction.stick_force(normal, motion.xi, v).f_t;
        let delta = friction.max_stiction_deformation;
        let xi = within_stiction_circle(motion.xi, delta);
        let pushed = pushed_out_of_stiction_circle(xi, v, on_stiction_circle(xi, delta));
        (force, deformation_rate(v, pushed))
    } else {
        (friction.force_in_plane(normal, v).f_t, [0.0; 2])
    };
    let v_rate = std::array::from_fn(|axis| dynamics.a_ext[axis] - force[axis] / dynamics.mass);
    // What the deformation does not store of the force's power is dissipated.
    let dissipated = dot(force, [v[0] - xi_rate[0], v[1] - xi_rate[1]]);
    Rates {
        xi: xi_rate,
        v: v_rate,
        force,
        dissipated,
        travelled: v,
    }
}

/// The rates of the deformation and the slip, and the force, dissipated power and slip they
/// integrate to.
struct Rates {
    xi: [f64; 2],
    v: [f64; 2],
    force: [f64; 2],
    dissipated: f64,
    travelled: [f64; 2],
}

/// One classical RK4 substep of the motion in one mode, with the force's impulse, the
/// dissipated energy and the slip's path integrated alongside.
fn runge_kutta(
    friction: &Friction,
    normal: f64,
    sticking: bool,
    start: PlaneMotion,
    dynamics: PlaneDynamics,
    tau: f64,
) -> PlaneStretch {
    let at = |motion: PlaneMotion| rates(friction, normal, sticking, motion, dynamics);
    let shifted = |by: &Rates, share: f64| PlaneMotion {
        xi: std::array::from_fn(|axis| start.xi[axis] + share * by.xi[axis]),
        v: std::array::from_fn(|axis| start.v[axis] + share * by.v[axis]),
    };
    let k1 = at(start);
    let k2 = at(shifted(&k1, 0.5 * tau));
    let k3 = at(shifted(&k2, 0.5 * tau));
    let k4 = at(shifted(&k3, tau));
    let blend = |pick: &dyn Fn(&Rates) -> f64| {
        tau / 6.0 * (pick(&k1) + 2.0 * pick(&k2) + 2.0 * pick(&k3) + pick(&k4))
    };
    let end = PlaneMotion {
        xi: std::array::from_fn(|axis| start.xi[axis] + blend(&|k| k.xi[axis])),
        v: std::array::from_fn(|axis| start.v[axis] + blend(&|k| k.v[axis])),
    };
    PlaneStretch {
        impulse: std::array::from_fn(|axis| blend(&|k| k.force[axis])),
        dissipated: blend(&|k| k.dissipated),
        travelled: std::array::from_fn(|axis| blend(&|k| k.travelled[axis])),
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::FrictionLaw;

    fn adams(delta: f64) -> Friction {
        Friction {
            law: FrictionLaw::Adams as i32,
            mu_s: 0.5,
            mu_d: 0.3,
            v_s: 0.05,
            v_d: 0.2,
            interpolation: 0,
            f_t_max: 0.0,
            max_stiction_deformation: delta,
        }
    }

    #[test]
    fn sticking_inside_the_circle_is_the_oscillator_about_the_load() {
        // 1 kg on the stiction spring of 20 N over 1e-4 m (k = 1e5 N/m), pushed with 2 N: from
        // rest the deformation swings between 0 and 4e-5 m, as x(t) = F/k*(1 - cos(omega*t)).
        let friction = adams(1e-4);
        let (mass, push, k): (f64, f64, f64) = (1.0, 2.0, 1e5);
        let omega = (k / mass).sqrt();
        let dynamics = PlaneDynamics {
            mass,
            a_ext: [push / mass, 0.0],
        };
        let t = 0.7 * std::f64::consts::PI / omega;
        let out = integrate_plane_stretch(&friction, 20.0, PlaneMotion::default(), dynamics, t);
        let exact = push / k * (1.0 - (omega * t).cos());
        assert!((out.end.xi[0] - exact).abs() <= 1e-12 * exact, "{out:?}");
        let impulse = push * (t - (omega * t).sin() / omega);
        assert!(
            (out.impulse[0] - impulse).abs() <= 1e-10 * impulse,
            "{out:?}"
        );
        assert_eq!(out.dissipated, 0.0);
        assert_eq!(out.end.xi[1], 0.0);
    }

    #[test]
    fn the_plausible_masses_extremes_give_finite_motions() {
        // 1e-12 kg on a spring of 1e5 N/m turns 3e8 rad/s, far beyond what 256 substeps
        // resolve; 1e12 kg barely 3e-4 rad/s. Neither resolved nor cancelled away, the motion
        // stays finite, the deformation in its circle and the mean force within static friction.
        let friction = adams(1e-4);
        let dt = 1e-3;
        for mass in [1e-12, 1e12] {
            let dynamics = PlaneDynamics {
                mass,
                a_ext: [1.0 / mass, 0.0],
            };
            let start = PlaneMotion {
                xi: [2e-5, 0.0],
                v: [1e-3, 0.0],
            };
            let out = integrate_plane_stretch(&friction, 20.0, start, dynamics, dt);
            let values = [out.impulse[0], out.dissipated, out.end.xi[0], out.end.v[0]];
            assert!(values.iter().all(|x| x.is_finite()), "{mass}: {out:?}");
            assert!(
                out.end.xi[0].abs() <= 1e-4 * (1.0 + 1e-12),
                "{mass}: {out:?}"
            );
            assert!(
                out.impulse[0].abs() <= 10.0 * dt * (1.0 + 1e-12),
                "{mass}: {out:?}"
            );
        }
    }

    #[test]
    fn a_slip_decelerates_under_the_dynamic_friction_and_dissipates_its_energy() {
        // 2 kg slipping at 1 m/s along (0.6, 0.8), nothing else acting, 20 N pressing: mu_d
        // beyond v_d, so v falls by mu_d*|f|/m = 3 m/s^2 along the slip, and the energy lost is
        // the kinetic energy's change.
        let friction = adams(1e-4);
        let dynamics = PlaneDynamics {
            mass: 2.0,
            a_ext: [0.0; 2],
        };
        let start = PlaneMotion {
            xi: [0.6e-4, 0.8e-4],
            v: [0.6, 0.8],
        };
        let t = 0.2;
        let out = integrate_plane_stretch(&friction, 20.0, start, dynamics, t);
        let speed = 1.0 - 3.0 * t;
        assert!((out.end.v[0] - 0.6 * speed).abs() < 1e-12, "{out:?}");
        assert!((out.end.v[1] - 0.8 * speed).abs() < 1e-12, "{out:?}");
        let lost = 0.5 * 2.0 * (1.0 - speed * speed);
        assert!((out.dissipated - lost).abs() < 1e-12, "{out:?}");
        assert!((out.impulse[0] - 0.6 * 6.0 * t).abs() < 1e-12, "{out:?}");
        assert!((out.end.xi[0] - 0.6e-4).abs() < 1e-18, "{out:?}");
        let path = t - 1.5 * t * t;
        assert!((out.travelled[1] - 0.8 * path).abs() < 1e-12, "{out:?}");
    }

    #[test]
    fn a_load_above_static_friction_breaks_the_stick_and_slides() {
        // 12 N against mu_s*|f| = 10 N: the deformation reaches the circle, the body slides on
        // it at static friction, and slips once past v_s; the impulse and the end speed match
        // the momentum balance, and the energy the push gave that the motion does not keep
        // was dissipated or stored.
        let friction = adams(1e-4);
        let dynamics = PlaneDynamics {
            mass: 1.0,
            a_ext: [0.0, 12.0],
        };
        // In 2,000 pieces, the displacement summed by the trapezoid rule for the push's work.
        let (t, pieces) = (0.1, 2000);
        let (mut motion, mut impulse, mut dissipated, mut travelled) =
            (PlaneMotion::default(), 0.0, 0.0, 0.0);
        for _ in 0..pieces {
            let dt = t / pieces as f64;
            let out = integrate_plane_stretch(&friction, 20.0, motion, dynamics, dt);
            travelled += 0.5 * (motion.v[1] + out.end.v[1]) * dt;
            (impulse, dissipated) = (impulse + out.impulse[1], dissipated + out.dissipated);
            motion = out.end;
        }
        assert!(motion.v[1] > friction.v_s, "{motion:?}");
        assert!((motion.xi[1] - 1e-4).abs() < 1e-15, "{motion:?}");
        assert!(
            (motion.v[1] - (12.0 * t - impulse)).abs() < 1e-9,
            "{motion:?}"
        );
        // The push's work is the kinetic energy, the deformation's (mu_s*|f|*delta/2) and what
        // the friction dissipated.
        let balance = 0.5 * motion.v[1] * motion.v[1] + 0.5 * 10.0 * 1e-4 + dissipated;
        let work = 12.0 * travelled;
        assert!(
            (balance - work).abs() < 1e-6 * work,
            "{balance} against {work}"
        );
        assert_eq!(motion.v[0], 0.0);
    }
}

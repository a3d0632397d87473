//! The contact's tangential force, in its tangential plane, for the slip velocity
//! `v_t = (v_tx, v_ty)` of flange_b relative to flange_a (the body at flange_b feels `-f_t`): the
//! friction of laws 1–6 ([`Friction`]) or the Gap Force's tangential dampers (law 7,
//! [`GapDampers`]). Both act only in contact, and both give [`PlaneForce`]: the force, the power
//! the contact dissipates through it, and their slopes, which the FMI layer's derivatives use.

use super::{Forces, Friction};

/// The tangential force at one instant, with its slopes: by `|f|` (the normal force's magnitude)
/// and by the slip velocity (`by_velocity[i][j] = d f_t[i] / d v_t[j]`), and the power it
/// dissipates (W, >= 0) with the same slopes. The dissipated power is the force's power `f_t.v_t`
/// for the friction; for the Gap Force's dampers only the dampers' part of it (the preload's
/// work is not dissipated).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlaneForce {
    pub f_t: [f64; 2],
    pub by_normal: [f64; 2],
    pub by_velocity: [[f64; 2]; 2],
    pub loss_power: f64,
    pub loss_by_normal: f64,
    pub loss_by_velocity: [f64; 2],
}

impl PlaneForce {
    /// The power the force takes from the slip `v_t`: `f_t.v_t`.
    pub fn power(&self, v_t: [f64; 2]) -> f64 {
        dot(self.f_t, v_t)
    }
}

/// The dot product of two vectors of the tangential plane.
pub fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// The slip speed `|v_t|`, without overflow for large components.
pub fn slip_speed(v_t: [f64; 2]) -> f64 {
    v_t[0].hypot(v_t[1])
}

/// RecurDyn's Gap Force in its two tangential directions (law 7): `f_tx = d_x*sgnpow(v_tx, n_x)
/// - preload_x`, `f_ty` likewise (RecurDyn's `F_x' = -C_x*l'_x^n_x + P_x'` with the signs of this
/// FMU: the body at flange_b feels `-f_t`, so the dampers oppose the slip and the preload pushes it
/// along `+x`), while the normal force's range holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GapDampers {
    /// N.s/m per (m/s)^(n - 1), RecurDyn's `C_x`, `C_y`.
    pub d: [f64; 2],
    /// The exponents (>= 1).
    pub n: [f64; 2],
    /// N.
    pub preload: [f64; 2],
}

impl GapDampers {
    pub fn is_on(&self) -> bool {
        self.d
            .iter()
            .chain(&self.preload)
            .any(|&value| value != 0.0)
    }

    /// The force while in range and its slopes (diagonal: each direction on its own).
    pub fn force(&self, v_t: [f64; 2]) -> PlaneForce {
        let mut force = PlaneForce::default();
        for (axis, &v) in v_t.iter().enumerate() {
            let (d, n) = (self.d[axis], self.n[axis]);
            let speed = v.abs();
            let damper = d * speed.powf(n).copysign(v);
            // d(d*sgnpow(v, n))/dv = d*n*|v|^(n - 1); 0 at rest for n > 1, d for n = 1.
            let slope = if n == 1.0 {
                d
            } else {
                d * n * speed.powf(n - 1.0)
            };
            force.f_t[axis] = damper - self.preload[axis];
            force.by_velocity[axis][axis] = slope;
            // The damper's power d*|v|^(n + 1) and its slope (n + 1)*d*|v|^n*sign(v).
            force.loss_power += damper * v;
            force.loss_by_velocity[axis] = damper + slope * v;
        }
        force
    }
}

/// Which tangential force the contact has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tangential {
    None,
    Friction(Friction),
    GapDampers(GapDampers),
}

impl Tangential {
    /// The force at the normal law's values `forces` (0 out of contact) and the slip `v_t`;
    /// `sticking`: the contact sticks with the stiction deformation it holds (its friction is
    /// then that deformation's spring).
    pub fn force(&self, forces: &Forces, v_t: [f64; 2], sticking: Option<[f64; 2]>) -> PlaneForce {
        match self {
            Tangential::None => PlaneForce::default(),
            _ if !forces.contact => PlaneForce::default(),
            Tangential::Friction(friction) => match sticking {
                Some(xi) => friction.stick_force(forces.f, xi, v_t),
                None => friction.force_in_plane(forces.f, v_t),
            },
            Tangential::GapDampers(dampers) => dampers.force(v_t),
        }
    }

    /// The rate a step's second pass integrates along the contact, for a slip `v_t` held over
    /// the step (`speed` its magnitude): the friction's power (so the pass gives its energy), or
    /// 1 for the Gap Force's dampers (so it gives the time in range, over which their force,
    /// which does not depend on the normal force, is constant).
    pub fn pass_rate(&self, forces: &Forces, speed: f64) -> f64 {
        match self {
            Tangential::None => 0.0,
            _ if !forces.contact => 0.0,
            Tangential::Friction(friction) => friction.force(forces.f, speed).0 * speed,
            Tangential::GapDampers(_) => 1.0,
        }
    }
}

/// What a communication step's tangential force did, the slip `v_t` held over it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TangentialStep {
    /// The tangential impulse (N.s, x and y): the step's mean force times the step.
    pub impulse: [f64; 2],
    /// The energy the contact dissipated through it (J, >= 0).
    pub dissipated: f64,
    /// The work the bodies did against it, `impulse.v_t` (J): what the tangential port received.
    pub port_work: f64,
    /// The stiction deformation at the step's end (m; 0 without stick–slip or out of contact).
    pub deformation: [f64; 2],
    /// The tangential port's account over the contact after the step: what it received and what
    /// of that the contact dissipated (J; 0 without stick–slip or once the contact is over).
    pub account: [f64; 2],
    /// Through the slip's mass: the slip predicted for the step's end (m/s).
    pub predicted_slip: Option<[f64; 2]>,
}

impl Tangential {
    /// The step's tangential force from its pass's integral `integral` (see [`Self::pass_rate`]).
    pub fn step_from_pass(&self, integral: f64, v_t: [f64; 2]) -> TangentialStep {
        let speed = slip_speed(v_t);
        match self {
            Tangential::None => TangentialStep::default(),
            Tangential::Friction(_) => {
                // The friction's power is |f_t|*|v_t| along the slip: its impulse is the energy
                // over the speed, along the slip.
                let energy = integral.max(0.0);
                if energy == 0.0 || speed == 0.0 {
                    return TangentialStep::default();
                }
                let along = energy / speed;
                TangentialStep {
                    impulse: v_t.map(|component| along * (component / speed)),
                    dissipated: energy,
                    port_work: energy,
                    ..TangentialStep::default()
                }
            }
            Tangential::GapDampers(dampers) => {
                let time_in_range = integral.max(0.0);
                let force = dampers.force(v_t);
                TangentialStep {
                    impulse: force.f_t.map(|f| f * time_in_range),
                    dissipated: force.loss_power * time_in_range,
                    port_work: force.power(v_t) * time_in_range,
                    ..TangentialStep::default()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gap_dampers_are_recurdyns_formula_in_each_direction() {
        let dampers = GapDampers {
            d: [30.0, 7.0],
            n: [1.0, 1.7],
            preload: [2.0, -0.5],
        };
        for v_t in [[0.3, -0.2], [-1.5, 0.0], [0.0, 2.5], [1e-3, -4.0]] {
            let force = dampers.force(v_t);
            let expected = [
                30.0 * v_t[0] - 2.0,
                7.0 * v_t[1].abs().powf(1.7) * v_t[1].signum() + 0.5,
            ];
            for (got, expected) in force.f_t.iter().zip(expected) {
                assert!(
                    (got - expected).abs() <= 1e-13 * expected.abs().max(1.0),
                    "{v_t:?}: {force:?}"
                );
            }
            let loss = 30.0 * v_t[0] * v_t[0] + 7.0 * v_t[1].abs().powf(2.7);
            assert!((force.loss_power - loss).abs() <= 1e-13 * loss.max(1.0));
            // The slopes against central differences, away from rest (where |v|^1.7's slope is
            // 0 and a difference converges too slowly to tell).
            for axis in (0..2).filter(|&axis| v_t[axis].abs() > 1e-2) {
                let step = 1e-7;
                let (mut up, mut down) = (v_t, v_t);
                up[axis] += step;
                down[axis] -= step;
                let (above, below) = (dampers.force(up), dampers.force(down));
                let numeric = (above.f_t[axis] - below.f_t[axis]) / (2.0 * step);
                let loss_numeric = (above.loss_power - below.loss_power) / (2.0 * step);
                assert!(
                    (force.by_velocity[axis][axis] - numeric).abs()
                        <= 1e-6 * numeric.abs().max(1.0)
                );
                assert!(
                    (force.loss_by_velocity[axis] - loss_numeric).abs()
                        <= 1e-6 * loss_numeric.abs().max(1.0)
                );
            }
        }
    }

    #[test]
    fn out_of_contact_there_is_no_tangential_force() {
        let dampers = Tangential::GapDampers(GapDampers {
            d: [30.0, 7.0],
            n: [1.0, 1.0],
            preload: [2.0, 1.0],
        });
        let free = Forces::default();
        assert_eq!(
            dampers.force(&free, [1.0, 1.0], None),
            PlaneForce::default()
        );
        assert_eq!(dampers.pass_rate(&free, 1.0), 0.0);
    }
}

//! The tangential force at an instant: which one the parameters choose (the Gap Force's
//! dampers under law 7, else the friction), whether the friction sticks, and the stiction
//! deformation's state on or inside its circle. The outputs now and their slopes read these; the
//! step's integration over the step is `tangential_step`.
//!
//! Sticking is decided differently per interface: co-simulation holds the slip over a step and
//! sticks whenever it is below `v_s`; Model Exchange changes it only at events.

use super::{ElastoGap, Interface};
use crate::laws::{
    deformation_rate, on_stiction_circle, pushed_out_of_stiction_circle, slip_speed, ContactLaw,
    ForceLaw, Forces, PlaneForce, Tangential,
};

impl ElastoGap {
    /// The contact's tangential force: the Gap Force's dampers under law 7, else the friction.
    pub fn tangential(&self) -> Tangential {
        let p = &self.parameters;
        if p.options.force_law == ForceLaw::GapForce as i32 {
            if p.gap_dampers.is_on() {
                return Tangential::GapDampers(p.gap_dampers);
            }
        } else if p.friction.is_on() {
            return Tangential::Friction(p.friction);
        }
        Tangential::None
    }

    /// The sticking spring's angular frequency (rad/s) against a tangential `mass` (kg) at the
    /// last step's mean normal force; None without stick–slip.
    pub fn stiction_omega(&self, mass: f64) -> Option<f64> {
        let delta = self.stiction_deformation_limit()?;
        let stiffness = self.parameters.friction.mu_s * self.f_mean.abs() / delta;
        Some((stiffness / mass).sqrt())
    }

    /// The friction's stiction deformation, if it has stick–slip (`maxStictionDeformation` > 0).
    pub(super) fn stiction_deformation_limit(&self) -> Option<f64> {
        match self.tangential() {
            Tangential::Friction(friction) if friction.max_stiction_deformation > 0.0 => {
                Some(friction.max_stiction_deformation)
            }
            _ => None,
        }
    }

    /// Whether the contact sticks: in co-simulation whenever the slip is below `v_s` (the step
    /// holds it), in Model Exchange as the last event found it.
    pub(super) fn sticking(&self) -> bool {
        let Some(_) = self.stiction_deformation_limit() else {
            return false;
        };
        match self.interface {
            Interface::ModelExchange => self.model_exchange.sticking_at_event,
            Interface::CoSimulation => slip_speed(self.inputs.v_t) < self.parameters.friction.v_s,
        }
    }

    /// Where the deformation lies on the stiction circle and the slip pushes it out: the
    /// circle's normal there, the slip's outward part along it and the radius. Model Exchange
    /// knows from its last event whether the deformation is on the circle; co-simulation's step
    /// leaves it there or inside.
    pub(super) fn stiction_sliding(&self) -> Option<([f64; 2], f64, f64)> {
        let on_circle = match self.interface {
            Interface::ModelExchange => self.model_exchange.on_stiction_circle,
            Interface::CoSimulation => on_stiction_circle(
                self.stiction,
                self.parameters.friction.max_stiction_deformation,
            ),
        };
        pushed_out_of_stiction_circle(self.stiction, self.inputs.v_t, on_circle)
    }

    /// The stiction deformation's rate, `v_t` while sticking inside the circle, its part along
    /// the circle on it, 0 slipping or out of contact.
    pub(super) fn stiction_rate(&self) -> [f64; 2] {
        let motion = self.motion();
        let contact = self.law().evaluate(motion.s, motion.v).contact;
        if !(self.sticking() && contact) {
            return [0.0; 2];
        }
        deformation_rate(self.inputs.v_t, self.stiction_sliding())
    }

    /// The tangential force at the normal law's values `forces` and the slip velocity now, with
    /// its slopes; all 0 without one or out of contact.
    pub(super) fn tangential_force(&self, forces: &Forces) -> PlaneForce {
        let sticking = self.sticking().then_some(self.stiction);
        self.tangential().force(forces, self.inputs.v_t, sticking)
    }
}

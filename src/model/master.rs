//! What the instance knows of the master and the bodies it moves: which force the user says it
//! holds (`heldForce`, or that it prescribes the motion), its relative motion now, the effective
//! mass a step integrates through, the least mass the held forces may move (which the port's
//! bound takes), and how long a contact through a mass lasts (the short-step rule's measure).

use super::{ContactTime, ElastoGap};
use crate::coupling::Observed;
use crate::laws::{ContactLaw, ForceLaw};

impl ElastoGap {
    /// The effective mass the step integrates with: the master's answer where it was adopted
    /// (it disagreed with `m_eff`, or no `m_eff` was given), else the parameter, else none (the
    /// step integrates along the extrapolated motion).
    pub fn effective_mass(&self) -> Option<f64> {
        if self.prescribed() {
            None
        } else if let Some(mass) = self.co_simulation.coupling.adopted_mass() {
            Some(mass)
        } else if self.parameters.m_eff > 0.0 {
            Some(self.parameters.m_eff)
        } else {
            None
        }
    }

    /// The user's word on which force the master holds (`heldForce`), given to the coupling
    /// before anything reads or bounds by it: it settles the reading for good.
    pub(crate) fn tell_held_force(&mut self) {
        let told = match self.parameters.held_force {
            2 => Some(false),
            3 => Some(true),
            _ => None,
        };
        self.co_simulation.coupling.tell_the_held_force(told);
    }

    /// The master prescribes the motion: the user said so (`heldForce` = None), or, left to the
    /// FMU (Auto), its motion answered no probe ([`crate::coupling::Coupling::answers_no_force`]).
    /// No force is held on a body, so nothing is probed or bounded, and the steps are the law's
    /// integral along the motion.
    pub fn prescribed(&self) -> bool {
        self.parameters.held_force == 4
            || (self.parameters.held_force == 1
                && self.co_simulation.coupling.motion_is_prescribed())
    }

    /// Left to tell which force the master holds (Auto, no `m_eff`), the step starts where a
    /// probe's answer is due: a motion that answered none of it is prescribed from this step on.
    /// The last step's mean force becomes the law's along the motion (the port's work over it
    /// counts at that force, as for a motion declared prescribed). Returns whether it was found.
    pub(super) fn notice_a_prescribed_motion<L: ContactLaw>(&mut self, law: &L) -> bool {
        if self.parameters.held_force != 1
            || !self
                .co_simulation
                .coupling
                .answers_no_force(law, self.observed())
        {
            return false;
        }
        let held_back = self.co_simulation.coupling.take_the_motion_as_prescribed();
        let last_h = self.co_simulation.coupling.last_step_length();
        self.f_mean = match self
            .co_simulation
            .coupling
            .impulse_along_the_probed_motion()
        {
            Some(impulse) => impulse / last_h,
            None => self.f_mean + held_back / last_h,
        };
        true
    }

    /// The contact's duration (s; 0 where unknown) through `mass` at the master's relative
    /// velocity `v` or the fastest it has shown while the port was passive, for the short-step
    /// rule (docs/coupling.md, "Short steps": [`crate::coupling::PLAIN_STEP`]).
    pub(super) fn contact_duration<L: ContactLaw>(&mut self, law: &L, mass: f64, v: f64) -> f64 {
        let speed = self.co_simulation.coupling.passive_speed().max(v.abs());
        let known = self.co_simulation.contact_time;
        if known.mass != mass || speed > 1.1 * known.speed || speed == 0.0 {
            let duration = if speed > 0.0 {
                crate::laws::contact_duration(law, mass, speed)
            } else {
                // Pressed and held still: the half period of the mass on the spring's stiffness
                // where it is (none out of contact).
                let s = self.observed().s;
                let stiffness = law.partials(s, 0.0).f_c_ds.abs();
                Some(std::f64::consts::PI * (mass / stiffness).sqrt()).filter(|d| d.is_finite())
            };
            self.co_simulation.contact_time = ContactTime {
                mass,
                speed,
                duration: duration.unwrap_or(0.0),
            };
        }
        self.co_simulation.contact_time.duration
    }

    /// Without `m_eff` (and not told the master prescribes the motion): how long a contact of
    /// `mass` (kg) met at `speed` (m/s) lasts ([`crate::laws::contact_duration`]), where that is
    /// less than two steps of `h`: the contact then falls inside one or two steps, and without a
    /// mass the FMU can bound its impulse but not make it exact.
    pub fn short_contact_without_mass(&self, mass: f64, speed: f64, h: f64) -> Option<f64> {
        if self.parameters.m_eff > 0.0 || self.prescribed() {
            return None;
        }
        let law = self.law_with(self.tables.as_deref());
        let duration =
            crate::with_law!(&law, law => crate::laws::contact_duration(law, mass, speed));
        duration.filter(|&duration| duration < 2.0 * h)
    }

    /// The least mass the held forces may move, as the answers so far allow: the mass in use
    /// (`m_eff`, or the mass adopted from the answers), or the latest answer where that is
    /// less; without a mass, the larger of half the floor the answers allow and what the first
    /// probe took for granted; 0 before any probe, where the bound cannot act
    /// ([`crate::coupling::PortState`]); infinite for a prescribed motion and the Gap Force.
    pub fn least_mass(&self) -> f64 {
        // The Gap Force's spring is centred inside its range and its preload does work: it gives
        // a body energy it never received, so the port's bound does not apply to it.
        let active = self.parameters.options.force_law == ForceLaw::GapForce as i32;
        if self.prescribed() || active {
            return f64::INFINITY;
        }
        let answered = self.co_simulation.coupling.latest_estimate();
        match self.effective_mass() {
            Some(mass) if answered > 0.0 && answered.is_finite() => mass.min(answered),
            Some(mass) => mass,
            None => self.co_simulation.coupling.least_mass_the_probes_allow(),
        }
    }

    /// The master's relative motion now, from the inputs.
    pub(super) fn observed(&self) -> Observed {
        let (s, v) = self.inputs.relative_at(self.time);
        Observed {
            time: self.time,
            s,
            v,
        }
    }
}

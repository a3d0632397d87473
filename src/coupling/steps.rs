//! What the instance's steps ask the coupling and tell it: the mass in use and the port's energy
//! for the outputs, the master's reads, the user's word on the held force, the probe a step held
//! back, and what a step that passed its test leaves for the next one (a step along the motion
//! or through the mass, [`Coupling::take_step_result`]; a prescribed motion's,
//! [`Coupling::take_prescribed_step_result`]). The coupling keeps its state; the instance only
//! hands it what a step found.

use super::{Correction, Coupling, Observed, Prediction};
use crate::laws::{spring_work, ContactLaw};

impl Coupling {
    /// The mass adopted from the master's answers (kg), if one was.
    pub fn adopted_mass(&self) -> Option<f64> {
        (self.mass_estimate > 0.0).then_some(self.mass_estimate)
    }

    /// The latest mass the answers told, adopted or not (the output `m_eff_estimate`; 0 before
    /// any).
    pub fn latest_estimate(&self) -> f64 {
        self.last_estimate
    }

    /// Without a mass, the least mass the probes allow: the larger of half the floor their
    /// answers allow and what the first probe took for granted (0 before any probe).
    pub fn least_mass_the_probes_allow(&self) -> f64 {
        (0.5 * self.probe_mass_floor).max(self.probe_assumed_mass)
    }

    /// The energy the master's bodies have given to the contact through the port (J, the
    /// output `E_port`).
    pub fn port_energy(&self) -> f64 {
        self.e_port
    }

    /// The energy the model dissipated (J), what `E_loss` follows.
    pub fn model_loss(&self) -> f64 {
        self.model_loss
    }

    /// The spring energy the contact held at the start (J).
    pub fn initial_energy(&self) -> f64 {
        self.initial_energy
    }

    /// The last step's length (s): 0 before the first step.
    pub fn last_step_length(&self) -> f64 {
        self.last_h
    }

    /// The mean force the master was given for the last step.
    pub fn last_mean_force(&self) -> f64 {
        self.last_force
    }

    /// The mean force predicted over the coming step.
    pub fn f_next(&self) -> &Prediction {
        &self.f_next
    }

    /// Whether the master has read `f_next`.
    pub fn master_reads_next(&self) -> bool {
        self.f_next_read
    }

    /// Whether the master holds `f_next` (true), `f_mean` (false), or it is not known yet.
    pub fn master_holds_next(&self) -> Option<bool> {
        self.master_holds_next
    }

    /// Whether a probe's answer showed a motion that no force moves.
    pub fn motion_is_prescribed(&self) -> bool {
        self.motion_prescribed
    }

    /// Whether the last step held a probe whose answer is due.
    pub fn probe_is_due(&self) -> bool {
        self.probe_pending
    }

    /// The impulse along the motion of the last step, where it held a probe instead.
    pub fn impulse_along_the_probed_motion(&self) -> Option<f64> {
        self.last_probed
    }

    /// The fastest relative speed at a step start while the port had returned nothing beyond
    /// what it received (m/s).
    pub fn passive_speed(&self) -> f64 {
        self.passive_speed
    }

    /// The master's relative speed at the start of the contact behind the latest estimate, or
    /// where no contact gave one, the fastest passive speed (m/s).
    pub fn approach_speed(&self) -> f64 {
        match self.episode.start.v.abs() {
            0.0 => self.passive_speed,
            speed => speed,
        }
    }

    /// The master read `f_mean`: one that reads only `f_next` holds it.
    pub fn note_that_the_master_reads_the_mean(&mut self) {
        self.f_mean_read = true;
    }

    /// The master read `f_next`: from now on every step makes it.
    pub fn note_that_the_master_reads_next(&mut self) {
        self.f_next_read = true;
    }

    /// The user's word on which force the master holds (`heldForce`: `Some(true)` for
    /// `f_next`, `Some(false)` for `f_mean`, none where left to the answers): it settles the
    /// reading for good.
    pub fn tell_the_held_force(&mut self, told: Option<bool>) {
        self.held_told = told.is_some();
        if told.is_some() {
            self.master_holds_next = told;
            self.holds_next_settled = true;
        }
    }

    /// The master's relative motion at the end of initialization, which the first step
    /// compares its start with.
    pub fn remember_the_initial_motion(&mut self, initial: Observed) {
        self.initial = Some(initial);
    }

    /// The master's motion at the end of initialization, handed over once at the first step.
    pub fn take_the_initial_motion(&mut self) -> Option<Observed> {
        self.initial.take()
    }

    /// The spring energy the contact holds where the master starts it (the motion at the end
    /// of initialization, else `observed`): returned without having come through the port.
    #[inline(always)]
    pub fn count_initial_energy<L: ContactLaw>(&mut self, law: &L, observed: Observed) {
        let start = self.initial.unwrap_or(observed).s;
        let upper = law.contact_ends().1;
        let stored = spring_work(law, upper.max(start), start);
        self.initial_energy = if stored.is_finite() {
            stored.max(0.0)
        } else {
            0.0
        };
    }

    /// Whether this step learns nothing from the master's answers (a plain step, short against
    /// the contact: the law's integral along the motion).
    pub fn take_the_step_as_plain(&mut self, plain: bool) {
        self.ignore_answers = plain;
    }

    /// The port's work over the last step, where it held a probe, had the impulse along the
    /// motion been held instead, with the master's motion now at `now`.
    pub fn work_along_the_probed_motion(&self, now: Observed) -> Option<f64> {
        self.last_probed
            .map(|impulse| impulse / self.last_h * (now.s - self.last.s))
    }

    /// The port counted `e_port - e_port_before` for a probe's step that would have done `work`
    /// along the motion: the difference is held back for a motion found prescribed.
    pub fn hold_back_the_probes_work(&mut self, work: f64, e_port_before: f64) {
        self.port_work_held_back += work - (self.e_port - e_port_before);
    }

    /// Whether this step only grazed a contact new to the master; the last step's graze
    /// becomes the one before.
    #[inline(always)]
    pub fn note_the_graze(&mut self, grazed: bool) {
        self.grazed_before_last = self.grazed;
        self.grazed = grazed;
    }

    /// The larger of the forces a master may have held over the last step, `f_mean` and the
    /// `f_next` read before it (N, in size).
    pub fn largest_force_held_before(&self) -> f64 {
        self.last_force.abs().max(self.last_next.abs())
    }

    /// Whether the last step only grazed such a contact.
    pub fn grazed_last(&self) -> bool {
        self.grazed
    }

    /// The step along the motion held `share` of its impulse `full_impulse` as a probe (none:
    /// no probe). Returns what earlier probes held back (N.s, J), delivered with this step.
    #[inline(always)]
    pub fn note_the_probe_held(&mut self, share: Option<f64>, full_impulse: f64) -> (f64, f64) {
        self.last_probed = share.map(|_| full_impulse);
        if share.is_none() {
            self.port_work_held_back = 0.0;
        }
        let rest = std::mem::take(&mut self.probe_rest);
        self.probe_pending |= share.is_some();
        rest
    }

    /// The port's bound cut `f_mean` below the plan: what the bound cut was owed by a position
    /// the master cannot reach without energy the port never received, so from here the
    /// correction restores the velocity only.
    pub fn restore_the_velocity_first(&mut self) {
        self.correction.pace = super::Pace::VelocityFirst;
    }

    /// `f_next` after a step that made no dynamic plan: the force handed out where the master
    /// reads it, else the prediction `along` the motion, left to the first read.
    #[inline(always)]
    pub fn take_the_prediction_along_the_motion(&mut self, next: f64, along: Prediction) {
        self.f_next = if self.f_next_read {
            Prediction::Known(next)
        } else {
            along
        };
    }

    /// The tangential port's work over the step (J): the master holds the friction along the
    /// slip velocity it set, whichever normal force it holds.
    #[inline(always)]
    pub fn count_the_tangential_ports_work(&mut self, work: f64) {
        self.e_port += work;
        self.e_port_if_next += work;
    }

    /// A step along the motion or through the mass passed its test: over `h` the master was
    /// handed `f_mean`, it had read `next_before` before the step (none: not read), the model's
    /// dissipation is now `model_loss`, and the contact's own `integral` (impulse, dissipation).
    /// A `dynamic` step planned its correction and what is owed itself; another leaves none.
    #[inline(always)]
    pub fn take_step_result(
        &mut self,
        h: f64,
        f_mean: f64,
        next_before: Option<f64>,
        model_loss: f64,
        dynamic: bool,
        integral: (f64, f64),
    ) {
        self.model_loss = model_loss;
        self.last_h = h;
        self.mean_before_last = self.last_force;
        self.last_force = f_mean;
        // Unread, f_next was held by no master: the step then tells nothing about which force
        // the master holds, as when the two are equal.
        self.last_next = next_before.unwrap_or(f_mean);
        self.next_readable = next_before.is_some();
        if !dynamic {
            self.assumed_held = match (self.master_holds_next, next_before) {
                (Some(true), Some(next)) => next,
                _ => f_mean,
            };
            self.owed_s = 0.0;
            self.owed_v = 0.0;
            // Reset only where a dynamic step left a plan: rewriting the default plan on every
            // kinematic step would stall it on the plan's count.
            if self.correction != Correction::default() {
                self.correction = Correction::default();
            }
        }
        (self.last_contact_impulse, self.last_dissipated) = integral;
    }

    /// `E_port` with the port's work over the step before, now that the master has said where
    /// it went (the relative position `s`), the master having held `f_mean` over it.
    #[inline(always)]
    pub fn port_energy_to(&self, f_mean: f64, s: f64) -> f64 {
        if self.last_h > 0.0 {
            self.e_port + f_mean * (s - self.last.s)
        } else {
            self.e_port
        }
    }

    /// A prescribed motion's step passed its test: it started at `start`, lasted `h`, with the
    /// contact's own `integral` (impulse, dissipation), and leaves the port's energy at `e_port`
    /// and the model's dissipation at `model_loss`. Returns the mean force it hands out.
    #[inline(always)]
    pub fn take_prescribed_step_result(
        &mut self,
        start: Observed,
        h: f64,
        integral: (f64, f64),
        e_port: f64,
        model_loss: f64,
    ) -> f64 {
        self.e_port = e_port;
        self.last = start;
        self.model_loss = model_loss;
        self.last_h = h;
        (self.last_contact_impulse, self.last_dissipated) = integral;
        self.last_force = integral.0 / h;
        self.last_force
    }
}

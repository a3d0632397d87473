//! The port's account as the master leaves it at a step start: what its bodies gave the contact
//! through the held forces (`E_port`, the held force times the displacement the master reported,
//! exact whatever the bodies are), what a compressed start held, and what settled contacts
//! dissipated. The bound on every held force is made from it ([`PortState`], `bound.rs`).

use super::{Coupling, Observed, PortState};

/// The share of the last contact's dissipation that the port may still return once the contact
/// has settled. Its forces are step means, and what they did along the master's motion
/// (`E_port`) is not the work of the model's own motion: over a contact that spans a few steps
/// the two differ by a part of its dissipation, so a bound at exactly zero would cut a rebound
/// the model has right (as in `tests/contact_dynamics.rs`'s driven body).
/// Whatever it lets pass, the port never gives away more than this share of one contact's
/// dissipation beyond all it has received.
pub const SETTLED_MARGIN: f64 = 0.25;

impl Coupling {
    /// The port as the master leaves it at the start of the step just taken (after
    /// [`Self::observe`]): the one place the held forces are bounded from ([`PortState`]).
    ///
    /// A master that reads both forces may hold either: unless the user told which
    /// (`heldForce`), the smaller of the two accounts counts ([`Self::holds_either`]).
    pub fn port(&self, least_mass: f64) -> PortState {
        self.port_through(self.counted_e_port(), least_mass)
    }

    /// The port as it would be had the held forces done the work `e_port` (J).
    fn port_through(&self, e_port: f64, least_mass: f64) -> PortState {
        PortState {
            v: self.last.v,
            a: self.a_free,
            received: e_port + self.initial_energy - self.spent,
            least_mass,
            a_doubt: self.a_doubt,
            passive_speed: self.passive_speed,
        }
    }

    /// The held forces' work that counts: the smaller account where the master may hold either
    /// force.
    fn counted_e_port(&self) -> f64 {
        if self.holds_either() {
            self.e_port.min(self.e_port_if_next)
        } else {
            self.e_port
        }
    }

    /// What the port has received since the start (J), through the counted account.
    fn received(&self) -> f64 {
        self.counted_e_port() + self.initial_energy
    }

    /// The contact has settled ([`Self::is_settled`]): it stores nothing, so what the port
    /// received up to now was dissipated, and no later force may return it beyond
    /// [`SETTLED_MARGIN`] of what the last contact dissipated. A deficit (the port gave away
    /// more than it received) stays owed.
    pub fn settle_port(&mut self) {
        let margin = SETTLED_MARGIN * self.episode.dissipated.max(0.0);
        self.spent = self.spent.max(self.received() - margin);
    }

    /// The port's energy follows from the master's own displacement: a held force's work on
    /// the bodies is exact whatever moved them. Where it is not known yet which force was
    /// held, the step's own f_mean is the best reading.
    #[inline(always)]
    pub(super) fn account_the_ports_work(
        &mut self,
        now: Observed,
        holds_before: Option<bool>,
        applied: Option<f64>,
    ) {
        if holds_before.is_none() && self.master_holds_next == Some(true) {
            // Told only now that the master holds f_next: the port received what f_next did.
            self.e_port = self.e_port_if_next;
        }
        self.last_held = applied.unwrap_or(self.last_force);
        self.e_port += self.last_held * (now.s - self.last.s);
        self.e_port_if_next += self.last_next * (now.s - self.last.s);
        self.e_port_if_late += self.mean_before_last * (now.s - self.last.s);
    }

    /// How far the master's displacement over the step just taken missed the one the port bound
    /// predicted for the force `applied` through `mass` or any heavier one, as an acceleration
    /// over the step's speed (at least the passive one: a body on a spring misses in proportion
    /// to its swing): the largest such miss widens every later bound ([`PortState`]). Only over a
    /// step that held a force (where the bound acted), and where it had a measured acceleration
    /// and a mass to predict with.
    #[inline(always)]
    pub(super) fn measure_the_ports_miss(
        &mut self,
        now: Observed,
        applied: Option<f64>,
        mass: Option<f64>,
        h1: f64,
    ) {
        let (Some(force), Some(mass), true) = (applied, mass, self.a_free_known) else {
            return;
        };
        if force == 0.0 {
            return;
        }
        let free = self.last.v * h1 + 0.5 * self.a_free * h1 * h1;
        let response = -0.5 * force / mass * h1 * h1;
        let (near, far) = (free.min(free + response), free.max(free + response));
        let moved = now.s - self.last.s;
        let miss = (near - moved).max(moved - far).max(0.0);
        let speed = self.last.v.abs().max(now.v.abs()).max(self.passive_speed);
        let doubt = 2.0 * miss / (h1 * h1 * speed);
        if doubt.is_finite() {
            self.a_doubt = self.a_doubt.max(doubt);
        }
    }

    /// Whether a cut for want of a reading waits to be reported, which it then no longer does;
    /// only the first of a run is, and only `with_a_mass` (given or adopted): while probing
    /// without one, the motion may yet turn out prescribed, and a probe's cut costs nothing.
    pub fn report_a_cut_for_want_of_a_reading(&mut self, with_a_mass: bool) -> bool {
        let report =
            std::mem::take(&mut self.cut_unread) && with_a_mass && !self.told_which_force_to_name;
        self.told_which_force_to_name |= report;
        report
    }

    /// The fastest speed the master's bodies had while the port had returned nothing beyond
    /// what it received: the speed fuse's scale.
    #[inline(always)]
    pub(super) fn note_passive_speed(&mut self, now: Observed) {
        let returned = -(self.e_port + self.initial_energy);
        if returned <= 1e-9 * self.e_port.abs() && now.v.is_finite() {
            self.passive_speed = self.passive_speed.max(now.v.abs());
        }
    }

    /// `force` within the port's bound over a step of `h` (`held`: the force held over the step
    /// before, for `f_next`; None for `f_mean`), noting in `cut_unread` a cut made only for want
    /// of knowing which force the master holds: it reads both, its answers have not told, and
    /// under the account of a master that holds that force (`E_port` for `f_mean`, the `f_next`
    /// one for `f_next`) the force would have been cut less or not at all. The next step reports
    /// the first such cut of a run, naming `heldForce`.
    pub fn bound_noting_the_reading(
        &mut self,
        force: f64,
        h: f64,
        least_mass: f64,
        held: Option<f64>,
    ) -> f64 {
        let bounded = self.port(least_mass).bound_held(force, h, held);
        let unread = !self.told_which_force_to_name && self.holds_either() && force != bounded;
        if unread {
            // Each force under the account of the master that holds it.
            let e_port = match held {
                None => self.e_port,
                Some(_) => self.e_port_if_next,
            };
            let own = self.port_through(e_port, least_mass);
            self.cut_unread |= own.bound_held(force, h, held) != bounded;
        }
        bounded
    }

    /// `f_mean` as a master suspected of holding it one step late would hold it
    /// ([`Self::suspect_a_late_mean`]): over the step after this one, over which it holds the
    /// last `f_mean`, under the late account. Unchanged where no such master is suspected, or
    /// once one is told (`f_mean` then gives `f_next`, bounded as such).
    pub fn bound_as_if_late(&self, force: f64, h: f64, least_mass: f64) -> f64 {
        if !self.late_suspected || self.mean_held_late || self.held_told {
            return force;
        }
        let (low, high) = self
            .port_through(self.e_port_if_late, least_mass)
            .admissible_after(self.last_force, h);
        force.clamp(low, high)
    }

    /// `f_next` as a master may hold it over the step after the one just taken, over which it
    /// holds `held`.
    pub fn bound_next(&self, force: f64, h: f64, least_mass: f64, held: f64) -> f64 {
        self.port(least_mass).bound_held(force, h, Some(held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::Episode;

    /// The master's motion `x(t)` sampled at step starts `h` apart, each step holding `force`
    /// through `mass`: the doubt the misses leave.
    fn doubt_after(motion: impl Fn(f64) -> (f64, f64), force: f64, mass: f64, h: f64) -> f64 {
        let mut coupling = Coupling::default();
        let at = |k: usize| {
            let (s, v) = motion(k as f64 * h);
            Observed {
                time: k as f64 * h,
                s,
                v,
            }
        };
        coupling.last = at(0);
        for k in 1..20 {
            let now = at(k);
            let h1 = now.time - coupling.last.time;
            coupling.measure_the_ports_miss(now, Some(force), Some(mass), h1);
            coupling.a_free = (now.v - coupling.last.v) / h1 + force / mass;
            coupling.a_free_known = true;
            coupling.last = now;
        }
        coupling.a_doubt
    }

    #[test]
    fn a_steady_acceleration_leaves_no_doubt_a_spring_of_a_few_steps_does() {
        let h = 0.1;
        // Falling under gravity and a held force through the right mass: each step is predicted
        // exactly, or within any heavier mass's range.
        let g = -9.81 + 2.0 / 0.5;
        let fall = |t: f64| (3.0 * t + 0.5 * g * t * t, 3.0 + g * t);
        assert!(doubt_after(fall, 2.0, 0.5, h) < 1e-9);
        assert!(doubt_after(fall, 2.0, 0.25, h) < 1e-9);
        // On a spring of a period of three steps, the acceleration of the last step misses the
        // next by about the swing's own (its amplitude `omega` at a speed amplitude of 1 m/s).
        let omega = 2.0 * std::f64::consts::PI / (3.0 * h);
        let swing = |t: f64| ((omega * t).sin() / omega, (omega * t).cos());
        let doubt = doubt_after(swing, 1.0, 1.0, h);
        assert!(
            doubt > 0.3 * omega && doubt < 3.0 * omega,
            "{doubt} {omega}"
        );
        // Free steps are not the bound's: they leave no doubt.
        assert_eq!(doubt_after(swing, 0.0, 1.0, h), 0.0);
    }

    #[test]
    fn a_settled_contact_returns_no_more_than_its_margin_of_what_it_dissipated() {
        // Three contacts' worth received (3 J), the last one dissipating 1 J, then settled: a
        // body approaching at 2 m/s may be given back at most SETTLED_MARGIN J beyond what the
        // coming step's force receives, whatever the earlier contacts took.
        let (mass, h, v) = (2.0, 1e-3, 2.0);
        let mut coupling = Coupling {
            e_port: 3.0,
            e_port_if_next: 3.0,
            episode: Episode {
                dissipated: 1.0,
                ..Episode::default()
            },
            last: Observed {
                time: 0.0,
                s: 0.0,
                v,
            },
            ..Coupling::default()
        };
        let work = |force: f64| force * (v * h - 0.5 * force * h * h / mass);
        // The admissible forces are those whose work is at least minus what may be returned.
        let returned = |coupling: &Coupling| {
            let (low, high) = coupling.port(mass).admissible(h);
            (-work(low), -work(high))
        };
        let (low, high) = returned(&coupling);
        assert!(
            (low - 3.0).abs() < 1e-9 && (high - 3.0).abs() < 1e-9,
            "{low} {high}"
        );
        coupling.settle_port();
        let (low, high) = returned(&coupling);
        assert!((low - SETTLED_MARGIN).abs() < 1e-9, "{low}");
        assert!((high - SETTLED_MARGIN).abs() < 1e-9, "{high}");
        let low = coupling.port(mass).admissible(h).0;
        // Settling again changes nothing; a port that has given energy away stays owed.
        coupling.settle_port();
        assert_eq!(coupling.port(mass).admissible(h).0, low);
        coupling.e_port -= 2.0;
        coupling.settle_port();
        assert!(coupling.port(mass).received < -1.0);
    }
}

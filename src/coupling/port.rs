//! The port's account as the master leaves it at a step start: what its bodies gave the contact
//! through the held forces (`E_port`, the held force times the displacement the master reported,
//! exact whatever the bodies are), what a compressed start held, and what settled contacts
//! dissipated. The bound on every held force is made from it ([`PortState`], `bound.rs`).

use super::{Coupling, Observed, PortState};

/// The share of the last contact's dissipation that the port may still return once the contact
/// has settled. Its forces are step means, and what they did along the master's motion
/// (`E_port`) is not the work of the model's own motion: over a contact that spans a few steps
/// the two differ by a part of its dissipation, so a bound at exactly zero would cut a rebound
/// the model had right (in `tests/contact_dynamics.rs`'s driven body, by a quarter at 5 ms).
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
        PortState {
            v: self.last.v,
            a: self.a_free,
            received: self.received() - self.spent,
            least_mass,
        }
    }

    /// What the port has received since the start (J), through the smaller account where the
    /// master may hold either force.
    fn received(&self) -> f64 {
        let e_port = if self.holds_either() {
            self.e_port.min(self.e_port_if_next)
        } else {
            self.e_port
        };
        e_port + self.initial_energy
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

    /// The fastest speed the master's bodies had while the port had returned nothing beyond
    /// what it received: the speed fuse's scale.
    #[inline(always)]
    pub(super) fn note_passive_speed(&mut self, now: Observed) {
        let returned = -(self.e_port + self.initial_energy);
        if returned <= 1e-9 * self.e_port.abs() && now.v.is_finite() {
            self.passive_speed = self.passive_speed.max(now.v.abs());
        }
    }

    /// `f_mean` as a master may hold it over the step just taken.
    pub fn bound_mean(&self, force: f64, h: f64, least_mass: f64) -> f64 {
        self.port(least_mass).bound(force, h)
    }

    /// `f_next` as a master may hold it over the step after the one just taken, over which it
    /// holds `held`.
    pub fn bound_next(&self, force: f64, h: f64, least_mass: f64, held: f64) -> f64 {
        let (low, high) = self.port(least_mass).admissible_after(held, h);
        force.clamp(low, high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::Episode;

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

//! The contact episode: a contact as the master saw it, from the start of its first step with a
//! contact impulse to the start of the first step after it without one ([`Episode`]). It sums the
//! impulse the master held over the contact under either reading of the held force; at its end,
//! that impulse against the velocity change it caused (the external acceleration before the
//! contact taken out) estimates the mass, adopted once a free step shows the external
//! acceleration steady ([`Candidate`]). A contact whose mass is adopted later is replayed from the
//! episode's start ([`super::replay`]).

use super::external::KnownBefore;
use super::{Candidate, Coupling, Episode, Learned, Observed, MAX_STEPS_OF_AN_UNRESOLVED_CONTACT};
use crate::laws::distance_outside;

impl Coupling {
    /// A step with a contact impulse opens an episode where none is open: at the step's start,
    /// with the external acceleration as it was before the contact.
    #[inline(always)]
    pub(super) fn open_an_episode_at_a_contact(
        &mut self,
        ends: (Option<f64>, f64),
        h1: f64,
        applied: Option<f64>,
        from_force: Option<f64>,
        learned_mean: bool,
        before: KnownBefore,
    ) {
        if self.last_contact_impulse != 0.0 && !self.episode.open {
            // A master already inside the contact at the step's start met it in the step before,
            // over which it held no force (the motion extrapolated without the acceleration
            // that took it there): the contact started there.
            let met_unanswered = distance_outside(ends, self.last.s) < 0.0
                && self.before_last.time < self.last.time
                && distance_outside(ends, self.before_last.s) >= 0.0
                && self.last_held_before == 0.0;
            // An unforced step's own mean is the external acceleration through it, and so is
            // that of a step whose force changed the velocity by a hundredth of what the external
            // acceleration did, whatever the mass's error, where nothing was measured before (a
            // contact met at the end of the first step: taken as 0 instead, gravity's part of
            // the next answer would be read as the contact's and tell a mass well above the
            // body's, and a Jacobi master would throw the body back far faster than it came).
            let own_mean_is_external = learned_mean
                && (applied == Some(0.0)
                    || (!before.known
                        && (from_force.unwrap_or(f64::INFINITY) * h1).abs()
                            <= 0.01 * (self.a_ext_means[0] * h1).abs()));
            self.episode = Episode {
                open: true,
                start: if met_unanswered {
                    self.before_last
                } else {
                    self.last
                },
                a_ext: if own_mean_is_external {
                    self.a_ext_means[0]
                } else {
                    before.a_ext
                },
                a_ext_known: before.known || own_mean_is_external,
                a_ext_trend: before.trend,
                a_ext_trend_known: before.trend_known,
                ..Episode::default()
            };
        }
    }

    /// Every step of an open episode adds the forces the master may have held over it.
    #[inline(always)]
    pub(super) fn count_the_step_in_the_episode(&mut self, h1: f64) {
        // A step that held a probe did not deliver the contact from the master's motion: the
        // contact is still unresolved after it.
        if self.last_contact_impulse != 0.0 && !self.probe_pending {
            self.episode.contact_steps += 1;
        }
        if self.episode.open {
            // Every force the master held inside the window counts, corrections included; which
            // of the two it held may only be told at the window's end.
            self.episode.impulse_if_mean += self.last_force * h1;
            self.episode.impulse_if_next += self.last_next * h1;
            self.episode.dissipated += self.last_dissipated;
        }
    }

    /// A step without a contact impulse closes the episode: its impulse under the reading of the
    /// held force (or the single step's estimate, where none is told yet) against the velocity
    /// change it caused is the mass's estimate, kept as the candidate where the steps could not
    /// resolve the contact. `mass`: the mass in use, if any.
    #[inline(always)]
    pub(super) fn close_the_episode(
        &mut self,
        learned: &mut Learned,
        now: Observed,
        mass: Option<f64>,
    ) {
        if self.last_contact_impulse == 0.0 && self.episode.open {
            self.episode.open = false;
            self.disagreement_reported = false;
            let duration = now.time - self.episode.start.time;
            let answered = now.v - self.episode.start.v - self.episode.a_ext * duration;
            if self.master_holds_next.is_none()
                && self.step_estimate > 0.0
                && self.episode.impulse_if_next != self.episode.impulse_if_mean
            {
                // The reading whose window estimate agrees with the single step's.
                let misfit = |impulse: f64| (-impulse / answered / self.step_estimate - 1.0).abs();
                self.master_holds_next = Some(
                    misfit(self.episode.impulse_if_next) < misfit(self.episode.impulse_if_mean),
                );
            }
            let impulse = match self.master_holds_next {
                Some(true) => Some(self.episode.impulse_if_next),
                Some(false) => Some(self.episode.impulse_if_mean),
                None => (self.episode.impulse_if_next == self.episode.impulse_if_mean)
                    .then_some(self.episode.impulse_if_mean),
            };
            // Only a clear answer counts: the velocity change must stand out of the rounding, and
            // the impulse must ask the master something through the mass in use. A correction's
            // rounding residue, held while a driven body leaves the stop, is answered by the
            // drive's change: read as the contact's, it tells a mass of nearly nothing, and the
            // next contact's forces would be bounded through it to nearly nothing.
            let clear = answered.abs() > 1e-6 * (now.v.abs() + self.episode.start.v.abs());
            let asked =
                impulse.is_some_and(|impulse| self.asks(impulse / duration, duration, mass, now));
            let estimate = impulse.filter(|_| asked).map(|impulse| -impulse / answered);
            if let Some(estimate) = estimate.filter(|e| clear && e.is_finite() && *e > 0.0) {
                learned.new_estimate = Some(estimate);
                self.last_estimate = estimate;
                // A master that holds f_next gets the extrapolated impulse a step late whatever the
                // step, so for it the estimate is adopted from any contact; for one that holds
                // f_mean only from a contact that the steps could not resolve (over more steps the
                // extrapolated impulse is already accurate).
                let unresolved = self.episode.contact_steps <= MAX_STEPS_OF_AN_UNRESOLVED_CONTACT
                    || self.master_holds_next == Some(true);
                if unresolved {
                    self.candidate = Candidate {
                        estimate,
                        a_ext_before: self.episode.a_ext,
                        duration,
                        answered,
                    };
                }
            }
        }
    }

    /// The estimate takes the external acceleration as steady through the contact: it is
    /// adopted once a free step after the contact agrees with the one before, to 1 % of the
    /// contact's answer (another contact on the same body, a spring that moves with it or a
    /// driven part would make it wrong, and the dynamic step worse than the extrapolated one).
    #[inline(always)]
    pub(super) fn adopt_the_candidate(&mut self, learned_mean: bool, mass: Option<f64>) {
        if self.candidate.estimate > 0.0 && learned_mean {
            let Candidate {
                estimate,
                a_ext_before,
                duration,
                answered,
            } = self.candidate;
            // The fallback where no contact step's answer stood out on its own.
            let steady =
                (self.a_ext_means[0] - a_ext_before).abs() * duration <= 0.01 * answered.abs();
            if steady && mass.is_none() && self.mass_estimate == 0.0 && !self.ignore_answers {
                self.replay_pending = true;
                self.mass_estimate = estimate;
                self.mass_confirmed = true;
            }
            self.candidate = Candidate::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A coupling whose open episode held `impulse` (N.s) from a start at 1 m/s away from the
    /// stop, closed by a free step that found the master's velocity changed by `dv` over 3 ms
    /// with no external acceleration before the contact.
    fn closed_after(impulse: f64, dv: f64, mass: Option<f64>) -> (Coupling, Learned) {
        let start = Observed {
            time: 0.0,
            s: 0.0,
            v: 1.0,
        };
        let mut coupling = Coupling {
            master_holds_next: Some(false),
            episode: Episode {
                open: true,
                start,
                a_ext_known: true,
                impulse_if_mean: impulse,
                impulse_if_next: impulse,
                ..Episode::default()
            },
            ..Coupling::default()
        };
        let now = Observed {
            time: 3e-3,
            s: 3e-3,
            v: 1.0 + dv,
        };
        coupling.last = now;
        let mut learned = Learned::default();
        coupling.close_the_episode(&mut learned, now, mass);
        (coupling, learned)
    }

    #[test]
    fn an_impulse_the_mass_in_use_answers_tells_its_mass() {
        // -0.2 N.s turning the body by +0.1 m/s: 2 kg.
        let (coupling, learned) = closed_after(-0.2, 0.1, Some(2.0));
        let told = learned.new_estimate.unwrap();
        assert!((told - 2.0).abs() < 1e-12, "{told}");
        assert_eq!(coupling.last_estimate, told);
    }

    #[test]
    fn a_rounding_residue_answered_by_another_force_tells_no_mass() {
        // A 1e-17 N.s residue cannot move a 2 kg body by 1e-4 m/s: a drive or a spring did.
        let (coupling, learned) = closed_after(-1e-17, 1e-4, Some(2.0));
        assert_eq!(learned.new_estimate, None);
        assert_eq!(coupling.last_estimate, 0.0);
    }
}

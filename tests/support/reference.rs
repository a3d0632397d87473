//! References for the coupling's acceptance tests, computed without the FMU: the hybrid integration
//! of [`super::exact::Exact`] (RK4 at a small fraction of the contact duration, contact start and
//! end located by bisection, the ElastoGap law written out in [`super::exact::gap_force`]), sampled
//! at the master's communication points.

use std::ops::Range;

use super::exact::{Body, ContactEvent, Exact, Partner};
use super::masters::State;

/// The exact motion at the communication points `t_k = k*h`, and the contacts it has.
pub struct Reference {
    pub h: f64,
    /// `[x, v, partner_x, partner_v]` at each `t_k` (the partner's part 0 for a lone body).
    pub states: Vec<State>,
    /// The energy the contact dissipated up to each `t_k`.
    pub dissipated: Vec<f64>,
    pub events: Vec<ContactEvent>,
    /// The largest and smallest positions of the body and of its partner, sampled at `fine_step`.
    pub range: [(f64, f64); 2],
}

/// The initial motion and the tolerances of a reference run.
pub struct Start {
    pub x: f64,
    pub v: f64,
    pub partner: Option<(Partner, f64, f64)>,
    /// RK4 step in free flight (any for a lone body under a constant force, where RK4 is exact).
    pub dt_free: f64,
    /// RK4 step in contact: a small fraction of the contact duration.
    pub dt_contact: f64,
}

/// The reference sampled at `steps + 1` communication points; the ranges of motion (strokes) are
/// sampled `fine` times per step as well, so that a long step does not hide a turning point.
pub fn reference(body: Body, start: &Start, h: f64, steps: usize, fine: usize) -> Reference {
    let mut exact = Exact::new(body, start.x, start.v, start.dt_free, start.dt_contact);
    if let Some((partner, x2, v2)) = start.partner {
        exact = exact.with_partner(partner, x2, v2);
    }
    let mut states = Vec::with_capacity(steps + 1);
    let mut dissipated = Vec::with_capacity(steps + 1);
    let mut range = [(f64::MIN, f64::MAX); 2];
    let mut widen = |exact: &Exact| {
        for (r, x) in range.iter_mut().zip([exact.x, exact.partner_x]) {
            *r = (r.0.max(x), r.1.min(x));
        }
    };
    widen(&exact);
    for k in 0..=steps {
        if k > 0 {
            for i in 1..=fine {
                exact.advance_to(((k - 1) as f64 + i as f64 / fine as f64) * h);
                widen(&exact);
            }
        }
        exact.advance_to(k as f64 * h);
        states.push([exact.x, exact.v, exact.partner_x, exact.partner_v]);
        dissipated.push(exact.dissipated);
    }
    Reference {
        h,
        states,
        dissipated,
        events: exact.events,
        range,
    }
}

impl Reference {
    /// The index of the communication step `[t_k, t_{k+1})` holding the instant `t`.
    pub fn step_of(&self, t: f64) -> usize {
        (t / self.h).floor() as usize
    }

    /// The stroke (largest minus smallest position) of the body (0) or its partner (1).
    pub fn stroke(&self, which: usize) -> f64 {
        self.range[which].0 - self.range[which].1
    }

    /// The communication points after each completed contact, from the `from`-th step after the
    /// one the contact ended in, up to (not including) the step the next contact starts in: one
    /// range per contact that leaves any.
    pub fn after_each_contact(&self, from: usize) -> Vec<Range<usize>> {
        let points = self.states.len();
        self.events
            .iter()
            .enumerate()
            .filter_map(|(i, event)| {
                let until = self
                    .events
                    .get(i + 1)
                    .map_or(points, |next| self.step_of(next.start) + 1);
                let first = self.step_of(event.end?) + from;
                (first < until.min(points)).then_some(first..until.min(points))
            })
            .collect()
    }
}

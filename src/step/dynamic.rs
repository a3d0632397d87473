//! The dynamic step: the relative motion answers the contact force through an effective mass,
//! `m_eff * s_rel'' = m_eff * a_ext - f`, where `a_ext` is the relative acceleration from
//! everything else. For a body against a housing this is the exact motion at any step size, so
//! the impulse over the step gives the master's body exactly the right velocity change.
//!
//! The step is cut where the contact starts or ends and where the law has a kink. Free flight is a
//! parabola; a stretch where the law is affine has a closed form ([`super::affine`]); any other
//! stretch goes to the adaptive integrator ([`super::adaptive`]).

use super::adaptive::{integrate_stretch, State, Stretch, StretchEnd};
use super::affine::AffineMotion;
use super::roots::{kink_side, left_side, newton_past, range_crossings};
use super::{ContactSpan, Evaluated, Motion, StepIntegral};
use crate::laws::{AffineRegion, ContactLaw};

/// The parameters of the relative motion over one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dynamics {
    /// The effective (reduced) mass of the relative motion, `> 0`.
    pub mass: f64,
    /// The relative acceleration from everything but the contact, constant over the step.
    pub a_ext: f64,
    /// Relative accuracy of the adaptive integrator (laws without a closed form).
    pub tolerance: f64,
}

/// What a dynamic step produced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DynamicStep {
    /// The impulse and dissipated energy over the step, and the contact transitions;
    /// `substeps` counts the stretches in contact.
    pub integral: StepIntegral,
    /// The relative motion at the end of the step (`a` is the acceleration there).
    pub end: Motion,
    /// Law or closed-form evaluations spent, for the cost accounting of the benchmarks.
    pub evaluations: u32,
}

/// A bound on the stretches of one step: a bouncing motion that would need more is chattering
/// at the rounding level, and the rest of the step is then integrated as one more stretch.
const MAX_STRETCHES: u32 = 10_000;

/// A bound on the work of one step (closed-form or law evaluations). A step that needs more has
/// parameters far outside what a communication step can integrate (a contact oscillating
/// millions of times within it); it ends with a non-finite motion, which the FMI layer refuses
/// with a message, rather than keep the importer waiting.
pub const MAX_EVALUATIONS: u32 = 5_000_000;

/// The relative motion from `start` (`s`, `v`; its `a` is ignored) over `[0, h]`.
pub fn integrate_dynamics<L: ContactLaw>(
    law: &L,
    start: Motion,
    dynamics: Dynamics,
    h: f64,
) -> DynamicStep {
    let Dynamics { mass, a_ext, .. } = dynamics;
    let s_rel0 = law.s_rel0();
    let span = ContactSpan::of(law);
    let mut out = DynamicStep::default();
    let (mut x, mut v) = (start.s - s_rel0, start.v);
    let mut t = 0.0;
    let mut in_contact = span.outside(x) < 0.0;
    // The law as the contact under way sees it, once it touched down inside this step.
    let mut touched: Option<L> = None;
    let mut stretches = 0;
    while t < h {
        let budget = MAX_EVALUATIONS.saturating_sub(out.evaluations);
        if budget == 0 || !(x.is_finite() && v.is_finite()) {
            (x, v) = (f64::NAN, f64::NAN);
            out.integral.impulse = f64::NAN;
            out.integral.dissipated = f64::NAN;
            break;
        }
        let remaining = h - t;
        if !in_contact {
            let touch_down;
            ((x, v), touch_down) = free_flight(span, a_ext, (x, v), remaining);
            match touch_down {
                Some(tau) => {
                    t += tau;
                    in_contact = true;
                    out.integral.record(t, true, v);
                    if let Some(entered) = law.touched_down(v) {
                        touched = Some(entered);
                    }
                }
                None => t = h,
            }
            continue;
        }
        stretches += 1;
        let law = touched.as_ref().unwrap_or(law);
        let stretch = contact_stretch(law, s_rel0, dynamics, (x, v), remaining, budget, stretches);
        out.evaluations += stretch.evaluations;
        let elapsed = stretch.elapsed.min(remaining);
        out.integral.impulse += mass * (a_ext * elapsed - (stretch.end.v - v));
        // The law dissipates, never feeds energy back: a negative balance is rounding (or, far
        // outside any physical range, cancellation) and must not make E_loss fall.
        out.integral.dissipated += stretch.end.dissipated.max(0.0);
        out.integral.substeps += 1;
        (x, v) = (stretch.end.x, stretch.end.v);
        t += elapsed;
        if stretch.stop == StretchEnd::ContactEnd || span.outside(x) >= 0.0 {
            in_contact = false;
            out.integral.record(t, false, v);
        }
        if elapsed <= 0.0 {
            // No progress (an event at the very start): the next stretch starts on the other
            // side, which `newton_past` guarantees is reached after at most one more round; the
            // work budget bounds the rounds if it does not.
            out.evaluations = out.evaluations.saturating_add(1);
        }
    }
    let law = touched.as_ref().unwrap_or(law);
    let force = law.evaluate(s_rel0 + x, v).f;
    out.end = Motion {
        s: s_rel0 + x,
        v,
        a: a_ext - force / mass,
    };
    out
}

/// [`integrate_dynamics`] where the motion flies free through the whole step: finite, out of
/// contact at the start, and meeting no contact end before `h`. None otherwise. It gives what
/// the integration gives there, without the integration's loop (a free flight is the parabola
/// under `a_ext`, and the law is evaluated only at the end).
#[inline(always)]
pub fn free_flight_step<L: ContactLaw>(
    law: &L,
    start: Motion,
    dynamics: Dynamics,
    h: f64,
) -> Option<DynamicStep> {
    let Dynamics { mass, a_ext, .. } = dynamics;
    let s_rel0 = law.s_rel0();
    let span = ContactSpan::of(law);
    let free = Motion {
        s: start.s - s_rel0,
        v: start.v,
        a: a_ext,
    };
    let flies = h > 0.0
        && free.s.is_finite()
        && free.v.is_finite()
        && span.outside(free.s) >= 0.0
        && entry_time(free, span, h).is_none();
    if !flies {
        return None;
    }
    let end = free.at(h);
    let force = law.evaluate(s_rel0 + end.s, end.v).f;
    Some(DynamicStep {
        end: Motion {
            s: s_rel0 + end.s,
            v: end.v,
            a: a_ext - force / mass,
        },
        ..DynamicStep::default()
    })
}

/// Out of contact from `(x, v)` for at most `remaining`: the state where the flight ends, and
/// the time to it if the motion is inside the contact range there (a touch-down); none where
/// the flight lasts the rest of the step.
#[inline(always)]
fn free_flight(
    span: ContactSpan,
    a_ext: f64,
    (x, v): (f64, f64),
    remaining: f64,
) -> ((f64, f64), Option<f64>) {
    let free = Motion { s: x, v, a: a_ext };
    match entry_time(free, span, remaining) {
        None => {
            let end = free.at(remaining);
            ((end.s, end.v), None)
        }
        Some(tau) => {
            let end = free.at(tau);
            ((end.s, end.v), (span.outside(end.s) < 0.0).then_some(tau))
        }
    }
}

/// One stretch in contact from `(x, v)`: in closed form where the law is affine there, else by
/// the adaptive integrator; from the `MAX_STRETCHES`-th stretch on, the rest of the step is one
/// adaptive stretch at a coarse tolerance.
#[inline(always)]
fn contact_stretch<L: ContactLaw>(
    law: &L,
    s_rel0: f64,
    dynamics: Dynamics,
    (x, v): (f64, f64),
    remaining: f64,
    budget: u32,
    stretches: u32,
) -> Stretch {
    let Dynamics {
        mass,
        a_ext,
        tolerance,
    } = dynamics;
    let region = law.affine_region(s_rel0 + x, v);
    match region {
        Some(region) if stretches < MAX_STRETCHES => {
            affine_stretch(law, &region, mass, a_ext, (x, v), remaining, budget)
        }
        _ => {
            let tolerance = if stretches < MAX_STRETCHES {
                tolerance
            } else {
                1e-3
            };
            let start = State {
                x,
                v,
                dissipated: 0.0,
            };
            integrate_stretch(law, mass, a_ext, start, remaining, tolerance, budget)
        }
    }
}

/// Out of contact: the time after which the motion is inside the contact range (as the law sees
/// it), if within `limit`. The first crossing of an end is an entry, except from an end itself.
pub(crate) fn entry_time(free: Motion, span: ContactSpan, limit: f64) -> Option<f64> {
    let heading_down = free.v < 0.0 || (free.v == 0.0 && free.a < 0.0);
    let heading_up = free.v > 0.0 || (free.v == 0.0 && free.a > 0.0);
    let (lower, upper) = span.ends_in_x();
    // Out of contact but between the ends: on an end, within rounding.
    let enters_now = match lower {
        None => free.s <= upper && heading_down,
        Some(lower) if free.s >= lower && free.s <= upper => {
            if free.s - lower < upper - free.s {
                heading_up
            } else {
                heading_down
            }
        }
        Some(_) => false,
    };
    let root = if enters_now {
        0.0
    } else {
        let (roots, count) = range_crossings(free, (lower, upper), limit);
        if count == 0 {
            return None;
        }
        roots[0]
    };
    Some(first_time_where(
        |tau| span.outside(free.at(tau).s) < 0.0,
        root,
        limit,
    ))
}

/// The smallest time from `from` on (in growing rounding-sized increments, at most `limit`) at
/// which `condition` holds; `limit` if none does. Moves a located root to the far side of the
/// switch, where the motion is on its new branch.
///
/// From 0 (a motion on an end at the step's start), the increments start at the step's rounding:
/// at the time's own, the smallest double's, the motion's offset from the end would stay below
/// the rounding of the position for longer than the 200 increments, and a motion heading into
/// the contact from its very edge would fly the whole step outside it.
fn first_time_where(condition: impl Fn(f64) -> bool, from: f64, limit: f64) -> f64 {
    let mut tau = from;
    let scale = if from > 0.0 { from } else { limit };
    let mut increment = f64::EPSILON * scale.abs().max(f64::MIN_POSITIVE * 1e16);
    for _ in 0..200 {
        if tau >= limit {
            return limit;
        }
        if condition(tau) {
            return tau;
        }
        tau += increment;
        increment *= 2.0;
    }
    limit
}

/// Sample intervals per oscillation period: a damped oscillation crosses a level at most twice
/// per period, so with 8 samples a crossing is always bracketed unless it merely grazes the level.
const SAMPLES_PER_RADIAN: f64 = 8.0 / std::f64::consts::TAU;

/// One stretch where the law is affine: sampled along the closed form until the contact ends or
/// the law leaves the region (its kink indicator changes sign), both located to rounding.
fn affine_stretch<L: ContactLaw>(
    law: &L,
    region: &AffineRegion,
    mass: f64,
    a_ext: f64,
    (x0, v0): (f64, f64),
    horizon: f64,
    budget: u32,
) -> Stretch {
    let motion = AffineMotion::new(region, mass, a_ext, x0, v0);
    let s_rel0 = law.s_rel0();
    let span = ContactSpan::of(law);
    let mut evaluations = 0u32;
    let g0 = law.kink_indicator(s_rel0 + x0, v0);
    let start_side = kink_side(g0);
    // Both event functions are negative before their event and non-negative after it.
    let kink = |(x, v): (f64, f64)| left_side(law.kink_indicator(s_rel0 + x, v), start_side);
    let rate = motion.rate();
    let (limit, spacing) = if rate > 0.0 {
        (horizon, 1.0 / (rate * SAMPLES_PER_RADIAN))
    } else {
        // Uniform acceleration: the contact end is a root of a quadratic; the kink indicator
        // is sampled on a few points before it, and at the instant v passes 0.
        let free = Motion {
            s: x0,
            v: v0,
            a: a_ext - region.offset / mass,
        };
        let (roots, count) = range_crossings(free, span.ends_in_x(), horizon);
        let limit = if count > 0 {
            first_time_where(|tau| span.outside(free.at(tau).s) >= 0.0, roots[0], horizon)
        } else {
            horizon
        };
        (limit, limit / 4.0)
    };
    let still = if rate == 0.0 && a_ext != 0.0 {
        -v0 / (a_ext - region.offset / mass)
    } else {
        f64::NAN
    };
    let mut ta = 0.0;
    let mut a_state = (x0, v0);
    let mut ka = left_side(g0, start_side);
    loop {
        if evaluations >= budget {
            return Stretch::exhausted(evaluations);
        }
        let mut tb = (ta + spacing).min(limit);
        if still > ta && still < tb {
            tb = still;
        }
        let b_state = motion.at(tb);
        evaluations += 1;
        let kb = kink(b_state);
        let ended = left_contact(span, b_state);
        if ended || kb >= 0.0 {
            // The secant root between (t0, g0) and (t1, g1).
            let secant =
                |(t0, g0): (f64, f64), (t1, g1): (f64, f64)| t0 - g0 * (t1 - t0) / (g1 - g0);
            let mut seen = Evaluated::new(tb, b_state);
            let mut stop = (tb, StretchEnd::Horizon);
            // A stretch still heading in at `ta` that has left by `tb` turned back in between:
            // its exit is the root after the turn, where the gap only grows, and the turn is
            // where a kink indicator with |v| in it (ElastoGap's damper bound) is lowest. Such a
            // graze, short against the period the samples follow (a strong pull out), would pass
            // its kinks unseen (much of its impulse off) and, entered on the edge, would meet the
            // closed form's rounding around the edge first and creep from there.
            let heading_in = span.outside_and_rate(a_state.0, a_state.1).1 < 0.0;
            let turn = (ended && heading_in).then(|| {
                let turn = newton_past(
                    |tau| {
                        evaluations += 1;
                        let (x, v) = motion.at(tau);
                        let rate = span.outside_and_rate(x, v).1;
                        let turning = span.outside_and_rate(x, motion.acceleration(x, v)).1;
                        (rate, turning)
                    },
                    |rate| rate >= 0.0,
                    ta,
                    tb,
                    0.5 * (ta + tb),
                );
                evaluations += 1;
                (turn, motion.at(turn))
            });
            let kink_at_turn = turn
                .filter(|_| kb < 0.0)
                .map(|(turn, at_turn)| (turn, kink(at_turn)));
            let (tb, kb) = match kink_at_turn {
                Some((turn, k)) if k >= 0.0 => (turn, k),
                _ => (tb, kb),
            };
            // The kink first: where the law leaves the region before the contact ends (ElastoGap's
            // damper bound always does), the contact end is not sought at all.
            if kb >= 0.0 {
                let tau = newton_past(
                    |tau| {
                        evaluations += 1;
                        let (x, v) = seen.keep(tau, motion.at(tau));
                        let s = s_rel0 + x;
                        let rate = law.kink_indicator_rate(s, v, motion.acceleration(x, v));
                        (law.kink_indicator(s, v), rate)
                    },
                    |g| kink_side(g) != start_side,
                    ta,
                    tb,
                    secant((ta, ka), (tb, kb)),
                );
                stop = (tau, StretchEnd::Kink);
            }
            let at_stop = seen.at(stop.0).unwrap_or_else(|| {
                evaluations += 1;
                motion.at(stop.0)
            });
            if left_contact(span, at_stop) {
                // A uniformly accelerated stretch ends at its located quadratic root, already
                // on the far side.
                let tau = if rate == 0.0 && tb == limit && limit < horizon && stop.0 == tb {
                    limit
                } else {
                    let (from, at_from) = turn.unwrap_or((ta, a_state));
                    newton_past(
                        |tau| {
                            evaluations += 1;
                            let (x, v) = seen.keep(tau, motion.at(tau));
                            span.outside_and_rate(x, v)
                        },
                        |gap| gap >= 0.0,
                        from,
                        stop.0,
                        secant(
                            (from, span.outside(at_from.0)),
                            (stop.0, span.outside(at_stop.0)),
                        ),
                    )
                };
                stop = (tau, StretchEnd::ContactEnd);
            }
            let end = seen.at(stop.0).unwrap_or_else(|| {
                evaluations += 1;
                motion.at(stop.0)
            });
            return finish(region, mass, a_ext, (x0, v0), end, stop, evaluations);
        }
        if tb >= limit {
            let end = if limit < horizon && rate == 0.0 {
                StretchEnd::ContactEnd
            } else {
                StretchEnd::Horizon
            };
            return finish(
                region,
                mass,
                a_ext,
                (x0, v0),
                b_state,
                (tb, end),
                evaluations,
            );
        }
        (ta, a_state, ka) = (tb, b_state, kb);
    }
}

/// Whether a motion in contact has left it at `(x, v)`: outside the range and not heading back
/// in. Started on the edge and heading in, the closed form's rounding (of the order of the
/// equilibrium offset times the machine epsilon) reads as outside for the first instants; taken
/// for an exit, the step would chatter across the edge at denormal time steps (the coupling
/// starts its model so in `tests/memcheck.rs`'s workload).
fn left_contact(span: ContactSpan, (x, v): (f64, f64)) -> bool {
    let (gap, rate) = span.outside_and_rate(x, v);
    gap >= 0.0 && rate >= 0.0
}

/// The stretch ending in the state `(x, v)` and the energy the damper took over it, from the work
/// balance `integral(f*v) = m*a_ext*dx - m*d(v^2)/2` less the spring's share.
fn finish(
    region: &AffineRegion,
    mass: f64,
    a_ext: f64,
    (x0, v0): (f64, f64),
    (x, v): (f64, f64),
    (elapsed, stop): (f64, StretchEnd),
    evaluations: u32,
) -> Stretch {
    let dx = x - x0;
    let force_work = if region.stiffness == 0.0 && region.damping == 0.0 && region.offset == 0.0 {
        0.0
    } else {
        mass * (a_ext * dx - 0.5 * (v - v0) * (v + v0))
    };
    let spring_work =
        0.5 * region.spring_stiffness * (x - x0) * (x + x0) + region.spring_offset * dx;
    Stretch {
        elapsed,
        end: State {
            x,
            v,
            dissipated: force_work - spring_work,
        },
        stop,
        evaluations,
    }
}

#[cfg(test)]
mod tests;

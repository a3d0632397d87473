//! Root location shared by the integrators.

use super::Motion;

/// Roots of `a/2*tau^2 + v*tau + (s - s_rel0)` strictly inside `(0, h)`, ascending, where the sign
/// changes (a touching double root is no transition).
pub(crate) fn contact_crossings(motion: Motion, s_rel0: f64, h: f64) -> ([f64; 2], usize) {
    let offset = motion.s - s_rel0;
    // Most steps stay on one side: where v_rel keeps its sign the motion is monotone, so ends
    // on the same side mean no crossing. Told without the square root and the two divisions,
    // on which every step in contact would otherwise wait.
    let end = motion.at(h);
    if offset * (end.s - s_rel0) > 0.0 && motion.v * end.v >= 0.0 {
        return ([0.0; 2], 0);
    }
    let half_a = 0.5 * motion.a;
    let mut roots = [f64::NAN; 2];
    if half_a == 0.0 {
        if motion.v != 0.0 {
            roots[0] = -offset / motion.v;
        }
    } else {
        let discriminant = motion.v * motion.v - 4.0 * half_a * offset;
        if discriminant > 0.0 {
            // The stable pairing of the two quadratic formulas avoids cancellation.
            let q = -0.5 * (motion.v + discriminant.sqrt().copysign(motion.v));
            roots[0] = q / half_a;
            roots[1] = if q != 0.0 { offset / q } else { f64::NAN };
        }
    }
    let mut inside = [0.0; 2];
    let mut count = 0;
    for root in roots {
        if root > 0.0 && root < h {
            inside[count] = root;
            count += 1;
        }
    }
    if count == 2 && inside[0] > inside[1] {
        inside.swap(0, 1);
    }
    (inside, count)
}

/// The instants in `(0, h)` at which `motion` crosses either end of a contact range `(lower,
/// upper)`, in time order.
#[inline(always)]
pub(crate) fn range_crossings(
    motion: Motion,
    (lower, upper): (Option<f64>, f64),
    h: f64,
) -> ([f64; 4], usize) {
    let (upper_roots, mut count) = contact_crossings(motion, upper, h);
    let mut roots = [upper_roots[0], upper_roots[1], 0.0, 0.0];
    if let Some(lower) = lower {
        let (lower_roots, lower_count) = contact_crossings(motion, lower, h);
        for &root in &lower_roots[..lower_count] {
            // Insertion into the sorted prefix.
            let mut k = count;
            while k > 0 && roots[k - 1] > root {
                roots[k] = roots[k - 1];
                k -= 1;
            }
            roots[k] = root;
            count += 1;
        }
    }
    (roots, count)
}

/// The root of `g` in `[t0, t1]`, given `g(t0)` and `g(t1)` of opposite signs (Illinois method:
/// bracketing, so it always converges, and superlinear).
pub(crate) fn bracketed_root(g: impl Fn(f64) -> f64, t0: f64, g0: f64, t1: f64, g1: f64) -> f64 {
    let tolerance = 4.0 * f64::EPSILON * t1.abs().max(t0.abs()).max(f64::MIN_POSITIVE);
    let mut bracket = Bracket::new((t0, g0), (t1, g1));
    for _ in 0..100 {
        let Some(t) = bracket.probe(tolerance) else {
            break;
        };
        let gt = g(t);
        if gt == 0.0 {
            return t;
        }
        // The end whose sign `gt` does not share moves.
        let far = (gt > 0.0) != (bracket.g0 > 0.0);
        bracket.narrow(t, gt, far);
    }
    0.5 * (bracket.t0 + bracket.t1)
}

/// One Illinois search's bracket `[t0, t1]` with the event function at its ends, shared by
/// [`bracketed_root`] and [`crossing_past`], which differ only in which end a new point replaces
/// and what they return.
struct Bracket {
    t0: f64,
    g0: f64,
    t1: f64,
    g1: f64,
    /// Which end the last point replaced: -1 `t0`, 1 `t1`, 0 none yet.
    last_side: i8,
    /// The last point was a probe across the newest end.
    probed: bool,
}

impl Bracket {
    fn new((t0, g0): (f64, f64), (t1, g1): (f64, f64)) -> Self {
        Bracket {
            t0,
            g0,
            t1,
            g1,
            last_side: 0,
            probed: false,
        }
    }

    /// The next point to evaluate, or none once the bracket is within `tolerance`.
    fn probe(&mut self, tolerance: f64) -> Option<f64> {
        let Bracket { t0, g0, t1, g1, .. } = *self;
        if (t1 - t0).abs() <= tolerance {
            return None;
        }
        let newest = match self.last_side {
            _ if self.probed => f64::NAN,
            1 => t1,
            -1 => t0,
            _ => f64::NAN,
        };
        let t = inside_bracket((t0 * g1 - t1 * g0) / (g1 - g0), t0, t1, newest, tolerance);
        // A probe across the newest end that lands on the same side leaves it the newest end:
        // the next iteration bisects instead of probing again.
        self.probed = !newest.is_nan() && (t - newest).abs() <= tolerance;
        Some(t)
    }

    /// Replaces the end `t1` (if `far`) or `t0` by the point `t` where the function is `gt`,
    /// halving the other end's value when the same end moved twice (Illinois).
    fn narrow(&mut self, t: f64, gt: f64, far: bool) {
        if far {
            self.t1 = t;
            self.g1 = gt;
            if self.last_side == 1 {
                self.g0 *= 0.5;
            }
            self.last_side = 1;
        } else {
            self.t0 = t;
            self.g0 = gt;
            if self.last_side == -1 {
                self.g1 *= 0.5;
            }
            self.last_side = -1;
        }
    }
}

/// The secant point `t` of a bracket `[t0, t1]` (either order) made a useful probe. Where the
/// secant has converged onto the end the last iteration moved (`newest`), the probe goes
/// `resolution` across it: otherwise the other end would close by halvings only. A secant outside
/// the bracket, or onto the stale end (the function is flat there), gives way to the middle.
fn inside_bracket(t: f64, t0: f64, t1: f64, newest: f64, resolution: f64) -> f64 {
    // Without a newest end (the first iteration, or after a probe across that did not cross),
    // only the middle replaces a secant at an end.
    let (lo, hi) = (t0.min(t1), t0.max(t1));
    let middle = 0.5 * (lo + hi);
    if !(t >= lo && t <= hi) || hi - lo <= 2.0 * resolution {
        return middle;
    }
    let near = |end: f64| (t - end).abs() < resolution;
    if near(newest) {
        if newest == lo {
            lo + resolution
        } else {
            hi - resolution
        }
    } else if near(lo) || near(hi) {
        middle
    } else {
        t
    }
}

/// Whether the bound indicator changes sign between two samples.
pub(crate) fn switches(ga: f64, gb: f64) -> bool {
    (ga > 0.0) != (gb > 0.0) && ga != 0.0 && gb != 0.0
}

/// The switch of `g` from `g(t0) < 0` to `g(t1) >= 0`, located like [`bracketed_root`] to
/// `resolution` (or the rounding of `t`), as the end of the final bracket where `g >= 0`: the
/// point where the integrators resume is then already past the switch, so the law there is on its
/// new branch.
pub(crate) fn crossing_past(
    mut g: impl FnMut(f64) -> f64,
    start: (f64, f64),
    end: (f64, f64),
    resolution: f64,
) -> f64 {
    let mut bracket = Bracket::new(start, end);
    for _ in 0..100 {
        let (t0, t1) = (bracket.t0, bracket.t1);
        let tolerance =
            (4.0 * f64::EPSILON * t1.abs().max(t0.abs()).max(f64::MIN_POSITIVE)).max(resolution);
        let Some(t) = bracket.probe(tolerance) else {
            break;
        };
        let gt = g(t);
        bracket.narrow(t, gt, gt >= 0.0);
    }
    bracket.t1
}

/// The branch side of a kink indicator: the law switches where it becomes positive or stops
/// being positive (a zero belongs to the non-positive side, as the laws decide their branches).
pub(crate) fn kink_side(g: f64) -> bool {
    g > 0.0
}

/// A kink indicator made an event function for [`crossing_past`]: negative while on the side
/// the stretch started on, non-negative once on the other, with the indicator's magnitude so that
/// secant steps stay informed.
pub(crate) fn left_side(g: f64, start_side: bool) -> f64 {
    let magnitude = g.abs() + f64::MIN_POSITIVE;
    if kink_side(g) == start_side {
        -magnitude
    } else {
        magnitude
    }
}

/// The switch of an event function inside `[t0, t1]`, where `past(g)` is false at `t0` and true at
/// `t1`, by Newton steps on `eval(t) = (g, dg/dt)` kept inside the bracket (bisection where a step
/// would leave it). Returns the end of the final bracket where `past` holds, within a few
/// rounding errors of the switch. A smooth event function converges in a handful of evaluations.
pub(crate) fn newton_past(
    mut eval: impl FnMut(f64) -> (f64, f64),
    past: impl Fn(f64) -> bool,
    mut t0: f64,
    mut t1: f64,
    guess: f64,
) -> f64 {
    let mut t = if guess > t0 && guess < t1 {
        guess
    } else {
        0.5 * (t0 + t1)
    };
    for _ in 0..100 {
        let (g, slope) = eval(t);
        if past(g) {
            t1 = t;
        } else {
            t0 = t;
        }
        let resolution = 4.0 * f64::EPSILON * t1.abs().max(t0.abs()).max(f64::MIN_POSITIVE);
        if t1 - t0 <= resolution {
            break;
        }
        let newton = t - g / slope;
        t = if newton.is_finite() && (newton - t).abs() < resolution {
            // Converged: a step below the resolution would not shrink the bracket (and one of
            // zero would end where `t` already is, a bracket end), so probe just across. Were the
            // bracket bisected instead, its far end would close in one halving at a time.
            if past(g) {
                (t - resolution).max(0.5 * (t0 + t))
            } else {
                (t + resolution).min(0.5 * (t + t1))
            }
        } else if newton.is_finite() && newton > t0 && newton < t1 {
            newton
        } else {
            0.5 * (t0 + t1)
        };
    }
    t1
}

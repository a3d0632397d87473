//! The kinematic step: the law integrated along the relative motion extrapolated from the inputs,
//! `s(tau) = s + v*tau + a*tau^2/2`. Contact start and end are located exactly, and every kink of
//! the law (a damper bound switching on or off) is located before the quadrature.

use super::roots::{bracketed_root, contact_crossings, switches};
use super::{Motion, StepIntegral, SubstepLimits};
use crate::laws::ContactLaw;

/// Three-point Gauss–Legendre rule on [0, 1]: exact for polynomials of degree 5, which covers the
/// law with n = 1 (force quadratic and loss power cubic in time along a quadratic motion).
const GAUSS_NODES: [f64; 3] = [
    0.5 - 0.387_298_334_620_741_7,
    0.5,
    0.5 + 0.387_298_334_620_741_7,
];
const GAUSS_WEIGHTS: [f64; 3] = [5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0];

/// The integrals over a piece and the bound indicator at its middle Gauss node, which is the
/// middle of the piece: the kink test samples it there for free.
#[derive(Clone, Copy, Debug)]
struct PieceIntegral {
    impulse: f64,
    dissipated: f64,
    middle: f64,
    middle_indicator: f64,
}

/// Integral of (f, lossPower) over `[t0, t1]`, on which the law is smooth.
// Always inlined: left out of line (it has three callers), its result goes through memory and
// each substep takes about 15% longer (benches/fmi_abi.rs).
#[inline(always)]
fn quadrature<L: ContactLaw>(law: &L, motion: Motion, t0: f64, t1: f64) -> PieceIntegral {
    let length = t1 - t0;
    let mut impulse = 0.0;
    let mut dissipated = 0.0;
    let mut middle = t0;
    let mut middle_indicator = 0.0;
    for (k, (node, weight)) in GAUSS_NODES.iter().zip(GAUSS_WEIGHTS).enumerate() {
        let tau = t0 + node * length;
        let point = motion.at(tau);
        let forces = law.evaluate(point.s, point.v);
        impulse += weight * forces.f;
        dissipated += weight * forces.loss_power;
        if k == 1 {
            middle = tau;
            middle_indicator = law.kink_indicator_with(&forces, point.s, point.v);
        }
    }
    PieceIntegral {
        impulse: impulse * length,
        dissipated: dissipated * length,
        middle,
        middle_indicator,
    }
}

/// The kink indicator along the motion.
fn indicator_at<L: ContactLaw>(law: &L, motion: Motion, tau: f64) -> f64 {
    let p = motion.at(tau);
    law.kink_indicator(p.s, p.v)
}

/// Integrates a piece in contact, splitting it where the damper bound switches on or off: the
/// law has a kink there that a quadrature rule across it would smear.
///
/// The switches are roots of `d*|v_rel| + f_c`, sought between samples of its sign: the piece's
/// ends, its middle and the instant `still` where `v_rel` passes 0. The damper is linear around
/// that instant, so a short linear window between the two bounds, which could fall between the
/// other samples, is always bracketed.
///
/// `g0` is the indicator at `t0`, which the previous piece evaluated at its end; the indicator at
/// `t1` is returned for the next piece. The middle sample comes with the quadrature, so a piece
/// without a switch costs its three Gauss points and one spring force.
fn integrate_contact_piece<L: ContactLaw>(
    law: &L,
    motion: Motion,
    still: f64,
    t0: f64,
    g0: f64,
    t1: f64,
) -> (f64, f64, f64) {
    let whole = quadrature(law, motion, t0, t1);
    let g1 = indicator_at(law, motion, t1);
    let mid = whole.middle;
    if law.is_polynomial_along_quadratic_motion() {
        return integrate_polynomial_piece(law, motion, (t0, g0), t1, whole, g1);
    }
    let still_inside = still > t0 && still < t1 && still != mid;
    if !still_inside
        && !switches(g0, whole.middle_indicator)
        && !switches(whole.middle_indicator, g1)
    {
        return (whole.impulse, whole.dissipated, g1);
    }
    let mut samples = [(t0, g0), (mid, whole.middle_indicator), (t1, g1), (t1, g1)];
    let mut count = 3;
    if still_inside {
        let sample = (still, indicator_at(law, motion, still));
        if still < mid {
            samples = [samples[0], sample, samples[1], samples[2]];
        } else {
            samples[2] = sample;
            samples[3] = (t1, g1);
        }
        count = 4;
    }
    let samples = &samples[..count];
    if !samples.windows(2).any(|w| switches(w[0].1, w[1].1)) {
        return (whole.impulse, whole.dissipated, g1);
    }
    let indicator = |tau: f64| indicator_at(law, motion, tau);
    let mut impulse = 0.0;
    let mut dissipated = 0.0;
    let mut start = t0;
    for window in samples.windows(2) {
        let ((ta, ga), (tb, gb)) = (window[0], window[1]);
        if switches(ga, gb) {
            let switch = bracketed_root(indicator, ta, ga, tb, gb);
            let part = quadrature(law, motion, start, switch);
            impulse += part.impulse;
            dissipated += part.dissipated;
            start = switch;
        }
    }
    let last = quadrature(law, motion, start, t1);
    (impulse + last.impulse, dissipated + last.dissipated, g1)
}

/// A piece of a polynomial law that does not contain the instant where `v_rel` passes 0: there
/// the kink indicator is a quadratic in time, so the one through its samples at the piece's ends
/// and middle is the indicator itself and its roots are the kinks, even two close ones that fall
/// between the samples.
fn integrate_polynomial_piece<L: ContactLaw>(
    law: &L,
    motion: Motion,
    (t0, g0): (f64, f64),
    t1: f64,
    whole: PieceIntegral,
    g1: f64,
) -> (f64, f64, f64) {
    let (roots, count) = interpolated_quadratic_roots(g0, whole.middle_indicator, g1);
    if count == 0 {
        return (whole.impulse, whole.dissipated, g1);
    }
    let length = t1 - t0;
    let mut impulse = 0.0;
    let mut dissipated = 0.0;
    let mut start = t0;
    for u in &roots[..count] {
        let switch = t0 + u * length;
        let part = quadrature(law, motion, start, switch);
        impulse += part.impulse;
        dissipated += part.dissipated;
        start = switch;
    }
    let last = quadrature(law, motion, start, t1);
    (impulse + last.impulse, dissipated + last.dissipated, g1)
}

/// The sign-changing roots in (0, 1), ascending, of the quadratic through `(0, g0)`,
/// `(1/2, g_mid)` and `(1, g1)`.
fn interpolated_quadratic_roots(g0: f64, g_mid: f64, g1: f64) -> ([f64; 2], usize) {
    // p(u) = g0 + b*u + a*u^2
    let a = 2.0 * g0 - 4.0 * g_mid + 2.0 * g1;
    let b = -3.0 * g0 + 4.0 * g_mid - g1;
    let mut roots = [f64::NAN; 2];
    let scale = g0.abs().max(g_mid.abs()).max(g1.abs());
    if a.abs() <= 1e-12 * scale {
        if b != 0.0 {
            roots[0] = -g0 / b;
        }
    } else {
        let discriminant = b * b - 4.0 * a * g0;
        if discriminant > 0.0 {
            let q = -0.5 * (b + discriminant.sqrt().copysign(b));
            roots[0] = q / a;
            roots[1] = if q != 0.0 { g0 / q } else { f64::NAN };
        }
    }
    let mut inside = [0.0; 2];
    let mut count = 0;
    for root in roots {
        if root > 0.0 && root < 1.0 {
            inside[count] = root;
            count += 1;
        }
    }
    if count == 2 && inside[0] > inside[1] {
        inside.swap(0, 1);
    }
    (inside, count)
}

/// Integrates the law over `[0, h]` along `motion`: contact start and end are located exactly.
/// A polynomial law is integrated exactly by one Gauss piece per smooth stretch; any other is cut
/// into substeps no longer than the limits allow. Each piece is split again where the law has a
/// kink.
pub fn integrate_step<L: ContactLaw>(
    law: &L,
    motion: Motion,
    h: f64,
    limits: SubstepLimits,
) -> StepIntegral {
    let mut result = StepIntegral::default();
    let s_rel0 = law.s_rel0();
    let (crossings, crossing_count) = contact_crossings(motion, s_rel0, h);
    let polynomial = law.is_polynomial_along_quadratic_motion();
    let nominal = limits.nominal(h);
    let still = if motion.a != 0.0 {
        -motion.v / motion.a
    } else {
        f64::NAN
    };
    let mut boundaries = [0.0; 4];
    boundaries[1..=crossing_count].copy_from_slice(&crossings[..crossing_count]);
    boundaries[crossing_count + 1] = h;
    for segment in boundaries[..crossing_count + 2].windows(2) {
        let (t0, t1) = (segment[0], segment[1]);
        if t1 <= t0 {
            continue;
        }
        let middle = motion.at(0.5 * (t0 + t1));
        let in_contact = middle.s < s_rel0;
        if t0 > 0.0 {
            result.record(t0, in_contact);
        }
        if !in_contact {
            continue;
        }
        if polynomial {
            // Exact with one piece on each side of the instant where v_rel passes 0.
            let mut a = t0;
            let mut g_a = indicator_at(law, motion, t0);
            for b in [still, t1] {
                if b > a && b <= t1 {
                    let (impulse, dissipated, g_b) =
                        integrate_contact_piece(law, motion, still, a, g_a, b);
                    result.impulse += impulse;
                    result.dissipated += dissipated;
                    result.substeps += 1;
                    (a, g_a) = (b, g_b);
                }
            }
            continue;
        }
        let pieces = ((t1 - t0) / nominal)
            .ceil()
            .clamp(1.0, f64::from(limits.max_count.max(1)));
        let piece_length = (t1 - t0) / pieces;
        let piece_count = pieces as u32;
        // Each piece ends exactly where the next starts, so the indicator at a shared end is
        // evaluated once.
        let mut a = t0;
        let mut g_a = indicator_at(law, motion, t0);
        for k in 1..=piece_count {
            let b = if k == piece_count {
                t1
            } else {
                t0 + f64::from(k) * piece_length
            };
            let (impulse, dissipated, g_b) = integrate_contact_piece(law, motion, still, a, g_a, b);
            result.impulse += impulse;
            result.dissipated += dissipated;
            (a, g_a) = (b, g_b);
        }
        result.substeps += piece_count;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::GapLaw;

    const LAW: GapLaw = GapLaw {
        c: 1e4,
        d: 20.0,
        s_rel0: 0.0,
        n: 1.0,
        s_ref: 1.0,
        f_ref: 0.0,
    };

    fn limits(max_size: f64) -> SubstepLimits {
        SubstepLimits {
            max_size,
            max_count: 1_000_000,
        }
    }

    /// Trapezoid rule on a very fine uniform grid: independent of the Gauss/root-finding path.
    fn brute_force(law: &GapLaw, motion: Motion, h: f64) -> (f64, f64) {
        let n = 2_000_000;
        let dt = h / n as f64;
        let mut impulse = 0.0;
        let mut dissipated = 0.0;
        for k in 0..=n {
            let w = if k == 0 || k == n { 0.5 } else { 1.0 };
            let p = motion.at(k as f64 * dt);
            let forces = law.evaluate(p.s, p.v);
            impulse += w * forces.f * dt;
            dissipated += w * forces.loss_power * dt;
        }
        (impulse, dissipated)
    }

    #[test]
    fn crossings_of_a_motion_entering_and_leaving() {
        // s = 0.01 - tau + 20 tau^2 /2 ... roots of 10 tau^2 - tau + 0.01: tau = (1 -+ sqrt(0.6))/20.
        let motion = Motion {
            s: 0.01,
            v: -1.0,
            a: 20.0,
        };
        let (roots, count) = contact_crossings(motion, 0.0, 1.0);
        assert_eq!(count, 2);
        assert!((roots[0] - (1.0 - 0.6f64.sqrt()) / 20.0).abs() < 1e-15);
        assert!((roots[1] - (1.0 + 0.6f64.sqrt()) / 20.0).abs() < 1e-15);
    }

    #[test]
    fn step_integral_matches_fine_trapezoid_across_touch_down_bound_and_lift_off() {
        for (law, motion, h) in [
            (
                LAW,
                Motion {
                    s: 0.002,
                    v: -1.0,
                    a: 50.0,
                },
                0.04,
            ),
            (
                GapLaw { d: 500.0, ..LAW },
                Motion {
                    s: 0.001,
                    v: -1.0,
                    a: 40.0,
                },
                0.05,
            ),
            (
                GapLaw {
                    n: 1.5,
                    f_ref: 300.0,
                    s_rel0: 0.2,
                    ..LAW
                },
                Motion {
                    s: 0.21,
                    v: -0.8,
                    a: 9.0,
                },
                0.2,
            ),
        ] {
            let exact = integrate_step(&law, motion, h, limits(1e-3));
            let (impulse, dissipated) = brute_force(&law, motion, h);
            assert!(exact.transition_count >= 1);
            assert!(
                (exact.impulse - impulse).abs() <= 1e-7 * impulse.abs().max(1e-9),
                "{exact:?} vs {impulse}"
            );
            assert!(
                (exact.dissipated - dissipated).abs() <= 1e-7 * dissipated.abs().max(1e-9),
                "{exact:?} vs {dissipated}"
            );
        }
    }

    #[test]
    fn a_short_linear_damper_window_between_both_bounds_is_not_skipped() {
        // Lower bound, then linear around v_rel = 0 for a few microseconds, then upper bound:
        // both switches fall between the start, middle and end of the one substep.
        let law = GapLaw {
            d: 30.0,
            s_ref: 0.01,
            ..LAW
        };
        let motion = Motion {
            s: 2e-4,
            v: -0.5,
            a: 600.0,
        };
        let h = 9e-4;
        let exact = integrate_step(&law, motion, h, limits(1.0));
        let (impulse, dissipated) = brute_force(&law, motion, h);
        assert!(
            (exact.impulse - impulse).abs() <= 1e-8 * impulse.abs(),
            "{} vs {impulse}",
            exact.impulse
        );
        assert!((exact.dissipated - dissipated).abs() <= 1e-8 * dissipated.abs());
    }

    #[test]
    fn linear_law_is_integrated_exactly_with_one_substep() {
        let motion = Motion {
            s: 0.003,
            v: -1.0,
            a: 30.0,
        };
        let coarse = integrate_step(&LAW, motion, 0.05, limits(1.0));
        let fine = integrate_step(&LAW, motion, 0.05, limits(1e-5));
        assert!((coarse.impulse - fine.impulse).abs() <= 1e-12 * fine.impulse.abs());
        assert!((coarse.dissipated - fine.dissipated).abs() <= 1e-12 * fine.dissipated.abs());
    }
}

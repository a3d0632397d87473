//! The ElastoGap force law of the Modelica Standard Library 4.1 and its integration over a
//! communication step. Pure Rust: no FFI, no allocation, nothing about FMI.

/// The parameters of the force law. `f_ref == 0` selects the Modelica default `c * s_ref`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GapLaw {
    pub c: f64,
    pub d: f64,
    pub s_rel0: f64,
    pub n: f64,
    pub s_ref: f64,
    pub f_ref: f64,
}

impl Default for GapLaw {
    fn default() -> Self {
        GapLaw {
            c: 1.0,
            d: 1.0,
            s_rel0: 0.0,
            n: 1.0,
            s_ref: 1.0,
            f_ref: 0.0,
        }
    }
}

/// The law's values at one relative position and velocity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Forces {
    pub contact: bool,
    /// Spring part, `<= 0`.
    pub f_c: f64,
    /// Damper part, `|f_d| <= |f_c|`.
    pub f_d: f64,
    /// Force at flange_b, `f_c + f_d <= 0`.
    pub f: f64,
    /// `f_d * v_rel >= 0`.
    pub loss_power: f64,
}

/// Partial derivatives of the law's outputs with respect to `s_rel` (`ds`) and `v_rel` (`dv`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Partials {
    pub f_c_ds: f64,
    pub f_d_ds: f64,
    pub f_d_dv: f64,
    pub loss_power_ds: f64,
    pub loss_power_dv: f64,
}

impl Partials {
    pub fn f_ds(&self) -> f64 {
        self.f_c_ds + self.f_d_ds
    }
    pub fn f_dv(&self) -> f64 {
        self.f_d_dv
    }
}

/// Which branch of `min(max(d*v_rel, f_c), -f_c)` is active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DamperBranch {
    Linear,
    BoundedAbove,
    BoundedBelow,
}

/// `compression^n` and its slope for any other exponent. Out of line: inlined, LLVM may fold the
/// `n == 1` fast path into this branch (`powf(x, 0.0) * x` is exactly `x`) and call `pow` for the
/// most common law.
#[cold]
#[inline(never)]
fn general_power(compression: f64, n: f64) -> (f64, f64) {
    let lower = compression.powf(n - 1.0);
    (lower * compression, n * lower)
}

impl GapLaw {
    /// The spring force at `|s_rel - s_rel0| = s_ref`.
    pub fn reference_force(&self) -> f64 {
        if self.f_ref == 0.0 {
            self.c * self.s_ref
        } else {
            self.f_ref
        }
    }

    /// `|ratio|^n` and its derivative with respect to `|ratio|`; the common exponents avoid `powf`.
    fn compression_power(&self, compression: f64) -> (f64, f64) {
        if self.n == 1.0 {
            (compression, 1.0)
        } else if self.n == 2.0 {
            (compression * compression, 2.0 * compression)
        } else {
            general_power(compression, self.n)
        }
    }

    fn damper(&self, f_c: f64, v_rel: f64) -> (f64, DamperBranch) {
        let linear = self.d * v_rel;
        if linear > -f_c {
            (-f_c, DamperBranch::BoundedAbove)
        } else if linear < f_c {
            (f_c, DamperBranch::BoundedBelow)
        } else {
            (linear, DamperBranch::Linear)
        }
    }

    fn in_contact(&self, s_rel: f64) -> bool {
        !(s_rel >= self.s_rel0 || s_rel.is_nan())
    }

    /// The spring part `f_c` in contact.
    fn spring_force(&self, s_rel: f64) -> f64 {
        let compression = (self.s_rel0 - s_rel) / self.s_ref;
        -self.reference_force() * self.compression_power(compression).0
    }

    pub fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        if !self.in_contact(s_rel) {
            return Forces::default();
        }
        let f_c = self.spring_force(s_rel);
        let (f_d, _) = self.damper(f_c, v_rel);
        Forces {
            contact: true,
            f_c,
            f_d,
            f: f_c + f_d,
            loss_power: f_d * v_rel,
        }
    }

    pub fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        if !self.in_contact(s_rel) {
            return Partials::default();
        }
        let compression = (self.s_rel0 - s_rel) / self.s_ref;
        let (power, power_slope) = self.compression_power(compression);
        let f_c = -self.reference_force() * power;
        // d(compression)/d(s_rel) = -1/s_ref, so the spring force rises towards 0 as s_rel grows.
        let f_c_ds = self.reference_force() * power_slope / self.s_ref;
        let (f_d, branch) = self.damper(f_c, v_rel);
        let (f_d_ds, f_d_dv) = match branch {
            DamperBranch::Linear => (0.0, self.d),
            DamperBranch::BoundedAbove => (-f_c_ds, 0.0),
            DamperBranch::BoundedBelow => (f_c_ds, 0.0),
        };
        Partials {
            f_c_ds,
            f_d_ds,
            f_d_dv,
            loss_power_ds: v_rel * f_d_ds,
            loss_power_dv: f_d + v_rel * f_d_dv,
        }
    }

    /// Positive where the damper bound acts (`|d*v_rel| > |f_c|`), negative where the damper is
    /// linear; its roots are where the law switches branch.
    pub fn bound_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        // Only the spring part is needed: no damper, no loss power.
        let f_c = if self.in_contact(s_rel) {
            self.spring_force(s_rel)
        } else {
            0.0
        };
        self.bound_indicator_with(f_c, v_rel)
    }

    /// The bound indicator from a spring force already evaluated at the same point.
    fn bound_indicator_with(&self, f_c: f64, v_rel: f64) -> f64 {
        (self.d * v_rel).abs() + f_c
    }
}

/// Relative motion over a step: `s(tau) = s + v*tau + a*tau^2/2`, `v(tau) = v + a*tau`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    pub s: f64,
    pub v: f64,
    pub a: f64,
}

impl Motion {
    pub fn at(&self, tau: f64) -> Motion {
        Motion {
            s: self.s + tau * (self.v + 0.5 * self.a * tau),
            v: self.v + self.a * tau,
            a: self.a,
        }
    }
}

/// How finely a step is cut while in contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubstepLimits {
    pub max_size: f64,
    pub max_count: u32,
}

impl SubstepLimits {
    /// The nominal substep length for a step of length `h`.
    fn nominal(&self, h: f64) -> f64 {
        let wanted = (h / self.max_size).ceil();
        let count = if wanted.is_finite() {
            wanted.clamp(1.0, f64::from(self.max_count.max(1)))
        } else {
            f64::from(self.max_count.max(1))
        };
        h / count
    }
}

/// A contact start or end located inside a step, `tau` after the step's start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transition {
    pub tau: f64,
    pub entering: bool,
}

/// What one communication step produced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepIntegral {
    /// Integral of f over the step (N.s).
    pub impulse: f64,
    /// Integral of lossPower over the step (J), `>= 0`.
    pub dissipated: f64,
    /// Contact transitions in time order; a quadratic motion crosses `s_rel0` at most twice.
    pub transitions: [Transition; 2],
    pub transition_count: usize,
    /// Quadrature pieces evaluated (0 when the step had no contact).
    pub substeps: u32,
}

impl StepIntegral {
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions[..self.transition_count]
    }
}

/// Roots of `a/2*tau^2 + v*tau + (s - s_rel0)` strictly inside `(0, h)`, ascending, where the sign
/// changes (a touching double root is no transition).
fn contact_crossings(motion: Motion, s_rel0: f64, h: f64) -> ([f64; 2], usize) {
    let offset = motion.s - s_rel0;
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
fn quadrature(law: &GapLaw, motion: Motion, t0: f64, t1: f64) -> PieceIntegral {
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
            middle_indicator = law.bound_indicator_with(forces.f_c, point.v);
        }
    }
    PieceIntegral {
        impulse: impulse * length,
        dissipated: dissipated * length,
        middle,
        middle_indicator,
    }
}

/// The root of `g` in `[t0, t1]`, given `g(t0)` and `g(t1)` of opposite signs (Illinois method:
/// bracketing, so it always converges, and superlinear).
fn bracketed_root(
    g: impl Fn(f64) -> f64,
    mut t0: f64,
    mut g0: f64,
    mut t1: f64,
    mut g1: f64,
) -> f64 {
    let tolerance = 4.0 * f64::EPSILON * t1.abs().max(t0.abs()).max(f64::MIN_POSITIVE);
    let mut last_side = 0i8;
    for _ in 0..100 {
        if (t1 - t0).abs() <= tolerance {
            break;
        }
        let mut t = (t0 * g1 - t1 * g0) / (g1 - g0);
        if !(t > t0.min(t1) && t < t0.max(t1)) {
            t = 0.5 * (t0 + t1);
        }
        let gt = g(t);
        if gt == 0.0 {
            return t;
        }
        if (gt > 0.0) == (g0 > 0.0) {
            t0 = t;
            g0 = gt;
            if last_side == -1 {
                g1 *= 0.5;
            }
            last_side = -1;
        } else {
            t1 = t;
            g1 = gt;
            if last_side == 1 {
                g0 *= 0.5;
            }
            last_side = 1;
        }
    }
    0.5 * (t0 + t1)
}

/// Whether the bound indicator changes sign between two samples.
fn switches(ga: f64, gb: f64) -> bool {
    (ga > 0.0) != (gb > 0.0) && ga != 0.0 && gb != 0.0
}

/// The bound indicator along the motion.
fn indicator_at(law: &GapLaw, motion: Motion, tau: f64) -> f64 {
    let p = motion.at(tau);
    law.bound_indicator(p.s, p.v)
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
fn integrate_contact_piece(
    law: &GapLaw,
    motion: Motion,
    still: f64,
    t0: f64,
    g0: f64,
    t1: f64,
) -> (f64, f64, f64) {
    let whole = quadrature(law, motion, t0, t1);
    let g1 = indicator_at(law, motion, t1);
    let mid = whole.middle;
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

/// Integrates the law over `[0, h]` along `motion`: contact start and end are located exactly,
/// the contact phases are cut into substeps no longer than the limits allow, each split again
/// where the damper bound switches.
pub fn integrate_step(law: &GapLaw, motion: Motion, h: f64, limits: SubstepLimits) -> StepIntegral {
    let mut result = StepIntegral::default();
    let (crossings, crossing_count) = contact_crossings(motion, law.s_rel0, h);
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
        let in_contact = middle.s < law.s_rel0;
        if t0 > 0.0 {
            result.transitions[result.transition_count] = Transition {
                tau: t0,
                entering: in_contact,
            };
            result.transition_count += 1;
        }
        if !in_contact {
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

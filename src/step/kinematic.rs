//! The kinematic step: the law integrated along the relative motion extrapolated from the inputs,
//! `s(tau) = s + v*tau + a*tau^2/2`. Contact start and end are located exactly, and every kink of
//! the law (a damper bound switching on or off) is located before integrating. A piecewise-affine
//! law (the MSL law with n = 1) is integrated in closed form between kinks, any other by an
//! adaptive Gauss rule.

use super::roots::{bracketed_root, range_crossings, switches};
use super::{Motion, StepIntegral, SubstepLimits};
use crate::laws::ContactLaw;

/// Three-point Gauss–Legendre rule on [0, 1], for the laws that are not piecewise affine.
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
// Always inlined: left out of line (it has three callers), its result would go through memory,
// which each substep would then wait on.
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

/// Integrates a piece in contact of a law that is not piecewise affine, splitting it where the
/// law has a kink (for the MSL law, where the damper bound switches on or off), which a
/// quadrature rule across it would smear.
///
/// The kinks are roots of the kink indicator (`d*|v_rel| + f_c`), sought between samples of its
/// sign: the piece's ends, its middle and the instant `still` where `v_rel` passes 0. The damper
/// is linear around that instant, so a short linear window between the two bounds, which could
/// fall between the other samples, is always bracketed.
///
/// The indicator at both ends is known (the bisection has evaluated it for the piece this one
/// halves); the middle sample comes with the quadrature, so a piece without a kink costs its
/// three Gauss points.
#[inline(always)]
fn integrate_contact_piece_to<L: ContactLaw>(
    law: &L,
    motion: Motion,
    still: f64,
    (t0, g0): (f64, f64),
    (t1, g1): (f64, f64),
) -> (f64, f64, f64) {
    let whole = quadrature(law, motion, t0, t1);
    let mid = whole.middle;
    let (kinks, count) = kinks_between(
        law,
        motion,
        still,
        (t0, g0),
        (mid, whole.middle_indicator),
        (t1, g1),
    );
    if count == 0 {
        return (whole.impulse, whole.dissipated, g1);
    }
    let mut impulse = 0.0;
    let mut dissipated = 0.0;
    let mut start = t0;
    for &switch in &kinks[..count] {
        let part = quadrature(law, motion, start, switch);
        impulse += part.impulse;
        dissipated += part.dissipated;
        start = switch;
    }
    let last = quadrature(law, motion, start, t1);
    (impulse + last.impulse, dissipated + last.dissipated, g1)
}

/// The kinks in `(t0, t1)`, ascending: the roots of the indicator between sign changes of its
/// samples at the piece's ends, its middle and `still` (see [`integrate_contact_piece_to`]).
fn kinks_between<L: ContactLaw>(
    law: &L,
    motion: Motion,
    still: f64,
    (t0, g0): (f64, f64),
    (mid, g_mid): (f64, f64),
    (t1, g1): (f64, f64),
) -> ([f64; 3], usize) {
    let mut kinks = [0.0; 3];
    let still_inside = still > t0 && still < t1 && still != mid;
    if !still_inside && !switches(g0, g_mid) && !switches(g_mid, g1) {
        return (kinks, 0);
    }
    let mut samples = [(t0, g0), (mid, g_mid), (t1, g1), (t1, g1)];
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
    let indicator = |tau: f64| indicator_at(law, motion, tau);
    let mut found = 0;
    for window in samples[..count].windows(2) {
        let ((ta, ga), (tb, gb)) = (window[0], window[1]);
        if switches(ga, gb) {
            kinks[found] = bracketed_root(indicator, ta, ga, tb, gb);
            found += 1;
        }
    }
    (kinks, found)
}

/// The integrals of (f, lossPower) over a piece of length `length` about `middle`, on which a
/// piecewise-affine law stays on one branch, in closed form.
///
/// With the branch `f = K*x + D*v + O`, `f_c = K_c*x + O_c` (`x = s_rel - s_rel0`) and the motion
/// about the piece's middle `middle` (`x_m`, `v_m`, `a`; length `L`), the integrals of the motion
/// are `x: L*(x_m + a*L^2/24)`, `v: L*v_m`, `x*v: L*v_m*(x_m + a*L^2/8)` (half the change of
/// `x^2`) and `v^2: L*(v_m^2 + (a*L)^2/12)`, which cannot come out negative.
// Always inlined, as `integrate_affine_piece`.
#[inline(always)]
fn affine_integral<L: ContactLaw>(law: &L, middle: Motion, length: f64) -> (f64, f64) {
    let Some(branch) = law.affine_region(middle.s, middle.v) else {
        // Only a law that says it is piecewise affine gets here.
        return (f64::NAN, f64::NAN);
    };
    let x = middle.s - law.s_rel0();
    let a_l = middle.a * length;
    let a_l2 = a_l * length;
    // Multiplied by the reciprocals: a division by 24 or 12 is not exact, so the compiler keeps it.
    // The products are ordered as the physical quantities grow (displacement, then times a
    // velocity), so that no intermediate overflows where the integral itself does not.
    let integral_x = length * (x + a_l2 * (1.0 / 24.0));
    let integral_v = length * middle.v;
    let integral_xv = integral_v * (x + a_l2 * 0.125);
    let integral_v2 = integral_v * middle.v + length * a_l * a_l * (1.0 / 12.0);
    let impulse = term(branch.stiffness, integral_x)
        + term(branch.damping, integral_v)
        + term(branch.offset, length);
    let dissipated = term(branch.stiffness - branch.spring_stiffness, integral_xv)
        + term(branch.damping, integral_v2)
        + term(branch.offset - branch.spring_offset, integral_v);
    (impulse, dissipated)
}

/// `coefficient * integral`, and zero where the branch has no such term: a term the force lacks
/// must not turn an integral that overflows into NaN (a bounded damper has no `v^2` term).
fn term(coefficient: f64, integral: f64) -> f64 {
    if coefficient == 0.0 {
        0.0
    } else {
        coefficient * integral
    }
}

/// A piece of a piecewise-affine law in contact that does not contain the instant where `v_rel`
/// passes 0: there the kink indicator is a quadratic in time, so the one through its samples at
/// the piece's ends and middle is the indicator itself, and its roots are the kinks, even two
/// close ones that fall between the samples. Each stretch between kinks is integrated in closed
/// form. `g0` is the indicator at `t0`; the one at `t1` is returned for the next piece.
// Always inlined: out of line, each call would make the caller spill its live floating-point
// values (x86-64 saves no XMM register across a call).
#[inline(always)]
fn integrate_affine_piece<L: ContactLaw>(
    law: &L,
    motion: Motion,
    (t0, g0): (f64, f64),
    t1: f64,
) -> (f64, f64, f64) {
    let g1 = indicator_at(law, motion, t1);
    let length = t1 - t0;
    let middle = motion.at(t0 + 0.5 * length);
    let g_mid = law.kink_indicator(middle.s, middle.v);
    let (roots, count) = if may_change_sign(g0, g_mid, g1) {
        interpolated_quadratic_roots(g0, g_mid, g1)
    } else {
        ([0.0; 2], 0)
    };
    if count == 0 {
        let (impulse, dissipated) = affine_integral(law, middle, length);
        return (impulse, dissipated, g1);
    }
    let mut impulse = 0.0;
    let mut dissipated = 0.0;
    let mut start = t0;
    for end in roots[..count].iter().map(|u| t0 + u * length).chain([t1]) {
        let part = affine_integral(law, motion.at(0.5 * (start + end)), end - start);
        impulse += part.0;
        dissipated += part.1;
        start = end;
    }
    (impulse, dissipated, g1)
}

/// Whether the quadratic through `(0, g0)`, `(1/2, g_mid)` and `(1, g1)` may change sign in
/// (0, 1). Where the samples share a sign, a root needs the vertex `-b/(2a)` inside and beyond
/// zero: most pieces have no kink, and this tells without a division.
#[inline(always)]
fn may_change_sign(g0: f64, g_mid: f64, g1: f64) -> bool {
    if !(g0 * g_mid > 0.0 && g_mid * g1 > 0.0) {
        return true;
    }
    // p(u) = g0 + b*u + a*u^2
    let a = 2.0 * g0 - 4.0 * g_mid + 2.0 * g1;
    let b = -3.0 * g0 + 4.0 * g_mid - g1;
    let vertex_inside = if a > 0.0 {
        b < 0.0 && b > -2.0 * a
    } else {
        b > 0.0 && b < -2.0 * a
    };
    vertex_inside && b * b > 4.0 * a * g0
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

/// Deepest bisection of a piece: far below any length that matters, and a fixed-size stack.
const MAX_BISECTIONS: usize = 60;

/// A piece waiting on the bisection stack: it ends at `end` (its start is where the integration
/// has got to), with the indicator there and the rule's integrals over the whole piece.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    end: f64,
    g_end: f64,
    impulse: f64,
    dissipated: f64,
}

/// The adaptive integration of one contact phase of a law that is not piecewise affine (see
/// [`ContactLaw::is_piecewise_affine`]).
///
/// A smooth stretch is bisected until the rule on its two halves agrees with the rule on the
/// whole. The error a piece may have is its share by length of `tolerance` times the phase's
/// integral: a bound relative to the piece alone would never be met at the touch-down, where
/// `f ~ (t - t0)^n` makes the rule's relative error the same on every piece that starts there.
/// The phase's integral is taken from the rule on the whole phase, or from what has been
/// integrated when that is larger.
struct Phase<'a, L> {
    law: &'a L,
    motion: Motion,
    still: f64,
    span: f64,
    tolerance: f64,
    /// Estimates of |impulse| and |dissipated| over the phase.
    scale: (f64, f64),
    /// Sums of |impulse| and |dissipated| of the accepted pieces.
    integrated: (f64, f64),
    /// Bisections left before the phase has `max_count` pieces.
    splits_left: u32,
}

impl<L: ContactLaw> Phase<'_, L> {
    fn piece(&self, start: (f64, f64), end: (f64, f64)) -> (f64, f64, f64) {
        integrate_contact_piece_to(self.law, self.motion, self.still, start, end)
    }

    fn accurate(&self, length: f64, fine: (f64, f64), coarse: (f64, f64)) -> bool {
        let share = self.tolerance * length / self.span;
        // Below rounding, halving cannot bring the two rules closer.
        let rounding = 16.0 * f64::EPSILON;
        let within = |fine: f64, coarse: f64, scale: f64| {
            (fine - coarse).abs() <= share * scale + rounding * (fine.abs() + coarse.abs())
        };
        within(fine.0, coarse.0, self.scale.0.max(self.integrated.0))
            && within(fine.1, coarse.1, self.scale.1.max(self.integrated.1))
    }

    /// Integrates the smooth stretch `[a, b]` whose integrals by the rule are `coarse`, into
    /// `result`. The pieces are finished in time order, so each starts where the last one ended,
    /// with the indicator evaluated there.
    fn bisect(
        &mut self,
        (mut a, mut g_a): (f64, f64),
        (b, g_b): (f64, f64),
        coarse: (f64, f64),
        result: &mut StepIntegral,
    ) {
        let mut stack = [Pending::default(); MAX_BISECTIONS + 2];
        stack[0] = Pending {
            end: b,
            g_end: g_b,
            impulse: coarse.0,
            dissipated: coarse.1,
        };
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let piece = stack[depth];
            let middle = 0.5 * (a + piece.end);
            let g_middle = indicator_at(self.law, self.motion, middle);
            let left = self.piece((a, g_a), (middle, g_middle));
            let right = self.piece((middle, g_middle), (piece.end, piece.g_end));
            let fine = (left.0 + right.0, left.1 + right.1);
            let divisible = middle > a && middle < piece.end;
            if self.splits_left == 0
                || depth >= MAX_BISECTIONS
                || !divisible
                || self.accurate(piece.end - a, fine, (piece.impulse, piece.dissipated))
            {
                result.impulse += fine.0;
                result.dissipated += fine.1;
                self.integrated.0 += left.0.abs() + right.0.abs();
                self.integrated.1 += left.1.abs() + right.1.abs();
                (a, g_a) = (piece.end, piece.g_end);
            } else {
                self.splits_left -= 1;
                result.substeps += 1;
                stack[depth] = Pending {
                    impulse: right.0,
                    dissipated: right.1,
                    ..piece
                };
                stack[depth + 1] = Pending {
                    end: middle,
                    g_end: g_middle,
                    impulse: left.0,
                    dissipated: left.1,
                };
                depth += 2;
            }
        }
    }
}

/// Integrates a contact phase `[t0, t1]` of a law that is not piecewise affine, into
/// `result`, to the relative accuracy `limits.tolerance`.
///
/// The phase is cut into as many equal pieces as the fixed substeps of `limits` (no longer than
/// `max_size`), and each piece's kinks are located as for a fixed substep. Each smooth stretch
/// between them is then bisected on its own: the rule on the halves and on the whole then have
/// the same kinks at the same places, and their difference measures the error. Had the halves
/// been split at a kink that the whole is split at too, the stretch next to a singular end (the
/// touch-down) would be the same in both and its error would go unseen. Pieces only get shorter
/// than `max_size` where the error asks for it, so none needs to grow again; bisection stops
/// where the phase would get more than `max_count` pieces.
// Out of line: inlined into `integrate_step`, its loop-invariant work (the substep length) would
// be hoisted in front of the closed-form path too, which would then pay for it on every step.
#[inline(never)]
fn integrate_phase<L: ContactLaw>(
    law: &L,
    motion: Motion,
    still: f64,
    (t0, t1): (f64, f64),
    h: f64,
    limits: SubstepLimits,
    result: &mut StepIntegral,
) {
    let span = t1 - t0;
    let max_count = limits.max_count.max(1);
    let top = (span / limits.nominal(h))
        .ceil()
        .clamp(1.0, f64::from(max_count));
    let top_count = top as u32;
    let top_length = span / top;
    let g_t0 = indicator_at(law, motion, t0);
    let g_t1 = indicator_at(law, motion, t1);
    let whole = integrate_contact_piece_to(law, motion, still, (t0, g_t0), (t1, g_t1));
    let mut phase = Phase {
        law,
        motion,
        still,
        span,
        // NaN or negative: accept only what rounding cannot tell apart.
        tolerance: if limits.tolerance > 0.0 {
            limits.tolerance
        } else {
            0.0
        },
        scale: (whole.0.abs(), whole.1.abs()),
        integrated: (0.0, 0.0),
        splits_left: max_count - top_count,
    };
    // A piece split at a kink counts once, as a fixed substep does; each bisection adds one.
    result.substeps += top_count;
    let (mut a, mut g_a) = (t0, g_t0);
    for k in 1..=top_count {
        let (b, g_b) = if k == top_count {
            (t1, g_t1)
        } else {
            let b = t0 + f64::from(k) * top_length;
            (b, indicator_at(law, motion, b))
        };
        let rule = quadrature(law, motion, a, b);
        let (kinks, count) = kinks_between(
            law,
            motion,
            still,
            (a, g_a),
            (rule.middle, rule.middle_indicator),
            (b, g_b),
        );
        if count == 0 {
            phase.bisect((a, g_a), (b, g_b), (rule.impulse, rule.dissipated), result);
        } else {
            let mut start = (a, g_a);
            // Up to three kinks (a switch on each side of the turn and one at it), so up to
            // four stretches.
            let kink_ends = kinks[..count]
                .iter()
                .map(|&kink| (kink, indicator_at(law, motion, kink)));
            for end in kink_ends.chain(std::iter::once((b, g_b))) {
                let stretch = quadrature(law, motion, start.0, end.0);
                phase.bisect(start, end, (stretch.impulse, stretch.dissipated), result);
                start = end;
            }
        }
        (a, g_a) = (b, g_b);
    }
}

/// Integrates the law over `[0, h]` along `motion`: contact start and end are located exactly.
/// A piecewise-affine law is integrated in closed form between its kinks; any other is cut
/// into pieces, bisected until the relative accuracy `limits.tolerance` is met and no longer than
/// the limits allow. Each piece is split again where the law has a kink.
pub fn integrate_step<L: ContactLaw>(
    law: &L,
    motion: Motion,
    h: f64,
    limits: SubstepLimits,
) -> StepIntegral {
    let mut result = StepIntegral::default();
    integrate_step_into(law, motion, h, limits, &mut result);
    result
}

/// [`integrate_step`] into a result the caller holds: the step report then takes the integral
/// without two copies of it through the stack.
#[inline(always)]
pub fn integrate_step_into<L: ContactLaw>(
    law: &L,
    motion: Motion,
    h: f64,
    limits: SubstepLimits,
    result: &mut StepIntegral,
) {
    result.clear();
    let ends = law.contact_ends();
    let inside = |s: f64| crate::laws::distance_outside(ends, s) < 0.0;
    let (crossings, crossing_count) = range_crossings(motion, ends, h);
    let still = if motion.a != 0.0 {
        -motion.v / motion.a
    } else {
        f64::NAN
    };
    // Most steps stay on one side of a contact end: they take no loop over phases, since a loop
    // makes the compiler prepare the motion for paired evaluations before it, on every step.
    if crossing_count == 0 {
        if inside(motion.at(0.5 * h).s) {
            let touched = touch_down_at_start(law, motion, inside(motion.s), result);
            let law = touched.as_ref().unwrap_or(law);
            integrate_contact_phase(law, motion, still, (0.0, h), h, limits, result);
        }
        return;
    }
    let mut t0 = 0.0;
    for &t1 in crossings[..crossing_count].iter().chain([&h]) {
        if t1 > t0 {
            let in_contact = inside(motion.at(0.5 * (t0 + t1)).s);
            let touched = if t0 > 0.0 {
                let v0 = motion.at(t0).v;
                result.record(t0, in_contact, v0);
                if in_contact {
                    law.touched_down(v0)
                } else {
                    None
                }
            } else if in_contact {
                touch_down_at_start(law, motion, inside(motion.s), result)
            } else {
                None
            };
            if in_contact {
                let law = touched.as_ref().unwrap_or(law);
                integrate_contact_phase(law, motion, still, (t0, t1), h, limits, result);
            }
        }
        t0 = t1;
    }
}

/// A step whose first phase is in contact: if it starts on a contact end (not yet inside), the
/// contact touches down at its start; the law as that contact sees it.
#[inline(always)]
fn touch_down_at_start<L: ContactLaw>(
    law: &L,
    motion: Motion,
    started_inside: bool,
    result: &mut StepIntegral,
) -> Option<L> {
    if started_inside {
        return None;
    }
    result.touchdown_v_rel = Some(motion.v);
    law.touched_down(motion.v)
}

/// A contact phase `[t0, t1]`: exactly for a piecewise-affine law, else to the tolerance.
#[inline(always)]
fn integrate_contact_phase<L: ContactLaw>(
    law: &L,
    motion: Motion,
    still: f64,
    phase: (f64, f64),
    h: f64,
    limits: SubstepLimits,
    result: &mut StepIntegral,
) {
    if law.is_piecewise_affine() {
        integrate_affine_phase(law, motion, still, phase, result);
    } else {
        integrate_phase(law, motion, still, phase, h, limits, result);
    }
}

/// A contact phase `[t0, t1]` of a piecewise-affine law, exactly: one piece on each side of the
/// instant `still` where `v_rel` passes 0 (see [`integrate_affine_piece`]). Inlined for the
/// reason `integrate_affine_piece` is.
#[inline(always)]
fn integrate_affine_phase<L: ContactLaw>(
    law: &L,
    motion: Motion,
    still: f64,
    (t0, t1): (f64, f64),
    result: &mut StepIntegral,
) {
    let start = (t0, indicator_at(law, motion, t0));
    // Mostly v_rel keeps its sign: one piece, outside any loop (see `integrate_step_into`).
    if !(still > t0 && still < t1) {
        let (impulse, dissipated, _) = integrate_affine_piece(law, motion, start, t1);
        result.add_piece(impulse, dissipated);
        return;
    }
    let mut start = start;
    for end in [still, t1] {
        let (impulse, dissipated, g_end) = integrate_affine_piece(law, motion, start, end);
        result.add_piece(impulse, dissipated);
        start = (end, g_end);
    }
}

#[cfg(test)]
mod tests;

//! RecurDyn's Gap Force in the normal direction: a two-sided nonlinear spring and damper, active
//! only while `range_min < s_rel < range_max`. With `x = s_rel - s_rel0`,
//! `f = f_ref*sgnpow(x/s_ref, n) + d*sgnpow(v_rel, n_v) - preload` (`sgnpow(y, p) =
//! sign(y)*|y|^p`; with the defaults `f_ref = c*s_ref` and `s_ref = 1` the spring part is RecurDyn's
//! `c*sgnpow(x, n)`), either part replaceable by a table of [`super::table`]. Outside the range the
//! force is 0, so it jumps at a range end where it is not 0 there, as in RecurDyn.

use super::{AffineRegion, ContactLaw, Forces, GapLaw, Partials, Table};

/// The Gap Force with its parameters; the tables, when given, are borrowed from where the instance
/// keeps them, so that the law stays a small `Copy` value made afresh for every step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GapForce<'t> {
    /// `c`, `s_rel0`, `n`, `s_ref`, `f_ref` as for every law (`d` is the damper's coefficient).
    pub spring: GapLaw,
    pub n_v: f64,
    pub preload: f64,
    pub range_min: f64,
    pub range_max: f64,
    /// Replaces the spring part `f_ref*sgnpow(x/s_ref, n)`: force against `x = s_rel - s_rel0`.
    pub stiffness: Option<&'t Table>,
    /// Replaces the damper part `d*sgnpow(v_rel, n_v)`: force against `v_rel`.
    pub damping: Option<&'t Table>,
}

/// `sign(y)*|y|^p` and its derivative `p*|y|^(p-1)`.
fn signed_power(y: f64, p: f64) -> (f64, f64) {
    if p == 1.0 {
        return (y, 1.0);
    }
    let magnitude = y.abs();
    (magnitude.powf(p).copysign(y), p * magnitude.powf(p - 1.0))
}

impl GapForce<'_> {
    pub(crate) fn in_contact(&self, s_rel: f64) -> bool {
        self.range_min < s_rel && s_rel < self.range_max
    }

    /// The spring part without the preload, and its slope in `s_rel`.
    fn spring_part(&self, s_rel: f64) -> (f64, f64) {
        let x = s_rel - self.spring.s_rel0;
        match self.stiffness {
            Some(table) => table.evaluate(x),
            None => {
                let s_ref = self.spring.s_ref;
                let (power, slope) = signed_power(x / s_ref, self.spring.n);
                let reference = self.spring.reference_force();
                (reference * power, reference * slope / s_ref)
            }
        }
    }

    /// The damper part and its slope in `v_rel`.
    fn damper_part(&self, v_rel: f64) -> (f64, f64) {
        match self.damping {
            Some(table) => table.evaluate(v_rel),
            None => {
                let (power, slope) = signed_power(v_rel, self.n_v);
                (self.spring.d * power, self.spring.d * slope)
            }
        }
    }

    fn is_affine(&self) -> bool {
        self.stiffness.is_none()
            && self.damping.is_none()
            && self.spring.n == 1.0
            && self.n_v == 1.0
    }
}

impl ContactLaw for GapForce<'_> {
    fn s_rel0(&self) -> f64 {
        self.spring.s_rel0
    }

    fn contact_ends(&self) -> (Option<f64>, f64) {
        (Some(self.range_min), self.range_max)
    }

    fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        if !self.in_contact(s_rel) {
            return Forces::default();
        }
        let f_c = self.spring_part(s_rel).0 - self.preload;
        Forces::in_contact(f_c, self.damper_part(v_rel).0, v_rel)
    }

    fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        if !self.in_contact(s_rel) {
            return Partials::default();
        }
        let (_, f_c_ds) = self.spring_part(s_rel);
        let (f_d, f_d_dv) = self.damper_part(v_rel);
        Partials::of_parts(f_c_ds, f_d, 0.0, f_d_dv, v_rel)
    }

    /// The law is C¹ inside its range (a table's cubic is, and `sgnpow` is for exponents of at
    /// least 1): no kink to locate, so the indicator never changes sign.
    fn kink_indicator(&self, _s_rel: f64, _v_rel: f64) -> f64 {
        -1.0
    }

    fn kink_indicator_rate(&self, _s_rel: f64, _v_rel: f64, _a_rel: f64) -> f64 {
        0.0
    }

    fn affine_region(&self, s_rel: f64, _v_rel: f64) -> Option<AffineRegion> {
        if !self.is_affine() {
            return None;
        }
        if !self.in_contact(s_rel) {
            return Some(AffineRegion::default());
        }
        let k = self.spring.linear_stiffness();
        Some(AffineRegion {
            stiffness: k,
            damping: self.spring.d,
            offset: -self.preload,
            spring_stiffness: k,
            spring_offset: -self.preload,
        })
    }

    fn is_piecewise_affine(&self) -> bool {
        self.is_affine()
    }

    fn length_scale(&self) -> f64 {
        self.spring.s_ref.min(self.range_max - self.range_min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::checks;

    fn law(n: f64, n_v: f64) -> GapForce<'static> {
        GapForce {
            spring: GapLaw {
                c: 2.0e4,
                d: 30.0,
                s_rel0: 0.01,
                n,
                ..GapLaw::default()
            },
            n_v,
            preload: 5.0,
            range_min: -0.05,
            range_max: 0.04,
            stiffness: None,
            damping: None,
        }
    }

    #[test]
    fn is_recurdyns_two_sided_spring_and_damper_inside_its_range_and_zero_outside() {
        let law = law(1.5, 1.3);
        // By hand: x = s - 0.01; f = 2e4*sgn(x)|x|^1.5 + 30*sgn(v)|v|^1.3 - 5.
        for (s, v) in [(0.0, 0.3), (0.03, -0.2), (-0.04, 1.0), (0.01, 0.0)] {
            let x: f64 = s - 0.01;
            let spring = 2.0e4 * x.signum() * x.abs().powf(1.5);
            let damper = if v == 0.0 {
                0.0
            } else {
                30.0 * f64::signum(v) * f64::abs(v).powf(1.3)
            };
            let forces = law.evaluate(s, v);
            assert!(forces.contact);
            assert!(
                (forces.f - (spring + damper - 5.0)).abs() < 1e-12,
                "{s} {v}"
            );
            assert!((forces.f_c - (spring - 5.0)).abs() < 1e-12);
            assert!((forces.loss_power - damper * v).abs() < 1e-12);
        }
        for s in [-0.05, -0.06, 0.04, 0.1, f64::NAN] {
            assert_eq!(law.evaluate(s, 1.0), Forces::default(), "{s}");
        }
    }

    #[test]
    fn partials_match_differences() {
        for (n, n_v) in [(1.0, 1.0), (1.5, 1.3), (2.0, 2.5)] {
            for (s, v) in [(-0.03, 0.4), (0.02, -0.7)] {
                checks::partials_match_differences(&law(n, n_v), s, v, 1e-5);
            }
        }
    }

    #[test]
    fn the_linear_law_is_affine_with_the_preload_as_offset() {
        let law = law(1.0, 1.0);
        assert!(law.is_piecewise_affine());
        let region = law.affine_region(0.0, 0.5).unwrap();
        let (s, v) = (0.0, 0.5);
        let x = s - 0.01;
        let affine = region.stiffness * x + region.damping * v + region.offset;
        assert!((affine - law.evaluate(s, v).f).abs() < 1e-12);
        assert!(!self::law(1.5, 1.0).is_piecewise_affine());
    }

    #[test]
    fn tables_replace_the_spring_and_the_damper() {
        let stiffness = Table::new(&[(-0.1, -500.0), (0.0, 0.0), (0.1, 2000.0)]).unwrap();
        let damping = Table::new(&[(-1.0, -10.0), (0.0, 0.0), (1.0, 40.0)]).unwrap();
        let law = GapForce {
            stiffness: Some(&stiffness),
            damping: Some(&damping),
            ..law(1.0, 1.0)
        };
        assert!(!law.is_piecewise_affine());
        // At the points the tables give their values: x = 0.1 - ... is outside the range, so
        // take x = 0 (s = s_rel0) and v at the points.
        let forces = law.evaluate(0.01, 1.0);
        assert!((forces.f_c - (0.0 - 5.0)).abs() < 1e-12);
        assert!((forces.f_d - 40.0).abs() < 1e-12);
        for (s, v) in [(-0.02, 0.3), (0.03, -0.4)] {
            checks::partials_match_differences(&law, s, v, 1e-5);
        }
    }

    /// The law continued over all `s_rel`: what a phase inside the range integrates, so that a
    /// reference's stages never see the jump at an end.
    fn continued<'t>(law: &GapForce<'t>) -> GapForce<'t> {
        GapForce {
            range_min: -1e300,
            range_max: 1e300,
            ..*law
        }
    }

    #[test]
    fn the_kinematic_step_locates_both_ends_of_the_range() {
        use crate::step::{integrate_step, Motion, SubstepLimits};
        let law = law(1.5, 1.3);
        // In at 0.04 from above, out at -0.05 below, inside one step.
        let motion = Motion {
            s: 0.1,
            v: -3.0,
            a: 20.0,
        };
        let h = 0.1;
        let limits = SubstepLimits {
            max_size: 1e-3,
            max_count: 10_000,
            tolerance: 1e-10,
        };
        let step = integrate_step(&law, motion, h, limits);
        // Reference: the crossings from the quadratic formula, Simpson's rule between them.
        let crossing = |level: f64| {
            let (a, b, c) = (0.5 * motion.a, motion.v, motion.s - level);
            (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
        };
        let (t_in, t_out) = (crossing(0.04), crossing(-0.05));
        assert!(0.0 < t_in && t_in < t_out && t_out < h);
        let inside = continued(&law);
        let n = 200_000;
        let dt = (t_out - t_in) / f64::from(n);
        let (mut impulse, mut dissipated) = (0.0, 0.0);
        for k in 0..=n {
            let weight = if k == 0 || k == n {
                1.0
            } else if k % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let at = motion.at(t_in + f64::from(k) * dt);
            let forces = inside.evaluate(at.s, at.v);
            impulse += weight * forces.f;
            dissipated += weight * forces.loss_power;
        }
        impulse *= dt / 3.0;
        dissipated *= dt / 3.0;
        let relative = |a: f64, b: f64| (a - b).abs() / b.abs();
        assert!(
            relative(step.impulse, impulse) < 1e-8 && relative(step.dissipated, dissipated) < 1e-8,
            "step {step:?}, reference impulse {impulse}, dissipated {dissipated}"
        );
        let transitions: Vec<_> = step.transitions().collect();
        assert_eq!(transitions.len(), 2, "{transitions:?}");
    }

    /// Classical RK4 at `dt` of a body of 1 kg under the law, the range's ends located by
    /// bisection and the law switched there: the end state and the dissipated energy.
    fn rk4_through_the_range(law: &GapForce, s: f64, v: f64, h: f64, dt: f64) -> (f64, f64, f64) {
        let inside_law = continued(law);
        let in_range = |s: f64| law.in_contact(s);
        let rhs = |y: [f64; 3], inside: bool| {
            let forces = if inside {
                inside_law.evaluate(y[0], y[1])
            } else {
                Forces::default()
            };
            [y[1], -forces.f, forces.loss_power]
        };
        let step = |y: [f64; 3], dt: f64, inside: bool| -> [f64; 3] {
            let k1 = rhs(y, inside);
            let k2 = rhs(std::array::from_fn(|i| y[i] + 0.5 * dt * k1[i]), inside);
            let k3 = rhs(std::array::from_fn(|i| y[i] + 0.5 * dt * k2[i]), inside);
            let k4 = rhs(std::array::from_fn(|i| y[i] + dt * k3[i]), inside);
            std::array::from_fn(|i| y[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
        };
        let (mut y, mut t) = ([s, v, 0.0], 0.0);
        let mut inside = in_range(s);
        while t < h {
            let length = dt.min(h - t);
            let next = step(y, length, inside);
            if in_range(next[0]) == inside {
                (y, t) = (next, t + length);
                continue;
            }
            let (mut before, mut after) = (0.0, length);
            while after - before > 1e-15 {
                let middle = 0.5 * (before + after);
                if in_range(step(y, middle, inside)[0]) == inside {
                    before = middle;
                } else {
                    after = middle;
                }
            }
            (y, t) = (step(y, after, inside), t + after);
            inside = !inside;
        }
        (y[0], y[1], y[2])
    }

    #[test]
    fn the_dynamic_step_crosses_the_range_as_a_fine_integration_with_located_ends_does() {
        use crate::step::dynamic::Dynamics;
        use crate::step::{integrate_dynamics, Motion};
        let dynamics = Dynamics {
            mass: 1.0,
            a_ext: 0.0,
            tolerance: 1e-10,
        };
        // Through the whole range and out below it (2 transitions); caught by the two-sided spring
        // (1); the affine law (closed form) through the range.
        let light = |law: GapForce<'static>| GapForce {
            spring: GapLaw {
                d: 2.0,
                ..law.spring
            },
            ..law
        };
        for (law, v, transitions) in [
            (light(law(1.5, 1.3)), -6.0, 2),
            (law(1.5, 1.3), -1.0, 1),
            (light(law(1.0, 1.0)), -6.0, 2),
        ] {
            let start = Motion { s: 0.06, v, a: 0.0 };
            let h = 0.2;
            let step = integrate_dynamics(&law, start, dynamics, h);
            let (s, v_end, dissipated) = rk4_through_the_range(&law, start.s, start.v, h, 1e-6);
            let close = |a: f64, b: f64, scale: f64| (a - b).abs() <= 1e-6 * scale;
            assert!(
                close(step.end.s, s, 1.0)
                    && close(step.end.v, v_end, 1.0)
                    && close(step.integral.dissipated, dissipated, dissipated.max(1e-3)),
                "dynamic step {step:?}; RK4 s = {s}, v = {v_end}, dissipated = {dissipated}"
            );
            assert_eq!(step.integral.transition_count, transitions, "{step:?}");
        }
    }
}

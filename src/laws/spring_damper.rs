//! The two laws the MSL documentation compares ElastoGap with: the unmodified spring and damper
//! (`SpringDamper`, curve 1 of its figure: it pulls before the lift-off) and the same with the
//! pulling force set to zero (`NoPulling`, curve 2: the force jumps at the touch-down).
//!
//! With the penetration `delta = s_rel0 - s_rel` and `F_c = f_ref*(delta/s_ref)^n`, the normal
//! force is `F_n = F_c + d*der(delta)`, or `max(0, F_c + d*der(delta))`; `f = -F_n`.

use super::{damper_part_law, AffineRegion, ContactLaw, DamperPart, GapLaw};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringDamper {
    /// c, d, s_rel0, n, s_ref, f_ref.
    pub spring: GapLaw,
    /// NoPulling: the force is clamped at zero where it would pull.
    pub no_pulling: bool,
}

impl SpringDamper {
    /// The unclamped force `f_c + d*v_rel` would pull (`> 0`): NoPulling clamps it there.
    fn clamped(&self, f_c: f64, v_rel: f64) -> bool {
        self.no_pulling && self.spring.d * v_rel + f_c > 0.0
    }
}

impl DamperPart for SpringDamper {
    fn spring(&self) -> &GapLaw {
        &self.spring
    }

    fn damper(&self, f_c: f64, _s_rel: f64, v_rel: f64) -> f64 {
        if self.clamped(f_c, v_rel) {
            -f_c
        } else {
            self.spring.d * v_rel
        }
    }

    fn damper_slopes(&self, f_c: f64, f_c_ds: f64, _s_rel: f64, v_rel: f64) -> (f64, f64, f64) {
        if self.clamped(f_c, v_rel) {
            (-f_c, -f_c_ds, 0.0)
        } else {
            (self.spring.d * v_rel, 0.0, self.spring.d)
        }
    }
}

impl ContactLaw for SpringDamper {
    damper_part_law!();

    /// NoPulling: `d*v_rel + f_c`, positive exactly where the clamp acts. SpringDamper has no
    /// kink in contact: a constant.
    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        if !self.no_pulling {
            return -1.0;
        }
        let (f_c, _) = self.spring.spring_force_and_slope(s_rel);
        self.spring.d * v_rel + f_c
    }

    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64 {
        if !self.no_pulling {
            return 0.0;
        }
        let (_, f_c_ds) = self.spring.spring_force_and_slope(s_rel);
        self.spring.d * a_rel + f_c_ds * v_rel
    }

    fn affine_region(&self, s_rel: f64, v_rel: f64) -> Option<AffineRegion> {
        if self.spring.n != 1.0 {
            return None;
        }
        if !self.spring.in_contact(s_rel) {
            return Some(AffineRegion::default());
        }
        let (f_c, _) = self.spring.spring_force_and_slope(s_rel);
        Some(if self.clamped(f_c, v_rel) {
            self.spring.affine_branch(0.0, 0.0)
        } else {
            self.spring
                .affine_branch(self.spring.linear_stiffness(), self.spring.d)
        })
    }

    fn is_piecewise_affine(&self) -> bool {
        self.spring.n == 1.0
    }

    fn length_scale(&self) -> f64 {
        self.spring.s_ref
    }
}

#[cfg(test)]
mod tests {
    use super::super::checks;
    use super::*;
    use crate::laws::Forces;

    const SPRING: GapLaw = checks::SPRING;
    const PULLING: SpringDamper = SpringDamper {
        spring: SPRING,
        no_pulling: false,
    };
    const NO_PULLING: SpringDamper = SpringDamper {
        spring: SPRING,
        no_pulling: true,
    };

    #[test]
    fn values_worked_out_by_hand() {
        // 2 mm deep, closing at 1 m/s: F_c = 1e4*0.002 = 20 N, d*der(delta) = 20*1 = 20 N.
        let f = PULLING.evaluate(-0.002, -1.0);
        assert_eq!((f.f_c, f.f_d, f.f), (-20.0, -20.0, -40.0));
        assert_eq!(f.loss_power, 20.0);
        assert_eq!(NO_PULLING.evaluate(-0.002, -1.0), f);
        // Opening at 3 m/s: 20 - 60 = -40 N would pull; SpringDamper pulls, NoPulling gives 0.
        let pulls = PULLING.evaluate(-0.002, 3.0);
        assert_eq!((pulls.f_d, pulls.f, pulls.loss_power), (60.0, 40.0, 180.0));
        let clamped = NO_PULLING.evaluate(-0.002, 3.0);
        assert_eq!((clamped.f_c, clamped.f_d, clamped.f), (-20.0, 20.0, 0.0));
        // The spring's energy goes into the clamp: f_d*v_rel = 20*3.
        assert_eq!(clamped.loss_power, 60.0);
        // Opening at 0.5 m/s: 20 - 10 = 10 N still pushes, the same for both.
        assert_eq!(
            NO_PULLING.evaluate(-0.002, 0.5),
            PULLING.evaluate(-0.002, 0.5)
        );
        assert_eq!(PULLING.evaluate(-0.002, 0.5).f, -10.0);
        // Out of contact: nothing; at the touch-down the damper acts at once (the jump).
        assert_eq!(PULLING.evaluate(1e-3, -1.0), Forces::default());
        assert!((PULLING.evaluate(-1e-12, -1.0).f + 20.0).abs() < 1e-7);
        // n = 1.5 with f_ref = 300 N at s_ref = 0.01 m: F_c = 300*(0.04)^1.5 = 2.4 N at 0.4 mm.
        let hertz = SpringDamper {
            spring: GapLaw {
                n: 1.5,
                s_ref: 0.01,
                f_ref: 300.0,
                ..SPRING
            },
            no_pulling: true,
        };
        let f = hertz.evaluate(-4e-4, 0.0);
        assert!((f.f_c + 2.4).abs() < 1e-12, "{f:?}");
    }

    #[test]
    fn partials_and_rates_match_finite_differences() {
        for law in [PULLING, NO_PULLING] {
            for n in [1.0, 1.5, 2.0, 3.3] {
                let law = SpringDamper {
                    spring: GapLaw { n, ..law.spring },
                    ..law
                };
                for (s, v) in [(-0.002, -1.0), (-0.002, 3.0), (-0.01, 0.4), (-0.03, 0.2)] {
                    checks::partials_match_differences(&law, s, v, 1e-6);
                    checks::rate_matches_difference(&law, s, v, 37.0);
                }
            }
        }
    }

    #[test]
    fn the_kink_indicator_is_positive_exactly_where_no_pulling_clamps() {
        for k in 0..200 {
            let s = -1e-4 * f64::from(k % 20 + 1);
            let v = -2.0 + 0.02 * f64::from(k);
            let f = NO_PULLING.evaluate(s, v);
            let clamped = PULLING.evaluate(s, v).f > 0.0;
            assert_eq!(
                NO_PULLING.kink_indicator(s, v) > 0.0,
                clamped,
                "s {s}, v {v}"
            );
            assert_eq!(f.f == 0.0, clamped, "s {s}, v {v}");
        }
        // The root: F_c = d*v_rel, 2 mm deep: v_rel = 20/20 = 1 m/s.
        assert_eq!(NO_PULLING.kink_indicator(-0.002, 1.0), 0.0);
        assert!(
            PULLING.kink_indicator(-0.002, 3.0) < 0.0,
            "no kink without the clamp"
        );
    }

    #[test]
    fn the_affine_branches_give_the_law_where_n_is_1() {
        for law in [PULLING, NO_PULLING] {
            for (s, v) in [(-0.002, -1.0), (-0.002, 3.0), (-0.001, 0.2)] {
                let region = law.affine_region(s, v).expect("n = 1 is piecewise affine");
                let f = law.evaluate(s, v);
                let x = s - law.s_rel0();
                let affine = region.stiffness * x + region.damping * v + region.offset;
                assert!((affine - f.f).abs() < 1e-12, "{law:?} at {s}, {v}");
                assert_eq!(region.spring_stiffness * x + region.spring_offset, f.f_c);
            }
        }
        let hertz = SpringDamper {
            spring: GapLaw { n: 1.5, ..SPRING },
            no_pulling: true,
        };
        assert!(hertz.affine_region(-0.001, 0.0).is_none() && !hertz.is_piecewise_affine());
    }

    #[test]
    fn spring_damper_impact_is_the_damped_oscillator_in_closed_form() {
        // Linear spring and damper until the penetration is 0 again: half a damped period,
        // rebound exp(-zeta*pi/sqrt(1 - zeta^2)), the rest of the energy dissipated.
        let zeta = SPRING.d / (2.0 * (SPRING.c * 1.0_f64).sqrt());
        let exact = (-zeta * std::f64::consts::PI / (1.0 - zeta * zeta).sqrt()).exp();
        let impact = checks::dynamic_impact(&PULLING);
        assert!(
            (impact.restitution / exact - 1.0).abs() < 1e-9,
            "{impact:?} against {exact}"
        );
        let lost = 0.5 * (1.0 - exact * exact);
        assert!((impact.dissipated / lost - 1.0).abs() < 1e-9, "{impact:?}");
    }

    #[test]
    fn impacts_through_the_dynamic_step_match_runge_kutta() {
        for law in [PULLING, NO_PULLING] {
            for n in [1.0, 1.5] {
                let law = SpringDamper {
                    spring: GapLaw { n, ..law.spring },
                    ..law
                };
                checks::impact_matches_rk4(&law, 1e-6);
            }
        }
    }
}

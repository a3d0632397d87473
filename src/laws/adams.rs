//! MSC Adams' IMPACT function: the spring force plus a damping that grows with the penetration
//! along Adams' cubic STEP from 0 at the touch-down to its full value `d` at the penetration
//! `d_max`, clamped where it would pull:
//! `F_n = max(0, F_c + STEP(delta, 0, 0, d_max, d)*der(delta))`.
//!
//! In Adams' terms `IMPACT(x, dx, x1, k, e, cmax, d)`: `x1` is `s_rel0`, `k` is `c` (with
//! `s_ref` = 1 m and `f_ref` = 0), `e` (the exponent) is `n`, `cmax` is `d` and `d` is `d_max`.

use super::{damper_part_law, AffineRegion, ContactLaw, DamperPart, GapLaw};

/// Adams' STEP(x, x0, h0, x1, h1): `h0` up to `x0`, `h1` from `x1` on, the cubic
/// `h0 + (h1 - h0)*r^2*(3 - 2r)`, `r = (x - x0)/(x1 - x0)`, in between (its slope is 0 at both
/// ends, so it is continuous with a continuous slope).
pub fn step(x: f64, x0: f64, h0: f64, x1: f64, h1: f64) -> f64 {
    if x <= x0 {
        h0
    } else if x >= x1 {
        h1
    } else {
        let r = (x - x0) / (x1 - x0);
        h0 + (h1 - h0) * r * r * (3.0 - 2.0 * r)
    }
}

/// The slope of [`step`] with respect to `x`.
pub fn step_slope(x: f64, x0: f64, h0: f64, x1: f64, h1: f64) -> f64 {
    if x <= x0 || x >= x1 {
        0.0
    } else {
        let r = (x - x0) / (x1 - x0);
        (h1 - h0) * 6.0 * r * (1.0 - r) / (x1 - x0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamsImpact {
    /// c (Adams: k), d (cmax), s_rel0 (x1), n (e), s_ref, f_ref.
    pub spring: GapLaw,
    /// The penetration of full damping (Adams: d).
    pub d_max: f64,
}

impl AdamsImpact {
    /// The damping coefficient at `s_rel` and its slope with respect to `s_rel`.
    fn damping(&self, s_rel: f64) -> (f64, f64) {
        let delta = self.spring.s_rel0 - s_rel;
        let d = self.spring.d;
        (
            step(delta, 0.0, 0.0, self.d_max, d),
            -step_slope(delta, 0.0, 0.0, self.d_max, d),
        )
    }
}

impl DamperPart for AdamsImpact {
    fn spring(&self) -> &GapLaw {
        &self.spring
    }

    fn damper(&self, f_c: f64, s_rel: f64, v_rel: f64) -> f64 {
        let unclamped = self.damping(s_rel).0 * v_rel;
        if f_c + unclamped > 0.0 {
            -f_c
        } else {
            unclamped
        }
    }

    fn damper_slopes(&self, f_c: f64, f_c_ds: f64, s_rel: f64, v_rel: f64) -> (f64, f64, f64) {
        let (damping, damping_ds) = self.damping(s_rel);
        if f_c + damping * v_rel > 0.0 {
            (-f_c, -f_c_ds, 0.0)
        } else {
            (damping * v_rel, damping_ds * v_rel, damping)
        }
    }
}

impl ContactLaw for AdamsImpact {
    damper_part_law!();

    /// `STEP(delta)*v_rel + f_c`: positive exactly where the clamp acts.
    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        let (f_c, _) = self.spring.spring_force_and_slope(s_rel);
        let (damping, _) = self.damping(s_rel);
        damping * v_rel + f_c
    }

    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64 {
        let (_, f_c_ds) = self.spring.spring_force_and_slope(s_rel);
        let (damping, damping_ds) = self.damping(s_rel);
        damping_ds * v_rel * v_rel + damping * a_rel + f_c_ds * v_rel
    }

    fn affine_region(&self, _s_rel: f64, _v_rel: f64) -> Option<AffineRegion> {
        None
    }

    fn length_scale(&self) -> f64 {
        self.spring.s_ref.min(self.d_max)
    }
}

#[cfg(test)]
mod tests {
    use super::super::checks;
    use super::*;

    const LAW: AdamsImpact = AdamsImpact {
        spring: checks::SPRING,
        d_max: 1e-3,
    };

    #[test]
    fn adams_step_has_its_ends_middle_and_flat_slopes() {
        assert_eq!(step(-1.0, 0.0, 2.0, 1.0, 5.0), 2.0);
        assert_eq!(step(0.0, 0.0, 2.0, 1.0, 5.0), 2.0);
        assert_eq!(step(0.5, 0.0, 2.0, 1.0, 5.0), 3.5);
        assert_eq!(step(1.0, 0.0, 2.0, 1.0, 5.0), 5.0);
        assert_eq!(step(7.0, 0.0, 2.0, 1.0, 5.0), 5.0);
        // r = 0.25: 2 + 3*0.0625*2.5 = 2.46875.
        assert_eq!(step(0.25, 0.0, 2.0, 1.0, 5.0), 2.46875);
        assert_eq!(step_slope(0.0, 0.0, 2.0, 1.0, 5.0), 0.0);
        assert_eq!(step_slope(1.0, 0.0, 2.0, 1.0, 5.0), 0.0);
        // The steepest point, the middle: 6*r*(1 - r)*3/1 = 4.5.
        assert_eq!(step_slope(0.5, 0.0, 2.0, 1.0, 5.0), 4.5);
        for k in 1..100 {
            let x = -0.5 + 0.02 * f64::from(k);
            let h = 1e-7;
            let numeric =
                (step(x + h, 0.0, 2.0, 1.0, 5.0) - step(x - h, 0.0, 2.0, 1.0, 5.0)) / (2.0 * h);
            assert!(
                (numeric - step_slope(x, 0.0, 2.0, 1.0, 5.0)).abs() < 1e-6,
                "x = {x}"
            );
        }
    }

    #[test]
    fn values_worked_out_by_hand() {
        // Half of d_max deep (0.5 mm), closing at 1 m/s: F_c = 5 N, damping 10 N.s/m: 15 N.
        let f = LAW.evaluate(-5e-4, -1.0);
        assert!(
            (f.f_c + 5.0).abs() < 1e-12 && (f.f + 15.0).abs() < 1e-12,
            "{f:?}"
        );
        assert!((f.loss_power - 10.0).abs() < 1e-12);
        // 2 mm deep, past d_max: full damping 20; opening at 0.5 m/s: 20 - 10 = 10 N.
        assert!((LAW.evaluate(-2e-3, 0.5).f + 10.0).abs() < 1e-12);
        // Opening at 2 m/s it would pull: 20 - 40 < 0, clamped.
        let clamped = LAW.evaluate(-2e-3, 2.0);
        assert_eq!(clamped.f, 0.0);
        assert!(
            (clamped.loss_power - 40.0).abs() < 1e-12,
            "F_c*v_rel = 20*2"
        );
        // At the touch-down no damping: continuous.
        assert!(LAW.evaluate(-1e-12, -1.0).f.abs() < 1e-6);
    }

    #[test]
    fn partials_rates_and_the_clamp_indicator() {
        for n in [1.0, 1.5, 2.2] {
            let law = AdamsImpact {
                spring: GapLaw { n, ..LAW.spring },
                ..LAW
            };
            for (s, v) in [(-5e-4, -1.0), (-2e-3, 0.5), (-2e-4, 0.3), (-3e-3, -2.0)] {
                checks::partials_match_differences(&law, s, v, 1e-6);
                checks::rate_matches_difference(&law, s, v, 80.0);
            }
            for k in 0..400 {
                let s = -1e-4 * f64::from(k % 40 + 1);
                let v = -3.0 + 0.015 * f64::from(k);
                let delta = -s;
                let unclamped = law.spring.c * delta.powf(n)
                    + step(delta, 0.0, 0.0, law.d_max, law.spring.d) * -v;
                assert_eq!(law.kink_indicator(s, v) > 0.0, unclamped < 0.0, "{s} {v}");
            }
        }
    }

    #[test]
    fn impacts_through_the_dynamic_step_match_runge_kutta() {
        for n in [1.0, 1.5] {
            let law = AdamsImpact {
                spring: GapLaw { n, ..LAW.spring },
                ..LAW
            };
            checks::impact_matches_rk4(&law, 1e-6);
        }
    }
}

//! RecurDyn's contact force (MTT2D and the geometry contacts): the spring force plus a damping
//! whose coefficient grows with the penetration, scaled by the rebound damping factor while the
//! bodies separate, `F_n = F_c + c_d(delta)*der(delta)*r`, with `c_d = d*(delta/s_ref)^n_d`
//! (`Power`) or `STEP(delta, 0, 0, d_max, d)` (`Step`) and `r = rdf` while `der(delta) < 0`, 1
//! while approaching. Not clamped: it is the tool's law, and it may pull.

use super::adams::{step, step_slope};
use super::{damper_part_law, AffineRegion, ContactLaw, DamperPart, GapLaw};

indexed_choice! {
    /// How the damping coefficient grows with the penetration: the parameter `recurDynDamping`, in
    /// the order of the interface's Enumeration type `RecurDynDamping`.
    RecurDynDamping {
        Power = 1,
        Step = 2,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecurDynContact {
    /// c (RecurDyn: stiffness coefficient), d (damping coefficient), s_rel0, n (stiffness
    /// exponent), s_ref, f_ref.
    pub spring: GapLaw,
    pub damping: RecurDynDamping,
    /// The exponent of the penetration in `Power` damping.
    pub n_d: f64,
    /// The penetration of full damping in `Step` damping.
    pub d_max: f64,
    /// The rebound damping factor (RecurDyn: RDF).
    pub rdf: f64,
}

impl RecurDynContact {
    /// The damping coefficient at `s_rel` and its slope with respect to `s_rel`, in contact.
    fn coefficient(&self, s_rel: f64) -> (f64, f64) {
        let delta = self.spring.s_rel0 - s_rel;
        let d = self.spring.d;
        match self.damping {
            RecurDynDamping::Power => {
                let ratio = delta / self.spring.s_ref;
                if self.n_d == 0.0 {
                    (d, 0.0)
                } else {
                    let lower = ratio.powf(self.n_d - 1.0);
                    (d * lower * ratio, -d * self.n_d * lower / self.spring.s_ref)
                }
            }
            RecurDynDamping::Step => (
                step(delta, 0.0, 0.0, self.d_max, d),
                -step_slope(delta, 0.0, 0.0, self.d_max, d),
            ),
        }
    }

    /// The rebound damping factor applies while the bodies separate (`v_rel > 0`).
    fn factor(&self, v_rel: f64) -> f64 {
        if v_rel > 0.0 {
            self.rdf
        } else {
            1.0
        }
    }
}

impl DamperPart for RecurDynContact {
    fn spring(&self) -> &GapLaw {
        &self.spring
    }

    fn damper(&self, _f_c: f64, s_rel: f64, v_rel: f64) -> f64 {
        self.coefficient(s_rel).0 * self.factor(v_rel) * v_rel
    }

    fn damper_slopes(&self, _f_c: f64, _f_c_ds: f64, s_rel: f64, v_rel: f64) -> (f64, f64, f64) {
        let (coefficient, coefficient_ds) = self.coefficient(s_rel);
        let r = self.factor(v_rel);
        (
            coefficient * r * v_rel,
            coefficient_ds * r * v_rel,
            coefficient * r,
        )
    }
}

impl ContactLaw for RecurDynContact {
    damper_part_law!();

    /// `v_rel`: the damping factor switches where the bodies stop approaching (the force is
    /// continuous there, its slope is not). Without a rebound factor, a constant.
    fn kink_indicator(&self, _s_rel: f64, v_rel: f64) -> f64 {
        if self.rdf == 1.0 {
            -1.0
        } else {
            v_rel
        }
    }

    fn kink_indicator_rate(&self, _s_rel: f64, _v_rel: f64, a_rel: f64) -> f64 {
        if self.rdf == 1.0 {
            0.0
        } else {
            a_rel
        }
    }

    fn affine_region(&self, _s_rel: f64, _v_rel: f64) -> Option<AffineRegion> {
        None
    }

    fn length_scale(&self) -> f64 {
        match self.damping {
            RecurDynDamping::Power => self.spring.s_ref,
            RecurDynDamping::Step => self.spring.s_ref.min(self.d_max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::checks;
    use super::*;
    use crate::laws::Forces;

    const LAW: RecurDynContact = RecurDynContact {
        spring: checks::SPRING,
        damping: RecurDynDamping::Power,
        n_d: 1.0,
        d_max: 1e-3,
        rdf: 0.001,
    };

    #[test]
    fn values_worked_out_by_hand() {
        // Power, n_d = 1, s_ref = 0.01 m: 5 mm deep gives c_d = 20*0.5 = 10 N.s/m. F_c = 50 N.
        let power = RecurDynContact {
            spring: GapLaw {
                s_ref: 0.01,
                f_ref: 100.0,
                ..LAW.spring
            },
            ..LAW
        };
        // f_ref = 100 N at s_ref = 0.01 m: F_c = 100*0.5 = 50 N.
        let closing = power.evaluate(-5e-3, -2.0);
        assert!((closing.f + 70.0).abs() < 1e-12, "50 + 10*2: {closing:?}");
        assert!((closing.loss_power - 40.0).abs() < 1e-12);
        // Separating at 2 m/s: the damping is scaled by rdf = 0.001: 50 - 0.02.
        let opening = power.evaluate(-5e-3, 2.0);
        assert!((opening.f + 49.98).abs() < 1e-12, "{opening:?}");
        // Not clamped: with rdf = 1 and a fast separation it pulls, 50 - 10*6 = -10 N.
        let pulls = RecurDynContact { rdf: 1.0, ..power }.evaluate(-5e-3, 6.0);
        assert!((pulls.f - 10.0).abs() < 1e-12, "{pulls:?}");
        // Step damping at half of d_max: c_d = 10 N.s/m; 0.5 mm deep: F_c = 5 N.
        let stepped = RecurDynContact {
            damping: RecurDynDamping::Step,
            ..LAW
        };
        assert!((stepped.evaluate(-5e-4, -1.0).f + 15.0).abs() < 1e-12);
        // n_d = 0: constant damping, the force jumps at the touch-down.
        let constant = RecurDynContact { n_d: 0.0, ..LAW };
        assert!((constant.evaluate(-1e-12, -1.0).f + 20.0).abs() < 1e-6);
        assert_eq!(LAW.evaluate(1e-3, -1.0), Forces::default());
        for (value, damping) in (1..).zip(RecurDynDamping::ALL.iter().copied()) {
            assert_eq!(RecurDynDamping::from_index(value), Some(damping));
        }
        assert_eq!(RecurDynDamping::from_index(3), None);
    }

    #[test]
    fn partials_rates_and_the_rebound_switch() {
        for &damping in RecurDynDamping::ALL {
            for (n, n_d) in [(1.0, 1.0), (1.5, 1.5), (2.0, 0.0), (1.0, 2.5)] {
                let law = RecurDynContact {
                    spring: GapLaw { n, ..LAW.spring },
                    damping,
                    n_d,
                    ..LAW
                };
                for (s, v) in [(-5e-4, -1.0), (-2e-3, 0.5), (-2e-4, 0.3), (-3e-3, -2.0)] {
                    checks::partials_match_differences(&law, s, v, 1e-6);
                    checks::rate_matches_difference(&law, s, v, 80.0);
                    assert_eq!(law.kink_indicator(s, v) > 0.0, v > 0.0);
                }
            }
        }
        assert!(RecurDynContact { rdf: 1.0, ..LAW }.kink_indicator(-1e-3, 1.0) < 0.0);
    }

    #[test]
    fn impacts_through_the_dynamic_step_match_runge_kutta() {
        for &damping in RecurDynDamping::ALL {
            for rdf in [0.001, 1.0] {
                for n in [1.0, 1.5] {
                    let law = RecurDynContact {
                        spring: GapLaw { n, ..LAW.spring },
                        damping,
                        rdf,
                        ..LAW
                    };
                    checks::impact_matches_rk4(&law, 1e-6);
                }
            }
        }
    }
}

//! The Hunt–Crossley family: the spring force times `1 + chi*der(delta)`, so that the damping
//! vanishes with the penetration and the force is continuous at the touch-down,
//! `F_n = max(0, F_c*(1 + chi*der(delta)))`.
//!
//! The hysteresis factor `chi` (s/m) is given, or made from a coefficient of restitution `e` and
//! the approach speed `v0` at the touch-down by one of the models of the literature (Hunt and
//! Crossley 1975, Lankarani and Nikravesh 1990, Flores et al. 2011, Gonthier et al. 2004). Since
//! `v0` belongs to the contact, the integrators hand it over at every located touch-down
//! ([`ContactLaw::touched_down`]).

use super::{damper_part_law, AffineRegion, ContactLaw, DamperPart, GapLaw};

indexed_choice! {
    /// How `chi` is obtained: the parameter `hysteresis`, in the order of the interface's
    /// Enumeration type `Hysteresis`.
    Hysteresis {
        Given = 1,
        HuntCrossley = 2,
        LankaraniNikravesh = 3,
        Flores = 4,
        Gonthier = 5,
    }
}

/// The hysteresis factor `chi` (s/m) of a model for restitution `e` at approach speed `v0 > 0`.
pub fn hysteresis_factor(hysteresis: Hysteresis, chi_given: f64, e: f64, v0: f64) -> f64 {
    match hysteresis {
        Hysteresis::Given => chi_given,
        Hysteresis::HuntCrossley => 3.0 * (1.0 - e) / (2.0 * v0),
        Hysteresis::LankaraniNikravesh => 3.0 * (1.0 - e * e) / (4.0 * v0),
        Hysteresis::Flores => 8.0 * (1.0 - e) / (5.0 * e * v0),
        Hysteresis::Gonthier => (1.0 - e * e) / (e * v0),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HuntCrossley {
    /// c, s_rel0, n, s_ref, f_ref (d is not used).
    pub spring: GapLaw,
    pub hysteresis: Hysteresis,
    pub chi_given: f64,
    pub e: f64,
    /// The smallest approach speed `chi` is made with: a contact that starts at rest has none.
    pub min_speed: f64,
    /// The approach speed `-v_rel` at the touch-down of the contact under way.
    pub touchdown_speed: f64,
    chi: f64,
}

impl HuntCrossley {
    pub fn new(
        spring: GapLaw,
        hysteresis: Hysteresis,
        chi_given: f64,
        e: f64,
        min_speed: f64,
        touchdown_speed: f64,
    ) -> Self {
        let v0 = touchdown_speed.max(min_speed);
        HuntCrossley {
            spring,
            hysteresis,
            chi_given,
            e,
            min_speed,
            touchdown_speed,
            chi: hysteresis_factor(hysteresis, chi_given, e, v0),
        }
    }

    /// The hysteresis factor of the contact under way (s/m).
    pub fn chi(&self) -> f64 {
        self.chi
    }

    /// `1 - chi*v_rel` (`1 + chi*der(delta)`) is negative: the force would pull, and is clamped.
    fn clamped(&self, v_rel: f64) -> bool {
        self.chi * v_rel > 1.0
    }
}

impl DamperPart for HuntCrossley {
    fn spring(&self) -> &GapLaw {
        &self.spring
    }

    /// `f = f_c*(1 - chi*v_rel)`: the damper part is `-chi*v_rel*f_c`.
    fn damper(&self, f_c: f64, _s_rel: f64, v_rel: f64) -> f64 {
        if self.clamped(v_rel) {
            -f_c
        } else {
            -self.chi * v_rel * f_c
        }
    }

    fn damper_slopes(&self, f_c: f64, f_c_ds: f64, _s_rel: f64, v_rel: f64) -> (f64, f64, f64) {
        if self.clamped(v_rel) {
            (-f_c, -f_c_ds, 0.0)
        } else {
            let factor = -self.chi * v_rel;
            (factor * f_c, factor * f_c_ds, -self.chi * f_c)
        }
    }
}

impl ContactLaw for HuntCrossley {
    damper_part_law!();

    /// `chi*v_rel - 1`, positive exactly where the clamp acts; a constant without hysteresis.
    fn kink_indicator(&self, _s_rel: f64, v_rel: f64) -> f64 {
        self.chi * v_rel - 1.0
    }

    fn kink_indicator_rate(&self, _s_rel: f64, _v_rel: f64, a_rel: f64) -> f64 {
        self.chi * a_rel
    }

    fn affine_region(&self, _s_rel: f64, _v_rel: f64) -> Option<AffineRegion> {
        None
    }

    fn length_scale(&self) -> f64 {
        self.spring.s_ref
    }

    fn touched_down(&self, v_rel: f64) -> Option<Self> {
        Some(HuntCrossley::new(
            self.spring,
            self.hysteresis,
            self.chi_given,
            self.e,
            self.min_speed,
            -v_rel,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::checks;
    use super::*;
    use crate::laws::Forces;

    const SPRING: GapLaw = GapLaw {
        n: 1.5,
        ..checks::SPRING
    };

    fn law(hysteresis: Hysteresis, touchdown_speed: f64) -> HuntCrossley {
        HuntCrossley::new(SPRING, hysteresis, 0.5, 0.8, 1e-3, touchdown_speed)
    }

    #[test]
    fn each_model_gives_the_factor_of_its_paper() {
        // e = 0.8, v0 = 1 m/s (and 2 m/s: every model is inversely proportional to v0).
        let expected = [
            (Hysteresis::Given, 0.5),
            (Hysteresis::HuntCrossley, 3.0 * 0.2 / 2.0),
            (Hysteresis::LankaraniNikravesh, 3.0 * 0.36 / 4.0),
            (Hysteresis::Flores, 8.0 * 0.2 / (5.0 * 0.8)),
            (Hysteresis::Gonthier, 0.36 / 0.8),
        ];
        for (model, chi) in expected {
            assert!((law(model, 1.0).chi() - chi).abs() < 1e-15, "{model:?}");
            let halved = if model == Hysteresis::Given {
                chi
            } else {
                chi / 2.0
            };
            assert!((law(model, 2.0).chi() - halved).abs() < 1e-15, "{model:?}");
        }
        // A contact that starts at rest takes min_speed: 3*0.36/(4*1e-3).
        assert!((law(Hysteresis::LankaraniNikravesh, 0.0).chi() - 270.0).abs() < 1e-9);
        for (value, model) in (1..).zip(Hysteresis::ALL.iter().copied()) {
            assert_eq!(Hysteresis::from_index(value), Some(model));
        }
        assert_eq!(Hysteresis::from_index(6), None);
    }

    #[test]
    fn touching_down_takes_the_approach_speed() {
        let before = law(Hysteresis::HuntCrossley, 0.0);
        let after = before.touched_down(-0.5).expect("the law depends on v0");
        assert_eq!(after.touchdown_speed, 0.5);
        assert!((after.chi() - 3.0 * 0.2 / (2.0 * 0.5)).abs() < 1e-15);
    }

    #[test]
    fn values_worked_out_by_hand() {
        // chi = 0.5 s/m, n = 1.5, 1 cm deep: F_c = 1e4*0.01^1.5 = 10 N.
        let given = law(Hysteresis::Given, 1.0);
        // Closing at 2 m/s: F_n = 10*(1 + 0.5*2) = 20 N.
        let f = given.evaluate(-0.01, -2.0);
        assert!(
            (f.f + 20.0).abs() < 1e-12 && (f.f_c + 10.0).abs() < 1e-12,
            "{f:?}"
        );
        assert!(
            (f.loss_power - 20.0).abs() < 1e-12,
            "f_d*v_rel = -10*-2: {f:?}"
        );
        // Opening at 1 m/s: F_n = 10*(1 - 0.5) = 5 N; at 3 m/s it would pull: clamped to 0.
        assert!((given.evaluate(-0.01, 1.0).f + 5.0).abs() < 1e-12);
        let clamped = given.evaluate(-0.01, 3.0);
        assert_eq!(clamped.f, 0.0);
        assert!((clamped.loss_power - 30.0).abs() < 1e-12, "{clamped:?}");
        // Continuous at the touch-down, unlike SpringDamper.
        assert!(given.evaluate(-1e-12, -1.0).f.abs() < 1e-12);
        assert_eq!(given.evaluate(1e-3, -1.0), Forces::default());
    }

    #[test]
    fn partials_rates_and_the_clamp_indicator() {
        for &model in Hysteresis::ALL {
            for n in [1.0, 1.5, 2.0] {
                let law = HuntCrossley::new(GapLaw { n, ..SPRING }, model, 0.5, 0.8, 1e-3, 1.0);
                for (s, v) in [(-0.01, -2.0), (-0.01, 0.3), (-0.004, -0.1), (-0.02, 30.0)] {
                    checks::partials_match_differences(&law, s, v, 1e-6);
                    checks::rate_matches_difference(&law, s, v, -50.0);
                    let unclamped = 1.0 - law.chi() * v;
                    assert_eq!(law.kink_indicator(s, v) > 0.0, unclamped < 0.0);
                    assert_eq!(law.evaluate(s, v).f == 0.0, unclamped <= 0.0);
                }
                // The root: 1 + chi*der(delta) = 0 at v_rel = 1/chi.
                assert!(law.kink_indicator(-0.01, 1.0 / law.chi()).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn impacts_through_the_dynamic_step_match_runge_kutta() {
        for &model in Hysteresis::ALL {
            for n in [1.0, 1.5] {
                // The integrators call touched_down at the touch-down; the law starts with none.
                let law = HuntCrossley::new(GapLaw { n, ..SPRING }, model, 0.5, 0.8, 1e-3, 0.0);
                checks::impact_matches_rk4(&law, 1e-6);
            }
        }
    }

    #[test]
    fn small_damping_gives_about_the_restitution_it_was_made_for() {
        // Lankarani-Nikravesh is derived for Hertz contact (n = 1.5) and e near 1: there the
        // effective restitution is close to the requested one.
        let law = HuntCrossley::new(SPRING, Hysteresis::LankaraniNikravesh, 0.0, 0.95, 1e-3, 0.0);
        let impact = checks::dynamic_impact(&law);
        assert!(
            (impact.restitution - 0.95).abs() < 0.01,
            "e_eff = {}",
            impact.restitution
        );
    }
}

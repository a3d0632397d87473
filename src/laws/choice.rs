//! The law the parameters choose: [`Law`] holds one of the families with its parameters and
//! implements [`ContactLaw`] by delegation, and [`with_law!`] runs generic code on the chosen law
//! itself, so that a step is compiled once per law instead of matching at every evaluation.

use super::{
    AdamsImpact, AffineRegion, ContactLaw, Forces, GapForce, GapLaw, GapTables, HuntCrossley,
    Hysteresis, Partials, RecurDynContact, RecurDynDamping, SpringDamper,
};

indexed_choice! {
    /// The parameter `forceLaw`, in the order of the Enumeration type `ForceLaw` of the interface.
    ForceLaw {
        ElastoGap = 1,
        SpringDamper = 2,
        NoPulling = 3,
        HuntCrossley = 4,
        AdamsImpact = 5,
        RecurDynContact = 6,
        GapForce = 7,
    }
}

impl ForceLaw {
    /// Whether the law's force may pull (`f > 0`): SpringDamper, RecurDyn's contact and its
    /// two-sided Gap Force, as in those tools; the others bound or clamp it at 0.
    pub fn may_pull(self) -> bool {
        matches!(
            self,
            ForceLaw::SpringDamper | ForceLaw::RecurDynContact | ForceLaw::GapForce
        )
    }
}

/// The parameters that choose the law and those only some laws use; the spring parameters
/// shared by every law are a [`GapLaw`]. The choices are kept as the importer set them and read
/// through `from_index` when the law is made: a value out of range is refused when the
/// parameters take effect, never used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LawOptions {
    pub force_law: i32,
    pub hysteresis: i32,
    pub chi: f64,
    pub e: f64,
    pub v0_min: f64,
    pub d_max: f64,
    pub recurdyn_damping: i32,
    pub n_d: f64,
    pub rdf: f64,
    pub n_v: f64,
    pub preload: f64,
    pub range_min: f64,
    pub range_max: f64,
}

/// One law with its parameters; the Gap Force's tables are borrowed for `'t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Law<'t> {
    ElastoGap(GapLaw),
    /// SpringDamper and NoPulling.
    SpringDamper(SpringDamper),
    HuntCrossley(HuntCrossley),
    AdamsImpact(AdamsImpact),
    RecurDynContact(RecurDynContact),
    GapForce(GapForce<'t>),
}

impl<'t> Law<'t> {
    /// The law `options` choose, with the spring parameters `spring`. `touchdown_speed` is the
    /// approach speed at the touch-down of the contact under way (laws that depend on it);
    /// `tables` are the Gap Force's, if its table file gave any.
    pub fn new(
        spring: GapLaw,
        options: &LawOptions,
        touchdown_speed: f64,
        tables: Option<&'t GapTables>,
    ) -> Law<'t> {
        match ForceLaw::from_index(options.force_law).unwrap_or(ForceLaw::ElastoGap) {
            ForceLaw::ElastoGap => Law::ElastoGap(spring),
            ForceLaw::SpringDamper => Law::SpringDamper(SpringDamper {
                spring,
                no_pulling: false,
            }),
            ForceLaw::NoPulling => Law::SpringDamper(SpringDamper {
                spring,
                no_pulling: true,
            }),
            ForceLaw::HuntCrossley => Law::HuntCrossley(HuntCrossley::new(
                spring,
                Hysteresis::from_index(options.hysteresis).unwrap_or(Hysteresis::Given),
                options.chi,
                options.e,
                options.v0_min,
                touchdown_speed,
            )),
            ForceLaw::AdamsImpact => Law::AdamsImpact(AdamsImpact {
                spring,
                d_max: options.d_max,
            }),
            ForceLaw::RecurDynContact => Law::RecurDynContact(RecurDynContact {
                spring,
                damping: RecurDynDamping::from_index(options.recurdyn_damping)
                    .unwrap_or(RecurDynDamping::Power),
                n_d: options.n_d,
                d_max: options.d_max,
                rdf: options.rdf,
            }),
            ForceLaw::GapForce => Law::GapForce(GapForce {
                spring,
                n_v: options.n_v,
                preload: options.preload,
                range_min: options.range_min,
                range_max: options.range_max,
                stiffness: tables.and_then(|tables| tables.stiffness.as_ref()),
                damping: tables.and_then(|tables| tables.damping.as_ref()),
            }),
        }
    }
}

/// Runs `$body` with `$name` bound to the law inside `$law` (an expression of type `&Law`), its
/// own type: generic code is then monomorphized per law.
#[macro_export]
macro_rules! with_law {
    ($law:expr, $name:ident => $body:expr) => {
        match $law {
            $crate::laws::Law::ElastoGap($name) => $body,
            $crate::laws::Law::SpringDamper($name) => $body,
            $crate::laws::Law::HuntCrossley($name) => $body,
            $crate::laws::Law::AdamsImpact($name) => $body,
            $crate::laws::Law::RecurDynContact($name) => $body,
            $crate::laws::Law::GapForce($name) => $body,
        }
    };
}

impl ContactLaw for Law<'_> {
    fn s_rel0(&self) -> f64 {
        with_law!(self, law => law.s_rel0())
    }

    fn contact_ends(&self) -> (Option<f64>, f64) {
        with_law!(self, law => law.contact_ends())
    }

    fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        with_law!(self, law => ContactLaw::evaluate(law, s_rel, v_rel))
    }

    fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        with_law!(self, law => ContactLaw::partials(law, s_rel, v_rel))
    }

    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        with_law!(self, law => law.kink_indicator(s_rel, v_rel))
    }

    fn kink_indicator_with(&self, forces: &Forces, s_rel: f64, v_rel: f64) -> f64 {
        with_law!(self, law => law.kink_indicator_with(forces, s_rel, v_rel))
    }

    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64 {
        with_law!(self, law => law.kink_indicator_rate(s_rel, v_rel, a_rel))
    }

    fn affine_region(&self, s_rel: f64, v_rel: f64) -> Option<AffineRegion> {
        with_law!(self, law => law.affine_region(s_rel, v_rel))
    }

    fn is_piecewise_affine(&self) -> bool {
        with_law!(self, law => law.is_piecewise_affine())
    }

    fn length_scale(&self) -> f64 {
        with_law!(self, law => law.length_scale())
    }

    fn touched_down(&self, v_rel: f64) -> Option<Self> {
        match self {
            Law::HuntCrossley(law) => law.touched_down(v_rel).map(Law::HuntCrossley),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::{FrictionInterpolation, FrictionLaw};
    use crate::variables::{
        FORCE_LAW, FRICTION_INTERPOLATION, FRICTION_LAW, HYSTERESIS, RECURDYN_DAMPING,
    };

    #[test]
    fn the_rust_choices_are_the_items_of_the_interface_enumerations_in_order() {
        fn names<T: std::fmt::Debug>(items: &[T]) -> Vec<String> {
            items.iter().map(|item| format!("{item:?}")).collect()
        }
        for (rust, interface) in [
            (names(ForceLaw::ALL), &FORCE_LAW),
            (names(Hysteresis::ALL), &HYSTERESIS),
            (names(RecurDynDamping::ALL), &RECURDYN_DAMPING),
            (names(FrictionLaw::ALL), &FRICTION_LAW),
            (names(FrictionInterpolation::ALL), &FRICTION_INTERPOLATION),
        ] {
            let items: Vec<&str> = interface.items.iter().map(|(name, _)| *name).collect();
            assert_eq!(rust, items, "{}", interface.name);
        }
        for (value, law) in (1..).zip(ForceLaw::ALL.iter().copied()) {
            assert_eq!(ForceLaw::from_index(value), Some(law));
        }
        assert_eq!(ForceLaw::from_index(0), None);
        assert_eq!(ForceLaw::from_index(8), None);
    }
}

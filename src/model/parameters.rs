//! The parameters, their start values and their rules: each variable's own rule comes from the
//! variable table (`Variable::rule`); the rules between parameters, which depend on the law in
//! use, are [`ElastoGap::check_parameter_relations`]. The FMI layer checks an input as it is set
//! and the parameters when they take effect; a [`RuleViolation`] names the variable, its value
//! and the rule, as the user's message shows them.

use super::ElastoGap;
use crate::laws::{ForceLaw, Friction, GapDampers, GapLaw, LawOptions};
use crate::variables::{by_var, Var, Variable, VARIABLES};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    /// The spring and damper parameters every law shares.
    pub spring: GapLaw,
    /// Which law, and the parameters only some laws use.
    pub options: LawOptions,
    /// Tangential friction (laws 1 to 6).
    pub friction: Friction,
    /// The Gap Force's tangential dampers (law 7).
    pub gap_dampers: GapDampers,
    pub use_heat_port: bool,
    pub max_substep_size: f64,
    pub max_substep_count: i32,
    pub acceleration_estimate: i32,
    /// Which force the master holds (`HeldForce`): 1 told by its reads and answers, 2 f_mean,
    /// 3 f_next, 4 none (it prescribes the motion).
    pub held_force: i32,
    /// 0: unknown (estimated); otherwise the effective mass of the relative motion.
    pub m_eff: f64,
    pub relative_tolerance: f64,
}

impl Default for Parameters {
    fn default() -> Self {
        let start = |var| by_var(var).start.expect("parameters have a start value");
        Parameters {
            spring: GapLaw {
                c: start(Var::C),
                d: start(Var::D),
                s_rel0: start(Var::SRel0),
                n: start(Var::N),
                s_ref: start(Var::SRef),
                f_ref: start(Var::FRef),
            },
            options: LawOptions {
                force_law: start(Var::ForceLaw) as i32,
                hysteresis: start(Var::Hysteresis) as i32,
                chi: start(Var::Chi),
                e: start(Var::E),
                v0_min: start(Var::V0Min),
                d_max: start(Var::DMax),
                recurdyn_damping: start(Var::RecurDynDamping) as i32,
                n_d: start(Var::ND),
                rdf: start(Var::Rdf),
                n_v: start(Var::NV),
                preload: start(Var::Preload),
                range_min: start(Var::RangeMin),
                range_max: start(Var::RangeMax),
            },
            friction: Friction {
                law: start(Var::FrictionLaw) as i32,
                interpolation: start(Var::FrictionInterpolation) as i32,
                mu_s: start(Var::MuS),
                mu_d: start(Var::MuD),
                v_s: start(Var::VS),
                v_d: start(Var::VD),
                f_t_max: start(Var::FTMax),
                max_stiction_deformation: start(Var::MaxStictionDeformation),
            },
            gap_dampers: GapDampers {
                d: [start(Var::DX), start(Var::DY)],
                n: [start(Var::NX), start(Var::NY)],
                preload: [start(Var::PreloadX), start(Var::PreloadY)],
            },
            use_heat_port: start(Var::UseHeatPort) != 0.0,
            max_substep_size: start(Var::MaxSubstepSize),
            max_substep_count: start(Var::MaxSubstepCount) as i32,
            acceleration_estimate: start(Var::AccelerationEstimate) as i32,
            held_force: start(Var::HeldForce) as i32,
            m_eff: start(Var::MEff),
            relative_tolerance: start(Var::RelativeTolerance),
        }
    }
}

/// A parameter or input value that breaks its rule.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleViolation {
    pub name: &'static str,
    pub value: f64,
    pub rule: String,
}

/// A number as a message shows it: plain decimals where they are short, exponent form for the
/// very large and very small (`{}` would print 1e-20 with twenty digits, 1e300 with 301).
#[derive(Clone, Copy, Debug)]
pub struct Number(pub f64);

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let magnitude = self.0.abs();
        if self.0.is_finite() && magnitude != 0.0 && !(1e-4..1e16).contains(&magnitude) {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl std::fmt::Display for RuleViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} = {} is not allowed: it must be {}",
            self.name,
            Number(self.value),
            self.rule
        )
    }
}

impl ElastoGap {
    /// Checks every parameter against its rule in the variable table.
    pub fn check_parameters(&self) -> Result<(), RuleViolation> {
        for variable in VARIABLES
            .iter()
            .filter(|v| v.causality == crate::variables::Causality::Parameter)
        {
            self.check(variable.var)?;
        }
        self.check_parameter_relations()
    }

    /// The rules between parameters, for the law in use: the Gap Force's range must not be empty.
    pub fn check_parameter_relations(&self) -> Result<(), RuleViolation> {
        let o = &self.parameters.options;
        let friction = &self.parameters.friction;
        if friction.is_on() && friction.v_d <= friction.v_s {
            return Err(RuleViolation {
                name: by_var(Var::VD).name,
                value: friction.v_d,
                rule: format!(
                    "greater than v_s = {} (friction goes from its static to its dynamic value between them)",
                    Number(friction.v_s)
                ),
            });
        }
        let dampers = &self.parameters.gap_dampers;
        if dampers.is_on() && o.force_law != ForceLaw::GapForce as i32 {
            let set = [
                (Var::DX, dampers.d[0]),
                (Var::DY, dampers.d[1]),
                (Var::PreloadX, dampers.preload[0]),
                (Var::PreloadY, dampers.preload[1]),
            ];
            let (var, value) = set
                .into_iter()
                .find(|&(_, value)| value != 0.0)
                .unwrap_or(set[0]);
            return Err(RuleViolation {
                name: by_var(var).name,
                value,
                rule: "0 unless forceLaw = 7 (GapForce): the tangential dampers and preloads are the Gap Force's".into(),
            });
        }
        let friction_applies = friction.is_on() && o.force_law != ForceLaw::GapForce as i32;
        if friction.max_stiction_deformation > 0.0 && !friction_applies {
            return Err(RuleViolation {
                name: by_var(Var::MaxStictionDeformation).name,
                value: friction.max_stiction_deformation,
                rule: "0 without friction (frictionLaw Adams or RecurDyn, laws 1 to 6): it is the friction's stick-slip".into(),
            });
        }
        if friction.is_on() && o.force_law == ForceLaw::GapForce as i32 {
            return Err(RuleViolation {
                name: by_var(Var::FrictionLaw).name,
                value: f64::from(friction.law),
                rule: "1 (None) with forceLaw = 7 (GapForce): friction is for laws 1 to 6".into(),
            });
        }
        if o.force_law == ForceLaw::GapForce as i32 && o.range_min >= o.range_max {
            return Err(RuleViolation {
                name: by_var(Var::RangeMax).name,
                value: o.range_max,
                rule: format!(
                    "greater than rangeMin = {} (the Gap Force acts while rangeMin < s_rel < rangeMax)",
                    Number(o.range_min)
                ),
            });
        }
        Ok(())
    }

    /// Checks one variable's current value against its rule.
    pub fn check(&self, var: Var) -> Result<(), RuleViolation> {
        Self::check_value(var, self.value(var))
    }

    /// Checks a value against the rule of `var` before it is stored.
    pub fn check_value(var: Var, value: f64) -> Result<(), RuleViolation> {
        Self::check_against(by_var(var), value)
    }

    /// [`Self::check_value`] for the variable itself, where the caller has its row.
    #[inline]
    pub fn check_against(variable: &Variable, value: f64) -> Result<(), RuleViolation> {
        if variable.rule.admits(value) {
            Ok(())
        } else {
            Err(RuleViolation {
                name: variable.name,
                value,
                rule: variable.rule.describe(),
            })
        }
    }
}

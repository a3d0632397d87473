//! The interface of the FMU: one table that is the single source of truth for getting and setting
//! variables by value reference, the `modelDescription.xml` (written by `build.rs`, which includes
//! this file) and the GUID.
//!
//! This file is pure data with no dependencies so that `build.rs` can compile it too.

/// Identifies a variable independently of its value reference, so that code matching on it is
/// checked for exhaustiveness by the compiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Var {
    C,
    D,
    SRel0,
    N,
    SRef,
    FRef,
    UseHeatPort,
    MaxSubstepSize,
    MaxSubstepCount,
    AccelerationEstimate,
    MEff,
    RelativeTolerance,
    ForceLaw,
    Hysteresis,
    Chi,
    E,
    V0Min,
    DMax,
    RecurDynDamping,
    ND,
    Rdf,
    NV,
    Preload,
    RangeMin,
    RangeMax,
    DX,
    DY,
    NX,
    NY,
    PreloadX,
    PreloadY,
    TableFile,
    FrictionLaw,
    MuS,
    MuD,
    VS,
    VD,
    FTMax,
    MaxStictionDeformation,
    FrictionInterpolation,
    HeldForce,
    FlangeAS,
    FlangeAV,
    FlangeBS,
    FlangeBV,
    VTx,
    VTy,
    F,
    SRel,
    VRel,
    Contact,
    LossPower,
    HeatPortQFlow,
    FMean,
    FNext,
    MEffEstimate,
    ELoss,
    DerELoss,
    FC,
    FD,
    FTx,
    FTy,
    FTxMean,
    FTyMean,
    EPort,
    XiX,
    XiY,
    DerXiX,
    DerXiY,
    Time,
    IndicatorContact,
    IndicatorKink,
    IndicatorStickSlip,
    IndicatorStictionCircle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Real,
    Integer,
    Boolean,
    /// Text, kept by the FMI layer (the model's values are numbers); only `tableFile`.
    String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causality {
    /// Time, the one independent variable.
    Independent,
    Parameter,
    Input,
    Output,
    Local,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variability {
    Fixed,
    Tunable,
    Discrete,
    Continuous,
}

/// The admissible values of a parameter or input. Checked by the FMI layer (parameters when
/// initialization ends and whenever a tunable one is set; inputs on every set) and
/// written into the XML as `min`/`max` where it can be expressed there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// Any value (outputs, locals, Booleans).
    Any,
    /// Finite.
    Finite,
    /// Finite and `>= bound`.
    AtLeast(f64),
    /// Finite and `> 0`.
    Positive,
    /// Integer in `[lo, hi]`.
    Range(i32, i32),
    /// Finite and in `[lo, hi]`.
    Within(f64, f64),
    /// Finite, `> 0` and `<= hi`.
    PositiveAtMost(f64),
}

impl Rule {
    pub fn admits(self, value: f64) -> bool {
        match self {
            Rule::Any => true,
            Rule::Finite => value.is_finite(),
            Rule::AtLeast(bound) => value.is_finite() && value >= bound,
            Rule::Positive => value.is_finite() && value > 0.0,
            Rule::Range(lo, hi) => value >= f64::from(lo) && value <= f64::from(hi),
            Rule::Within(lo, hi) => value >= lo && value <= hi,
            Rule::PositiveAtMost(hi) => value > 0.0 && value <= hi,
        }
    }

    /// The rule in words, for error messages and the documentation.
    pub fn describe(self) -> std::string::String {
        match self {
            Rule::Any => "any value".to_string(),
            Rule::Finite => "a finite number".to_string(),
            Rule::AtLeast(bound) => format!("a finite number >= {bound}"),
            Rule::Positive => "a finite number > 0".to_string(),
            Rule::Range(lo, hi) => format!("an integer from {lo} to {hi}"),
            Rule::Within(lo, hi) => format!("a finite number from {lo} to {hi}"),
            Rule::PositiveAtMost(hi) => format!("a finite number > 0 and <= {hi}"),
        }
    }
}

/// Which way an output depends on an input, for `<ModelStructure>` `dependenciesKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// Linear with constant coefficients (`s_rel = flange_b.s - flange_a.s`).
    Constant(Var),
    /// Any other (nonlinear or switching) dependence.
    Dependent(Var),
}

pub struct Variable {
    pub var: Var,
    pub name: &'static str,
    pub value_reference: u32,
    pub kind: Kind,
    pub causality: Causality,
    pub variability: Variability,
    /// Start value (Booleans as 0/1); `None` for calculated variables.
    pub start: Option<f64>,
    pub unit: Option<&'static str>,
    pub rule: Rule,
    /// The Enumeration type of an Integer-valued choice (`<Enumeration declaredType=...>` in the
    /// XML, read and written as Integers).
    pub declared_type: Option<&'static Enumeration>,
    pub description: &'static str,
    /// Inputs this output depends on directly (no step between); empty for outputs whose value
    /// only changes in a co-simulation step.
    pub depends_on: &'static [Dependency],
}

use Causality::*;
use Dependency::*;
use Kind::*;
use Variability::*;

const NO_DEPENDENCY: &[Dependency] = &[];
const ON_POSITIONS: &[Dependency] = &[Constant(Var::FlangeAS), Constant(Var::FlangeBS)];
const ON_VELOCITIES: &[Dependency] = &[Constant(Var::FlangeAV), Constant(Var::FlangeBV)];
const ON_POSITIONS_SWITCHING: &[Dependency] = &[Dependent(Var::FlangeAS), Dependent(Var::FlangeBS)];
const ON_MOTION: &[Dependency] = &[
    Dependent(Var::FlangeAS),
    Dependent(Var::FlangeAV),
    Dependent(Var::FlangeBS),
    Dependent(Var::FlangeBV),
];
/// The friction's force and power: the normal force and the tangential velocity in the plane.
const ON_MOTION_AND_V_T: &[Dependency] = &[
    Dependent(Var::FlangeAS),
    Dependent(Var::FlangeAV),
    Dependent(Var::FlangeBS),
    Dependent(Var::FlangeBV),
    Dependent(Var::VTx),
    Dependent(Var::VTy),
];

macro_rules! variable {
    ($var:ident, $name:literal, $vr:literal, $kind:ident, $causality:ident, $variability:ident,
     $start:expr, $unit:expr, $rule:expr, $depends_on:expr, $description:literal) => {
        Variable {
            var: Var::$var,
            name: $name,
            value_reference: $vr,
            kind: $kind,
            causality: $causality,
            variability: $variability,
            start: $start,
            unit: $unit,
            rule: $rule,
            declared_type: None,
            description: $description,
            depends_on: $depends_on,
        }
    };
}

/// A fixed parameter that chooses an item of an Enumeration type.
macro_rules! choice {
    ($var:ident, $name:literal, $vr:literal, $type:expr, $start:literal, $description:literal) => {
        Variable {
            var: Var::$var,
            name: $name,
            value_reference: $vr,
            kind: Integer,
            causality: Parameter,
            variability: Fixed,
            start: Some($start),
            unit: None,
            rule: Rule::Range(1, $type.items.len() as i32),
            declared_type: Some(&$type),
            description: $description,
            depends_on: NO_DEPENDENCY,
        }
    };
}

/// An FMI Enumeration type; its items are valued 1, 2, ... in this order.
#[derive(Debug)]
pub struct Enumeration {
    pub name: &'static str,
    pub description: &'static str,
    /// Name and description of each item.
    pub items: &'static [(&'static str, &'static str)],
}

impl Enumeration {
    /// The name of the item with this value, if there is one.
    pub fn item(&self, value: i32) -> Option<&'static str> {
        let index = usize::try_from(value).ok()?.checked_sub(1)?;
        self.items.get(index).map(|(name, _)| *name)
    }
}

pub const FORCE_LAW: Enumeration = Enumeration {
    name: "ForceLaw",
    description: "The normal force law of the contact (delta = s_rel0 - s_rel, F_c = f_ref*(delta/s_ref)^n, f = -F_n)",
    items: &[
        ("ElastoGap", "MSL 4.1 ElastoGap: spring and damper, the damper force bounded by the spring force (never pulls)"),
        ("SpringDamper", "F_n = F_c + d*der(delta) while in contact, unbounded (pulls before lift-off)"),
        ("NoPulling", "F_n = max(0, F_c + d*der(delta)) (jumps at touch-down)"),
        ("HuntCrossley", "F_n = max(0, F_c*(1 + chi*der(delta))), chi given or from the coefficient of restitution e (parameter hysteresis)"),
        ("AdamsImpact", "MSC Adams IMPACT: F_n = max(0, F_c + STEP(delta, 0, 0, d_max, d)*der(delta))"),
        ("RecurDynContact", "RecurDyn contact: F_n = F_c + c_d(delta)*der(delta)*r, c_d by recurDynDamping, r = rdf while separating"),
        ("GapForce", "RecurDyn Gap Force: two-sided, f = f_ref*sgnpow((s_rel - s_rel0)/s_ref, n) + d*sgnpow(v_rel, n_v) - preload while rangeMin < s_rel < rangeMax, else 0; either part may be a table (tableFile)"),
    ],
};

pub const HYSTERESIS: Enumeration = Enumeration {
    name: "Hysteresis",
    description: "The hysteresis damping factor chi of the HuntCrossley law, from the coefficient of restitution e and the approach speed v0 at touch-down",
    items: &[
        ("Given", "chi = parameter chi"),
        ("HuntCrossley", "chi = 3*(1 - e)/(2*v0) (Hunt and Crossley 1975)"),
        ("LankaraniNikravesh", "chi = 3*(1 - e^2)/(4*v0) (Lankarani and Nikravesh 1990)"),
        ("Flores", "chi = 8*(1 - e)/(5*e*v0) (Flores et al. 2011)"),
        ("Gonthier", "chi = (1 - e^2)/(e*v0) (Gonthier et al. 2004)"),
    ],
};

pub const RECURDYN_DAMPING: Enumeration = Enumeration {
    name: "RecurDynDamping",
    description: "How the RecurDynContact damping coefficient c_d grows with the penetration",
    items: &[
        ("Power", "c_d = d*(delta/s_ref)^n_d"),
        ("Step", "c_d = STEP(delta, 0, 0, d_max, d)"),
    ],
};

pub const FRICTION_LAW: Enumeration = Enumeration {
    name: "FrictionLaw",
    description: "Tangential friction f_t = mu(v_t)*|f| of laws 1 to 6",
    items: &[
        ("None", "no friction (f_t = 0)"),
        ("Adams", "MSC Adams: mu = STEP(v_t, -v_s, -mu_s, v_s, mu_s) for |v_t| <= v_s, sign(v_t)*STEP(|v_t|, v_s, mu_s, v_d, mu_d) up to v_d, sign(v_t)*mu_d beyond"),
        ("RecurDyn", "RecurDyn: mu from 0 at rest to mu_s at v_s, to mu_d at v_d, mu_d beyond (frictionInterpolation: Step or Linear)"),
    ],
};

pub const FRICTION_INTERPOLATION: Enumeration = Enumeration {
    name: "FrictionInterpolation",
    description: "How RecurDyn friction's mu goes between its thresholds",
    items: &[("Step", "Adams' cubic STEP"), ("Linear", "a straight line")],
};

pub const HELD_FORCE: Enumeration = Enumeration {
    name: "HeldForce",
    description: "Which force output the co-simulation master holds on the bodies over a step",
    items: &[
        ("Auto", "told by the outputs the master reads (f_next alone: FNext, never f_next: FMean) and otherwise by its answers; the port's energy bound then counts the smaller of the two forces' work; a motion that answers no probe is taken as prescribed (None)"),
        ("FMean", "f_mean: the master steps this FMU before the bodies (Gauss-Seidel)"),
        ("FNext", "f_next: the master steps all units at once (Jacobi)"),
        ("None", "neither: the master prescribes the motion (input files, test benches); the steps are the law's integral along it"),
    ],
};

/// The Enumeration types of the interface, in the order of `<TypeDefinitions>`.
pub const TYPE_DEFINITIONS: [&Enumeration; 6] = [
    &FORCE_LAW,
    &HYSTERESIS,
    &RECURDYN_DAMPING,
    &FRICTION_LAW,
    &FRICTION_INTERPOLATION,
    &HELD_FORCE,
];

/// Value references are unique across all types so that a reference alone names a variable.
#[rustfmt::skip]
pub const VARIABLES: &[Variable] = &[
    variable!(Time, "time", 0, Real, Independent, Continuous, None, Some("s"), Rule::Any, NO_DEPENDENCY,
        "Simulation time"),
    variable!(C, "c", 1, Real, Parameter, Tunable, Some(1.0), Some("N/m"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Spring constant (>= 0); used for the default reference force f_ref = c*s_ref"),
    variable!(D, "d", 2, Real, Parameter, Tunable, Some(1.0), Some("N.s/m"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Damping constant (>= 0)"),
    variable!(SRel0, "s_rel0", 3, Real, Parameter, Tunable, Some(0.0), Some("m"), Rule::Finite, NO_DEPENDENCY,
        "Unstretched length: contact while s_rel < s_rel0"),
    variable!(N, "n", 4, Real, Parameter, Tunable, Some(1.0), Some("1"), Rule::AtLeast(1.0), NO_DEPENDENCY,
        "Exponent of the spring force law, f_c = -f_ref*|(s_rel - s_rel0)/s_ref|^n (>= 1)"),
    variable!(SRef, "s_ref", 5, Real, Parameter, Tunable, Some(1.0), Some("m"), Rule::Positive, NO_DEPENDENCY,
        "Reference relative compression at which |f_c| = f_ref (> 0)"),
    variable!(FRef, "f_ref", 6, Real, Parameter, Tunable, Some(0.0), Some("N"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Reference spring force at s_ref (>= 0); 0 selects the Modelica default c*s_ref"),
    variable!(UseHeatPort, "useHeatPort", 7, Boolean, Parameter, Fixed, Some(0.0), None, Rule::Any, NO_DEPENDENCY,
        "If true, the dissipated power leaves through heatPort.Q_flow"),
    variable!(MaxSubstepSize, "maxSubstepSize", 8, Real, Parameter, Tunable, Some(1e-4), Some("s"), Rule::Positive, NO_DEPENDENCY,
        "Longest piece a contact phase is cut into where the law is integrated numerically along the motion (laws not piecewise affine); pieces are bisected shorter where the error asks for it (> 0)"),
    variable!(MaxSubstepCount, "maxSubstepCount", 9, Integer, Parameter, Tunable, Some(1000.0), None, Rule::Range(1, 1_000_000), NO_DEPENDENCY,
        "Most substeps in one communication step; bounds the cost of a long step (1 to 1000000)"),
    variable!(AccelerationEstimate, "accelerationEstimate", 10, Integer, Parameter, Tunable, Some(3.0), None, Rule::Range(0, 3), NO_DEPENDENCY,
        "Flange acceleration the motion is extrapolated with over a step: 0 none (velocity only), 1 last step's mean, 2 second-order backward difference of the velocity inputs, 3 mean over the coming step extrapolated from the last steps (default); an acceleration the master supplies as an input derivative, where the standard has them, is used as given instead"),
    variable!(MEff, "m_eff", 15, Real, Parameter, Tunable, Some(0.0), Some("kg"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Co-simulation: effective (reduced) mass of the relative motion as the contact sees it: the body's mass for a body on a fixed housing, m_a*m_b/(m_a + m_b) for two bodies. With it, each step integrates the relative motion under the contact's own force, exact at any step size for a body on a housing. 0 (default): learned from the master's answers to the forces the FMU has it hold (output m_eff_estimate) (>= 0)"),
    variable!(RelativeTolerance, "relativeTolerance", 16, Real, Parameter, Tunable, Some(1e-6), Some("1"), Rule::Positive, NO_DEPENDENCY,
        "Relative accuracy of the adaptive integration inside a step, for laws that are not piecewise affine (n != 1, HuntCrossley, AdamsImpact, RecurDynContact) (> 0)"),
    choice!(ForceLaw, "forceLaw", 40, FORCE_LAW, 1.0,
        "Normal force law (ForceLaw): 1 ElastoGap (MSL 4.1, default), 2 SpringDamper, 3 NoPulling, 4 HuntCrossley, 5 AdamsImpact, 6 RecurDynContact, 7 GapForce"),
    choice!(Hysteresis, "hysteresis", 41, HYSTERESIS, 3.0,
        "HuntCrossley law: how chi is obtained (Hysteresis): 1 Given (parameter chi), 2 HuntCrossley, 3 LankaraniNikravesh (default), 4 Flores, 5 Gonthier, from e and the approach speed at touch-down"),
    variable!(Chi, "chi", 42, Real, Parameter, Tunable, Some(0.0), Some("s/m"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "HuntCrossley law with hysteresis = Given: the hysteresis damping factor chi (>= 0)"),
    variable!(E, "e", 43, Real, Parameter, Tunable, Some(0.8), Some("1"), Rule::PositiveAtMost(1.0), NO_DEPENDENCY,
        "HuntCrossley law: the coefficient of restitution chi is made for (> 0 and <= 1)"),
    variable!(V0Min, "v0_min", 44, Real, Parameter, Tunable, Some(1e-3), Some("m/s"), Rule::Positive, NO_DEPENDENCY,
        "HuntCrossley law: the smallest approach speed chi is computed with, for a contact that starts at rest or grazing (> 0)"),
    variable!(DMax, "d_max", 45, Real, Parameter, Tunable, Some(1e-4), Some("m"), Rule::Positive, NO_DEPENDENCY,
        "AdamsImpact law and RecurDynContact with Step damping: the penetration at which the damping reaches d (Adams IMPACT: d, the penetration of full damping cmax) (> 0)"),
    choice!(RecurDynDamping, "recurDynDamping", 46, RECURDYN_DAMPING, 1.0,
        "RecurDynContact law: the damping coefficient's growth with penetration (RecurDynDamping): 1 Power d*(delta/s_ref)^n_d (default), 2 Step STEP(delta, 0, 0, d_max, d)"),
    variable!(ND, "n_d", 47, Real, Parameter, Tunable, Some(1.0), Some("1"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "RecurDynContact law with Power damping: the exponent of the penetration in the damping coefficient, c_d = d*(delta/s_ref)^n_d (RecurDyn: indentation exponent of the damping) (>= 0)"),
    variable!(Rdf, "rdf", 48, Real, Parameter, Tunable, Some(0.001), Some("1"), Rule::Within(0.0, 1.0), NO_DEPENDENCY,
        "RecurDynContact law: the rebound damping factor, the share of the damping while the bodies separate (RecurDyn: RDF) (0 to 1)"),
    variable!(NV, "n_v", 49, Real, Parameter, Tunable, Some(1.0), Some("1"), Rule::AtLeast(1.0), NO_DEPENDENCY,
        "GapForce law: the exponent of the relative velocity in the damper part, d*sgnpow(v_rel, n_v) (RecurDyn: damping exponent) (>= 1)"),
    variable!(Preload, "preload", 50, Real, Parameter, Tunable, Some(0.0), Some("N"), Rule::Finite, NO_DEPENDENCY,
        "GapForce law: constant force on the body at flange_b while in range (f = ... - preload) (RecurDyn: preload)"),
    variable!(RangeMin, "rangeMin", 51, Real, Parameter, Tunable, Some(-1e100), Some("m"), Rule::Finite, NO_DEPENDENCY,
        "GapForce law: the force acts while rangeMin < s_rel < rangeMax (default -1e100: no lower end) (RecurDyn: range min)"),
    variable!(RangeMax, "rangeMax", 52, Real, Parameter, Tunable, Some(0.0), Some("m"), Rule::Finite, NO_DEPENDENCY,
        "GapForce law: the force acts while rangeMin < s_rel < rangeMax (> rangeMin; default 0, the default s_rel0) (RecurDyn: range max)"),
    variable!(DX, "d_x", 65, Real, Parameter, Tunable, Some(0.0), Some("N.s/m"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "GapForce law: tangential damping along x, f_tx = d_x*sgnpow(v_tx, n_x) - preload_x while rangeMin < s_rel < rangeMax (>= 0) (RecurDyn: C_x)"),
    variable!(DY, "d_y", 66, Real, Parameter, Tunable, Some(0.0), Some("N.s/m"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "GapForce law: tangential damping along y, f_ty = d_y*sgnpow(v_ty, n_y) - preload_y while rangeMin < s_rel < rangeMax (>= 0) (RecurDyn: C_y)"),
    variable!(NX, "n_x", 67, Real, Parameter, Tunable, Some(1.0), Some("1"), Rule::AtLeast(1.0), NO_DEPENDENCY,
        "GapForce law: exponent of the tangential damping along x (>= 1) (RecurDyn: n_x)"),
    variable!(NY, "n_y", 68, Real, Parameter, Tunable, Some(1.0), Some("1"), Rule::AtLeast(1.0), NO_DEPENDENCY,
        "GapForce law: exponent of the tangential damping along y (>= 1) (RecurDyn: n_y)"),
    variable!(PreloadX, "preload_x", 69, Real, Parameter, Tunable, Some(0.0), Some("N"), Rule::Finite, NO_DEPENDENCY,
        "GapForce law: tangential preload along x, the body at flange_b pushed along +x by it while in range (RecurDyn: P_x')"),
    variable!(PreloadY, "preload_y", 70, Real, Parameter, Tunable, Some(0.0), Some("N"), Rule::Finite, NO_DEPENDENCY,
        "GapForce law: tangential preload along y, the body at flange_b pushed along +y by it while in range (RecurDyn: P_y')"),
    variable!(TableFile, "tableFile", 53, String, Parameter, Fixed, None, None, Rule::Any, NO_DEPENDENCY,
        "GapForce law: a JSON file with \"stiffness\": [[s_rel - s_rel0, force], ...] and/or \"damping\": [[v_rel, force], ...] replacing the spring and/or damper part (monotone cubic of Fritsch and Butland, end slopes continued); a path relative to the FMU's resources folder, an absolute path or a file: URI; empty: none"),
    choice!(FrictionLaw, "frictionLaw", 54, FRICTION_LAW, 1.0,
        "Tangential friction of laws 1 to 6 (FrictionLaw): 1 None (default), 2 Adams, 3 RecurDyn; in the tangential plane f_t = mu(|v_t|)*|f|*v_t/|v_t| (v_t = (v_tx, v_ty)), its power f_t.v_t added to lossPower, E_loss and the heat port"),
    variable!(MuS, "mu_s", 55, Real, Parameter, Tunable, Some(0.3), Some("1"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Friction: static coefficient, reached at v_s (>= 0)"),
    variable!(MuD, "mu_d", 56, Real, Parameter, Tunable, Some(0.2), Some("1"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Friction: dynamic coefficient, from v_d on (>= 0)"),
    variable!(VS, "v_s", 57, Real, Parameter, Tunable, Some(1e-3), Some("m/s"), Rule::Positive, NO_DEPENDENCY,
        "Friction: the static (stiction) threshold velocity (Adams: stiction transition velocity) (> 0)"),
    variable!(VD, "v_d", 58, Real, Parameter, Tunable, Some(1e-2), Some("m/s"), Rule::Positive, NO_DEPENDENCY,
        "Friction: the dynamic threshold velocity (Adams: friction transition velocity) (> 0 and > v_s)"),
    variable!(FTMax, "f_t_max", 59, Real, Parameter, Tunable, Some(0.0), Some("N"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Friction: the largest magnitude |f_t| of the tangential force (0: no limit) (>= 0)"),
    variable!(MaxStictionDeformation, "maxStictionDeformation", 71, Real, Parameter, Tunable, Some(0.0), Some("m"), Rule::AtLeast(0.0), NO_DEPENDENCY,
        "Friction: stick-slip (RecurDyn: Max Stiction Deformation). Below v_s the contact sticks: f_t = mu_s*|f|*xi/maxStictionDeformation on a tangential deformation xi that follows the slip and saturates at |xi| = maxStictionDeformation; 0 (default): no sticking, the curve alone (>= 0)"),
    choice!(FrictionInterpolation, "frictionInterpolation", 60, FRICTION_INTERPOLATION, 1.0,
        "RecurDyn friction: how mu goes between its thresholds (FrictionInterpolation): 1 Step (default), 2 Linear"),
    choice!(HeldForce, "heldForce", 76, HELD_FORCE, 1.0,
        "Co-simulation: which force the master holds on the bodies (HeldForce): 1 Auto (default), 2 FMean (Gauss-Seidel, this FMU stepped first), 3 FNext (Jacobi, all units stepped at once), 4 None (the master prescribes the motion: the steps are the law's integral along it, m_eff unused). Auto: a master that reads only f_next holds f_next, one that never reads f_next holds f_mean; for one that reads both, every force is bounded by the smaller of the two forces' energy accounts for the whole run (set 2 or 3 to lift that). Left at Auto with m_eff = 0, a motion that answers no probe (an input file) is taken as prescribed from then on, with a warning"),
    variable!(FlangeAS, "flange_a.s", 11, Real, Input, Continuous, Some(0.0), Some("m"), Rule::Finite, NO_DEPENDENCY,
        "Absolute position of flange_a"),
    variable!(FlangeAV, "flange_a.v", 12, Real, Input, Continuous, Some(0.0), Some("m/s"), Rule::Finite, NO_DEPENDENCY,
        "Absolute velocity of flange_a"),
    variable!(FlangeBS, "flange_b.s", 13, Real, Input, Continuous, Some(0.0), Some("m"), Rule::Finite, NO_DEPENDENCY,
        "Absolute position of flange_b"),
    variable!(FlangeBV, "flange_b.v", 14, Real, Input, Continuous, Some(0.0), Some("m/s"), Rule::Finite, NO_DEPENDENCY,
        "Absolute velocity of flange_b"),
    variable!(VTx, "v_tx", 17, Real, Input, Continuous, Some(0.0), Some("m/s"), Rule::Finite, NO_DEPENDENCY,
        "Tangential velocity of flange_b relative to flange_a along the contact plane's x axis, for the friction (held over a co-simulation step)"),
    variable!(VTy, "v_ty", 62, Real, Input, Continuous, Some(0.0), Some("m/s"), Rule::Finite, NO_DEPENDENCY,
        "Tangential velocity of flange_b relative to flange_a along the contact plane's y axis, for the friction (held over a co-simulation step)"),
    variable!(F, "f", 20, Real, Output, Continuous, None, Some("N"), Rule::Any, ON_MOTION,
        "Modelica's flange_b.f (flange_a.f = -f): the body at flange_b is pushed by -f, the body at flange_a by +f; f = f_c + f_d, <= 0 (never pulling) under ElastoGap, NoPulling, HuntCrossley and AdamsImpact"),
    variable!(SRel, "s_rel", 21, Real, Output, Continuous, None, Some("m"), Rule::Any, ON_POSITIONS,
        "Relative distance flange_b.s - flange_a.s"),
    variable!(VRel, "v_rel", 22, Real, Output, Continuous, None, Some("m/s"), Rule::Any, ON_VELOCITIES,
        "Relative velocity flange_b.v - flange_a.v"),
    variable!(Contact, "contact", 23, Boolean, Output, Discrete, None, None, Rule::Any, ON_POSITIONS_SWITCHING,
        "True while in contact: s_rel < s_rel0 (GapForce: rangeMin < s_rel < rangeMax)"),
    variable!(LossPower, "lossPower", 24, Real, Output, Continuous, None, Some("W"), Rule::Any, ON_MOTION_AND_V_T,
        "Instantaneous dissipated power f_d*v_rel + f_tx*v_tx + f_ty*v_ty (>= 0; of the Gap Force's tangential forces the dampers' part, not the preloads' work)"),
    // Declared on the motion for Model Exchange, where it is -lossPower; in co-simulation it is the
    // step mean and does not depend on the inputs, which the declaration allows.
    variable!(HeatPortQFlow, "heatPort.Q_flow", 25, Real, Output, Continuous, None, Some("W"), Rule::Any, ON_MOTION_AND_V_T,
        "Heat flow into the heat port if useHeatPort, else 0. Co-simulation: mean over the last communication step, -(energy dissipated)/h; Model Exchange: -lossPower"),
    variable!(FMean, "f_mean", 26, Real, Output, Continuous, None, Some("N"), Rule::Any, NO_DEPENDENCY,
        "Co-simulation: the force to hold over the step just taken, its impulse over h. The law's mean along the extrapolated input motion where the motion is prescribed (heldForce = None, or taken as such) and at steps of at most 0.01 times the contact's duration through the mass in use; the mean of the contact's own dynamics through a mass (m_eff, or one the answers told); at a contact new to the master without a mass, a probe of 1e-5 of the impulse along the motion; f_next's value where the answers show that the master may hold f_mean a step late (warned once they tell it does). Bounded so that the port gives the bodies no energy it has not received, except where the motion is prescribed, under the GapForce law and for a contact's first probe. Model Exchange: f as of the last event or completed integrator step (no meaning of its own)"),
    variable!(FNext, "f_next", 29, Real, Output, Continuous, None, Some("N"), Rule::Any, NO_DEPENDENCY,
        "Co-simulation: mean force predicted over the master's next step (as long as the last one, or after an early return the rest of the step it asked for) from the state at the end of this step; connect it for masters that step all units at once (Jacobi) and apply it over the next step. Before the first step: f. Model Exchange: equal to f_mean"),
    variable!(MEffEstimate, "m_eff_estimate", 32, Real, Output, Discrete, None, Some("kg"), Rule::Any, NO_DEPENDENCY,
        "Co-simulation: the effective mass the master's latest clear answer told (a force the FMU had it hold, against the velocity change it caused): a probe's answer, a completed contact's, or with a mass in use any step's; 0 until an answer has told one"),
    // A state as an output lists no dependencies, as the Reference FMUs' BouncingBall does: what it
    // depends on is the state itself, and co-simulation masters look only for inputs there.
    variable!(ELoss, "E_loss", 27, Real, Output, Continuous, None, Some("J"), Rule::Any, NO_DEPENDENCY,
        "Energy dissipated since the start (never decreases). Model Exchange: the integral of lossPower, the continuous state. Co-simulation: the law's dissipation over the steps; with a mass (given or estimated), held within what the port has received"),
    variable!(DerELoss, "der(E_loss)", 28, Real, Local, Continuous, None, Some("W"), Rule::Any, ON_MOTION_AND_V_T,
        "Time derivative of E_loss, equal to lossPower"),
    variable!(FC, "f_c", 30, Real, Local, Continuous, None, Some("N"), Rule::Any, NO_DEPENDENCY,
        "Spring part of f (<= 0; GapForce: two-sided, with the preload)"),
    variable!(FD, "f_d", 31, Real, Local, Continuous, None, Some("N"), Rule::Any, NO_DEPENDENCY,
        "Damper part of f, f - f_c (ElastoGap: bounded by the spring part, |f_d| <= |f_c|)"),
    variable!(FTx, "f_tx", 33, Real, Output, Continuous, None, Some("N"), Rule::Any, ON_MOTION_AND_V_T,
        "Tangential force at flange_b along x (the body there feels -f_t): the friction f_t = mu(|v_t|)*|f|*v_t/|v_t| slipping, or mu_s*|f|*xi/maxStictionDeformation sticking, |f_t| at most f_t_max (laws 1 to 6), or the Gap Force's d_x*sgnpow(v_tx, n_x) - preload_x in range; 0 without either"),
    variable!(FTy, "f_ty", 63, Real, Output, Continuous, None, Some("N"), Rule::Any, ON_MOTION_AND_V_T,
        "Tangential force at flange_b along y (the body there feels -f_t): the friction f_t = mu(|v_t|)*|f|*v_t/|v_t| slipping, or mu_s*|f|*xi/maxStictionDeformation sticking, |f_t| at most f_t_max (laws 1 to 6), or the Gap Force's d_y*sgnpow(v_ty, n_y) - preload_y in range; 0 without either"),
    variable!(FTxMean, "f_tx_mean", 34, Real, Output, Continuous, None, Some("N"), Rule::Any, NO_DEPENDENCY,
        "Co-simulation: mean of f_tx over the last communication step (tangential impulse/h, v_t held); apply it over the same step. Model Exchange: equal to f_tx"),
    variable!(FTyMean, "f_ty_mean", 64, Real, Output, Continuous, None, Some("N"), Rule::Any, NO_DEPENDENCY,
        "Co-simulation: mean of f_ty over the last communication step (tangential impulse/h, v_t held); apply it over the same step. Model Exchange: equal to f_ty"),
    // Model Exchange: the spring energy is a nonlinear function of the positions.
    variable!(EPort, "E_port", 61, Real, Output, Continuous, None, Some("J"), Rule::Any, ON_POSITIONS_SWITCHING,
        "Energy the bodies have given to the contact through its flanges (integral of f*v_rel). Co-simulation: measured, the sum over the steps of the force the master held times the relative displacement it reported (what it received before the last step; with a mass, once a contact is over, E_loss equals it). Model Exchange: E_loss plus the spring energy stored now against the start"),
    // The friction's stiction deformation: Model Exchange's continuous states, co-simulation's
    // state at the end of the last step.
    variable!(XiX, "xi_x", 72, Real, Local, Continuous, None, Some("m"), Rule::Any, NO_DEPENDENCY,
        "Stick-slip: the friction's tangential deformation along x (|xi| <= maxStictionDeformation; 0 without stick-slip or out of contact); a continuous state of Model Exchange"),
    variable!(XiY, "xi_y", 73, Real, Local, Continuous, None, Some("m"), Rule::Any, NO_DEPENDENCY,
        "Stick-slip: the friction's tangential deformation along y; a continuous state of Model Exchange"),
    variable!(DerXiX, "der(xi_x)", 74, Real, Local, Continuous, None, Some("m/s"), Rule::Any, ON_MOTION_AND_V_T,
        "Time derivative of xi_x: v_tx while sticking inside the circle, its part along the circle on it, 0 slipping or out of contact"),
    variable!(DerXiY, "der(xi_y)", 75, Real, Local, Continuous, None, Some("m/s"), Rule::Any, ON_MOTION_AND_V_T,
        "Time derivative of xi_y"),
    // The event indicators as variables, which the newer standard's model structure names (the
    // older one only counts them); their values are those of the indicator vector
    // (EVENT_INDICATORS).
    variable!(IndicatorContact, "eventIndicator.contact", 90, Real, Local, Continuous, None, Some("m"), Rule::Any, ON_POSITIONS,
        "Model Exchange's contact indicator: how far s_rel is outside the contact range; contact starts where it falls through 0 and ends where it rises through 0"),
    variable!(IndicatorKink, "eventIndicator.kink", 91, Real, Local, Continuous, None, Some("N"), Rule::Any, ON_MOTION,
        "Model Exchange's indicator of the law's branch in contact (ElastoGap: |d*v_rel| + f_c, positive where the damper force is bounded by the spring force)"),
    variable!(IndicatorStickSlip, "eventIndicator.stickSlip", 92, Real, Local, Continuous, None, Some("m/s"), Rule::Any, ON_MOTION_AND_V_T,
        "Model Exchange's stick-slip indicator: |v_t| - v_s in contact with stick-slip, where the contact sticks or slips; 1 otherwise"),
    variable!(IndicatorStictionCircle, "eventIndicator.stictionCircle", 93, Real, Local, Continuous, None, None, Rule::Any, ON_MOTION_AND_V_T,
        "Model Exchange's stiction-circle indicator: while sticking, delta - |xi| inside the circle, or the slip's outward part on it; 1 otherwise"),
];

/// The continuous states of Model Exchange, each with the variable that is its time derivative, in
/// the order of the state vector and of `<Derivatives>`.
pub const STATES: [(Var, Var); 3] = [
    (Var::ELoss, Var::DerELoss),
    (Var::XiX, Var::DerXiX),
    (Var::XiY, Var::DerXiY),
];

/// The event indicators of Model Exchange, in the order of the indicator vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventIndicator {
    /// How far `s_rel` is outside the contact range (`s_rel - s_rel0` for the one-sided laws,
    /// `max(rangeMin - s_rel, s_rel - rangeMax)` for the Gap Force): contact starts where it falls
    /// through 0 and ends where it rises through 0.
    Contact,
    /// The law's kink indicator: in contact, its sign changes where the law switches branch. For
    /// ElastoGap `|d*v_rel| + f_c`, positive where the damper force is bounded by the spring force;
    /// it only touches 0 where v_rel = 0 outside contact, so free flight raises no events.
    Kink,
    /// Stick–slip (friction with `maxStictionDeformation` > 0, in contact): `|v_t| - v_s`, which
    /// falls through 0 where the contact sticks and rises through it where it slips; 1 otherwise.
    StickSlip,
    /// Sticking: `delta - |xi|` inside the stiction circle (0 where the deformation reaches it);
    /// on it, the slip's outward part `v_t.xi/|xi|`, which falls through 0 where the deformation
    /// leaves it; 1 otherwise.
    StictionCircle,
}

impl EventIndicator {
    /// The variable that carries this indicator's value (a model description's `<EventIndicator>` names it).
    pub const fn var(self) -> Var {
        match self {
            EventIndicator::Contact => Var::IndicatorContact,
            EventIndicator::Kink => Var::IndicatorKink,
            EventIndicator::StickSlip => Var::IndicatorStickSlip,
            EventIndicator::StictionCircle => Var::IndicatorStictionCircle,
        }
    }
}

pub const EVENT_INDICATORS: [EventIndicator; 4] = [
    EventIndicator::Contact,
    EventIndicator::Kink,
    EventIndicator::StickSlip,
    EventIndicator::StictionCircle,
];

/// How many inputs the interface has.
pub const INPUT_COUNT: usize = {
    let mut count = 0;
    let mut k = 0;
    while k < VARIABLES.len() {
        if matches!(VARIABLES[k].causality, Causality::Input) {
            count += 1;
        }
        k += 1;
    }
    count
};

pub fn by_value_reference(value_reference: u32) -> Option<&'static Variable> {
    let row = *ROW_OF_VALUE_REFERENCE.get(value_reference as usize)?;
    VARIABLES.get(usize::from(row))
}

/// The row in `VARIABLES` of each value reference (`u8::MAX` where none has it), built at compile
/// time: every value an importer gets or sets is looked up, and a search of the table would cost
/// a step with supplied input derivatives more than its integration.
const ROW_OF_VALUE_REFERENCE: [u8; VALUE_REFERENCE_BOUND] = {
    assert!(VARIABLES.len() < u8::MAX as usize);
    let mut rows = [u8::MAX; VALUE_REFERENCE_BOUND];
    let mut k = 0;
    while k < VARIABLES.len() {
        let slot = VARIABLES[k].value_reference as usize;
        assert!(
            rows[slot] == u8::MAX,
            "two variables share a value reference"
        );
        rows[slot] = k as u8;
        k += 1;
    }
    rows
};

/// One more than the largest value reference.
const VALUE_REFERENCE_BOUND: usize = {
    let mut bound = 0;
    let mut k = 0;
    while k < VARIABLES.len() {
        let after = VARIABLES[k].value_reference as usize + 1;
        if after > bound {
            bound = after;
        }
        k += 1;
    }
    bound
};

pub fn by_var(var: Var) -> &'static Variable {
    &VARIABLES[usize::from(ROW_OF_VAR[var as usize])]
}

/// The row in `VARIABLES` of each `Var`, built at compile time: every value an importer sets is
/// checked against its variable's rule, and a search of the table would cost a set call more
/// than its checks.
const ROW_OF_VAR: [u8; VARIABLES.len()] = {
    let mut rows = [u8::MAX; VARIABLES.len()];
    let mut k = 0;
    while k < VARIABLES.len() {
        let slot = VARIABLES[k].var as usize;
        assert!(rows[slot] == u8::MAX, "two rows of VARIABLES share a Var");
        rows[slot] = k as u8;
        k += 1;
    }
    let mut v = 0;
    while v < rows.len() {
        assert!(rows[v] != u8::MAX, "every Var has a row in VARIABLES");
        v += 1;
    }
    rows
};

/// Units used in the table and their SI base-unit exponents (kg, m, s) for `<UnitDefinitions>`.
pub const UNITS: &[(&str, i32, i32, i32)] = &[
    ("N/m", 1, 0, -2),
    ("kg", 1, 0, 0),
    ("N.s/m", 1, 0, -1),
    ("m", 0, 1, 0),
    ("1", 0, 0, 0),
    ("N", 1, 1, -2),
    ("s", 0, 0, 1),
    ("m/s", 0, 1, -1),
    ("W", 1, 2, -3),
    ("J", 1, 2, -2),
    ("s/m", 0, -1, 1),
];

/// A canonical text of everything in the table that an importer relies on; the GUID is its hash,
/// so any interface change gives a new GUID.
pub fn interface_fingerprint() -> std::string::String {
    let mut text = std::string::String::new();
    text.push_str(&format!("states {STATES:?} events {EVENT_INDICATORS:?}\n"));
    for enumeration in TYPE_DEFINITIONS {
        text.push_str(&format!("{enumeration:?}\n"));
    }
    for v in VARIABLES {
        text.push_str(&format!(
            "{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}\n",
            v.name,
            v.value_reference,
            v.kind,
            v.causality,
            v.variability,
            v.start.map(f64::to_bits),
            v.unit,
            v.rule,
            v.depends_on,
            v.declared_type.map(|t| t.name)
        ));
    }
    text
}

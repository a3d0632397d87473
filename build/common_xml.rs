//! What the FMI 2.0 and FMI 3.0 model descriptions write alike: escaping, units, and the attributes
//! a variable's table row gives in both (causality, variability, initial, unit, bounds, start).

use crate::variables::{self, Causality, Kind, Rule, Var, Variability, Variable, STATES, UNITS};
use std::fmt::Write as _;

pub fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn unit_definitions() -> String {
    let mut out = String::new();
    for (name, kg, m, s) in UNITS {
        let mut exponents = String::new();
        for (symbol, exponent) in [("kg", kg), ("m", m), ("s", s)] {
            if *exponent != 0 {
                write!(exponents, " {symbol}=\"{exponent}\"").unwrap();
            }
        }
        writeln!(
            out,
            "    <Unit name=\"{}\">\n      <BaseUnit{exponents}/>\n    </Unit>",
            xml_escape(name)
        )
        .unwrap();
    }
    out.trim_end().to_string()
}

fn format_real(x: f64) -> String {
    // `{:?}` is the shortest text that reads back to the same f64.
    format!("{x:?}")
}

/// ` causality=".." variability=".."` and, where the standard wants one, ` initial=".."`.
pub fn causality_attributes(v: &Variable) -> String {
    let causality = match v.causality {
        Causality::Independent => "independent",
        Causality::Parameter => "parameter",
        Causality::Input => "input",
        Causality::Output => "output",
        Causality::Local => "local",
    };
    let variability = match v.variability {
        Variability::Fixed => "fixed",
        Variability::Tunable => "tunable",
        Variability::Discrete => "discrete",
        Variability::Continuous => "continuous",
    };
    // Parameters and inputs are set by the user (exact); everything else is computed.
    let initial = match v.causality {
        Causality::Parameter => " initial=\"exact\"",
        Causality::Input | Causality::Independent => "",
        Causality::Output | Causality::Local => " initial=\"calculated\"",
    };
    format!(" causality=\"{causality}\" variability=\"{variability}\"{initial}")
}

/// The state whose time derivative `var` is, if it is one.
pub fn state_of(var: Var) -> Option<Var> {
    STATES
        .iter()
        .find(|(_, derivative)| *derivative == var)
        .map(|(state, _)| *state)
}

/// The type's attributes of a Real, Integer (with or without a declared Enumeration type) or
/// Boolean row, in the FMI 2.0 writer's order; `reference` names a state for `derivative` (its
/// index in FMI 2.0, its value reference in FMI 3.0). Empty for String, which each standard writes
/// its own way.
pub fn value_attributes(v: &Variable, reference: impl Fn(Var) -> String) -> String {
    let mut attributes = String::new();
    match (v.kind, v.declared_type) {
        (Kind::Real, _) => {
            if let Some(unit) = v.unit {
                write!(attributes, " unit=\"{}\"", xml_escape(unit)).unwrap();
            }
            if let Some(state) = state_of(v.var) {
                write!(attributes, " derivative=\"{}\"", reference(state)).unwrap();
            }
            attributes.push_str(&real_bounds(v.rule));
            if let Some(start) = v.start {
                write!(attributes, " start=\"{}\"", format_real(start)).unwrap();
            }
        }
        (Kind::Integer, Some(declared)) => {
            write!(
                attributes,
                " declaredType=\"{}\"",
                xml_escape(declared.name)
            )
            .unwrap();
            if let Some(start) = v.start {
                write!(attributes, " start=\"{}\"", start as i64).unwrap();
            }
        }
        (Kind::Integer, None) => {
            if let Rule::Range(lo, hi) = v.rule {
                write!(attributes, " min=\"{lo}\" max=\"{hi}\"").unwrap();
            }
            if let Some(start) = v.start {
                write!(attributes, " start=\"{}\"", start as i64).unwrap();
            }
        }
        (Kind::Boolean, _) => {
            if let Some(start) = v.start {
                let text = if start != 0.0 { "true" } else { "false" };
                write!(attributes, " start=\"{text}\"").unwrap();
            }
        }
        (Kind::String, _) => {}
    }
    attributes
}

/// ` min`/` max` of a Real rule, where the XML can say it.
fn real_bounds(rule: Rule) -> String {
    match rule {
        Rule::AtLeast(bound) => format!(" min=\"{}\"", format_real(bound)),
        Rule::Within(lo, hi) => format!(" min=\"{}\" max=\"{}\"", format_real(lo), format_real(hi)),
        // The XML's bounds are inclusive: the open lower one is only in the rule.
        Rule::PositiveAtMost(hi) => format!(" max=\"{}\"", format_real(hi)),
        _ => String::new(),
    }
}

pub fn outputs() -> impl Iterator<Item = &'static Variable> {
    variables::VARIABLES
        .iter()
        .filter(|v| v.causality == Causality::Output)
}

/// The state derivatives of Model Exchange, in the order of `STATES` (the state vector's).
pub fn derivatives() -> impl Iterator<Item = &'static Variable> {
    STATES
        .iter()
        .map(|(_, derivative)| variables::by_var(*derivative))
}

/// All outputs, continuous states and state derivatives are calculated at initialization, in
/// table order.
pub fn initial_unknowns() -> impl Iterator<Item = &'static Variable> {
    let is_derivative = |var: Var| STATES.iter().any(|(_, derivative)| *derivative == var);
    let is_state = |var: Var| STATES.iter().any(|(state, _)| *state == var);
    variables::VARIABLES.iter().filter(move |v| {
        v.causality == Causality::Output || is_derivative(v.var) || is_state(v.var)
    })
}

/// ` dependencies=".." dependenciesKind=".."` of an unknown, the knowns named by `reference` and
/// sorted by it (FMI 2.0: indices; FMI 3.0: value references), or ` dependencies=""` for none.
pub fn dependency_attributes(v: &Variable, reference: impl Fn(Var) -> usize) -> String {
    let mut pairs: Vec<(usize, &str)> = v
        .depends_on
        .iter()
        .map(|dependency| match dependency {
            variables::Dependency::Constant(known) => (reference(*known), "constant"),
            variables::Dependency::Dependent(known) => (reference(*known), "dependent"),
        })
        .collect();
    if pairs.is_empty() {
        return " dependencies=\"\"".to_string();
    }
    pairs.sort_unstable();
    let indices: Vec<String> = pairs.iter().map(|(i, _)| i.to_string()).collect();
    let kinds: Vec<&str> = pairs.iter().map(|(_, k)| *k).collect();
    format!(
        " dependencies=\"{}\" dependenciesKind=\"{}\"",
        indices.join(" "),
        kinds.join(" ")
    )
}

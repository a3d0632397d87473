//! `modelDescription3.xml` (FMI 3.0) from `modelDescription3.xml.in` and the variable table: the
//! same variables, value references and attributes as the FMI 2.0 description, in FMI 3.0's form
//! (typed elements, value references instead of indices in the model structure).

use crate::common_xml::{
    causality_attributes, dependency_attributes, derivatives, initial_unknowns, outputs,
    unit_definitions, value_attributes, xml_escape,
};
use crate::variables::{self, Kind, Var, Variable, EVENT_INDICATORS, TYPE_DEFINITIONS, VARIABLES};
use std::fmt::Write as _;

/// The template with every placeholder filled; `header` fills the ones both standards share.
pub fn model_description(template: &str, header: &dyn Fn(&str) -> String) -> String {
    header(template)
        .replace("@UNIT_DEFINITIONS@", &unit_definitions())
        .replace("@TYPE_DEFINITIONS@", &type_definitions())
        .replace("@MODEL_VARIABLES@", &model_variables())
        .replace("@MODEL_STRUCTURE@", &model_structure())
}

/// The `<Float64Type>` of each unit: FMI 3.0 variables take their units from it rather than from
/// a `unit` attribute of their own, which fmi-sim 0.7 (fmi-schema 0.8) refuses to read.
const FLOAT64_TYPES: [(&str, &str); 11] = [
    ("N/m", "TranslationalSpringConstant"),
    ("kg", "Mass"),
    ("N.s/m", "TranslationalDampingConstant"),
    ("m", "Length"),
    ("1", "DimensionlessRatio"),
    ("N", "Force"),
    ("s", "Time"),
    ("m/s", "Velocity"),
    ("W", "Power"),
    ("J", "Energy"),
    ("s/m", "InverseVelocity"),
];

fn float64_type(unit: &str) -> &'static str {
    FLOAT64_TYPES
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, name)| *name)
        .unwrap_or_else(|| panic!("unit {unit} has no Float64Type in build/fmi3_xml.rs"))
}

/// A Real's `unit` attribute as the `declaredType` of its unit's `<Float64Type>`.
fn with_declared_unit(v: &Variable, attributes: String) -> String {
    match v.unit {
        Some(unit) if v.kind == Kind::Real => attributes.replacen(
            &format!(" unit=\"{}\"", xml_escape(unit)),
            &format!(" declaredType=\"{}\"", float64_type(unit)),
            1,
        ),
        _ => attributes,
    }
}

/// `<Float64Type>` elements, one per unit, then `<EnumerationType>` elements; items are valued
/// from 1 in table order, as in FMI 2.0.
fn type_definitions() -> String {
    let mut out = String::new();
    for (unit, name) in FLOAT64_TYPES {
        writeln!(
            out,
            "    <Float64Type name=\"{name}\" unit=\"{}\"/>",
            xml_escape(unit)
        )
        .unwrap();
    }
    for enumeration in TYPE_DEFINITIONS {
        writeln!(
            out,
            "    <EnumerationType name=\"{}\" description=\"{}\">",
            xml_escape(enumeration.name),
            xml_escape(enumeration.description)
        )
        .unwrap();
        for (value, (name, description)) in (1..).zip(enumeration.items) {
            writeln!(
                out,
                "      <Item name=\"{}\" value=\"{value}\" description=\"{}\"/>",
                xml_escape(name),
                xml_escape(description)
            )
            .unwrap();
        }
        writeln!(out, "    </EnumerationType>").unwrap();
    }
    out.trim_end().to_string()
}

fn value_reference(var: Var) -> usize {
    variables::by_var(var).value_reference as usize
}

/// One element per row: Real as `<Float64>`, Integer as `<Int32>` or, with a declared type, as
/// `<Enumeration>` (read and written with fmi3GetInt64/fmi3SetInt64), Boolean, and String with
/// its start value as a child element.
fn model_variables() -> String {
    let mut out = String::new();
    for v in VARIABLES {
        let element = match v.kind {
            Kind::Real => "Float64",
            Kind::Integer if v.declared_type.is_some() => "Enumeration",
            Kind::Integer => "Int32",
            Kind::Boolean => "Boolean",
            Kind::String => "String",
        };
        let opening = format!(
            "    <{element} name=\"{}\" valueReference=\"{}\" description=\"{}\"{}{}",
            xml_escape(v.name),
            v.value_reference,
            xml_escape(v.description),
            causality_attributes(v),
            with_declared_unit(
                v,
                value_attributes(v, |state| value_reference(state).to_string())
            ),
        );
        if v.kind == Kind::String {
            // The one String parameter starts empty (a parameter must have a start value).
            writeln!(
                out,
                "{opening}>\n      <Start value=\"\"/>\n    </{element}>"
            )
            .unwrap();
        } else {
            writeln!(out, "{opening}/>").unwrap();
        }
    }
    out.trim_end().to_string()
}

/// `<Output>`, `<ContinuousStateDerivative>` (in the state vector's order), `<InitialUnknown>`
/// and `<EventIndicator>` (in the indicator vector's order), each named by value reference, in
/// the schema's order.
fn model_structure() -> String {
    let mut out = String::new();
    let indicators = EVENT_INDICATORS
        .iter()
        .map(|indicator| variables::by_var(indicator.var()));
    unknowns(&mut out, "Output", outputs(), true);
    unknowns(&mut out, "ContinuousStateDerivative", derivatives(), true);
    // Dependencies left out: dependent on all knowns, the parameters included.
    unknowns(&mut out, "InitialUnknown", initial_unknowns(), false);
    unknowns(&mut out, "EventIndicator", indicators, true);
    out.trim_end().to_string()
}

/// One `element` per variable of `list`, with the table's dependencies if `with_dependencies`.
fn unknowns<'a>(
    out: &mut String,
    element: &str,
    list: impl Iterator<Item = &'a Variable>,
    with_dependencies: bool,
) {
    for v in list {
        let dependencies = if with_dependencies {
            dependency_attributes(v, value_reference)
        } else {
            String::new()
        };
        writeln!(
            out,
            "    <{element} valueReference=\"{}\"{dependencies}/> <!-- {} -->",
            v.value_reference, v.name
        )
        .unwrap();
    }
}

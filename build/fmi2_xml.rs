//! `modelDescription.xml` (FMI 2.0) from `modelDescription.xml.in` and the variable table.

use crate::common_xml::{
    causality_attributes, dependency_attributes, derivatives, initial_unknowns, outputs,
    unit_definitions, value_attributes, xml_escape,
};
use crate::variables::{Kind, Var, Variable, EVENT_INDICATORS, TYPE_DEFINITIONS, VARIABLES};
use std::fmt::Write as _;

/// The template with every placeholder filled; `header` fills the ones both standards share.
pub fn model_description(template: &str, header: &dyn Fn(&str) -> String) -> String {
    header(template)
        .replace("@UNIT_DEFINITIONS@", &unit_definitions())
        .replace("@TYPE_DEFINITIONS@", &type_definitions())
        .replace("@MODEL_VARIABLES@", &model_variables())
        .replace(
            "@NUMBER_OF_EVENT_INDICATORS@",
            &EVENT_INDICATORS.len().to_string(),
        )
        .replace("@OUTPUTS@", &unknowns(outputs()))
        .replace("@DERIVATIVES@", &unknowns(derivatives()))
        .replace("@INITIAL_UNKNOWNS@", &initial_unknown_list())
}

/// `<SimpleType>` elements of the Enumeration types; items are valued from 1 in table order.
fn type_definitions() -> String {
    let mut out = String::new();
    for enumeration in TYPE_DEFINITIONS {
        writeln!(
            out,
            "    <SimpleType name=\"{}\" description=\"{}\">\n      <Enumeration>",
            xml_escape(enumeration.name),
            xml_escape(enumeration.description)
        )
        .unwrap();
        for (value, (name, description)) in (1..).zip(enumeration.items) {
            writeln!(
                out,
                "        <Item name=\"{}\" value=\"{value}\" description=\"{}\"/>",
                xml_escape(name),
                xml_escape(description)
            )
            .unwrap();
        }
        writeln!(out, "      </Enumeration>\n    </SimpleType>").unwrap();
    }
    out.trim_end().to_string()
}

fn model_variables() -> String {
    let mut out = String::new();
    for (index, v) in VARIABLES.iter().enumerate() {
        let mut attributes = value_attributes(v, |state| index_of(state).to_string());
        // The one String parameter starts empty (a parameter must have a start value).
        if v.kind == Kind::String {
            attributes.push_str(" start=\"\"");
        }
        let element = match v.kind {
            Kind::Real => "Real",
            Kind::Integer if v.declared_type.is_some() => "Enumeration",
            Kind::Integer => "Integer",
            Kind::Boolean => "Boolean",
            Kind::String => "String",
        };
        writeln!(
            out,
            "    <!-- index {} -->\n    <ScalarVariable name=\"{}\" valueReference=\"{}\" description=\"{}\"{}>\n      <{element}{attributes}/>\n    </ScalarVariable>",
            index + 1,
            xml_escape(v.name),
            v.value_reference,
            xml_escape(v.description),
            causality_attributes(v),
        )
        .unwrap();
    }
    out.trim_end().to_string()
}

fn index_of(var: Var) -> usize {
    VARIABLES
        .iter()
        .position(|v| v.var == var)
        .expect("variable in table")
        + 1
}

/// `<Unknown>` elements with the dependencies of the table.
fn unknowns<'a>(list: impl Iterator<Item = &'a Variable>) -> String {
    let mut out = String::new();
    for v in list {
        writeln!(
            out,
            "      <Unknown index=\"{}\"{}/> <!-- {} -->",
            index_of(v.var),
            dependency_attributes(v, index_of),
            v.name
        )
        .unwrap();
    }
    out.trim_end().to_string()
}

/// Their dependencies are left out, which declares a dependence on all knowns: during
/// initialization those include the parameters.
fn initial_unknown_list() -> String {
    let mut out = String::new();
    for v in initial_unknowns() {
        writeln!(
            out,
            "      <Unknown index=\"{}\"/> <!-- {} -->",
            index_of(v.var),
            v.name
        )
        .unwrap();
    }
    out.trim_end().to_string()
}

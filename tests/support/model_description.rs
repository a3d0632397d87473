//! `modelDescription.xml` as an importer reads it: identity, co-simulation capability flags, log
//! categories and the variable table. Value references come from here and nowhere else.

use std::collections::HashMap;

/// The base type of a scalar variable (the child element of `<ScalarVariable>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Real,
    Integer,
    Boolean,
    String,
    Enumeration,
}

#[derive(Clone, Debug)]
pub struct ScalarVariable {
    /// 1-based position in `<ModelVariables>`, as used by `<ModelStructure>`.
    pub index: usize,
    pub name: String,
    pub value_reference: u32,
    pub description: Option<String>,
    pub var_type: VarType,
    /// With the FMI 2.0 default applied (`local`).
    pub causality: String,
    /// With the FMI 2.0 default applied (`continuous`).
    pub variability: String,
    pub initial: Option<String>,
    /// The `start` attribute exactly as written.
    pub start: Option<String>,
    pub unit: Option<String>,
    pub min: Option<String>,
    pub max: Option<String>,
}

impl ScalarVariable {
    /// The start value of a Real/Integer variable, or of a Boolean as 0/1.
    pub fn start_f64(&self) -> Option<f64> {
        let text = self.start.as_deref()?.trim();
        match self.var_type {
            VarType::Boolean => match text {
                "true" | "1" => Some(1.0),
                "false" | "0" => Some(0.0),
                _ => None,
            },
            _ => text.parse().ok(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct DefaultExperiment {
    pub start_time: Option<f64>,
    pub stop_time: Option<f64>,
    pub tolerance: Option<f64>,
    pub step_size: Option<f64>,
}

/// One `<Unknown>` of `<ModelStructure>`.
#[derive(Clone, Debug)]
pub struct Unknown {
    pub index: usize,
    /// `None` when the attribute is absent (dependence on all knowns).
    pub dependencies: Option<Vec<usize>>,
    pub dependencies_kind: Option<Vec<String>>,
}

#[derive(Clone, Debug)]
pub struct ModelDescription {
    /// The document as read from the archive.
    pub xml: String,
    pub fmi_version: String,
    pub model_name: String,
    pub guid: String,
    pub generation_tool: Option<String>,
    pub variable_naming_convention: Option<String>,
    /// `<CoSimulation modelIdentifier=...>`.
    pub model_identifier: String,
    /// Every attribute of `<CoSimulation>` as written (capability flags and the like).
    pub co_simulation: HashMap<String, String>,
    /// Every attribute of `<ModelExchange>`, if the FMU offers that interface.
    pub model_exchange: Option<HashMap<String, String>>,
    pub number_of_event_indicators: usize,
    /// `<LogCategories>`: (name, description).
    pub log_categories: Vec<(String, Option<String>)>,
    pub unit_names: Vec<String>,
    pub default_experiment: Option<DefaultExperiment>,
    pub variables: Vec<ScalarVariable>,
    pub outputs: Vec<Unknown>,
    pub derivatives: Vec<Unknown>,
    pub initial_unknowns: Vec<Unknown>,
    by_name: HashMap<String, usize>,
}

impl ModelDescription {
    pub fn parse(xml: &str) -> Result<ModelDescription, String> {
        let doc =
            roxmltree::Document::parse(xml).map_err(|e| format!("modelDescription.xml: {e}"))?;
        let root = doc.root_element();
        if root.tag_name().name() != "fmiModelDescription" {
            return Err(format!(
                "root element is <{}>, not <fmiModelDescription>",
                root.tag_name().name()
            ));
        }
        let required = |name: &str| {
            root.attribute(name)
                .map(str::to_string)
                .ok_or_else(|| format!("<fmiModelDescription> lacks {name}"))
        };
        let fmi_version = required("fmiVersion")?;
        let model_name = required("modelName")?;
        let guid = required("guid")?;

        let (co_simulation, model_identifier) = parse_co_simulation(root)?;

        let model_exchange = child(root, "ModelExchange").map(attributes);
        let number_of_event_indicators = match root.attribute("numberOfEventIndicators") {
            None => 0,
            Some(text) => text
                .trim()
                .parse()
                .map_err(|e| format!("numberOfEventIndicators {text:?}: {e}"))?,
        };

        let log_categories = parse_log_categories(root);
        let unit_names = parse_unit_names(root);
        let default_experiment = child(root, "DefaultExperiment").map(parse_default_experiment);
        let (variables, by_name) = parse_variables(root)?;
        let ModelStructure {
            outputs,
            derivatives,
            initial_unknowns,
        } = parse_model_structure(root)?;

        Ok(ModelDescription {
            xml: xml.to_string(),
            fmi_version,
            model_name,
            guid,
            generation_tool: root.attribute("generationTool").map(str::to_string),
            variable_naming_convention: root
                .attribute("variableNamingConvention")
                .map(str::to_string),
            model_identifier,
            co_simulation,
            model_exchange,
            number_of_event_indicators,
            log_categories,
            unit_names,
            default_experiment,
            variables,
            outputs,
            derivatives,
            initial_unknowns,
            by_name,
        })
    }

    /// A boolean `<CoSimulation>` capability flag; absent means false (the FMI 2.0 default).
    pub fn cs_flag(&self, name: &str) -> bool {
        matches!(
            self.co_simulation.get(name).map(String::as_str),
            Some("true") | Some("1")
        )
    }

    pub fn variable(&self, name: &str) -> Option<&ScalarVariable> {
        self.by_name.get(name).map(|&i| &self.variables[i])
    }

    /// The variable of that name; panics with the list of names if there is none (test support).
    pub fn var(&self, name: &str) -> &ScalarVariable {
        self.variable(name).unwrap_or_else(|| {
            let names: Vec<&str> = self.variables.iter().map(|v| v.name.as_str()).collect();
            panic!("modelDescription.xml has no variable {name:?}; it has {names:?}")
        })
    }

    /// The value reference of `name`, checking its type.
    pub fn vr(&self, name: &str, var_type: VarType) -> u32 {
        let v = self.var(name);
        assert_eq!(
            v.var_type, var_type,
            "{name} is a {:?} variable, not {var_type:?}",
            v.var_type
        );
        v.value_reference
    }

    pub fn by_index(&self, index: usize) -> Option<&ScalarVariable> {
        index.checked_sub(1).and_then(|i| self.variables.get(i))
    }

    pub fn log_category_names(&self) -> Vec<&str> {
        self.log_categories
            .iter()
            .map(|(n, _)| n.as_str())
            .collect()
    }
}

/// The first child element of `root` named `name`.
fn child<'a, 'input>(
    root: roxmltree::Node<'a, 'input>,
    name: &str,
) -> Option<roxmltree::Node<'a, 'input>> {
    root.children().find(|n| n.has_tag_name(name))
}

/// Every attribute of `node` as written.
fn attributes(node: roxmltree::Node) -> HashMap<String, String> {
    node.attributes()
        .map(|a| (a.name().to_string(), a.value().to_string()))
        .collect()
}

/// `<CoSimulation>`: its attributes and its `modelIdentifier`.
fn parse_co_simulation(root: roxmltree::Node) -> Result<(HashMap<String, String>, String), String> {
    let cs = child(root, "CoSimulation").ok_or("no <CoSimulation> element")?;
    let co_simulation: HashMap<String, String> = attributes(cs);
    let model_identifier = co_simulation
        .get("modelIdentifier")
        .cloned()
        .ok_or("<CoSimulation> lacks modelIdentifier")?;
    Ok((co_simulation, model_identifier))
}

/// `<LogCategories>`: (name, description) of each `<Category>`.
fn parse_log_categories(root: roxmltree::Node) -> Vec<(String, Option<String>)> {
    child(root, "LogCategories")
        .map(|lc| {
            lc.children()
                .filter(|n| n.has_tag_name("Category"))
                .map(|n| {
                    (
                        n.attribute("name").unwrap_or_default().to_string(),
                        n.attribute("description").map(str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The names of the `<Unit>`s of `<UnitDefinitions>`.
fn parse_unit_names(root: roxmltree::Node) -> Vec<String> {
    child(root, "UnitDefinitions")
        .map(|ud| {
            ud.children()
                .filter(|n| n.has_tag_name("Unit"))
                .filter_map(|n| n.attribute("name").map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn parse_default_experiment(de: roxmltree::Node) -> DefaultExperiment {
    let num = |name: &str| {
        de.attribute(name)
            .and_then(|v| v.trim().parse::<f64>().ok())
    };
    DefaultExperiment {
        start_time: num("startTime"),
        stop_time: num("stopTime"),
        tolerance: num("tolerance"),
        step_size: num("stepSize"),
    }
}

/// The `<ScalarVariable>`s of `<ModelVariables>`, and their positions by name (unique).
fn parse_variables(
    root: roxmltree::Node,
) -> Result<(Vec<ScalarVariable>, HashMap<String, usize>), String> {
    let mut variables = Vec::new();
    let mut by_name = HashMap::new();
    if let Some(mv) = child(root, "ModelVariables") {
        for (i, sv) in mv
            .children()
            .filter(|n| n.has_tag_name("ScalarVariable"))
            .enumerate()
        {
            let variable = parse_scalar_variable(i, sv)?;
            let name = variable.name.clone();
            if by_name.insert(name.clone(), variables.len()).is_some() {
                return Err(format!("variable name {name} is not unique"));
            }
            variables.push(variable);
        }
    }
    Ok((variables, by_name))
}

/// The `i`-th (0-based) `<ScalarVariable>` `sv`.
fn parse_scalar_variable(i: usize, sv: roxmltree::Node) -> Result<ScalarVariable, String> {
    let name = sv
        .attribute("name")
        .ok_or_else(|| format!("ScalarVariable #{} has no name", i + 1))?
        .to_string();
    let value_reference = sv
        .attribute("valueReference")
        .ok_or_else(|| format!("{name}: no valueReference"))?
        .trim()
        .parse::<u32>()
        .map_err(|e| format!("{name}: valueReference: {e}"))?;
    let type_node = sv
        .children()
        .find(|n| n.is_element())
        .ok_or_else(|| format!("{name}: no type element"))?;
    let var_type = match type_node.tag_name().name() {
        "Real" => VarType::Real,
        "Integer" => VarType::Integer,
        "Boolean" => VarType::Boolean,
        "String" => VarType::String,
        "Enumeration" => VarType::Enumeration,
        other => return Err(format!("{name}: unknown type element <{other}>")),
    };
    let attr = |n: roxmltree::Node, a: &str| n.attribute(a).map(str::to_string);
    Ok(ScalarVariable {
        index: i + 1,
        name: name.clone(),
        value_reference,
        description: attr(sv, "description"),
        var_type,
        causality: attr(sv, "causality").unwrap_or_else(|| "local".into()),
        variability: attr(sv, "variability").unwrap_or_else(|| "continuous".into()),
        initial: attr(sv, "initial"),
        start: attr(type_node, "start"),
        unit: attr(type_node, "unit"),
        min: attr(type_node, "min"),
        max: attr(type_node, "max"),
    })
}

/// The `<Unknown>`s of `<ModelStructure>`, by section.
struct ModelStructure {
    outputs: Vec<Unknown>,
    derivatives: Vec<Unknown>,
    initial_unknowns: Vec<Unknown>,
}

/// `<ModelStructure>`: the `<Unknown>`s of its outputs, derivatives and initial unknowns.
fn parse_model_structure(root: roxmltree::Node) -> Result<ModelStructure, String> {
    let (mut outputs, mut derivatives, mut initial_unknowns) = (vec![], vec![], vec![]);
    if let Some(ms) = child(root, "ModelStructure") {
        for section in ms.children().filter(|n| n.is_element()) {
            let list = section
                .children()
                .filter(|n| n.has_tag_name("Unknown"))
                .map(parse_unknown)
                .collect::<Result<Vec<_>, _>>()?;
            match section.tag_name().name() {
                "Outputs" => outputs = list,
                "Derivatives" => derivatives = list,
                "InitialUnknowns" => initial_unknowns = list,
                _ => {}
            }
        }
    }
    Ok(ModelStructure {
        outputs,
        derivatives,
        initial_unknowns,
    })
}

fn parse_unknown(n: roxmltree::Node) -> Result<Unknown, String> {
    let index = n
        .attribute("index")
        .ok_or("<Unknown> without index")?
        .trim()
        .parse::<usize>()
        .map_err(|e| format!("<Unknown index>: {e}"))?;
    let dependencies = n
        .attribute("dependencies")
        .map(|d| {
            d.split_whitespace()
                .map(|x| x.parse::<usize>().map_err(|e| format!("dependencies: {e}")))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let dependencies_kind = n
        .attribute("dependenciesKind")
        .map(|d| d.split_whitespace().map(str::to_string).collect());
    Ok(Unknown {
        index,
        dependencies,
        dependencies_kind,
    })
}

//! The rules for setting and reading the variable table's values, the same in both FMI layers:
//! which variable may be set in which phase, all or nothing, the parameters' relations once they
//! take effect, and the refusal of a computed value that is not finite. Each layer looks up and
//! type-checks a value reference itself (`resolve`) and turns a message into its own status.

use crate::model::{ElastoGap, Interface};
use crate::variables::{by_value_reference, Causality, Variability, Variable};

/// Where the instance is, as far as setting a value goes.
#[derive(Clone, Copy, Debug)]
pub struct Phase {
    /// The parameters have been checked and the simulation runs.
    pub running: bool,
    /// Model Exchange's Continuous-Time Mode, where only continuous inputs may change.
    pub continuous_time: bool,
    /// The discrete equations are active (initialization, Event Mode): Model Exchange's discrete
    /// variables follow a new value at once.
    pub discrete_equations: bool,
}

/// Checks that `variable` may be set to `value` in `phase`: parameters before initialization ends,
/// inputs and tunable parameters afterwards where the standard allows them, never outputs, locals
/// or time (`set_time` names the function that sets it). A fixed parameter set again to the value
/// it has is accepted as the no-op it is: OpenModelica's Model Exchange import (before its 2026-08
/// fix) writes every parameter after initialization, and refusing that would refuse the FMU there.
/// An input may always be set: that test is inlined, as every master sets inputs on every step.
#[inline(always)]
fn check_settable(
    model: &ElastoGap,
    variable: &Variable,
    value: f64,
    phase: Phase,
    set_time: &str,
) -> Result<(), String> {
    if variable.causality == Causality::Input {
        return Ok(());
    }
    check_settable_other(model, variable, value, phase, set_time)
}

/// [`check_settable`] for a variable that is not an input.
fn check_settable_other(
    model: &ElastoGap,
    variable: &Variable,
    value: f64,
    phase: Phase,
    set_time: &str,
) -> Result<(), String> {
    match variable.causality {
        Causality::Output | Causality::Local | Causality::Independent => Err(format!(
            "{} is {}; only parameters and inputs can be set",
            variable.name,
            match variable.causality {
                Causality::Output => "an output".to_string(),
                Causality::Independent =>
                    format!("the independent variable (set through {set_time})"),
                _ => "a local variable".to_string(),
            }
        )),
        Causality::Parameter
            if phase.running
                && variable.variability == Variability::Fixed
                && model.value(variable.var).to_bits() != value.to_bits() =>
        {
            Err(format!(
                "{} is a fixed parameter and cannot change after initialization",
                variable.name
            ))
        }
        Causality::Parameter if phase.continuous_time => Err(format!(
            "{} is a tunable parameter: it can change in Event Mode, not in Continuous-Time Mode",
            variable.name
        )),
        _ => Ok(()),
    }
}

/// Sets the values, all or nothing: every one is checked before any is stored, so a refused one
/// leaves the whole call without effect.
pub fn set_values<E: From<String>>(
    model: &mut ElastoGap,
    values: impl Iterator<Item = (u32, f64)> + Clone,
    resolve: impl Fn(u32) -> Result<&'static Variable, E>,
    phase: Phase,
    set_time: &str,
) -> Result<(), E> {
    let mut sets_parameter = false;
    for (value_reference, value) in values.clone() {
        let variable = resolve(value_reference)?;
        check_settable(model, variable, value, phase, set_time)?;
        sets_parameter |= variable.causality == Causality::Parameter;
        // Inputs are checked at once; parameters once they take effect: at the end of
        // initialization, or now if the simulation is running.
        if variable.causality == Causality::Input || phase.running {
            ElastoGap::check_against(variable, value).map_err(|v| v.to_string())?;
        }
    }
    // The parameters to go back to where their relations, checked after the call's values are
    // stored, refuse it: kept only then, as an input's set call is every master's on every step.
    let before = (sets_parameter && phase.running).then_some(model.parameters);
    for (value_reference, value) in values {
        if let Some(variable) = by_value_reference(value_reference) {
            model.set_value(variable.var, value);
        }
    }
    if let Some(before) = before {
        if let Err(violation) = model.check_parameter_relations() {
            model.parameters = before;
            return Err(violation.to_string().into());
        }
    }
    if model.interface == Interface::ModelExchange && phase.discrete_equations {
        model.update_at_event();
    }
    Ok(())
}

/// Refuses a non-finite computed value instead of returning it: parameters and inputs that each
/// keep their rules can still overflow the law together (a tiny s_ref with a large n, positions
/// near the largest double).
pub fn check_computed(variable: &Variable, value: f64) -> Result<(), String> {
    let computed = matches!(variable.causality, Causality::Output | Causality::Local);
    if computed && !value.is_finite() {
        return Err(format!(
            "{} = {value} is not finite: the inputs and parameters are out of the law's numeric range",
            variable.name
        ));
    }
    Ok(())
}

/// Refuses non-finite values the FMU computed for an array of results.
pub fn check_finite(what: &str, values: &[f64]) -> Result<(), String> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(k) => Err(format!(
            "{what}[{k}] = {} is not finite: the inputs and parameters are out of the law's numeric range",
            values[k]
        )),
    }
}

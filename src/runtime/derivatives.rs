//! The directional derivative, and the inputs' and outputs' time derivatives.

use super::arguments::{slice, slice_mut};
use super::{error, Instance, Outcome, Standard};
use crate::model::{ElastoGap, Interface};
use crate::variables::{Causality, Var, INPUT_COUNT, STATES};

impl<S: Standard> Instance<S> {
    /// Knowns are inputs (and in Model Exchange the continuous states), unknowns outputs, locals
    /// or state derivatives with partial derivatives; `seed` names the seeds' array in refusals.
    pub fn directional_derivative(
        &self,
        (unknowns, knowns): (&[u32], &[u32]),
        (seeds, seed): (&[f64], &str),
        results: &mut [f64],
    ) -> Outcome {
        const MOST_KNOWNS: usize = INPUT_COUNT + STATES.len();
        let mut known_vars = [Var::FlangeAS; MOST_KNOWNS];
        if knowns.len() > known_vars.len() {
            return Err(error(format!(
                "{} knowns given; ElastoGap has {INPUT_COUNT} inputs and {} continuous state(s)",
                knowns.len(),
                STATES.len()
            )));
        }
        let model_exchange = self.interface() == Interface::ModelExchange;
        for (k, reference) in knowns.iter().enumerate() {
            let variable = Self::variable(*reference, S::REAL)?;
            let is_state = STATES.iter().any(|(state, _)| *state == variable.var);
            if !(variable.causality == Causality::Input || (model_exchange && is_state)) {
                return Err(error(format!(
                    "{} is not an input{}; knowns must be",
                    variable.name,
                    if model_exchange {
                        " or a continuous state"
                    } else {
                        ""
                    }
                )));
            }
            if !seeds[k].is_finite() {
                return Err(error(format!("{seed}[{k}] = {} is not finite", seeds[k])));
            }
            known_vars[k] = variable.var;
        }
        for (k, reference) in unknowns.iter().enumerate() {
            let variable = Self::variable(*reference, S::REAL)?;
            if !matches!(variable.causality, Causality::Output | Causality::Local) {
                return Err(error(format!(
                    "{} is not an output, local or state derivative; unknowns must be",
                    variable.name
                )));
            }
            if !ElastoGap::has_partials(variable.var) {
                return Err(error(format!(
                    "{} is an event indicator: a solver locates its roots and has no use for its partial derivatives, which the FMU does not provide",
                    variable.name
                )));
            }
            results[k] = known_vars[..knowns.len()]
                .iter()
                .zip(seeds)
                .map(|(known, seed)| self.model.partial_derivative(variable.var, *known) * seed)
                .sum();
            if !results[k].is_finite() {
                return Err(error(format!(
                    "the directional derivative of {} is {}: the inputs, parameters or seeds are out of the law's numeric range",
                    variable.name, results[k]
                )));
            }
        }
        Ok(())
    }

    /// The master's derivatives of the inputs, for the next step; all or nothing.
    pub fn set_input_derivatives(
        &mut self,
        (references, orders, values): (*const u32, *const i32, *const f64),
        n: usize,
    ) -> Outcome {
        let references = slice(references, n, S::REFERENCES)?;
        let orders = slice(orders, n, S::ORDERS)?;
        let values = slice(values, n, S::VALUES)?;
        let mut supplied = self.model.supplied;
        for ((reference, order), value) in references.iter().zip(orders).zip(values) {
            let variable = Self::variable(*reference, S::REAL)?;
            if variable.causality != Causality::Input {
                return Err(error(format!("{} is not an input", variable.name)));
            }
            if !value.is_finite() {
                return Err(error(format!(
                    "derivative of order {order} of {} = {value} is not finite",
                    variable.name
                )));
            }
            if !supplied.supply(variable.var, *order, *value) {
                return Err(error(format!(
                    "order {order} of {} is not supported: give order 1 of a velocity or order 1 or 2 of a position",
                    variable.name
                )));
            }
        }
        self.model.supplied = supplied;
        Ok(())
    }

    /// The outputs' first time derivatives (maxOutputDerivativeOrder is 1).
    pub fn output_derivatives(
        &self,
        (references, orders, values): (*const u32, *const i32, *mut f64),
        n: usize,
    ) -> Outcome {
        let references = slice(references, n, S::REFERENCES)?;
        let orders = slice(orders, n, S::ORDERS)?;
        let values = slice_mut(values, n, S::VALUES)?;
        for (k, (reference, order)) in references.iter().zip(orders).enumerate() {
            let variable = Self::variable(*reference, S::REAL)?;
            if variable.causality != Causality::Output {
                return Err(error(format!("{} is not an output", variable.name)));
            }
            if *order != 1 {
                return Err(error(format!(
                    "order {order} of {} is not available: maxOutputDerivativeOrder is 1",
                    variable.name
                )));
            }
            values[k] = self
                .model
                .output_time_derivative(variable.var)
                .ok_or_else(|| error(format!("{} has no time derivative", variable.name)))?;
            if !values[k].is_finite() {
                return Err(error(format!(
                    "the time derivative of {} is {}: the inputs and parameters are out of the law's numeric range",
                    variable.name, values[k]
                )));
            }
        }
        Ok(())
    }
}

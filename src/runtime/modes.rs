//! What the mode changes do to the model, and Model Exchange's time, states and arrays.

use super::arguments::{out, slice, slice_mut};
use super::{error, Category, Failure, Instance, Outcome, Standard, StateMachine, Status};
use crate::layer::values;
use crate::model::{Interface, Number};
use crate::variables::{Var, STATES};

impl<S: Standard> Instance<S> {
    /// The experiment's start time, and its stop time where defined.
    pub fn start_experiment(&mut self, start: f64, stop: Option<f64>) -> Outcome {
        if !start.is_finite() {
            return Err(error(format!("startTime = {start} must be finite")));
        }
        if stop.is_some_and(f64::is_nan) {
            return Err(error("stopTime = NaN is not a time"));
        }
        if let Some(stop) = stop.filter(|stop| *stop < start) {
            return Err(error(format!(
                "stopTime = {} is before startTime = {}",
                Number(stop),
                Number(start)
            )));
        }
        self.model.time = start;
        Ok(())
    }

    /// Model Exchange evaluates its discrete equations from Initialization Mode on.
    pub fn enter_initialization(&mut self) -> Outcome {
        self.state = S::State::INITIALIZATION;
        if self.interface() == Interface::ModelExchange {
            self.model.update_at_event();
        }
        Ok(())
    }

    /// The parameters take effect and the run begins; the state it goes to is the standard's.
    pub fn exit_initialization(&mut self) -> Outcome {
        self.take_parameters()?;
        if self.interface() == Interface::ModelExchange {
            self.model.update_at_event();
        }
        self.model.begin_run();
        Ok(())
    }

    /// Event Mode's update: co-simulation takes the switch its step stopped at, Model Exchange
    /// settles the event in one pass (contact and the held `f_mean`; the stiction deformation
    /// may jump). Whether the continuous states' values changed.
    pub fn update_discrete_states(&mut self) -> bool {
        let (contact_changed, states_changed) = match self.interface() {
            Interface::CoSimulation => (self.model.take_switch(), false),
            Interface::ModelExchange => {
                let update = self.model.update_discrete_states();
                (update.contact_changed, update.states_changed)
            }
        };
        if contact_changed && self.logger.is_enabled(Category::Events) {
            let contact = self.model.value(Var::Contact) != 0.0;
            let message = format!(
                "contact {} at t = {:.17}",
                if contact { "starts" } else { "ends" },
                self.model.time
            );
            self.logger.log(Status::Ok, Category::Events, &message);
        }
        states_changed
    }

    /// The integrator's step is complete: the FMU asks for no event and never to terminate.
    pub fn completed_integrator_step<B: From<bool>>(
        &mut self,
        enter_event_mode: *mut B,
        terminate: *mut B,
    ) -> Outcome {
        let enter_event_mode = out(enter_event_mode, "enterEventMode")?;
        let terminate = out(terminate, "terminateSimulation")?;
        self.model.completed_integrator_step();
        *enter_event_mode = false.into();
        *terminate = false.into();
        Ok(())
    }

    pub fn set_time(&mut self, time: f64) -> Outcome {
        if !time.is_finite() {
            return Err(error(format!("time = {time} must be finite")));
        }
        self.model.time = time;
        Ok(())
    }

    /// The importer's `n` continuous states (its array `name`, "x[]"), each finite.
    pub fn set_continuous_states(
        &mut self,
        (name, pointer): (&str, *const f64),
        (count_name, n): (&str, usize),
    ) -> Outcome {
        check_length(count_name, n, STATES.len())?;
        let values = slice(pointer, n, name)?;
        if let Some(k) = values.iter().position(|v| !v.is_finite()) {
            return Err(error(format!(
                "{}[{k}] = {} is not finite",
                name.trim_end_matches("[]"),
                Number(values[k])
            )));
        }
        let mut states = [0.0; STATES.len()];
        states.copy_from_slice(values);
        self.model.set_continuous_states(&states);
        Ok(())
    }
}

/// The importer's array of `n` values must have exactly the model's length.
fn check_length(what: &str, n: usize, expected: usize) -> Result<(), Failure> {
    if n == expected {
        return Ok(());
    }
    Err(error(format!(
        "{what} = {n}, but the model has {expected} (modelDescription.xml)"
    )))
}

/// Hands the model's `values` to the importer's array, which must have their length; a value
/// that is not finite is refused rather than handed on.
pub fn write_array(
    values: &[f64],
    (name, pointer, count): (&str, *mut f64, usize),
    count_name: &str,
) -> Outcome {
    check_length(count_name, count, values.len())?;
    let target = slice_mut(pointer, count, name)?;
    values::check_finite(name, values)?;
    target.copy_from_slice(values);
    Ok(())
}

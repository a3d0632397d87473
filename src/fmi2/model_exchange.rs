//! The Model Exchange functions. The importer's solver integrates the one continuous state,
//! `E_loss` (its derivative is `lossPower`), and locates the events where the indicators change
//! sign: contact start and end, and the switches of the damper bound. The force is continuous
//! across all of them, so an event only updates `contact` and the held `f_mean`.

#![allow(non_snake_case)]

use fmi_sys::fmi2::{fmi2Boolean, fmi2Component, fmi2EventInfo, fmi2Real, fmi2Status};

use super::arguments::{out, slice, slice_mut};
use super::instance::{check_finite, run};
use super::logging::{error, Category, Failure, Outcome};
use super::state::{Call, State};
use super::OK;
use crate::model::Number;
use crate::variables::STATES;

/// The importer's array of `n` values must have exactly the model's length.
fn check_length(what: &str, n: usize, expected: usize) -> Result<(), Failure> {
    if n == expected {
        Ok(())
    } else {
        Err(error(format!(
            "{what} = {n}, but the model has {expected} (modelDescription.xml)"
        )))
    }
}

/// Hands the model's `values` to the importer's array, which must have their length; a value
/// that is not finite is refused rather than handed on.
fn write_array(
    (name, pointer): (&str, *mut fmi2Real),
    (count_name, count): (&str, usize),
    values: &[f64],
) -> Outcome {
    check_length(count_name, count, values.len())?;
    let target = slice_mut(pointer, count, name)?;
    check_finite(name, values)?;
    target.copy_from_slice(values);
    Ok(())
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterEventMode(c: fmi2Component) -> fmi2Status {
    run(c, Call::EnterEventMode, |instance| {
        instance.state = State::EventMode;
        Ok(())
    })
}

/// # Safety
/// `fmi2eventInfo` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2NewDiscreteStates(
    c: fmi2Component,
    fmi2eventInfo: *mut fmi2EventInfo,
) -> fmi2Status {
    run(c, Call::NewDiscreteStates, |instance| {
        let info = out(fmi2eventInfo, "fmi2eventInfo")?;
        let update = instance.model.update_discrete_states();
        let contact_changed = update.contact_changed;
        if contact_changed && instance.logger.is_enabled(Category::Events) {
            let message = format!(
                "contact {} at t = {:.17}",
                if instance.model.contact_at_event {
                    "starts"
                } else {
                    "ends"
                },
                instance.model.time
            );
            instance.logger.log(OK, Category::Events, &message);
        }
        // One pass settles the event (the stick–slip modes follow from the state it leaves);
        // the stiction deformation may jump; no time events.
        *info = fmi2EventInfo {
            valuesOfContinuousStatesChanged: i32::from(update.states_changed),
            ..fmi2EventInfo::default()
        };
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: fmi2Component) -> fmi2Status {
    run(c, Call::EnterContinuousTimeMode, |instance| {
        instance.state = State::ContinuousTimeMode;
        Ok(())
    })
}

/// # Safety
/// `enterEventMode` and `terminateSimulation` point to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2CompletedIntegratorStep(
    c: fmi2Component,
    noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
    enterEventMode: *mut fmi2Boolean,
    terminateSimulation: *mut fmi2Boolean,
) -> fmi2Status {
    let _ = noSetFMUStatePriorToCurrentPoint;
    run(c, Call::CompletedIntegratorStep, |instance| {
        let enter_event_mode = out(enterEventMode, "enterEventMode")?;
        let terminate = out(terminateSimulation, "terminateSimulation")?;
        instance.model.completed_integrator_step();
        *enter_event_mode = 0;
        *terminate = 0;
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetTime(c: fmi2Component, time: fmi2Real) -> fmi2Status {
    run(c, Call::SetTime, |instance| {
        if !time.is_finite() {
            return Err(error(format!("time = {time} must be finite")));
        }
        instance.model.time = time;
        Ok(())
    })
}

/// # Safety
/// `x` holds `nx` values.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetContinuousStates(
    c: fmi2Component,
    x: *const fmi2Real,
    nx: usize,
) -> fmi2Status {
    run(c, Call::SetContinuousStates, |instance| {
        check_length("nx", nx, STATES.len())?;
        let values = slice(x, nx, "x[]")?;
        if let Some(k) = values.iter().position(|v| !v.is_finite()) {
            return Err(error(format!(
                "x[{k}] = {} is not finite",
                Number(values[k])
            )));
        }
        let mut states = [0.0; STATES.len()];
        states.copy_from_slice(values);
        instance.model.set_continuous_states(&states);
        Ok(())
    })
}

/// # Safety
/// `derivatives` holds `nx` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetDerivatives(
    c: fmi2Component,
    derivatives: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    run(c, Call::GetDerivatives, |instance| {
        let values = instance.model.derivatives();
        write_array(("derivatives", derivatives), ("nx", nx), &values)
    })
}

/// # Safety
/// `eventIndicators` holds `ni` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetEventIndicators(
    c: fmi2Component,
    eventIndicators: *mut fmi2Real,
    ni: usize,
) -> fmi2Status {
    run(c, Call::GetEventIndicators, |instance| {
        let values = instance.model.event_indicators();
        write_array(("eventIndicators", eventIndicators), ("ni", ni), &values)
    })
}

/// # Safety
/// `x` holds `nx` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetContinuousStates(
    c: fmi2Component,
    x: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    run(c, Call::GetContinuousStates, |instance| {
        let values = instance.model.continuous_states();
        write_array(("x", x), ("nx", nx), &values)
    })
}

/// # Safety
/// `x_nominal` holds `nx` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
    c: fmi2Component,
    x_nominal: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    run(c, Call::GetNominalsOfContinuousStates, |_| {
        // E_loss is an energy in J; 1 J keeps the solver's absolute tolerance meaningful for the
        // joule-scale contacts the element is made for.
        write_array(("x_nominal", x_nominal), ("nx", nx), &[1.0; STATES.len()])
    })
}

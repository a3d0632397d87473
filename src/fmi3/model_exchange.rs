//! The Model Exchange functions. The importer's solver integrates the continuous states (as in the
//! FMI 2 layer) and locates the events where the four indicators change sign; fmi3UpdateDiscreteStates
//! (in `common`) settles them.

#![allow(non_snake_case)]

use fmi_sys::fmi3::{fmi3Boolean, fmi3Float64, fmi3Instance, fmi3Status};

use super::arguments::{out, slice, slice_mut};
use super::instance::{check_finite, run};
use super::logging::{error, Failure, Outcome};
use super::state::{Call, State};
use crate::model::Number;
use crate::variables::{EVENT_INDICATORS, STATES};

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
    (name, pointer): (&str, *mut fmi3Float64),
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
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status {
    run(instance, Call::EnterContinuousTimeMode, |fmu| {
        fmu.state = State::ContinuousTimeMode;
        Ok(())
    })
}

/// # Safety
/// `enterEventMode` and `terminateSimulation` point to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3CompletedIntegratorStep(
    instance: fmi3Instance,
    noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    enterEventMode: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
) -> fmi3Status {
    let _ = noSetFMUStatePriorToCurrentPoint;
    run(instance, Call::CompletedIntegratorStep, |fmu| {
        let enter_event_mode = out(enterEventMode, "enterEventMode")?;
        let terminate = out(terminateSimulation, "terminateSimulation")?;
        fmu.model.completed_integrator_step();
        *enter_event_mode = false;
        *terminate = false;
        Ok(())
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetTime(instance: fmi3Instance, time: fmi3Float64) -> fmi3Status {
    run(instance, Call::SetTime, |fmu| {
        if !time.is_finite() {
            return Err(error(format!("time = {time} must be finite")));
        }
        fmu.model.time = time;
        Ok(())
    })
}

/// # Safety
/// `continuousStates` holds `nContinuousStates` values.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *const fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    run(instance, Call::SetContinuousStates, |fmu| {
        check_length("nContinuousStates", nContinuousStates, STATES.len())?;
        let values = slice(continuousStates, nContinuousStates, "continuousStates[]")?;
        if let Some(k) = values.iter().position(|v| !v.is_finite()) {
            return Err(error(format!(
                "continuousStates[{k}] = {} is not finite",
                Number(values[k])
            )));
        }
        let mut states = [0.0; STATES.len()];
        states.copy_from_slice(values);
        fmu.model.set_continuous_states(&states);
        Ok(())
    })
}

/// # Safety
/// `derivatives` holds `nContinuousStates` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetContinuousStateDerivatives(
    instance: fmi3Instance,
    derivatives: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    run(instance, Call::GetContinuousStateDerivatives, |fmu| {
        let values = fmu.model.derivatives();
        write_array(
            ("derivatives", derivatives),
            ("nContinuousStates", nContinuousStates),
            &values,
        )
    })
}

/// # Safety
/// `eventIndicators` holds `nEventIndicators` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetEventIndicators(
    instance: fmi3Instance,
    eventIndicators: *mut fmi3Float64,
    nEventIndicators: usize,
) -> fmi3Status {
    run(instance, Call::GetEventIndicators, |fmu| {
        let values = fmu.model.event_indicators();
        write_array(
            ("eventIndicators", eventIndicators),
            ("nEventIndicators", nEventIndicators),
            &values,
        )
    })
}

/// # Safety
/// `continuousStates` holds `nContinuousStates` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    run(instance, Call::GetContinuousStates, |fmu| {
        let values = fmu.model.continuous_states();
        write_array(
            ("continuousStates", continuousStates),
            ("nContinuousStates", nContinuousStates),
            &values,
        )
    })
}

/// # Safety
/// `nominals` holds `nContinuousStates` writable values.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetNominalsOfContinuousStates(
    instance: fmi3Instance,
    nominals: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    run(instance, Call::GetNominalsOfContinuousStates, |_| {
        // As in the FMI 2 layer: 1 keeps the solver's absolute tolerance meaningful for the
        // joule-scale energies and millimetre-scale deformations the element is made for.
        write_array(
            ("nominals", nominals),
            ("nContinuousStates", nContinuousStates),
            &[1.0; STATES.len()],
        )
    })
}

/// # Safety
/// `nEventIndicators` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfEventIndicators(
    instance: fmi3Instance,
    nEventIndicators: *mut usize,
) -> fmi3Status {
    run(
        instance,
        Call::Count("fmi3GetNumberOfEventIndicators"),
        |_| {
            *out(nEventIndicators, "nEventIndicators")? = EVENT_INDICATORS.len();
            Ok(())
        },
    )
}

/// # Safety
/// `nContinuousStates` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: fmi3Instance,
    nContinuousStates: *mut usize,
) -> fmi3Status {
    run(
        instance,
        Call::Count("fmi3GetNumberOfContinuousStates"),
        |_| {
            *out(nContinuousStates, "nContinuousStates")? = STATES.len();
            Ok(())
        },
    )
}

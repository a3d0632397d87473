//! The Model Exchange functions. The importer's solver integrates the continuous states (as in the
//! FMI 2 layer) and locates the events where the four indicators change sign; fmi3UpdateDiscreteStates
//! (in `common`) settles them.

#![allow(non_snake_case)]

use fmi_sys::fmi3::{fmi3Boolean, fmi3Float64, fmi3Instance, fmi3Status};

use super::state::{Call, State};
use super::Instance;
use crate::runtime::arguments::out;
use crate::runtime::modes::write_array;
use crate::variables::{EVENT_INDICATORS, STATES};

/// The length the importer gives of every array of the continuous states.
const N: &str = "nContinuousStates";

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status {
    Instance::enter(
        instance,
        Call::EnterContinuousTimeMode,
        State::ContinuousTimeMode,
    )
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
    Instance::run(instance, Call::CompletedIntegratorStep, |fmu| {
        fmu.completed_integrator_step(enterEventMode, terminateSimulation)
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetTime(instance: fmi3Instance, time: fmi3Float64) -> fmi3Status {
    Instance::run(instance, Call::SetTime, |fmu| fmu.set_time(time))
}

/// # Safety
/// `continuousStates` holds `nContinuousStates` values.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *const fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    Instance::run(instance, Call::SetContinuousStates, |fmu| {
        let states = ("continuousStates[]", continuousStates);
        fmu.set_continuous_states(states, (N, nContinuousStates))
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
    Instance::run(instance, Call::GetContinuousStateDerivatives, |fmu| {
        let values = fmu.model.derivatives();
        write_array(&values, ("derivatives", derivatives, nContinuousStates), N)
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
    Instance::run(instance, Call::GetEventIndicators, |fmu| {
        let values = fmu.model.event_indicators();
        write_array(
            &values,
            ("eventIndicators", eventIndicators, nEventIndicators),
            "nEventIndicators",
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
    Instance::run(instance, Call::GetContinuousStates, |fmu| {
        let values = fmu.model.continuous_states();
        write_array(
            &values,
            ("continuousStates", continuousStates, nContinuousStates),
            N,
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
    Instance::run(instance, Call::GetNominalsOfContinuousStates, |_| {
        // As in the FMI 2 layer: 1 keeps the solver's absolute tolerance meaningful for the
        // joule-scale energies and millimetre-scale deformations the element is made for.
        write_array(
            &[1.0; STATES.len()],
            ("nominals", nominals, nContinuousStates),
            N,
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
    let call = Call::Count("fmi3GetNumberOfEventIndicators");
    Instance::run(instance, call, |_| {
        *out(nEventIndicators, "nEventIndicators")? = EVENT_INDICATORS.len();
        Ok(())
    })
}

/// # Safety
/// `nContinuousStates` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: fmi3Instance,
    nContinuousStates: *mut usize,
) -> fmi3Status {
    let call = Call::Count("fmi3GetNumberOfContinuousStates");
    Instance::run(instance, call, |_| {
        *out(nContinuousStates, "nContinuousStates")? = STATES.len();
        Ok(())
    })
}

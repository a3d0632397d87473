//! The Model Exchange functions. The importer's solver integrates the one continuous state,
//! `E_loss` (its derivative is `lossPower`), and locates the events where the indicators change
//! sign: contact start and end, and the switches of the damper bound. The force is continuous
//! across all of them, so an event only updates `contact` and the held `f_mean`.

#![allow(non_snake_case)]

use fmi_sys::fmi2::{fmi2Boolean, fmi2Component, fmi2EventInfo, fmi2Real, fmi2Status};

use super::state::{Call, State};
use super::Instance;
use crate::runtime::arguments::out;
use crate::runtime::modes::write_array;
use crate::variables::STATES;

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterEventMode(c: fmi2Component) -> fmi2Status {
    Instance::enter(c, Call::EnterEventMode, State::EventMode)
}

/// # Safety
/// `fmi2eventInfo` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2NewDiscreteStates(
    c: fmi2Component,
    fmi2eventInfo: *mut fmi2EventInfo,
) -> fmi2Status {
    Instance::run(c, Call::NewDiscreteStates, |instance| {
        let info = out(fmi2eventInfo, "fmi2eventInfo")?;
        let states_changed = instance.update_discrete_states();
        // One pass settles the event; no time events.
        *info = fmi2EventInfo {
            valuesOfContinuousStatesChanged: i32::from(states_changed),
            ..fmi2EventInfo::default()
        };
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: fmi2Component) -> fmi2Status {
    Instance::enter(c, Call::EnterContinuousTimeMode, State::ContinuousTimeMode)
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
    Instance::run(c, Call::CompletedIntegratorStep, |instance| {
        instance.completed_integrator_step(enterEventMode, terminateSimulation)
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetTime(c: fmi2Component, time: fmi2Real) -> fmi2Status {
    Instance::run(c, Call::SetTime, |instance| instance.set_time(time))
}

/// # Safety
/// `x` holds `nx` values.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetContinuousStates(
    c: fmi2Component,
    x: *const fmi2Real,
    nx: usize,
) -> fmi2Status {
    Instance::run(c, Call::SetContinuousStates, |instance| {
        instance.set_continuous_states(("x[]", x), ("nx", nx))
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
    Instance::run(c, Call::GetDerivatives, |instance| {
        let values = instance.model.derivatives();
        write_array(&values, ("derivatives", derivatives, nx), "nx")
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
    Instance::run(c, Call::GetEventIndicators, |instance| {
        let values = instance.model.event_indicators();
        write_array(&values, ("eventIndicators", eventIndicators, ni), "ni")
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
    Instance::run(c, Call::GetContinuousStates, |instance| {
        let values = instance.model.continuous_states();
        write_array(&values, ("x", x, nx), "nx")
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
    Instance::run(c, Call::GetNominalsOfContinuousStates, |_| {
        // E_loss is an energy in J; 1 J keeps the solver's absolute tolerance meaningful for the
        // joule-scale contacts the element is made for.
        write_array(&[1.0; STATES.len()], ("x_nominal", x_nominal, nx), "nx")
    })
}

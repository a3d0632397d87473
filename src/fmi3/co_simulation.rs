//! The co-simulation functions: the step (whole as in FMI 2, or stopping at the contact's
//! switches for early return and the intermediate update), Step Mode and the output derivatives.

#![allow(non_snake_case)]

use fmi_sys::fmi3::{
    fmi3Boolean, fmi3Float64, fmi3Instance, fmi3Int32, fmi3Status, fmi3ValueReference,
};

use super::state::{Call, State};
use super::{Instance, Setup};
use crate::runtime::arguments::out;
use crate::runtime::instance::check_scalars;
use crate::runtime::{error, Failure, Outcome, Status};

/// At the step's first switch: the intermediateUpdate callback, if given, during which no
/// reference to the instance lives (it may call it again); whether the step returns early there.
fn at_switch(pointer: *mut Instance) -> Result<bool, Failure> {
    // SAFETY (each borrow below): `run_raw` checked the instance, and no other borrow is live.
    let fmu = unsafe { &mut *pointer };
    let early_return_allowed = fmu.setup.early_return_allowed;
    if let Some(callback) = fmu.setup.intermediate_update {
        fmu.state = State::IntermediateUpdateMode;
        let (environment, time) = (fmu.logger.environment, fmu.model.time);
        let (mut early_return_requested, mut early_return_time) = (false, time);
        // SAFETY: the importer's callback with its own environment; the out-parameters are
        // valid locals. No borrow of the instance is live during the call.
        unsafe {
            callback(
                environment,
                time,
                false,
                true,
                true,
                early_return_allowed,
                &mut early_return_requested,
                &mut early_return_time,
            )
        };
        after_callback(unsafe { &mut *pointer })?;
    }
    // The master's earlyReturnRequested only counts where the FMU offered canReturnEarly, which
    // is where early return is allowed: there it returns at the switch anyway.
    Ok(early_return_allowed)
}

/// Back from the intermediateUpdate callback: a call inside it that failed (and logged why)
/// fails the step.
fn after_callback(fmu: &mut Instance) -> Outcome {
    match fmu.state {
        State::IntermediateUpdateMode => {
            fmu.state = State::StepMode;
            Ok(())
        }
        State::Fatal => Err(Failure {
            status: Status::Fatal,
            message: "a call inside the intermediateUpdate callback was fatal".into(),
        }),
        _ => {
            fmu.state = State::StepMode;
            Err(error(
                "a call inside the intermediateUpdate callback failed",
            ))
        }
    }
}

/// # Safety
/// The out-parameters point to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3DoStep(
    instance: fmi3Instance,
    currentCommunicationPoint: fmi3Float64,
    communicationStepSize: fmi3Float64,
    noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    eventHandlingNeeded: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    earlyReturn: *mut fmi3Boolean,
    lastSuccessfulTime: *mut fmi3Float64,
) -> fmi3Status {
    let _ = noSetFMUStatePriorToCurrentPoint;
    let (t, h) = (currentCommunicationPoint, communicationStepSize);
    Instance::run_raw(instance, Call::DoStep, |pointer| {
        let event_handling_needed = out(eventHandlingNeeded, "eventHandlingNeeded")?;
        let terminate = out(terminateSimulation, "terminateSimulation")?;
        let early_return = out(earlyReturn, "earlyReturn")?;
        let last_successful_time = out(lastSuccessfulTime, "lastSuccessfulTime")?;
        // The step stops at switches for early return or the intermediate update.
        // SAFETY: `run_raw` checked the instance; the borrow ends here.
        let setup = unsafe { &(*pointer).setup };
        let outcome = if setup.early_return_allowed || setup.intermediate_update.is_some() {
            Instance::step_to_switch(pointer, (t, h), Setup::step_start, at_switch)
        } else {
            // SAFETY: `run_raw` checked the instance; no other borrow of it is live.
            unsafe { &mut *pointer }.whole_step(t, h).map(|()| false)
        };
        // SAFETY: the step's borrows have ended.
        let fmu = unsafe { &*pointer };
        *last_successful_time = fmu.model.time;
        *terminate = false;
        let early = outcome?;
        *early_return = early;
        *event_handling_needed = early && fmu.setup.event_mode_used;
        Ok(())
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterStepMode(instance: fmi3Instance) -> fmi3Status {
    Instance::enter(instance, Call::EnterStepMode, State::StepMode)
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetOutputDerivatives(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    orders: *const fmi3Int32,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    Instance::run(instance, Call::GetOutputDerivatives, |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.output_derivatives((valueReferences, orders, values), nValues)
    })
}

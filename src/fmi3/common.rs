//! The functions common to co-simulation and Model Exchange: version, instantiation, debug
//! logging, the mode changes, the discrete-state update of Event Mode and the directional
//! derivative.

#![allow(non_snake_case)]

use std::ffi::c_char;
use std::path::PathBuf;

use fmi_sys::fmi3::{
    fmi3Boolean, fmi3Float64, fmi3Instance, fmi3InstanceEnvironment,
    fmi3IntermediateUpdateCallback, fmi3LogMessageCallback, fmi3Status, fmi3String,
    fmi3ValueReference,
};

use super::state::{Call, State};
use super::{Instance, Setup};
use crate::model::Interface;
use crate::runtime::arguments::{out, slice, slice_mut, string};
use crate::runtime::instance::{check_instance_name, check_token};
use crate::runtime::{error, Logger};

#[no_mangle]
pub extern "C" fn fmi3GetVersion() -> *const c_char {
    c"3.0".as_ptr()
}

/// The instantiate functions' checks of the instance name, the token and the resource folder, a
/// plain directory path (no URI); without one, only absolute tableFile paths can be read.
fn check(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
) -> Result<Option<PathBuf>, String> {
    check_instance_name(instanceName)?;
    let null_token = "wrong instantiationToken: it is NULL";
    check_token(instantiationToken, "instantiationToken", null_token)?;
    if !resourcePath.is_null() && string(resourcePath).is_none() {
        return Err("resourcePath is not UTF-8".into());
    }
    let resources = string(resourcePath).filter(|path| !path.is_empty());
    Ok(resources.map(PathBuf::from))
}

/// # Safety
/// Pointers as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateModelExchange(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
) -> fmi3Instance {
    let _ = visible;
    let logger = Logger::new(logMessage, instanceEnvironment, loggingOn);
    Instance::instantiate("fmi3InstantiateModelExchange", logger, || {
        let resources = check(instanceName, instantiationToken, resourcePath)?;
        let setup = Setup::new(Interface::ModelExchange, (false, false, None));
        Ok((Interface::ModelExchange, resources, setup))
    })
}

/// # Safety
/// Pointers as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    eventModeUsed: fmi3Boolean,
    earlyReturnAllowed: fmi3Boolean,
    requiredIntermediateVariables: *const fmi3ValueReference,
    nRequiredIntermediateVariables: usize,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    intermediateUpdate: fmi3IntermediateUpdateCallback,
) -> fmi3Instance {
    let _ = visible;
    let logger = Logger::new(logMessage, instanceEnvironment, loggingOn);
    Instance::instantiate("fmi3InstantiateCoSimulation", logger, || {
        // Every variable can be got in Intermediate Update Mode, so the list asks for nothing
        // this FMU does not give; it is only checked to be readable.
        let required = requiredIntermediateVariables;
        let what = "requiredIntermediateVariables[]";
        slice(required, nRequiredIntermediateVariables, what).map_err(|f| f.message)?;
        let resources = check(instanceName, instantiationToken, resourcePath)?;
        let flags = (eventModeUsed, earlyReturnAllowed, intermediateUpdate);
        let setup = Setup::new(Interface::CoSimulation, flags);
        Ok((Interface::CoSimulation, resources, setup))
    })
}

/// # Safety
/// Pointers as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    clockUpdate: fmi_sys::fmi3::fmi3ClockUpdateCallback,
    lockPreemption: fmi_sys::fmi3::fmi3LockPreemptionCallback,
    unlockPreemption: fmi_sys::fmi3::fmi3UnlockPreemptionCallback,
) -> fmi3Instance {
    let _ = (visible, clockUpdate, lockPreemption, unlockPreemption);
    let _ = (instanceName, instantiationToken, resourcePath);
    let logger = Logger::new(logMessage, instanceEnvironment, loggingOn);
    Instance::instantiate("fmi3InstantiateScheduledExecution", logger, || {
        Err("ElastoGap has no Scheduled Execution interface (it has no clocks): instantiate it for co-simulation or Model Exchange".into())
    })
}

/// # Safety
/// `instance` is NULL or an instance from this library that was not yet freed.
#[no_mangle]
pub unsafe extern "C" fn fmi3FreeInstance(instance: fmi3Instance) {
    Instance::free(instance)
}

/// # Safety
/// Pointers as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetDebugLogging(
    instance: fmi3Instance,
    loggingOn: fmi3Boolean,
    nCategories: usize,
    categories: *const fmi3String,
) -> fmi3Status {
    Instance::run(instance, Call::SetDebugLogging, |fmu| {
        fmu.set_debug_logging(loggingOn, categories, nCategories)
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterInitializationMode(
    instance: fmi3Instance,
    toleranceDefined: fmi3Boolean,
    tolerance: fmi3Float64,
    startTime: fmi3Float64,
    stopTimeDefined: fmi3Boolean,
    stopTime: fmi3Float64,
) -> fmi3Status {
    let _ = (toleranceDefined, tolerance);
    Instance::run(instance, Call::EnterInitializationMode, |fmu| {
        fmu.start_experiment(startTime, stopTimeDefined.then_some(stopTime))?;
        fmu.enter_initialization()
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3ExitInitializationMode(instance: fmi3Instance) -> fmi3Status {
    Instance::run(instance, Call::ExitInitializationMode, |fmu| {
        fmu.exit_initialization()?;
        // Model Exchange, and co-simulation with event mode, start in Event Mode.
        fmu.state = match fmu.interface() {
            Interface::CoSimulation if !fmu.setup.event_mode_used => State::StepMode,
            _ => State::EventMode,
        };
        Ok(())
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterEventMode(instance: fmi3Instance) -> fmi3Status {
    // Refused by `run` on a co-simulation instance without event mode.
    Instance::enter(instance, Call::EnterEventMode, State::EventMode)
}

/// # Safety
/// Every pointer points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3UpdateDiscreteStates(
    instance: fmi3Instance,
    discreteStatesNeedUpdate: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    nominalsOfContinuousStatesChanged: *mut fmi3Boolean,
    valuesOfContinuousStatesChanged: *mut fmi3Boolean,
    nextEventTimeDefined: *mut fmi3Boolean,
    nextEventTime: *mut fmi3Float64,
) -> fmi3Status {
    Instance::run(instance, Call::UpdateDiscreteStates, |fmu| {
        let need_update = out(discreteStatesNeedUpdate, "discreteStatesNeedUpdate")?;
        let terminate = out(terminateSimulation, "terminateSimulation")?;
        let nominals_changed = out(
            nominalsOfContinuousStatesChanged,
            "nominalsOfContinuousStatesChanged",
        )?;
        let values_changed = out(
            valuesOfContinuousStatesChanged,
            "valuesOfContinuousStatesChanged",
        )?;
        let time_defined = out(nextEventTimeDefined, "nextEventTimeDefined")?;
        let next_time = out(nextEventTime, "nextEventTime")?;
        let states_changed = fmu.update_discrete_states();
        // One pass settles the event; no time events.
        *need_update = false;
        *terminate = false;
        *nominals_changed = false;
        *values_changed = states_changed;
        *time_defined = false;
        *next_time = 0.0;
        Ok(())
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3Terminate(instance: fmi3Instance) -> fmi3Status {
    Instance::enter(instance, Call::Terminate, State::Terminated)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3Reset(instance: fmi3Instance) -> fmi3Status {
    Instance::run(instance, Call::Reset, |fmu| fmu.reset())
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetDirectionalDerivative(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    Instance::run(instance, Call::GetDirectionalDerivative, |fmu| {
        if nSeed != nKnowns || nSensitivity != nUnknowns {
            return Err(error(format!(
                "nSeed = {nSeed} and nSensitivity = {nSensitivity} must equal nKnowns = {nKnowns} and nUnknowns = {nUnknowns}: all variables are scalars"
            )));
        }
        let unknowns = slice(unknowns, nUnknowns, "unknowns[]")?;
        let knowns = slice(knowns, nKnowns, "knowns[]")?;
        let seeds = slice(seed, nSeed, "seed[]")?;
        let results = slice_mut(sensitivity, nSensitivity, "sensitivity[]")?;
        fmu.directional_derivative((unknowns, knowns), (seeds, "seed"), results)
    })
}

//! The functions common to co-simulation and Model Exchange: version, instantiation, debug
//! logging, the mode changes, the discrete-state update of Event Mode and the directional
//! derivative.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::panic::catch_unwind;
use std::path::PathBuf;

use fmi_sys::fmi3::{
    fmi3Boolean, fmi3Float64, fmi3Instance, fmi3InstanceEnvironment,
    fmi3IntermediateUpdateCallback, fmi3LogMessageCallback, fmi3Status, fmi3String,
    fmi3ValueReference,
};

use super::arguments::{out, slice, slice_mut, string};
use super::instance::{run, CoSimulationSetup, Instance, Type, LIVE};
use super::logging::{error, Category, Logger, ALL_CATEGORIES, CATEGORY_NAMES};
use super::state::{Call, State};
use super::{ERROR, OK};
use crate::model::{ElastoGap, Interface, Number};
use crate::variables::{Causality, Var, INPUT_COUNT, STATES};

#[no_mangle]
pub extern "C" fn fmi3GetVersion() -> *const c_char {
    c"3.0".as_ptr()
}

/// What the three instantiate functions share: the checks of the arguments, each refusal logged
/// through the importer's logger (when it gave one), and the new instance.
struct Request {
    function: &'static str,
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
}

impl Request {
    fn logger(&self) -> Logger {
        Logger {
            callback: self.logMessage,
            environment: self.instanceEnvironment,
            enabled: [self.loggingOn; CATEGORY_NAMES.len()],
        }
    }

    fn refuse(&self, message: &str) -> fmi3Instance {
        let text = format!("{}: {message}", self.function);
        self.logger().log(ERROR, Category::StatusError, &text);
        std::ptr::null_mut()
    }

    fn instantiate(&self, interface: Interface, setup: CoSimulationSetup) -> fmi3Instance {
        let name = string(self.instanceName).unwrap_or("");
        if name.is_empty() {
            return self.refuse("instanceName must be a non-empty string");
        }
        match string(self.instantiationToken) {
            Some(token) if token == crate::GUID => {}
            Some(token) => {
                return self.refuse(&format!(
                    "wrong instantiationToken {token}: this binary is {}; the modelDescription.xml does not belong to it",
                    crate::GUID
                ))
            }
            None => return self.refuse("wrong instantiationToken: it is NULL"),
        }
        // FMI 3.0 hands a plain directory path (no URI); without one, only absolute tableFile
        // paths can be read.
        let resources = string(self.resourcePath)
            .filter(|path| !path.is_empty())
            .map(PathBuf::from);
        if !self.resourcePath.is_null() && string(self.resourcePath).is_none() {
            return self.refuse("resourcePath is not UTF-8");
        }
        let instance = Box::new(Instance::new(interface, self.logger(), resources, setup));
        Box::into_raw(instance).cast::<c_void>()
    }
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
    let request = Request {
        function: "fmi3InstantiateModelExchange",
        instanceName,
        instantiationToken,
        resourcePath,
        loggingOn,
        instanceEnvironment,
        logMessage,
    };
    catch_unwind(|| request.instantiate(Interface::ModelExchange, CoSimulationSetup::NONE))
        .unwrap_or(std::ptr::null_mut())
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
    let request = Request {
        function: "fmi3InstantiateCoSimulation",
        instanceName,
        instantiationToken,
        resourcePath,
        loggingOn,
        instanceEnvironment,
        logMessage,
    };
    catch_unwind(|| {
        // Every variable can be got in Intermediate Update Mode, so the list asks for nothing
        // this FMU does not give; it is only checked to be readable.
        if let Err(failure) = slice(
            requiredIntermediateVariables,
            nRequiredIntermediateVariables,
            "requiredIntermediateVariables[]",
        ) {
            return request.refuse(&failure.message);
        }
        let setup = CoSimulationSetup {
            event_mode_used: eventModeUsed,
            early_return_allowed: earlyReturnAllowed,
            intermediate_update: intermediateUpdate,
        };
        request.instantiate(Interface::CoSimulation, setup)
    })
    .unwrap_or(std::ptr::null_mut())
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
    let request = Request {
        function: "fmi3InstantiateScheduledExecution",
        instanceName,
        instantiationToken,
        resourcePath,
        loggingOn,
        instanceEnvironment,
        logMessage,
    };
    catch_unwind(|| {
        request.refuse(
            "ElastoGap has no Scheduled Execution interface (it has no clocks): instantiate it for co-simulation or Model Exchange",
        )
    })
    .unwrap_or(std::ptr::null_mut())
}

/// # Safety
/// `instance` is NULL or an instance from this library that was not yet freed.
#[no_mangle]
pub unsafe extern "C" fn fmi3FreeInstance(instance: fmi3Instance) {
    if instance.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        let pointer = instance.cast::<Instance>();
        // SAFETY: as documented; the liveness mark refuses a double free that left memory intact.
        if unsafe { (*pointer).live } == LIVE {
            drop(unsafe { Box::from_raw(pointer) });
        }
    });
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
    run(instance, Call::SetDebugLogging, |fmu| {
        let names = slice(categories, nCategories, "categories[]")?;
        if names.is_empty() {
            fmu.logger.enabled = [loggingOn; CATEGORY_NAMES.len()];
            return Ok(());
        }
        let mut enabled = fmu.logger.enabled;
        for name in names {
            let name =
                string(*name).ok_or_else(|| error("a category name is NULL or not UTF-8"))?;
            #[cfg(feature = "panic-probe")]
            if name == "elastogap-panic-probe" {
                panic!("the panic probe was asked for");
            }
            if name == ALL_CATEGORIES {
                enabled = [loggingOn; CATEGORY_NAMES.len()];
            } else if let Some(k) = CATEGORY_NAMES.iter().position(|c| c.to_str() == Ok(name)) {
                enabled[k] = loggingOn;
            } else {
                let declared: Vec<&str> = CATEGORY_NAMES
                    .iter()
                    .filter_map(|c| c.to_str().ok())
                    .chain([ALL_CATEGORIES])
                    .collect();
                return Err(error(format!(
                    "unknown log category '{name}' (declared: {})",
                    declared.join(", ")
                )));
            }
        }
        fmu.logger.enabled = enabled;
        Ok(())
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
    run(instance, Call::EnterInitializationMode, |fmu| {
        if !startTime.is_finite() {
            return Err(error(format!("startTime = {startTime} must be finite")));
        }
        if stopTimeDefined && stopTime.is_nan() {
            return Err(error("stopTime = NaN is not a time"));
        }
        if stopTimeDefined && stopTime < startTime {
            return Err(error(format!(
                "stopTime = {} is before startTime = {}",
                Number(stopTime),
                Number(startTime)
            )));
        }
        fmu.model.time = startTime;
        fmu.state = State::InitializationMode;
        if fmu.interface() == Interface::ModelExchange {
            fmu.model.update_at_event();
        }
        Ok(())
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3ExitInitializationMode(instance: fmi3Instance) -> fmi3Status {
    run(instance, Call::ExitInitializationMode, |fmu| {
        fmu.take_parameters()?;
        if fmu.interface() == Interface::ModelExchange {
            fmu.model.update_at_event();
        }
        fmu.model.begin_run();
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
    run(instance, Call::EnterEventMode, |fmu| {
        if fmu.interface() == Interface::CoSimulation && !fmu.setup.event_mode_used {
            return Err(error(
                "the instance was instantiated with eventModeUsed = false",
            ));
        }
        fmu.state = State::EventMode;
        Ok(())
    })
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
    run(instance, Call::UpdateDiscreteStates, |fmu| {
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
        // Co-simulation: the switch the step stopped at takes effect. Model Exchange: FMI 2's
        // event update (contact and the held f_mean; the stiction deformation may jump).
        let (contact_changed, states_changed) = match fmu.interface() {
            Interface::CoSimulation => (fmu.model.take_switch(), false),
            Interface::ModelExchange => {
                let update = fmu.model.update_discrete_states();
                (update.contact_changed, update.states_changed)
            }
        };
        if contact_changed && fmu.logger.is_enabled(Category::Events) {
            let contact = fmu.model.value(Var::Contact) != 0.0;
            let message = format!(
                "contact {} at t = {:.17}",
                if contact { "starts" } else { "ends" },
                fmu.model.time
            );
            fmu.logger.log(OK, Category::Events, &message);
        }
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
    run(instance, Call::Terminate, |fmu| {
        fmu.state = State::Terminated;
        Ok(())
    })
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3Reset(instance: fmi3Instance) -> fmi3Status {
    run(instance, Call::Reset, |fmu| {
        fmu.reset();
        Ok(())
    })
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
    run(instance, Call::GetDirectionalDerivative, |fmu| {
        if nSeed != nKnowns || nSensitivity != nUnknowns {
            return Err(error(format!(
                "nSeed = {nSeed} and nSensitivity = {nSensitivity} must equal nKnowns = {nKnowns} and nUnknowns = {nUnknowns}: all variables are scalars"
            )));
        }
        let unknowns = slice(unknowns, nUnknowns, "unknowns[]")?;
        let knowns = slice(knowns, nKnowns, "knowns[]")?;
        let seeds = slice(seed, nSeed, "seed[]")?;
        let results = slice_mut(sensitivity, nSensitivity, "sensitivity[]")?;
        directional_derivative(fmu, unknowns, knowns, seeds, results)
    })
}

/// As fmi2GetDirectionalDerivative: knowns are inputs (and in Model Exchange the continuous
/// states), unknowns outputs, locals or state derivatives with partial derivatives.
fn directional_derivative(
    fmu: &mut Instance,
    unknowns: &[fmi3ValueReference],
    knowns: &[fmi3ValueReference],
    seeds: &[f64],
    results: &mut [f64],
) -> super::logging::Outcome {
    const MOST_KNOWNS: usize = INPUT_COUNT + STATES.len();
    let mut known_vars = [Var::FlangeAS; MOST_KNOWNS];
    if knowns.len() > known_vars.len() {
        return Err(error(format!(
            "{} knowns given; ElastoGap has {INPUT_COUNT} inputs and {} continuous state(s)",
            knowns.len(),
            STATES.len()
        )));
    }
    let model_exchange = fmu.interface() == Interface::ModelExchange;
    for (k, reference) in knowns.iter().enumerate() {
        let variable = fmu.variable(*reference, Type::Float64)?;
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
            return Err(error(format!("seed[{k}] = {} is not finite", seeds[k])));
        }
        known_vars[k] = variable.var;
    }
    for (k, reference) in unknowns.iter().enumerate() {
        let variable = fmu.variable(*reference, Type::Float64)?;
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
            .map(|(known, seed)| fmu.model.partial_derivative(variable.var, *known) * seed)
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

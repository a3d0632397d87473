//! The functions common to co-simulation and Model Exchange.

#![allow(non_snake_case)]

use std::ffi::{c_char, CString};
use std::path::PathBuf;

use fmi_sys::fmi2::{
    fmi2Boolean, fmi2Byte, fmi2CallbackFunctions, fmi2Component, fmi2FMUstate, fmi2Integer,
    fmi2Real, fmi2Status, fmi2String, fmi2Type, fmi2ValueReference,
};

use super::state::{Call, State};
use super::{Instance, Sink};
use crate::layer::resource_path;
use crate::model::Interface;
use crate::runtime::arguments::{slice, slice_mut, string};
use crate::runtime::instance::{check_instance_name, check_token};
use crate::runtime::Logger;
use crate::variables::Kind;

#[no_mangle]
pub extern "C" fn fmi2GetTypesPlatform() -> *const c_char {
    c"default".as_ptr()
}

#[no_mangle]
pub extern "C" fn fmi2GetVersion() -> *const c_char {
    c"2.0".as_ptr()
}

/// # Safety
/// Pointers as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2Instantiate(
    instanceName: fmi2String,
    fmuType: fmi2Type,
    fmuGUID: fmi2String,
    fmuResourceLocation: fmi2String,
    functions: *const fmi2CallbackFunctions,
    visible: fmi2Boolean,
    loggingOn: fmi2Boolean,
) -> fmi2Component {
    let _ = visible;
    if functions.is_null() {
        return std::ptr::null_mut();
    }
    // Copied: some importers pass a struct on their stack that is gone after this call.
    // SAFETY: non-NULL and points to the importer's callback struct.
    let callbacks = unsafe { std::ptr::read(functions) };
    let name = string(instanceName).filter(|name| !name.is_empty());
    let sink = callbacks.logger.map(|_| Sink {
        callback: callbacks.logger,
        instance_name: CString::new(name.unwrap_or("ElastoGap")).unwrap_or_default(),
    });
    let logger = Logger::new(sink, callbacks.componentEnvironment, loggingOn != 0);
    Instance::instantiate("fmi2Instantiate", logger, || {
        check_instance_name(instanceName)?;
        let interface = match fmuType {
            fmi_sys::fmi2::fmi2Type_fmi2CoSimulation => Interface::CoSimulation,
            fmi_sys::fmi2::fmi2Type_fmi2ModelExchange => Interface::ModelExchange,
            other => return Err(format!(
                "fmuType {other} is not an FMI 2.0 type: ElastoGap serves fmi2ModelExchange (0) and fmi2CoSimulation (1)"
            )),
        };
        check_token(fmuGUID, "GUID", "fmuGUID is NULL")?;
        if fmuResourceLocation.is_null() {
            return Ok((interface, None, ()));
        }
        let uri = string(fmuResourceLocation).unwrap_or("");
        let resources = resource_path(uri).map(PathBuf::from).ok_or_else(|| {
            format!(
                "fmuResourceLocation '{uri}' is not a file URI (file:///path, file:/path or file://localhost/path)"
            )
        })?;
        Ok((interface, Some(resources), ()))
    })
}

/// # Safety
/// `c` is NULL or an instance from `fmi2Instantiate` that was not yet freed.
#[no_mangle]
pub unsafe extern "C" fn fmi2FreeInstance(c: fmi2Component) {
    Instance::free(c)
}

/// # Safety
/// Pointers as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetDebugLogging(
    c: fmi2Component,
    loggingOn: fmi2Boolean,
    nCategories: usize,
    categories: *const fmi2String,
) -> fmi2Status {
    Instance::run(c, Call::SetDebugLogging, |instance| {
        instance.set_debug_logging(loggingOn != 0, categories, nCategories)
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetupExperiment(
    c: fmi2Component,
    toleranceDefined: fmi2Boolean,
    tolerance: fmi2Real,
    startTime: fmi2Real,
    stopTimeDefined: fmi2Boolean,
    stopTime: fmi2Real,
) -> fmi2Status {
    let _ = (toleranceDefined, tolerance);
    Instance::run(c, Call::SetupExperiment, |instance| {
        instance.start_experiment(startTime, (stopTimeDefined != 0).then_some(stopTime))
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterInitializationMode(c: fmi2Component) -> fmi2Status {
    Instance::run(c, Call::EnterInitializationMode, |instance| {
        instance.enter_initialization()
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status {
    Instance::run(c, Call::ExitInitializationMode, |instance| {
        instance.exit_initialization()?;
        instance.state = State::running(instance.interface());
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2Terminate(c: fmi2Component) -> fmi2Status {
    Instance::enter(c, Call::Terminate, State::Terminated)
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2Reset(c: fmi2Component) -> fmi2Status {
    Instance::run(c, Call::Reset, |instance| instance.reset())
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Real,
) -> fmi2Status {
    Instance::run(c, Call::GetReal, |instance| {
        instance.get((vr, value), nvr, Kind::Real, |x| x)
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Integer,
) -> fmi2Status {
    Instance::run(c, Call::GetInteger, |instance| {
        instance.get((vr, value), nvr, Kind::Integer, |x| x as fmi2Integer)
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    Instance::run(c, Call::GetBoolean, |instance| {
        instance.get((vr, value), nvr, Kind::Boolean, |x| i32::from(x != 0.0))
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2String,
) -> fmi2Status {
    Instance::run(c, Call::GetString, |instance| {
        instance.get_strings((vr, value), nvr)
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Real,
) -> fmi2Status {
    Instance::run(c, Call::SetReal, |instance| {
        instance.set((vr, value), nvr, Kind::Real, |x| x)
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Integer,
) -> fmi2Status {
    Instance::run(c, Call::SetInteger, |instance| {
        instance.set((vr, value), nvr, Kind::Integer, f64::from)
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Boolean,
) -> fmi2Status {
    Instance::run(c, Call::SetBoolean, |instance| {
        instance.set((vr, value), nvr, Kind::Boolean, |x| {
            f64::from(u8::from(x != 0))
        })
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2String,
) -> fmi2Status {
    Instance::run(c, Call::SetString, |instance| {
        instance.set_strings((vr, value), nvr)
    })
}

/// # Safety
/// `FMUstate` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    Instance::run(c, Call::GetFMUstate, |instance| {
        instance.get_fmu_state(FMUstate)
    })
}

/// # Safety
/// `FMUstate` is a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate) -> fmi2Status {
    Instance::run(c, Call::SetFMUstate, |instance| {
        instance.set_fmu_state(FMUstate)
    })
}

/// # Safety
/// `FMUstate` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi2FreeFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    Instance::run(c, Call::FreeFMUstate, |instance| {
        instance.free_fmu_state(FMUstate)
    })
}

/// # Safety
/// `size` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    Instance::run(c, Call::SerializedFMUstateSize, |instance| {
        instance.serialized_size(FMUstate, size)
    })
}

/// # Safety
/// `serializedState` holds `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    serializedState: *mut fmi2Byte,
    size: usize,
) -> fmi2Status {
    Instance::run(c, Call::SerializeFMUstate, |instance| {
        instance.serialize(FMUstate, serializedState.cast(), size)
    })
}

/// # Safety
/// `serializedState` holds `size` bytes; `FMUstate` points to NULL or to a state of this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: fmi2Component,
    serializedState: *const fmi2Byte,
    size: usize,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    Instance::run(c, Call::DeSerializeFMUstate, |instance| {
        instance.deserialize(serializedState.cast(), size, FMUstate)
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
    c: fmi2Component,
    vUnknown_ref: *const fmi2ValueReference,
    nUnknown: usize,
    vKnown_ref: *const fmi2ValueReference,
    nKnown: usize,
    dvKnown: *const fmi2Real,
    dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    Instance::run(c, Call::GetDirectionalDerivative, |instance| {
        let unknowns = slice(vUnknown_ref, nUnknown, "vUnknown_ref[]")?;
        let knowns = slice(vKnown_ref, nKnown, "vKnown_ref[]")?;
        let seeds = slice(dvKnown, nKnown, "dvKnown[]")?;
        let results = slice_mut(dvUnknown, nUnknown, "dvUnknown[]")?;
        instance.directional_derivative((unknowns, knowns), (seeds, "dvKnown"), results)
    })
}

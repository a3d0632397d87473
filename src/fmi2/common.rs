//! The functions common to co-simulation and Model Exchange.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_void, CString};
use std::panic::catch_unwind;

use fmi_sys::fmi2::{
    fmi2Boolean, fmi2Byte, fmi2CallbackFunctions, fmi2Component, fmi2FMUstate, fmi2Integer,
    fmi2Real, fmi2Status, fmi2String, fmi2Type, fmi2ValueReference,
};

use super::arguments::{slice, slice_mut, string};
use super::instance::{run, Instance};
use super::logging::{error, Category, Logger, ALL_CATEGORIES, CATEGORY_NAMES};
use super::state::{interface_name, Call, State};
use super::ERROR;
use crate::layer::resource_path;
use crate::model::{ElastoGap, Interface, Number};
use crate::snapshot;
use crate::variables::{Causality, Kind, Var, INPUT_COUNT, STATES};

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
    catch_unwind(|| {
        if functions.is_null() {
            return std::ptr::null_mut();
        }
        // Copied: some importers pass a struct on their stack that is gone after this call.
        // SAFETY: non-NULL and points to the importer's callback struct.
        let callbacks = unsafe { std::ptr::read(functions) };
        let name = string(instanceName).unwrap_or("");
        let logger = Logger {
            callback: callbacks.logger,
            environment: callbacks.componentEnvironment,
            instance_name: CString::new(if name.is_empty() { "ElastoGap" } else { name }).unwrap_or_default(),
            enabled: [loggingOn != 0; CATEGORY_NAMES.len()],
        };
        let fail = |message: String| {
            logger.log(ERROR, Category::StatusError, &format!("fmi2Instantiate: {message}"));
            std::ptr::null_mut()
        };
        if instanceName.is_null() || name.is_empty() {
            return fail("instanceName must be a non-empty string".into());
        }
        let interface = match fmuType {
            fmi_sys::fmi2::fmi2Type_fmi2CoSimulation => Interface::CoSimulation,
            fmi_sys::fmi2::fmi2Type_fmi2ModelExchange => Interface::ModelExchange,
            other => {
                return fail(format!(
                    "fmuType {other} is not an FMI 2.0 type: ElastoGap serves fmi2ModelExchange (0) and fmi2CoSimulation (1)"
                ))
            }
        };
        match string(fmuGUID) {
            Some(guid) if guid == crate::GUID => {}
            Some(guid) => {
                return fail(format!(
                    "wrong GUID {guid}: this binary is {}; the modelDescription.xml does not belong to it",
                    crate::GUID
                ))
            }
            None => return fail("fmuGUID is NULL".into()),
        }
        let mut resources = None;
        if !fmuResourceLocation.is_null() {
            let uri = string(fmuResourceLocation).unwrap_or("");
            match resource_path(uri) {
                Some(path) => resources = Some(std::path::PathBuf::from(path)),
                None => {
                    return fail(format!(
                        "fmuResourceLocation '{uri}' is not a file URI (file:///path, file:/path or file://localhost/path)"
                    ))
                }
            }
        }
        let instance = Box::new(Instance::new(interface, logger, resources));
        Box::into_raw(instance).cast::<c_void>()
    })
    .unwrap_or(std::ptr::null_mut())
}

/// # Safety
/// `c` is NULL or an instance from `fmi2Instantiate` that was not yet freed.
#[no_mangle]
pub unsafe extern "C" fn fmi2FreeInstance(c: fmi2Component) {
    if c.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        let instance = c.cast::<Instance>();
        // SAFETY: as documented; the liveness mark refuses a double free that left memory intact.
        if unsafe { (*instance).live } == super::instance::LIVE {
            drop(unsafe { Box::from_raw(instance) });
        }
    });
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
    run(c, Call::SetDebugLogging, |instance| {
        let names = slice(categories, nCategories, "categories[]")?;
        let on = loggingOn != 0;
        if names.is_empty() {
            instance.logger.enabled = [on; CATEGORY_NAMES.len()];
            return Ok(());
        }
        let mut enabled = instance.logger.enabled;
        for name in names {
            let name =
                string(*name).ok_or_else(|| error("a category name is NULL or not UTF-8"))?;
            #[cfg(feature = "panic-probe")]
            if name == "elastogap-panic-probe" {
                panic!("the panic probe was asked for");
            }
            if name == ALL_CATEGORIES {
                enabled = [on; CATEGORY_NAMES.len()];
            } else if let Some(k) = CATEGORY_NAMES.iter().position(|c| c.to_str() == Ok(name)) {
                enabled[k] = on;
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
        instance.logger.enabled = enabled;
        Ok(())
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
    run(c, Call::SetupExperiment, |instance| {
        if !startTime.is_finite() {
            return Err(error(format!("startTime = {startTime} must be finite")));
        }
        if stopTimeDefined != 0 && stopTime.is_nan() {
            return Err(error("stopTime = NaN is not a time"));
        }
        if stopTimeDefined != 0 && stopTime < startTime {
            return Err(error(format!(
                "stopTime = {} is before startTime = {}",
                Number(stopTime),
                Number(startTime)
            )));
        }
        instance.start_time = startTime;
        instance.model.time = startTime;
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2EnterInitializationMode(c: fmi2Component) -> fmi2Status {
    run(c, Call::EnterInitializationMode, |instance| {
        instance.state = State::InitializationMode;
        if instance.interface() == Interface::ModelExchange {
            instance.model.update_at_event();
        }
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status {
    run(c, Call::ExitInitializationMode, |instance| {
        instance.take_parameters()?;
        if instance.interface() == Interface::ModelExchange {
            instance.model.update_at_event();
        }
        instance.model.begin_run();
        instance.state = State::running(instance.interface());
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2Terminate(c: fmi2Component) -> fmi2Status {
    run(c, Call::Terminate, |instance| {
        instance.state = State::Terminated;
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2Reset(c: fmi2Component) -> fmi2Status {
    run(c, Call::Reset, |instance| {
        instance.reset();
        instance.state = State::Instantiated;
        Ok(())
    })
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
    run(c, Call::GetReal, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice_mut(value, nvr, "value[]")?;
        instance.get_values(references, Kind::Real, |k, x| values[k] = x)
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
    run(c, Call::GetInteger, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice_mut(value, nvr, "value[]")?;
        instance.get_values(references, Kind::Integer, |k, x| {
            values[k] = x as fmi2Integer
        })
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
    run(c, Call::GetBoolean, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice_mut(value, nvr, "value[]")?;
        instance.get_values(references, Kind::Boolean, |k, x| {
            values[k] = fmi2Boolean::from(x != 0.0)
        })
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
    run(c, Call::GetString, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice_mut(value, nvr, "value[]")?;
        for (k, reference) in references.iter().enumerate() {
            instance.variable(*reference, Kind::String)?;
            values[k] = instance.table_file.text().as_ptr();
        }
        Ok(())
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
    run(c, Call::SetReal, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice(value, nvr, "value[]")?;
        instance.set_values(
            references.iter().copied().zip(values.iter().copied()),
            Kind::Real,
        )
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
    run(c, Call::SetInteger, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice(value, nvr, "value[]")?;
        instance.set_values(
            references
                .iter()
                .copied()
                .zip(values.iter().map(|x| f64::from(*x))),
            Kind::Integer,
        )
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
    run(c, Call::SetBoolean, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice(value, nvr, "value[]")?;
        instance.set_values(
            references
                .iter()
                .copied()
                .zip(values.iter().map(|x| f64::from(u8::from(*x != 0)))),
            Kind::Boolean,
        )
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
    run(c, Call::SetString, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let values = slice(value, nvr, "value[]")?;
        let mut pairs = Vec::with_capacity(nvr);
        for (k, (reference, text)) in references.iter().zip(values).enumerate() {
            let text =
                string(*text).ok_or_else(|| error(format!("value[{k}] is NULL or not UTF-8")))?;
            pairs.push((*reference, text));
        }
        instance.set_strings(&pairs)
    })
}

/// # Safety
/// `FMUstate` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    run(c, Call::GetFMUstate, |instance| {
        if FMUstate.is_null() {
            return Err(error("FMUstate is NULL"));
        }
        // SAFETY: non-NULL pointer to the importer's fmi2FMUstate variable.
        let existing = unsafe { *FMUstate }.cast::<ElastoGap>();
        if existing.is_null() {
            let snapshot = Box::into_raw(Box::new(instance.model.clone()));
            instance.snapshots.push(snapshot);
            // SAFETY: as above.
            unsafe { *FMUstate = snapshot.cast() };
        } else if instance.owns_snapshot(existing) {
            // SAFETY: a live snapshot of this instance.
            unsafe { *existing = instance.model.clone() };
        } else {
            return Err(error(
                "*FMUstate is neither NULL nor a state of this instance",
            ));
        }
        Ok(())
    })
}

/// # Safety
/// `FMUstate` is a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate) -> fmi2Status {
    run(c, Call::SetFMUstate, |instance| {
        let snapshot = FMUstate.cast::<ElastoGap>();
        if !instance.owns_snapshot(snapshot) {
            return Err(error(
                "FMUstate is not a state of this instance (NULL, freed or foreign)",
            ));
        }
        // SAFETY: a live snapshot of this instance.
        let mut model = unsafe { (*snapshot).clone() };
        check_same_interface(instance, &model)?;
        let resumed_state = if instance.state == State::Error {
            instance.state_before_error
        } else {
            instance.state
        };
        // A state taken before initialization ended holds parameters that were never checked;
        // once they are in effect, restoring it must not bypass their rules.
        let parameters_in_effect = !matches!(
            resumed_state,
            State::Instantiated | State::InitializationMode
        );
        if parameters_in_effect {
            model.check_parameters().map_err(|violation| {
                error(format!(
                    "the state holds {violation}; it was taken before initialization checked the parameters"
                ))
            })?;
            if model.tables.is_none() {
                model.tables = instance
                    .table_file
                    .load(model.parameters.options.force_law)
                    .map_err(error)?;
            }
        }
        instance.model = model;
        instance.state = resumed_state;
        Ok(())
    })
}

/// # Safety
/// `FMUstate` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi2FreeFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    run(c, Call::FreeFMUstate, |instance| {
        if FMUstate.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL pointer to the importer's fmi2FMUstate variable.
        let snapshot = unsafe { *FMUstate }.cast::<ElastoGap>();
        if snapshot.is_null() {
            return Ok(());
        }
        let Some(position) = instance.snapshots.iter().position(|s| *s == snapshot) else {
            return Err(error(
                "*FMUstate is not a state of this instance (freed or foreign)",
            ));
        };
        instance.snapshots.swap_remove(position);
        // SAFETY: it was in the list, so it came from Box::into_raw and is freed only here.
        drop(unsafe { Box::from_raw(snapshot) });
        // SAFETY: as above.
        unsafe { *FMUstate = std::ptr::null_mut() };
        Ok(())
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
    run(c, Call::SerializedFMUstateSize, |instance| {
        if !instance.owns_snapshot(FMUstate.cast()) {
            return Err(error(
                "FMUstate is not a state of this instance (NULL, freed or foreign)",
            ));
        }
        let size = slice_mut(size, 1, "size")?;
        size[0] = snapshot::SERIALIZED_SIZE;
        Ok(())
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
    run(c, Call::SerializeFMUstate, |instance| {
        let state = FMUstate.cast::<ElastoGap>();
        if !instance.owns_snapshot(state) {
            return Err(error(
                "FMUstate is not a state of this instance (NULL, freed or foreign)",
            ));
        }
        if size != snapshot::SERIALIZED_SIZE {
            return Err(error(format!(
                "size = {size}, but fmi2SerializedFMUstateSize gives {}",
                snapshot::SERIALIZED_SIZE
            )));
        }
        let target = slice_mut(serializedState.cast::<u8>(), size, "serializedState")?;
        let mut bytes = [0u8; snapshot::SERIALIZED_SIZE];
        // SAFETY: a live snapshot of this instance.
        snapshot::write(unsafe { &*state }, &mut bytes).map_err(error)?;
        target.copy_from_slice(&bytes);
        Ok(())
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
    run(c, Call::DeSerializeFMUstate, |instance| {
        if FMUstate.is_null() {
            return Err(error("FMUstate is NULL"));
        }
        let bytes = slice(serializedState.cast::<u8>(), size, "serializedState")?;
        let (mut model, fingerprint) = snapshot::read(bytes).map_err(error)?;
        check_same_interface(instance, &model)?;
        model.tables = instance.tables_for_state(&model, fingerprint)?;
        // SAFETY: non-NULL pointer to the importer's fmi2FMUstate variable.
        let existing = unsafe { *FMUstate }.cast::<ElastoGap>();
        if existing.is_null() {
            let snapshot = Box::into_raw(Box::new(model));
            instance.snapshots.push(snapshot);
            // SAFETY: as above.
            unsafe { *FMUstate = snapshot.cast() };
        } else if instance.owns_snapshot(existing) {
            // SAFETY: a live snapshot of this instance.
            unsafe { *existing = model };
        } else {
            return Err(error(
                "*FMUstate is neither NULL nor a state of this instance",
            ));
        }
        Ok(())
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
    run(c, Call::GetDirectionalDerivative, |instance| {
        let unknowns = slice(vUnknown_ref, nUnknown, "vUnknown_ref[]")?;
        let knowns = slice(vKnown_ref, nKnown, "vKnown_ref[]")?;
        let seeds = slice(dvKnown, nKnown, "dvKnown[]")?;
        let results = slice_mut(dvUnknown, nUnknown, "dvUnknown[]")?;
        const MOST_KNOWNS: usize = INPUT_COUNT + STATES.len();
        let mut known_vars = [Var::FlangeAS; MOST_KNOWNS];
        if knowns.len() > known_vars.len() {
            return Err(error(format!(
                "{} knowns given; ElastoGap has {INPUT_COUNT} inputs and {} continuous state(s)",
                knowns.len(),
                STATES.len()
            )));
        }
        let model_exchange = instance.interface() == Interface::ModelExchange;
        for (k, reference) in knowns.iter().enumerate() {
            let variable = instance.variable(*reference, Kind::Real)?;
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
                return Err(error(format!("dvKnown[{k}] = {} is not finite", seeds[k])));
            }
            known_vars[k] = variable.var;
        }
        for (k, reference) in unknowns.iter().enumerate() {
            let variable = instance.variable(*reference, Kind::Real)?;
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
                .map(|(known, seed)| instance.model.partial_derivative(variable.var, *known) * seed)
                .sum();
            if !results[k].is_finite() {
                return Err(error(format!(
                    "the directional derivative of {} is {}: the inputs, parameters or seeds are out of the law's numeric range",
                    variable.name, results[k]
                )));
            }
        }
        Ok(())
    })
}

/// A state is restored only into an instance of the interface it was taken from: the outputs mean
/// different things in each.
fn check_same_interface(
    instance: &Instance,
    model: &ElastoGap,
) -> Result<(), super::logging::Failure> {
    if model.interface == instance.interface() {
        return Ok(());
    }
    Err(error(format!(
        "the state was taken from a {} instance; this instance was instantiated for {}",
        interface_name(model.interface),
        interface_name(instance.interface())
    )))
}

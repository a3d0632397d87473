//! The FMI 2.0 co-simulation C ABI. Everything unsafe lives here: pointers from the importer are
//! checked and turned into slices and strings once, and every call runs through [`run`], which
//! checks the state table, catches panics and escalates the instance state from the status.
//! Parameter names follow the standard's headers, so the generated C header reads like them.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use fmi_sys::fmi2::{
    fmi2Boolean, fmi2Byte, fmi2CallbackFunctions, fmi2CallbackLogger, fmi2Component,
    fmi2ComponentEnvironment, fmi2FMUstate, fmi2Integer, fmi2Real, fmi2Status, fmi2StatusKind,
    fmi2String, fmi2Type, fmi2ValueReference,
};

use crate::model::{ElastoGap, Number};
use crate::snapshot;
use crate::variables::{by_value_reference, Causality, Kind, Var, Variability, Variable};

const OK: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2OK;
const DISCARD: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Discard;
const ERROR: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Error;
const FATAL: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Fatal;

// ---------------------------------------------------------------------------------------------
// The state machine of FMI 2.0 co-simulation (section 4.2.4 of the standard).
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
enum State {
    Instantiated = 1 << 0,
    InitializationMode = 1 << 1,
    StepComplete = 1 << 2,
    StepInProgress = 1 << 3,
    StepFailed = 1 << 4,
    StepCanceled = 1 << 5,
    Terminated = 1 << 6,
    Error = 1 << 7,
    Fatal = 1 << 8,
}

const INSTANTIATED: u16 = State::Instantiated as u16;
const INITIALIZATION: u16 = State::InitializationMode as u16;
const STEP_COMPLETE: u16 = State::StepComplete as u16;
const STEP_IN_PROGRESS: u16 = State::StepInProgress as u16;
const STEP_FAILED: u16 = State::StepFailed as u16;
const STEP_CANCELED: u16 = State::StepCanceled as u16;
const TERMINATED: u16 = State::Terminated as u16;
const ERROR_STATE: u16 = State::Error as u16;

const ANY_BUT_FATAL: u16 = INSTANTIATED
    | INITIALIZATION
    | STEP_COMPLETE
    | STEP_IN_PROGRESS
    | STEP_FAILED
    | STEP_CANCELED
    | TERMINATED
    | ERROR_STATE;
const AFTER_INSTANTIATION: u16 = ANY_BUT_FATAL & !STEP_IN_PROGRESS;
const READABLE: u16 = AFTER_INSTANTIATION & !INSTANTIATED;
const SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP_COMPLETE;
const STATUS_QUERY: u16 = STEP_COMPLETE | STEP_IN_PROGRESS | STEP_FAILED | TERMINATED;

/// Every call that takes an instance, with the states it is allowed in: the one table of the
/// state machine.
#[derive(Clone, Copy, Debug)]
enum Call {
    SetDebugLogging,
    SetupExperiment,
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    GetReal,
    GetInteger,
    GetBoolean,
    GetString,
    SetReal,
    SetInteger,
    SetBoolean,
    SetString,
    GetFMUstate,
    SetFMUstate,
    FreeFMUstate,
    SerializedFMUstateSize,
    SerializeFMUstate,
    DeSerializeFMUstate,
    GetDirectionalDerivative,
    SetRealInputDerivatives,
    GetRealOutputDerivatives,
    DoStep,
    CancelStep,
    GetStatus,
    GetRealStatus,
    GetIntegerStatus,
    GetBooleanStatus,
    GetStringStatus,
}

impl Call {
    fn allowed_states(self) -> u16 {
        match self {
            Call::SetDebugLogging => ANY_BUT_FATAL,
            Call::SetupExperiment | Call::EnterInitializationMode => INSTANTIATED,
            Call::ExitInitializationMode => INITIALIZATION,
            Call::Terminate => STEP_COMPLETE | STEP_FAILED,
            Call::Reset => AFTER_INSTANTIATION,
            Call::GetReal | Call::GetInteger | Call::GetBoolean | Call::GetString => READABLE,
            Call::SetReal | Call::SetInteger | Call::SetBoolean | Call::SetString => SETTABLE,
            Call::GetFMUstate
            | Call::SetFMUstate
            | Call::FreeFMUstate
            | Call::SerializedFMUstateSize
            | Call::SerializeFMUstate
            | Call::DeSerializeFMUstate => AFTER_INSTANTIATION,
            Call::GetDirectionalDerivative => READABLE,
            Call::SetRealInputDerivatives => SETTABLE,
            Call::GetRealOutputDerivatives => {
                STEP_COMPLETE | STEP_FAILED | STEP_CANCELED | TERMINATED | ERROR_STATE
            }
            Call::DoStep => STEP_COMPLETE,
            Call::CancelStep => STEP_IN_PROGRESS,
            Call::GetStatus
            | Call::GetRealStatus
            | Call::GetIntegerStatus
            | Call::GetBooleanStatus
            | Call::GetStringStatus => STATUS_QUERY,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Call::SetDebugLogging => "fmi2SetDebugLogging",
            Call::SetupExperiment => "fmi2SetupExperiment",
            Call::EnterInitializationMode => "fmi2EnterInitializationMode",
            Call::ExitInitializationMode => "fmi2ExitInitializationMode",
            Call::Terminate => "fmi2Terminate",
            Call::Reset => "fmi2Reset",
            Call::GetReal => "fmi2GetReal",
            Call::GetInteger => "fmi2GetInteger",
            Call::GetBoolean => "fmi2GetBoolean",
            Call::GetString => "fmi2GetString",
            Call::SetReal => "fmi2SetReal",
            Call::SetInteger => "fmi2SetInteger",
            Call::SetBoolean => "fmi2SetBoolean",
            Call::SetString => "fmi2SetString",
            Call::GetFMUstate => "fmi2GetFMUstate",
            Call::SetFMUstate => "fmi2SetFMUstate",
            Call::FreeFMUstate => "fmi2FreeFMUstate",
            Call::SerializedFMUstateSize => "fmi2SerializedFMUstateSize",
            Call::SerializeFMUstate => "fmi2SerializeFMUstate",
            Call::DeSerializeFMUstate => "fmi2DeSerializeFMUstate",
            Call::GetDirectionalDerivative => "fmi2GetDirectionalDerivative",
            Call::SetRealInputDerivatives => "fmi2SetRealInputDerivatives",
            Call::GetRealOutputDerivatives => "fmi2GetRealOutputDerivatives",
            Call::DoStep => "fmi2DoStep",
            Call::CancelStep => "fmi2CancelStep",
            Call::GetStatus => "fmi2GetStatus",
            Call::GetRealStatus => "fmi2GetRealStatus",
            Call::GetIntegerStatus => "fmi2GetIntegerStatus",
            Call::GetBooleanStatus => "fmi2GetBooleanStatus",
            Call::GetStringStatus => "fmi2GetStringStatus",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Logging
// ---------------------------------------------------------------------------------------------

/// The categories declared in `<LogCategories>`, in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Category {
    Events = 0,
    StatusDiscard = 1,
    StatusError = 2,
    StatusFatal = 3,
}

const CATEGORY_NAMES: [&CStr; 4] = [
    c"logEvents",
    c"logStatusDiscard",
    c"logStatusError",
    c"logStatusFatal",
];
const ALL_CATEGORIES: &str = "logAll";

struct Logger {
    callback: fmi2CallbackLogger,
    environment: fmi2ComponentEnvironment,
    instance_name: CString,
    /// Debug logging as switched by `loggingOn` and `fmi2SetDebugLogging`, per category.
    enabled: [bool; 4],
}

impl Logger {
    fn is_enabled(&self, category: Category) -> bool {
        self.callback.is_some() && self.enabled[category as usize]
    }

    /// Every non-OK status reaches the importer with its reason, whatever `loggingOn` says;
    /// events only when enabled.
    fn log(&self, status: fmi2Status, category: Category, message: &str) {
        let Some(callback) = self.callback else {
            return;
        };
        let always = category != Category::Events;
        if !always && !self.enabled[category as usize] {
            return;
        }
        // The message is a printf format for the importer: escape '%', drop interior NULs.
        let text: String = message.replace('%', "%%").replace('\0', " ");
        let text = CString::new(text).unwrap_or_default();
        // SAFETY: the callback is the importer's logger; all strings are valid and NUL-terminated
        // for the duration of the call, and no variadic arguments are passed.
        unsafe {
            callback(
                self.environment,
                self.instance_name.as_ptr(),
                status,
                CATEGORY_NAMES[category as usize].as_ptr(),
                text.as_ptr(),
            );
        }
    }
}

/// A failed call: its status and the message that says why.
struct Failure {
    status: fmi2Status,
    message: String,
}

fn error(message: impl Into<String>) -> Failure {
    Failure {
        status: ERROR,
        message: message.into(),
    }
}

/// A request the FMU cannot serve, which leaves the instance as it was.
fn discard(message: impl Into<String>) -> Failure {
    Failure {
        status: DISCARD,
        message: message.into(),
    }
}

type Outcome = Result<(), Failure>;

// ---------------------------------------------------------------------------------------------
// The instance
// ---------------------------------------------------------------------------------------------

/// Marks a live instance, so a stale or foreign pointer is refused instead of used.
const LIVE: u64 = 0x454c_4153_544f_4741; // "ELASTOGA"

struct Instance {
    live: u64,
    state: State,
    /// The state the last error interrupted: restoring an FMU state returns there (FMI 2.0,
    /// 2.1.3: after fmi2Error a previously retrieved FMU state may be restored).
    state_before_error: State,
    logger: Logger,
    model: ElastoGap,
    start_time: f64,
    /// FMU states handed out by this instance and not yet freed, so foreign pointers are refused.
    snapshots: Vec<*mut ElastoGap>,
}

impl Instance {
    fn variable(
        &self,
        value_reference: fmi2ValueReference,
        kind: Kind,
    ) -> Result<&'static Variable, Failure> {
        let variable = by_value_reference(value_reference)
            .ok_or_else(|| error(format!("unknown value reference {value_reference}")))?;
        if variable.kind != kind {
            return Err(error(format!(
                "value reference {value_reference} is {} ({:?}), not {kind:?}",
                variable.name, variable.kind
            )));
        }
        Ok(variable)
    }

    /// Checks that `variable` may be set now: parameters before initialization ends, inputs and
    /// tunable parameters afterwards, never outputs or locals.
    fn check_settable(&self, variable: &Variable) -> Outcome {
        match variable.causality {
            Causality::Output | Causality::Local => Err(error(format!(
                "{} is {}; only parameters and inputs can be set",
                variable.name,
                if variable.causality == Causality::Output {
                    "an output"
                } else {
                    "a local variable"
                }
            ))),
            Causality::Parameter
                if self.state == State::StepComplete
                    && variable.variability == Variability::Fixed =>
            {
                Err(error(format!(
                    "{} is a fixed parameter and cannot change after initialization",
                    variable.name
                )))
            }
            _ => Ok(()),
        }
    }

    fn set_values(
        &mut self,
        values: impl Iterator<Item = (fmi2ValueReference, f64)> + Clone,
        kind: Kind,
    ) -> Outcome {
        // All or nothing: every value is checked before any is stored, so a refused one leaves
        // the whole call without effect.
        for (value_reference, value) in values.clone() {
            let variable = self.variable(value_reference, kind)?;
            self.check_settable(variable)?;
            // Inputs are checked at once; parameters once they take effect: at
            // fmi2ExitInitializationMode, or now if the simulation is running.
            let takes_effect_now =
                variable.causality == Causality::Input || self.state == State::StepComplete;
            if takes_effect_now {
                ElastoGap::check_value(variable.var, value)
                    .map_err(|violation| error(violation.to_string()))?;
            }
        }
        for (value_reference, value) in values {
            if let Some(variable) = by_value_reference(value_reference) {
                self.model.set_value(variable.var, value);
            }
        }
        Ok(())
    }

    fn get_values(
        &self,
        value_references: &[fmi2ValueReference],
        kind: Kind,
        mut write: impl FnMut(usize, f64),
    ) -> Outcome {
        for (k, value_reference) in value_references.iter().enumerate() {
            let variable = self.variable(*value_reference, kind)?;
            let value = self.model.value(variable.var);
            check_computed(variable, value)?;
            write(k, value);
        }
        Ok(())
    }

    fn do_step(&mut self, current_time: f64, h: f64) -> Outcome {
        if !(h > 0.0 && h.is_finite()) {
            return Err(error(format!(
                "communicationStepSize = {} must be a finite number > 0",
                Number(h)
            )));
        }
        let time = self.model.time;
        // Masters compute their time grid differently (t0 + k*h against a running sum), so the
        // comparison allows a relative rounding slack, but never as much as half the last step:
        // a larger one would let the step restart at the previous step's start, leaving the
        // acceleration estimate a zero time difference to divide by.
        let last_step = if self.model.last_step_size > 0.0 {
            self.model.last_step_size
        } else {
            h
        };
        let slack = (1e-10 * time.abs().max(1.0)).min(0.5 * last_step);
        if !current_time.is_finite() || (current_time - time).abs() > slack {
            return Err(error(format!(
                "currentCommunicationPoint = {} is not the FMU's time {}",
                Number(current_time),
                Number(time)
            )));
        }
        let end = current_time + h;
        if !(end.is_finite() && end > current_time) {
            return Err(error(format!(
                "communicationStepSize = {} does not advance the time {} to a finite later time in double precision",
                Number(h),
                Number(current_time)
            )));
        }
        // Stepped in place; the copy brings the instance back if the step is refused.
        let before = self.model;
        let next = &mut self.model;
        next.time = current_time;
        let integral = next.do_step(h);
        let motion = next.motion();
        // Every output and local the step leaves must be readable: a finite f can still come
        // with an infinite lossPower (f_d near the largest double times v_rel).
        let forces = next.forces();
        if !(integral.impulse.is_finite()
            && integral.dissipated.is_finite()
            && forces.f.is_finite()
            && forces.f_c.is_finite()
            && forces.f_d.is_finite()
            && forces.loss_power.is_finite()
            && motion.s.is_finite()
            && motion.v.is_finite()
            && motion.a.is_finite()
            && next.f_mean.is_finite()
            && next.e_loss.is_finite()
            && next.q_flow_mean.is_finite())
        {
            self.model = before;
            return Err(error(format!(
                "the step from t = {} by h = {} gives a non-finite force, motion or energy; the inputs, parameters or step size are out of the law's numeric range",
                Number(current_time),
                Number(h)
            )));
        }
        if self.logger.is_enabled(Category::Events) {
            for transition in integral.transitions() {
                let message = format!(
                    "contact {} at t = {:.17}",
                    if transition.entering {
                        "starts"
                    } else {
                        "ends"
                    },
                    current_time + transition.tau
                );
                self.logger.log(OK, Category::Events, &message);
            }
        }
        Ok(())
    }

    /// The FMU states handed out stay valid: the importer owns them until fmi2FreeFMUstate or
    /// fmi2FreeInstance, and may restore one taken before the reset.
    fn reset(&mut self) {
        self.model = ElastoGap::new(0.0);
        self.start_time = 0.0;
    }

    fn owns_snapshot(&self, snapshot: *mut ElastoGap) -> bool {
        self.snapshots.contains(&snapshot)
    }

    fn free_snapshots(&mut self) {
        for snapshot in self.snapshots.drain(..) {
            // SAFETY: every pointer in the list came from Box::into_raw and was not yet freed.
            drop(unsafe { Box::from_raw(snapshot) });
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.live = 0;
        self.free_snapshots();
    }
}

/// Refuses a non-finite computed value instead of returning it as fmi2OK: parameters and inputs
/// that each keep their rules can still overflow the law together (a tiny s_ref with a large n,
/// positions near the largest double).
fn check_computed(variable: &Variable, value: f64) -> Outcome {
    let computed = matches!(variable.causality, Causality::Output | Causality::Local);
    if computed && !value.is_finite() {
        return Err(error(format!(
            "{} = {value} is not finite: the inputs and parameters are out of the law's numeric range",
            variable.name
        )));
    }
    Ok(())
}

/// The one path of every instance call: instance check, state table, panic barrier, logging of
/// failures and escalation of the instance state from the status.
fn run(
    component: fmi2Component,
    call: Call,
    body: impl FnOnce(&mut Instance) -> Outcome,
) -> fmi2Status {
    if component.is_null() {
        return ERROR;
    }
    let instance_ptr = component.cast::<Instance>();
    // SAFETY: a non-NULL component is one this library returned from fmi2Instantiate and the
    // importer has not freed; the liveness mark catches some misuse on top of that.
    let instance = unsafe { &mut *instance_ptr };
    if instance.live != LIVE {
        return ERROR;
    }
    if instance.state == State::Fatal {
        return FATAL;
    }
    if call.allowed_states() & instance.state as u16 == 0 {
        let message = format!(
            "{}: not allowed in state {:?} (the FMI 2.0 co-simulation state machine)",
            call.name(),
            instance.state
        );
        instance.logger.log(ERROR, Category::StatusError, &message);
        return ERROR;
    }
    match catch_unwind(AssertUnwindSafe(|| body(instance))) {
        Ok(Ok(())) => OK,
        Ok(Err(failure)) => {
            let message = format!("{}: {}", call.name(), failure.message);
            if failure.status == FATAL {
                instance.state = State::Fatal;
                instance.logger.log(FATAL, Category::StatusFatal, &message);
            } else if failure.status == DISCARD {
                instance
                    .logger
                    .log(DISCARD, Category::StatusDiscard, &message);
            } else {
                if instance.state != State::Error {
                    instance.state_before_error = instance.state;
                }
                instance.state = State::Error;
                instance
                    .logger
                    .log(failure.status, Category::StatusError, &message);
            }
            failure.status
        }
        Err(panic) => {
            let reason = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            // SAFETY: the body's borrow ended with the unwind; the instance memory is intact.
            let instance = unsafe { &mut *instance_ptr };
            instance.state = State::Fatal;
            let message = format!(
                "{}: internal error, the instance is unusable: {reason}",
                call.name()
            );
            instance.logger.log(FATAL, Category::StatusFatal, &message);
            FATAL
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pointer helpers
// ---------------------------------------------------------------------------------------------

/// A slice from an importer's array; `n == 0` needs no pointer.
fn slice<'a, T>(pointer: *const T, n: usize, what: &str) -> Result<&'a [T], Failure> {
    if n == 0 {
        return Ok(&[]);
    }
    if pointer.is_null() {
        return Err(error(format!(
            "{what} is NULL but {n} values were announced"
        )));
    }
    // SAFETY: the importer passes an array of n elements, as the standard requires.
    Ok(unsafe { std::slice::from_raw_parts(pointer, n) })
}

fn slice_mut<'a, T>(pointer: *mut T, n: usize, what: &str) -> Result<&'a mut [T], Failure> {
    if n == 0 {
        return Ok(&mut []);
    }
    if pointer.is_null() {
        return Err(error(format!(
            "{what} is NULL but {n} values were announced"
        )));
    }
    // SAFETY: the importer passes an array of n writable elements, as the standard requires.
    Ok(unsafe { std::slice::from_raw_parts_mut(pointer, n) })
}

fn string<'a>(pointer: fmi2String) -> Option<&'a str> {
    if pointer.is_null() {
        return None;
    }
    // SAFETY: the importer passes a NUL-terminated string.
    unsafe { CStr::from_ptr(pointer) }.to_str().ok()
}

/// The file path named by an FMI resource location; accepts `file:///p`, `file:/p`,
/// `file://localhost/p` and percent-encoding.
pub(crate) fn resource_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file:")?;
    let path = if let Some(after) = rest.strip_prefix("//") {
        let slash = after.find('/')?;
        let host = &after[..slash];
        if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
            return None;
        }
        &after[slash..]
    } else {
        rest
    };
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] == b'%' {
            let hex = std::str::from_utf8(bytes.get(k + 1..k + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            k += 3;
        } else {
            decoded.push(bytes[k]);
            k += 1;
        }
    }
    let mut path = String::from_utf8(decoded).ok()?;
    // "/C:/dir" is a Windows drive path.
    if path.len() >= 3 && path.as_bytes()[0] == b'/' && path.as_bytes()[2] == b':' {
        path.remove(0);
    }
    Some(path)
}

// ---------------------------------------------------------------------------------------------
// Exported functions
// ---------------------------------------------------------------------------------------------

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
            enabled: [loggingOn != 0; 4],
        };
        let fail = |message: String| {
            logger.log(ERROR, Category::StatusError, &format!("fmi2Instantiate: {message}"));
            std::ptr::null_mut()
        };
        if instanceName.is_null() || name.is_empty() {
            return fail("instanceName must be a non-empty string".into());
        }
        if fmuType != fmi_sys::fmi2::fmi2Type_fmi2CoSimulation {
            return fail(format!(
                "fmuType {fmuType} is not supported: ElastoGap is a co-simulation FMU (fmi2CoSimulation = 1)"
            ));
        }
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
        if !fmuResourceLocation.is_null() {
            let uri = string(fmuResourceLocation).unwrap_or("");
            if resource_path(uri).is_none() {
                return fail(format!(
                    "fmuResourceLocation '{uri}' is not a file URI (file:///path, file:/path or file://localhost/path)"
                ));
            }
        }
        let instance = Box::new(Instance {
            live: LIVE,
            state: State::Instantiated,
            state_before_error: State::Instantiated,
            logger,
            model: ElastoGap::new(0.0),
            start_time: 0.0,
            snapshots: Vec::new(),
        });
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
        if unsafe { (*instance).live } == LIVE {
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
            instance.logger.enabled = [on; 4];
            return Ok(());
        }
        let mut enabled = instance.logger.enabled;
        for name in names {
            let name =
                string(*name).ok_or_else(|| error("a category name is NULL or not UTF-8"))?;
            if name == ALL_CATEGORIES {
                enabled = [on; 4];
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
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status {
    run(c, Call::ExitInitializationMode, |instance| {
        instance
            .model
            .check_parameters()
            .map_err(|v| error(v.to_string()))?;
        instance.state = State::StepComplete;
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
    run(c, Call::GetString, |_| {
        let references = slice(vr, nvr, "vr[]")?;
        slice_mut(value, nvr, "value[]")?;
        match references.first() {
            None => Ok(()),
            Some(first) => Err(error(format!(
                "value reference {first} is not a String variable (ElastoGap has none)"
            ))),
        }
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
    run(c, Call::SetString, |_| {
        let references = slice(vr, nvr, "vr[]")?;
        slice(value, nvr, "value[]")?;
        match references.first() {
            None => Ok(()),
            Some(first) => Err(error(format!(
                "value reference {first} is not a String variable (ElastoGap has none)"
            ))),
        }
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
            let snapshot = Box::into_raw(Box::new(instance.model));
            instance.snapshots.push(snapshot);
            // SAFETY: as above.
            unsafe { *FMUstate = snapshot.cast() };
        } else if instance.owns_snapshot(existing) {
            // SAFETY: a live snapshot of this instance.
            unsafe { *existing = instance.model };
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
        let model = unsafe { *snapshot };
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
        snapshot::write(unsafe { &*state }, &mut bytes);
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
        let model = snapshot::read(bytes).map_err(error)?;
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
        let mut known_vars = [Var::FlangeAS; 4];
        if knowns.len() > known_vars.len() {
            return Err(error(format!(
                "{} knowns given; ElastoGap has 4 inputs",
                knowns.len()
            )));
        }
        for (k, reference) in knowns.iter().enumerate() {
            let variable = instance.variable(*reference, Kind::Real)?;
            if variable.causality != Causality::Input {
                return Err(error(format!(
                    "{} is not an input; knowns must be inputs",
                    variable.name
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
                    "{} is not an output or local; unknowns must be",
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

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2SetRealInputDerivatives(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    order: *const fmi2Integer,
    value: *const fmi2Real,
) -> fmi2Status {
    run(c, Call::SetRealInputDerivatives, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let orders = slice(order, nvr, "order[]")?;
        let values = slice(value, nvr, "value[]")?;
        let mut supplied = instance.model.supplied;
        for ((reference, order), value) in references.iter().zip(orders).zip(values) {
            let variable = instance.variable(*reference, Kind::Real)?;
            if variable.causality != Causality::Input {
                return Err(error(format!("{} is not an input", variable.name)));
            }
            if !value.is_finite() {
                return Err(error(format!(
                    "derivative of order {order} of {} = {value} is not finite",
                    variable.name
                )));
            }
            // Acceleration is what the extrapolation uses: order 1 of a velocity or order 2 of a
            // position. Order 1 of a position repeats the velocity input and is accepted.
            let flange_b = matches!(variable.var, Var::FlangeBS | Var::FlangeBV);
            let acceleration = match (variable.var, *order) {
                (Var::FlangeAV | Var::FlangeBV, 1) | (Var::FlangeAS | Var::FlangeBS, 2) => Some(*value),
                (Var::FlangeAS | Var::FlangeBS, 1) => None,
                _ => {
                    return Err(error(format!(
                        "order {order} of {} is not supported: give order 1 of a velocity or order 1 or 2 of a position",
                        variable.name
                    )))
                }
            };
            if let Some(a) = acceleration {
                if flange_b {
                    supplied.b = Some(a);
                } else {
                    supplied.a = Some(a);
                }
            }
        }
        instance.model.supplied = supplied;
        Ok(())
    })
}

/// # Safety
/// Arrays of `nvr` elements, as the FMI 2.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealOutputDerivatives(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    order: *const fmi2Integer,
    value: *mut fmi2Real,
) -> fmi2Status {
    run(c, Call::GetRealOutputDerivatives, |instance| {
        let references = slice(vr, nvr, "vr[]")?;
        let orders = slice(order, nvr, "order[]")?;
        let values = slice_mut(value, nvr, "value[]")?;
        for (k, (reference, order)) in references.iter().zip(orders).enumerate() {
            let variable = instance.variable(*reference, Kind::Real)?;
            if variable.causality != Causality::Output {
                return Err(error(format!("{} is not an output", variable.name)));
            }
            if *order != 1 {
                return Err(error(format!(
                    "order {order} of {} is not available: maxOutputDerivativeOrder is 1",
                    variable.name
                )));
            }
            values[k] = instance
                .model
                .output_time_derivative(variable.var)
                .ok_or_else(|| error(format!("{} has no time derivative", variable.name)))?;
            if !values[k].is_finite() {
                return Err(error(format!(
                    "the time derivative of {} is {}: the inputs and parameters are out of the law's numeric range",
                    variable.name, values[k]
                )));
            }
        }
        Ok(())
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2DoStep(
    c: fmi2Component,
    currentCommunicationPoint: fmi2Real,
    communicationStepSize: fmi2Real,
    noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
) -> fmi2Status {
    let _ = noSetFMUStatePriorToCurrentPoint;
    run(c, Call::DoStep, |instance| {
        instance.do_step(currentCommunicationPoint, communicationStepSize)
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2CancelStep(c: fmi2Component) -> fmi2Status {
    // fmi2DoStep always completes before it returns, so there is never a step to cancel: the
    // state table refuses this call in every state the instance can be in.
    run(c, Call::CancelStep, |_| Ok(()))
}

fn status_kind_name(kind: fmi2StatusKind) -> String {
    match kind {
        fmi_sys::fmi2::fmi2StatusKind_fmi2DoStepStatus => "fmi2DoStepStatus".into(),
        fmi_sys::fmi2::fmi2StatusKind_fmi2PendingStatus => "fmi2PendingStatus".into(),
        fmi_sys::fmi2::fmi2StatusKind_fmi2LastSuccessfulTime => "fmi2LastSuccessfulTime".into(),
        fmi_sys::fmi2::fmi2StatusKind_fmi2Terminated => "fmi2Terminated".into(),
        other => format!("status kind {other}"),
    }
}

/// FMI 2.0, 4.2.3: a status the slave cannot provide is answered with fmi2Discard.
fn unsupported_status(kind: fmi2StatusKind, call: &str) -> Failure {
    discard(format!(
        "{} is not provided by {call}: steps complete synchronously (fmi2LastSuccessfulTime is available from fmi2GetRealStatus and fmi2Terminated from fmi2GetBooleanStatus)",
        status_kind_name(kind)
    ))
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Status,
) -> fmi2Status {
    run(c, Call::GetStatus, |_| {
        slice_mut(value, 1, "value")?;
        Err(unsupported_status(s, "fmi2GetStatus"))
    })
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Real,
) -> fmi2Status {
    run(c, Call::GetRealStatus, |instance| {
        let value = slice_mut(value, 1, "value")?;
        if s != fmi_sys::fmi2::fmi2StatusKind_fmi2LastSuccessfulTime {
            return Err(unsupported_status(s, "fmi2GetRealStatus"));
        }
        value[0] = instance.model.time;
        Ok(())
    })
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetIntegerStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Integer,
) -> fmi2Status {
    run(c, Call::GetIntegerStatus, |_| {
        slice_mut(value, 1, "value")?;
        Err(unsupported_status(s, "fmi2GetIntegerStatus"))
    })
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetBooleanStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    run(c, Call::GetBooleanStatus, |_| {
        let value = slice_mut(value, 1, "value")?;
        if s != fmi_sys::fmi2::fmi2StatusKind_fmi2Terminated {
            return Err(unsupported_status(s, "fmi2GetBooleanStatus"));
        }
        // The FMU never asks to end the simulation.
        value[0] = 0;
        Ok(())
    })
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetStringStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2String,
) -> fmi2Status {
    run(c, Call::GetStringStatus, |_| {
        slice_mut(value, 1, "value")?;
        Err(unsupported_status(s, "fmi2GetStringStatus"))
    })
}

#[cfg(test)]
mod tests {
    use super::resource_path;

    #[test]
    fn resource_locations_of_all_importers_are_understood() {
        assert_eq!(
            resource_path("file:///tmp/x/resources/").as_deref(),
            Some("/tmp/x/resources/")
        );
        assert_eq!(
            resource_path("file:/tmp/x/resources").as_deref(),
            Some("/tmp/x/resources")
        );
        assert_eq!(
            resource_path("file://localhost/tmp/x").as_deref(),
            Some("/tmp/x")
        );
        assert_eq!(
            resource_path("file:///tmp/a%20b/").as_deref(),
            Some("/tmp/a b/")
        );
        assert_eq!(
            resource_path("file:///C:/Users/x/").as_deref(),
            Some("C:/Users/x/")
        );
        assert_eq!(resource_path("http://example/x"), None);
        assert_eq!(resource_path("file://otherhost/x"), None);
        assert_eq!(resource_path("file:///bad%2"), None);
    }
}

//! The co-simulation functions: the step, input and output derivatives, and the status queries.

#![allow(non_snake_case)]

use fmi_sys::fmi2::{
    fmi2Boolean, fmi2Component, fmi2Integer, fmi2Real, fmi2Status, fmi2StatusKind, fmi2String,
    fmi2ValueReference,
};

use super::state::Call;
use super::Instance;
use crate::runtime::arguments::slice_mut;
use crate::runtime::{Call as _, Failure, Outcome, Status};

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
    Instance::run(c, Call::SetRealInputDerivatives, |instance| {
        instance.set_input_derivatives((vr, order, value), nvr)
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
    Instance::run(c, Call::GetRealOutputDerivatives, |instance| {
        instance.output_derivatives((vr, order, value), nvr)
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
    Instance::run(c, Call::DoStep, |instance| {
        instance.whole_step(currentCommunicationPoint, communicationStepSize)
    })
}

/// # Safety
/// `c` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi2CancelStep(c: fmi2Component) -> fmi2Status {
    // fmi2DoStep always completes before it returns, so there is never a step to cancel: the
    // state table refuses this call in every state the instance can be in.
    Instance::run(c, Call::CancelStep, |_| Ok(()))
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

/// A status query with no status of `kind` to give: its value is still checked.
fn no_status<T>(value: *mut T, kind: fmi2StatusKind, call: Call) -> Outcome {
    slice_mut(value, 1, "value")?;
    Err(unsupported_status(kind, call.name()))
}

/// FMI 2.0, 4.2.3: a status the slave cannot provide is answered with fmi2Discard.
fn unsupported_status(kind: fmi2StatusKind, call: &str) -> Failure {
    let message = format!(
        "{} is not provided by {call}: steps complete synchronously (fmi2LastSuccessfulTime is available from fmi2GetRealStatus and fmi2Terminated from fmi2GetBooleanStatus)",
        status_kind_name(kind)
    );
    Failure {
        status: Status::Discard,
        message,
    }
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Status,
) -> fmi2Status {
    let call = Call::GetStatus;
    Instance::run(c, call, |_| no_status(value, s, call))
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Real,
) -> fmi2Status {
    Instance::run(c, Call::GetRealStatus, |instance| {
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
    let call = Call::GetIntegerStatus;
    Instance::run(c, call, |_| no_status(value, s, call))
}

/// # Safety
/// `value` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetBooleanStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    Instance::run(c, Call::GetBooleanStatus, |_| {
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
    let call = Call::GetStringStatus;
    Instance::run(c, call, |_| no_status(value, s, call))
}

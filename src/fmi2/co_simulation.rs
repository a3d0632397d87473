//! The co-simulation functions: the step, input and output derivatives, and the status queries.

#![allow(non_snake_case)]

use fmi_sys::fmi2::{
    fmi2Boolean, fmi2Component, fmi2Integer, fmi2Real, fmi2Status, fmi2StatusKind, fmi2String,
    fmi2ValueReference,
};

use super::arguments::{slice, slice_mut};
use super::instance::{run, Instance};
use super::logging::{discard, error, Category, Failure, Outcome};
use super::state::Call;
use super::{OK, WARNING};
use crate::model::{ElastoGap, NonFiniteStep, StepReport};
use crate::variables::{Causality, Kind, Var};

impl Instance {
    pub(super) fn do_step(&mut self, current_time: f64, h: f64) -> Outcome {
        self.model.check_step(current_time, h).map_err(error)?;
        let time = self.model.time;
        // The step starts at the master's time, which may differ from the FMU's by the slack.
        self.model.time = current_time;
        let mut report = StepReport::default();
        if self.model.do_step(h, &mut report).is_err() {
            self.model.time = time;
            return Err(error(NonFiniteStep::message(current_time, h)));
        }
        // Warnings go to the log, not into the call's status: fmusim ends a run on a returned
        // warning, and the step itself is right.
        let logger = &self.logger;
        self.model.step_warnings(
            current_time,
            h,
            &report,
            &mut self.short_contact_warned,
            |message| logger.log(WARNING, Category::StatusWarning, message),
        );
        if logger.is_enabled(Category::Coupling) {
            self.model
                .coupling_notes(current_time, h, &report, |message| {
                    logger.log(OK, Category::Coupling, message)
                });
        }
        if logger.is_enabled(Category::Events) {
            ElastoGap::event_notes(current_time, &report, |message| {
                logger.log(OK, Category::Events, message)
            });
        }
        Ok(())
    }
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
                // The friction holds v_t over the step (its derivatives are accepted and not
                // used: a master that interpolates every input sends them).
                (Var::VTx | Var::VTy, 1 | 2) => None,
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

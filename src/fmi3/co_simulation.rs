//! The co-simulation functions: the step (whole as in FMI 2, or stopping at the contact's
//! switches for early return and the intermediate update), Step Mode and the output derivatives.

#![allow(non_snake_case)]

use fmi_sys::fmi3::{
    fmi3Boolean, fmi3Float64, fmi3Instance, fmi3Int32, fmi3Status, fmi3ValueReference,
};

use super::arguments::{check_scalars, slice, slice_mut};
use super::instance::{run, run_raw, Instance, Type};
use super::logging::{error, Category, Failure, Outcome};
use super::state::{Call, State};
use super::{FATAL, OK, WARNING};
use crate::model::{ElastoGap, NonFiniteStep, StepReport};
use crate::variables::Causality;

/// Where a step ended.
struct StepEnd {
    /// It returned early, at a switch.
    early: bool,
}

impl Instance {
    /// The step as the FMI 2 layer takes it, bit for bit: neither early return nor an
    /// intermediate update asks for its switches. Its log written out as in the FMI 2 layer
    /// ([`Self::log_step`] for the steps that stop): in one body the compiler keeps the report
    /// in registers, where a call of `log_step` would make the plain step store it to memory.
    fn whole_step(&mut self, current_time: f64, h: f64) -> Outcome {
        self.model.check_step(current_time, h).map_err(error)?;
        let time = self.model.time;
        // The step starts at the master's time, which may differ from the FMU's by the slack.
        self.model.time = current_time;
        let mut report = StepReport::default();
        if self.model.do_step(h, &mut report).is_err() {
            self.model.time = time;
            return Err(error(NonFiniteStep::message(current_time, h)));
        }
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

    /// The core's warnings and notes of one step go to the log, not into the call's status:
    /// fmusim ends a run on a returned warning, and the step itself is right. Inlined: the
    /// plain step's cost is the FMI 2 layer's.
    fn log_step(&mut self, current_time: f64, h: f64, report: &StepReport) {
        let logger = &self.logger;
        self.model.step_warnings(
            current_time,
            h,
            report,
            &mut self.short_contact_warned,
            |message| logger.log(WARNING, Category::StatusWarning, message),
        );
        if logger.is_enabled(Category::Coupling) {
            self.model
                .coupling_notes(current_time, h, report, |message| {
                    logger.log(OK, Category::Coupling, message)
                });
        }
        if logger.is_enabled(Category::Events) {
            ElastoGap::event_notes(current_time, report, |message| {
                logger.log(OK, Category::Events, message)
            });
        }
    }
}

/// The step that stops at the contact's first switch inside it: there it calls the importer's
/// intermediateUpdate callback (if given) and returns early if that is allowed. Otherwise it
/// goes on: the step is taken again whole from its start, so that it ends exactly where the FMI 2
/// step ends (a second part from the switch would extrapolate the master's inputs, given at the
/// step's start, anew from the switch). So the callback comes at the first switch of a step only.
///
/// `pointer` is the instance: no reference to it lives across the callback, which may call it
/// again (fmi3GetFloat64, ...).
fn step_with_switches(
    pointer: *mut Instance,
    current_time: f64,
    h: f64,
) -> Result<StepEnd, Failure> {
    // SAFETY (each borrow below): `run_raw` checked the instance, and no other borrow is live.
    let fmu = unsafe { &mut *pointer };
    fmu.model.check_step(current_time, h).map_err(error)?;
    let time_before = fmu.model.time;
    // The step starts at the master's time, which may differ from the FMU's by the slack.
    fmu.model.time = current_time;
    let mut report = StepReport::default();
    let Instance {
        model, step_start, ..
    } = &mut *fmu;
    let Ok(switch) = model.do_step_to_switch(h, step_start, &mut report) else {
        fmu.model.time = time_before;
        return Err(error(NonFiniteStep::message(current_time, h)));
    };
    if switch.is_none() {
        fmu.log_step(current_time, h, &report);
        return Ok(StepEnd { early: false });
    }
    let setup = fmu.setup;
    if let Some(callback) = setup.intermediate_update {
        fmu.state = State::IntermediateUpdateMode;
        let environment = fmu.logger.environment;
        let time = fmu.model.time;
        let mut early_return_requested = false;
        let mut early_return_time = time;
        // SAFETY: the importer's callback with its own environment; the out-parameters are
        // valid locals. No borrow of the instance is live during the call.
        unsafe {
            callback(
                environment,
                time,
                false,
                true,
                true,
                setup.early_return_allowed,
                &mut early_return_requested,
                &mut early_return_time,
            )
        };
        after_callback(unsafe { &mut *pointer })?;
    }
    let fmu = unsafe { &mut *pointer };
    // The master's earlyReturnRequested only counts where the FMU offered canReturnEarly, which
    // is where early return is allowed: there it returns at the switch anyway.
    if setup.early_return_allowed {
        let taken = fmu.model.time - current_time;
        fmu.log_step(current_time, taken, &report);
        return Ok(StepEnd { early: true });
    }
    let Instance {
        model, step_start, ..
    } = &mut *fmu;
    model.clone_from(step_start);
    report = StepReport::default();
    if model.do_step(h, &mut report).is_err() {
        fmu.model.time = time_before;
        return Err(error(NonFiniteStep::message(current_time, h)));
    }
    fmu.log_step(current_time, h, &report);
    Ok(StepEnd { early: false })
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
            status: FATAL,
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
    let outputs = [
        eventHandlingNeeded.is_null(),
        terminateSimulation.is_null(),
        earlyReturn.is_null(),
    ];
    let null_output = outputs[0] | outputs[1] | outputs[2] | lastSuccessfulTime.is_null();
    let (t, h) = (currentCommunicationPoint, communicationStepSize);
    if null_output || Instance::stops_at_switches(instance) {
        return run_raw(instance, Call::DoStep, |pointer| {
            if null_output {
                return Err(null_step_output(outputs));
            }
            let outcome = step_with_switches(pointer, t, h);
            // SAFETY: the step's borrows have ended; the outputs are not NULL and, as the
            // standard requires, writable.
            unsafe {
                *lastSuccessfulTime = (*pointer).model.time;
                *terminateSimulation = false;
                let early = outcome?.early;
                *earlyReturn = early;
                *eventHandlingNeeded = early && (*pointer).setup.event_mode_used;
            }
            Ok(())
        });
    }
    // The step whole, as FMI 2.0's: no callback, so the plain `run`.
    run(instance, Call::DoStep, |fmu| {
        let outcome = fmu.whole_step(t, h);
        // SAFETY: the outputs are not NULL and, as the standard requires, writable.
        unsafe {
            *lastSuccessfulTime = fmu.model.time;
            *terminateSimulation = false;
            outcome?;
            *earlyReturn = false;
            *eventHandlingNeeded = false;
        }
        Ok(())
    })
}

/// The refusal of a step whose output pointers (in the order of `fmi3DoStep`'s, the last
/// `lastSuccessfulTime`) include NULL: out of line, as no master passes one.
#[cold]
#[inline(never)]
fn null_step_output(null: [bool; 3]) -> Failure {
    let names = ["eventHandlingNeeded", "terminateSimulation", "earlyReturn"];
    let what = names
        .iter()
        .zip(null)
        .find(|(_, null)| *null)
        .map_or("lastSuccessfulTime", |(name, _)| name);
    error(format!("{what} is NULL"))
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterStepMode(instance: fmi3Instance) -> fmi3Status {
    run(instance, Call::EnterStepMode, |fmu| {
        fmu.state = State::StepMode;
        Ok(())
    })
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
    run(instance, Call::GetOutputDerivatives, |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let orders = slice(orders, nValueReferences, "orders[]")?;
        let values = slice_mut(values, nValues, "values[]")?;
        for (k, (reference, order)) in references.iter().zip(orders).enumerate() {
            let variable = fmu.variable(*reference, Type::Float64)?;
            if variable.causality != Causality::Output {
                return Err(error(format!("{} is not an output", variable.name)));
            }
            if *order != 1 {
                return Err(error(format!(
                    "order {order} of {} is not available: maxOutputDerivativeOrder is 1",
                    variable.name
                )));
            }
            values[k] = fmu
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

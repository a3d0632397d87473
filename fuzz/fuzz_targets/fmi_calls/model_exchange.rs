//! The Model Exchange calls: mode changes, events, completed integrator steps, and the arrays of
//! continuous states, derivatives, event indicators and nominals.

use elastogap::fmi2::*;
use elastogap::variables::{EVENT_INDICATORS, STATES};
use elastogap_fuzz::{check_returned_array, Instance, OK};
use fmi_sys::fmi2::{fmi2Boolean, fmi2EventInfo, fmi2Real};

use super::Call;

/// Runs fmi2EnterEventMode, fmi2NewDiscreteStates, fmi2EnterContinuousTimeMode or
/// fmi2CompletedIntegratorStep.
pub(super) fn modes(instance: &Instance, call: &Call) {
    match call {
        Call::EnterEventMode => {
            instance.call("fmi2EnterEventMode", |c| unsafe { fmi2EnterEventMode(c) });
        }
        Call::NewDiscreteStates { null_info } => {
            // Not the values the FMU must write, so that a field it leaves is caught.
            let mut info = fmi2EventInfo {
                newDiscreteStatesNeeded: 7,
                terminateSimulation: 7,
                nominalsOfContinuousStatesChanged: 7,
                valuesOfContinuousStatesChanged: 7,
                nextEventTimeDefined: 7,
                nextEventTime: f64::NAN,
            };
            let p: *mut fmi2EventInfo = if *null_info {
                std::ptr::null_mut()
            } else {
                &mut info
            };
            let status = instance.call("fmi2NewDiscreteStates", |c| unsafe {
                fmi2NewDiscreteStates(c, p)
            });
            if status == OK {
                instance.check_event("after fmi2NewDiscreteStates", &info);
            }
        }
        Call::EnterContinuousTimeMode => {
            instance.call("fmi2EnterContinuousTimeMode", |c| unsafe {
                fmi2EnterContinuousTimeMode(c)
            });
        }
        Call::CompletedIntegratorStep {
            no_set_prior,
            null_enter_event_mode,
            null_terminate,
        } => {
            let (mut enter_event_mode, mut terminate): (fmi2Boolean, fmi2Boolean) = (7, 7);
            let pe: *mut fmi2Boolean = if *null_enter_event_mode {
                std::ptr::null_mut()
            } else {
                &mut enter_event_mode
            };
            let pt: *mut fmi2Boolean = if *null_terminate {
                std::ptr::null_mut()
            } else {
                &mut terminate
            };
            let status = instance.call("fmi2CompletedIntegratorStep", |c| unsafe {
                fmi2CompletedIntegratorStep(c, fmi2Boolean::from(*no_set_prior), pe, pt)
            });
            if status == OK {
                // No step events and no reason to stop: both answers are fmi2False.
                assert_eq!(
                        (enter_event_mode, terminate),
                        (0, 0),
                        "fmi2CompletedIntegratorStep returned fmi2OK with (enterEventMode, terminateSimulation)"
                    );
                instance.check_outputs("after fmi2CompletedIntegratorStep");
            }
        }
        _ => unreachable!("not a Model Exchange mode call"),
    }
}

/// Runs fmi2SetContinuousStates, fmi2GetDerivatives, fmi2GetEventIndicators,
/// fmi2GetContinuousStates or fmi2GetNominalsOfContinuousStates.
pub(super) fn arrays(instance: &Instance, call: &Call) {
    match call {
        Call::SetContinuousStates { x, extra, array } => {
            let values: Vec<fmi2Real> = std::iter::once(x.value())
                .chain(extra.iter().map(|r| r.value()))
                .collect();
            let (p, n) = array.pass(&values);
            let status = instance.call("fmi2SetContinuousStates", |c| unsafe {
                fmi2SetContinuousStates(c, p, n)
            });
            if status == OK {
                instance.check_states_read_back("after fmi2SetContinuousStates", &values[..n]);
            }
        }
        Call::GetDerivatives(output) => {
            let mut values = output.buffer(STATES.len());
            let (p, n) = output.array.pass_mut(&mut values);
            let status = instance.call("fmi2GetDerivatives", |c| unsafe {
                fmi2GetDerivatives(c, p, n)
            });
            if status == OK {
                instance.check_derivatives("fmi2GetDerivatives", &values[..n]);
            }
        }
        Call::GetEventIndicators(output) => {
            let mut values = output.buffer(EVENT_INDICATORS.len());
            let (p, n) = output.array.pass_mut(&mut values);
            let status = instance.call("fmi2GetEventIndicators", |c| unsafe {
                fmi2GetEventIndicators(c, p, n)
            });
            if status == OK {
                assert_eq!(n, EVENT_INDICATORS.len(), "an OK call with a wrong ni");
                check_returned_array("fmi2GetEventIndicators", &values[..n], false);
            }
        }
        Call::GetContinuousStates(output) => {
            let mut values = output.buffer(STATES.len());
            let (p, n) = output.array.pass_mut(&mut values);
            let status = instance.call("fmi2GetContinuousStates", |c| unsafe {
                fmi2GetContinuousStates(c, p, n)
            });
            if status == OK {
                instance.check_continuous_states("fmi2GetContinuousStates", &values[..n]);
            }
        }
        Call::GetNominalsOfContinuousStates(output) => {
            let mut values = output.buffer(STATES.len());
            let (p, n) = output.array.pass_mut(&mut values);
            let status = instance.call("fmi2GetNominalsOfContinuousStates", |c| unsafe {
                fmi2GetNominalsOfContinuousStates(c, p, n)
            });
            if status == OK {
                assert_eq!(n, STATES.len(), "an OK call with a wrong nx");
                check_returned_array("fmi2GetNominalsOfContinuousStates", &values[..n], true);
            }
        }
        _ => unreachable!("not a Model Exchange array call"),
    }
}

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
use crate::coupling::{Told, PLAIN_STEP};
use crate::model::{Number, StepReport};
use crate::variables::{Causality, Kind, Var};

impl Instance {
    pub(super) fn do_step(&mut self, current_time: f64, h: f64) -> Outcome {
        self.check_step(current_time, h)?;
        let time = self.model.time;
        // The step starts at the master's time, which may differ from the FMU's by the slack.
        self.model.time = current_time;
        let mut report = StepReport::default();
        if self.model.do_step(h, &mut report).is_err() {
            self.model.time = time;
            return Err(error(format!(
                "the step from t = {} by h = {} gives a non-finite force, motion, energy or predicted force; the inputs, parameters or step size are out of the law's numeric range",
                Number(current_time),
                Number(h)
            )));
        }
        self.warn_mass_disagreement(current_time, &report);
        self.warn_short_contact_without_mass(current_time, h, &report);
        self.warn_stiff_stiction(current_time, h, &report);
        if self.logger.is_enabled(Category::Coupling) {
            self.log_coupling(current_time, h, &report);
        }
        if self.logger.is_enabled(Category::Events) {
            self.log_transitions(current_time, &report);
        }
        Ok(())
    }

    /// The step size is a finite number > 0, the step starts at the FMU's time (up to the
    /// master's rounding) and ends at a later one.
    #[inline]
    fn check_step(&self, current_time: f64, h: f64) -> Outcome {
        // `h * 0 == 0` tests finiteness in two instructions; with `h > 0`, `is_finite` compiles
        // to sixteen integer ones (a floating-point class test).
        if !(h > 0.0 && h * 0.0 == 0.0) {
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
        if current_time != time && !self.within_slack(current_time, h) {
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
        Ok(())
    }

    /// The master's answer to a contact disagrees with the `m_eff` in use. A status warning in
    /// the log, not as the call's status: fmusim ends a run on a returned warning, and the step
    /// itself is right.
    fn warn_mass_disagreement(&self, current_time: f64, report: &StepReport) {
        if let Some((answered, in_use)) = report.mass_disagreement {
            let message = format!(
                "t = {}: the master's answer to the contact gives an effective mass of {} kg, {} than the m_eff = {} kg in use; the FMU continues with {} kg (output m_eff_estimate) and corrects what the contact gave wrong. Set m_eff to the reduced mass of the bodies the contact separates",
                Number(current_time),
                Number(answered),
                if answered > in_use { format!("{:.0} % more", 100.0 * (answered / in_use - 1.0)) } else { format!("{:.0} % less", 100.0 * (1.0 - answered / in_use)) },
                Number(in_use),
                Number(answered)
            );
            self.logger.log(WARNING, Category::StatusWarning, &message);
        }
    }

    /// The sticking spring, against the tangential mass the master's answers just told, turns
    /// more than [`STIFF_STICTION_PHASE`] per step. A status warning in the log, not as the
    /// call's status (as above).
    fn warn_stiff_stiction(&self, current_time: f64, h: f64, report: &StepReport) {
        let told_mass = match report.tangential_told {
            Some(Told::Mass(mass)) => Some(mass),
            _ => None,
        };
        if let Some(omega) = told_mass
            .and_then(|mass| self.model.stiction_omega(mass))
            .filter(|omega| omega * h > STIFF_STICTION_PHASE)
        {
            let message = format!(
                "t = {}: the sticking contact's spring against the {} kg the master's answers tell turns {} rad per communication step (omega*h, above {}): until those answers came (six steps of contact), the slip was held over each step, and a master's explicit coupling of so stiff a spring may have gained energy and broken the stick. A step below {} s, or a larger maxStictionDeformation, keeps it below",
                Number(current_time),
                Number(self.model.tangential_answers.mass),
                Number(omega * h),
                Number(STIFF_STICTION_PHASE),
                Number(STIFF_STICTION_PHASE / omega)
            );
            self.logger.log(WARNING, Category::StatusWarning, &message);
        }
    }

    /// The contact's starts and ends within the step, under `logEvents`.
    fn log_transitions(&self, current_time: f64, report: &StepReport) {
        for transition in report.integral.transitions() {
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
}

/// The phase per communication step of the sticking spring beyond which the steps before the
/// tangential mass was known (the slip held over each) are reported: a held slip couples the
/// spring explicitly, and tests/stick_slip.rs holds to its onsets up to about 1.6.
const STIFF_STICTION_PHASE: f64 = 2.0;

impl Instance {
    /// Whether `current_time` is the FMU's time up to the rounding of the master's time grid.
    fn within_slack(&self, current_time: f64, h: f64) -> bool {
        let time = self.model.time;
        let last_step = if self.model.last_step_size > 0.0 {
            self.model.last_step_size
        } else {
            h
        };
        let slack = (1e-10 * time.abs().max(1.0)).min(0.5 * last_step);
        current_time.is_finite() && (current_time - time).abs() <= slack
    }

    /// Once per instance, without `m_eff`: the contacts the master's answers tell are shorter
    /// than two steps. A status warning in the log, not the call's status (as above).
    fn warn_short_contact_without_mass(&mut self, time: f64, h: f64, report: &StepReport) {
        let Some(mass) = report.new_estimate.filter(|_| !self.short_contact_warned) else {
            return;
        };
        let Some(duration) = self
            .model
            .short_contact_without_mass(mass, report.approach_speed, h)
        else {
            return;
        };
        self.short_contact_warned = true;
        let message = format!(
            "t = {}: m_eff = 0, and a contact lasts about {} s through the mass the master's answers give so far ({} kg, output m_eff_estimate), less than two communication steps (h = {} s). Without a mass, steps up to a hundredth of a contact ({} s here) are right along the master's motion; at longer steps the FMU only keeps the contact's impulse within what the least mass the answers allow can take without gaining energy, and a body that is not alone (on a spring, driven, another body behind it) may get a wrong impulse. Set m_eff to the reduced mass of the bodies the contact separates (the body's mass on a fixed housing)",
            Number(time),
            Number(duration),
            Number(mass),
            Number(h),
            Number(PLAIN_STEP * duration)
        );
        self.logger.log(WARNING, Category::StatusWarning, &message);
    }

    /// What a step says about how the contact meets the master's step size, under `logCoupling`.
    /// Messages only: the step's status stays OK (fmusim ends a run on a returned warning).
    fn log_coupling(&self, time: f64, h: f64, report: &StepReport) {
        if let Some(estimate) = report.new_estimate {
            let message = format!(
                "t = {}: the master's answer to the last contact gives an effective mass of {} kg (output m_eff_estimate){}",
                Number(time),
                Number(estimate),
                if self.model.parameters.m_eff > 0.0 {
                    format!("; the parameter m_eff = {} kg is used", Number(self.model.parameters.m_eff))
                } else {
                    "; the following steps integrate the contact's own dynamics with it".to_string()
                }
            );
            self.logger.log(OK, Category::Coupling, &message);
        }
        match report.tangential_told {
            Some(Told::Mass(mass)) => {
                let message = format!(
                    "t = {}: the master's answers in the tangential plane tell a mass of {} kg behind the slip, {}; the friction is integrated through it from this step on (a slip held over the step couples a sticking contact's spring explicitly)",
                    Number(time),
                    Number(mass),
                    if self.model.tangential_answers.holds_earlier { "the master holding the force of the step before (Jacobi)" } else { "the master holding the step's own force" }
                );
                self.logger.log(OK, Category::Coupling, &message);
            }
            Some(Told::Contradicted(mass)) => {
                let message = format!(
                    "t = {}: the master's answers in the tangential plane missed three times in a row the slip a mass of {} kg predicts (a slip the master prescribes looks like a body on the stiction spring while it sticks); the slip is held over the step again until the answers tell a mass anew",
                    Number(time),
                    Number(mass)
                );
                self.logger.log(OK, Category::Coupling, &message);
            }
            None => {}
        }
        if let Some((owed_s, owed_v)) = report.replayed_owed {
            let message = format!(
                "t = {}: the contact, replayed with the adopted mass, leaves the master {} m and {} m/s off; the next two steps remove that. E_loss takes back {} J it had reported dissipated along the contact as first integrated",
                Number(time),
                Number(owed_s),
                Number(owed_v),
                Number(report.replayed_e_loss_excess)
            );
            self.logger.log(OK, Category::Coupling, &message);
        }
        if report.passivity_force != 0.0 {
            let message = format!(
                "t = {}: the port has returned {} J more than the contact dissipated (E_port {} J, E_loss {} J); the passivity controller damps the relative motion with {} N over this step",
                Number(time),
                Number(report.passivity_deficit),
                Number(self.model.coupling.e_port),
                Number(self.model.e_loss),
                Number(report.passivity_force)
            );
            self.logger.log(OK, Category::Coupling, &message);
        }
        if let Some(duration) = report.contact_within_step {
            let message = format!(
                "t = {}: a contact started and ended inside one step: it lasted {} s, shorter than the step h = {} s. Without the effective mass the impulse is integrated along the motion extrapolated from the inputs, which overestimates it at such steps; set m_eff (the reduced mass m_a*m_b/(m_a + m_b), or the body's mass on a fixed housing) for the exact impulse, or the FMU uses its own estimate after this contact",
                Number(time),
                Number(duration),
                Number(h)
            );
            self.logger.log(OK, Category::Coupling, &message);
        }
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

//! Driving `ElastoGap3.fmu` for the bad-input cases: instances made with any arguments, the stages
//! a case starts from, raw calls, reading an instance's state without changing it, and a legal
//! continuation from each state.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::ptr;
use std::sync::Arc;

use crate::support::fmi3::{intermediate_update, log_message, Environment3, Fmu3, Instance3};
use crate::support::{ok, vr, Status};
use elastogap::variables::{by_var, Kind, Var};
use fmi_sys::fmi3;

/// One call of `logMessage`: status, category, message.
pub type Message = (Status, String, String);

/// What the Status cell promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returned {
    Status(Status),
    /// An `fmi3Instantiate*` function returned an instance (`true`) or NULL (`false`).
    Instance(bool),
}

pub enum After {
    /// The instance the bad call was made on, to probe its state.
    Instance(Instance3),
    /// No instance exists (instantiation failed, or the call had none).
    NoInstance,
    /// The case had no logger to probe with and established the state itself.
    Checked(&'static str),
}

/// What a case did: the return of the bad call, everything logged by it, where the instance is
/// left, and anything else the case found wrong on the way.
pub struct Outcome {
    pub returned: Returned,
    pub logs: Vec<Message>,
    pub after: After,
    pub problems: Vec<String>,
}

pub type Case = fn(&Arc<Fmu3>) -> Outcome;

pub const STEP: f64 = 0.01;

/// The motion the running instances are given: flange_b pushed into flange_a.
pub const INPUTS: [(Var, f64); 4] = [
    (Var::FlangeAS, 0.0),
    (Var::FlangeAV, 0.0),
    (Var::FlangeBS, -0.001),
    (Var::FlangeBV, -0.1),
];

/// How an instance was made, which the probes and continuations need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Made {
    CoSimulation { event_mode_used: bool },
    ModelExchange,
}

thread_local! {
    static MADE: RefCell<HashMap<usize, Made>> = RefCell::new(HashMap::new());
}

pub fn made_as(inst: &Instance3) -> Made {
    MADE.with(|m| m.borrow().get(&(inst.instance as usize)).copied())
        .expect("an instance made by this harness")
}

/// The arguments of `fmi3InstantiateCoSimulation` / `fmi3InstantiateModelExchange`.
#[derive(Clone)]
pub struct Make {
    pub name: Option<CString>,
    pub token: Option<CString>,
    /// `None`: NULL.
    pub resources: Option<CString>,
    pub logger: bool,
    /// `Some(n)`: a NULL `requiredIntermediateVariables` announced with `n` elements.
    pub null_required: Option<usize>,
    pub event_mode_used: bool,
    pub early_return_allowed: bool,
    pub intermediate_update: bool,
}

impl Make {
    pub fn standard(fmu: &Fmu3) -> Make {
        Make {
            name: Some(CString::new("bad-input").unwrap()),
            token: Some(CString::new(elastogap::GUID).unwrap()),
            resources: Some(
                CString::new(fmu.resource_path().to_string_lossy().as_bytes()).unwrap(),
            ),
            logger: true,
            null_required: None,
            event_mode_used: false,
            early_return_allowed: false,
            intermediate_update: false,
        }
    }
}

fn as_ptr(s: &Option<CString>) -> *const std::ffi::c_char {
    s.as_ref().map_or(ptr::null(), |s| s.as_ptr())
}

fn environment_pointer(environment: &Environment3) -> *mut c_void {
    (environment as *const Environment3).cast_mut().cast()
}

/// Wraps what an `fmi3Instantiate*` function returned; the messages it logged either way.
fn wrap(
    fmu: &Arc<Fmu3>,
    instance: fmi3::fmi3Instance,
    environment: Box<Environment3>,
    made: Made,
) -> Result<Instance3, Vec<Message>> {
    let logs = std::mem::take(&mut environment.seen.lock().unwrap().messages);
    match Instance3::made(fmu, instance, environment) {
        Some(inst) => {
            MADE.with(|m| m.borrow_mut().insert(instance as usize, made));
            inst.seen().messages = logs;
            Ok(inst)
        }
        None => Err(logs),
    }
}

pub fn instantiate_co_simulation(fmu: &Arc<Fmu3>, make: &Make) -> Result<Instance3, Vec<Message>> {
    let environment = Instance3::environment(fmu);
    let required = [vr(Var::C), vr(Var::D)];
    let (required, n_required) = match make.null_required {
        Some(n) => (ptr::null(), n),
        None => (required.as_ptr(), 0),
    };
    // SAFETY: every pointer is NULL or valid for the call; the environment outlives the instance.
    let instance = unsafe {
        fmu.binding.fmi3InstantiateCoSimulation(
            as_ptr(&make.name),
            as_ptr(&make.token),
            as_ptr(&make.resources),
            false,
            false,
            make.event_mode_used,
            make.early_return_allowed,
            required,
            n_required,
            environment_pointer(&environment),
            if make.logger { Some(log_message) } else { None },
            if make.intermediate_update {
                Some(intermediate_update)
            } else {
                None
            },
        )
    };
    let made = Made::CoSimulation {
        event_mode_used: make.event_mode_used,
    };
    wrap(fmu, instance, environment, made)
}

pub fn instantiate_model_exchange(fmu: &Arc<Fmu3>, make: &Make) -> Result<Instance3, Vec<Message>> {
    let environment = Instance3::environment(fmu);
    // SAFETY: as above.
    let instance = unsafe {
        fmu.binding.fmi3InstantiateModelExchange(
            as_ptr(&make.name),
            as_ptr(&make.token),
            as_ptr(&make.resources),
            false,
            false,
            environment_pointer(&environment),
            if make.logger { Some(log_message) } else { None },
        )
    };
    wrap(fmu, instance, environment, Made::ModelExchange)
}

/// `fmi3InstantiateScheduledExecution` with the right arguments; the instance it should not
/// return is freed again.
pub fn instantiate_scheduled_execution(fmu: &Arc<Fmu3>) -> (bool, Vec<Message>) {
    let make = Make::standard(fmu);
    let environment = Instance3::environment(fmu);
    // SAFETY: as above.
    let instance = unsafe {
        fmu.binding.fmi3InstantiateScheduledExecution(
            as_ptr(&make.name),
            as_ptr(&make.token),
            as_ptr(&make.resources),
            false,
            false,
            environment_pointer(&environment),
            Some(log_message),
            None,
            None,
            None,
        )
    };
    let logs = std::mem::take(&mut environment.seen.lock().unwrap().messages);
    let created = !instance.is_null();
    if created {
        // SAFETY: an instance of this FMU, freed once.
        unsafe { fmu.binding.fmi3FreeInstance(instance) };
    }
    (created, logs)
}

pub fn fresh(fmu: &Arc<Fmu3>) -> Instance3 {
    fresh_with(fmu, |_| {})
}

pub fn fresh_with(fmu: &Arc<Fmu3>, change: impl FnOnce(&mut Make)) -> Instance3 {
    let mut make = Make::standard(fmu);
    change(&mut make);
    instantiate_co_simulation(fmu, &make)
        .unwrap_or_else(|logs| panic!("fmi3InstantiateCoSimulation failed: {logs:?}"))
}

pub fn fresh_model_exchange(fmu: &Arc<Fmu3>) -> Instance3 {
    instantiate_model_exchange(fmu, &Make::standard(fmu))
        .unwrap_or_else(|logs| panic!("fmi3InstantiateModelExchange failed: {logs:?}"))
}

pub fn take_logs(inst: &Instance3) -> Vec<Message> {
    std::mem::take(&mut inst.seen().messages)
}

// ---- values

pub fn get_floats(inst: &Instance3, references: &[u32]) -> (Status, Vec<f64>) {
    let mut values = vec![f64::NAN; references.len()];
    // SAFETY: arrays of the announced lengths.
    let status = unsafe {
        inst.b().fmi3GetFloat64(
            inst.instance,
            references.as_ptr(),
            references.len(),
            values.as_mut_ptr(),
            values.len(),
        )
    };
    (Status::from(status), values)
}

pub fn get_int64(inst: &Instance3, reference: u32) -> (Status, i64) {
    let mut value = 0;
    // SAFETY: arrays of one element.
    let status = unsafe {
        inst.b()
            .fmi3GetInt64(inst.instance, &reference, 1, &mut value, 1)
    };
    (Status::from(status), value)
}

/// Sets `var` with the setter of its FMI 3 type (Int32, the Enumerations as Int64, Booleans given
/// as f64).
pub fn set(inst: &mut Instance3, var: Var, value: f64) -> Status {
    let variable = by_var(var);
    let reference = variable.value_reference;
    // SAFETY: arrays of one element.
    Status::from(unsafe {
        let (b, c) = (inst.b(), inst.instance);
        match (variable.kind, variable.declared_type) {
            (Kind::Real, _) => b.fmi3SetFloat64(c, &reference, 1, &value, 1),
            (Kind::Integer, None) => b.fmi3SetInt32(c, &reference, 1, &(value as i32), 1),
            (Kind::Integer, Some(_)) => b.fmi3SetInt64(c, &reference, 1, &(value as i64), 1),
            (Kind::Boolean, _) => b.fmi3SetBoolean(c, &reference, 1, &(value != 0.0), 1),
            (Kind::String, _) => panic!("{var:?} is text: set it with set_string"),
        }
    })
}

pub fn set_string(inst: &mut Instance3, var: Var, text: &str) -> Status {
    let reference = vr(var);
    let text = CString::new(text).unwrap();
    let values = [text.as_ptr()];
    // SAFETY: arrays of one element; the string lives for the call.
    Status::from(unsafe {
        inst.b()
            .fmi3SetString(inst.instance, &reference, 1, values.as_ptr(), 1)
    })
}

/// The FMU's time, `time` (value reference 0).
pub fn time_of(inst: &Instance3) -> (Status, f64) {
    let (status, values) = get_floats(inst, &[vr(Var::Time)]);
    (status, values[0])
}

// ---- mode changes the importer of tests/support/fmi3.rs does not make

pub fn enter_continuous_time_mode(inst: &mut Instance3) -> Status {
    // SAFETY: a live instance.
    Status::from(unsafe { inst.b().fmi3EnterContinuousTimeMode(inst.instance) })
}

pub fn set_time(inst: &mut Instance3, time: f64) -> Status {
    // SAFETY: a live instance.
    Status::from(unsafe { inst.b().fmi3SetTime(inst.instance, time) })
}

pub fn reset(inst: &mut Instance3) -> Status {
    // SAFETY: a live instance.
    Status::from(unsafe { inst.b().fmi3Reset(inst.instance) })
}

pub fn continuous_state_derivatives(inst: &mut Instance3, n: usize) -> Status {
    let mut values = vec![0.0; n];
    // SAFETY: an array of n values.
    Status::from(unsafe {
        inst.b()
            .fmi3GetContinuousStateDerivatives(inst.instance, values.as_mut_ptr(), n)
    })
}

pub fn completed_integrator_step(inst: &mut Instance3) -> Status {
    let (mut enter_event_mode, mut terminate) = (false, false);
    // SAFETY: valid out-pointers.
    Status::from(unsafe {
        inst.b().fmi3CompletedIntegratorStep(
            inst.instance,
            true,
            &mut enter_event_mode,
            &mut terminate,
        )
    })
}

pub fn get_fmu_state(inst: &mut Instance3) -> fmi3::fmi3FMUState {
    let mut state: fmi3::fmi3FMUState = ptr::null_mut();
    // SAFETY: a valid out-pointer.
    ok(Status::from(unsafe {
        inst.b().fmi3GetFMUState(inst.instance, &mut state)
    }));
    state
}

pub fn serialize(inst: &mut Instance3, state: fmi3::fmi3FMUState) -> Vec<u8> {
    let mut size = 0;
    // SAFETY: a state of this instance, valid out-pointers and a buffer of the size given.
    unsafe {
        ok(Status::from(inst.b().fmi3SerializedFMUStateSize(
            inst.instance,
            state,
            &mut size,
        )));
        let mut bytes = vec![0u8; size];
        ok(Status::from(inst.b().fmi3SerializeFMUState(
            inst.instance,
            state,
            bytes.as_mut_ptr(),
            size,
        )));
        bytes
    }
}

pub fn deserialize(inst: &mut Instance3, bytes: &[u8], into: &mut fmi3::fmi3FMUState) -> Status {
    // SAFETY: a buffer of the size given and a valid out-pointer.
    Status::from(unsafe {
        inst.b()
            .fmi3DeserializeFMUState(inst.instance, bytes.as_ptr(), bytes.len(), into)
    })
}

// ---- stages

pub fn instantiated(_: &mut Instance3) {}

pub fn initializing(inst: &mut Instance3) {
    ok(inst.enter_initialization_mode(0.0));
}

/// Initialized with c = 1e4 and one step taken: the FMU's time is [`STEP`].
pub fn running(inst: &mut Instance3) {
    ok(set(inst, Var::C, 1e4));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.do_step(0.0, STEP).status);
}

/// A Model Exchange instance initialized with c = 1e4 and the inputs of [`INPUTS`]: in Event Mode.
pub fn event_mode(inst: &mut Instance3) {
    ok(set(inst, Var::C, 1e4));
    initializing(inst);
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.exit_initialization_mode());
}

/// [`event_mode`], then on to Continuous-Time Mode.
pub fn continuous_time_mode(inst: &mut Instance3) {
    event_mode(inst);
    ok(inst.update_discrete_states().0);
    ok(enter_continuous_time_mode(inst));
}

pub fn terminated(inst: &mut Instance3) {
    running(inst);
    ok(inst.terminate());
}

/// Running, then put into the Error state by an unknown value reference.
pub fn failed(inst: &mut Instance3) {
    running(inst);
    assert_eq!(get_floats(inst, &[99]).0, Status::Error);
    take_logs(inst);
}

/// A fresh co-simulation instance brought to `stage` (which must log nothing), then `bad`.
pub fn call(
    fmu: &Arc<Fmu3>,
    stage: fn(&mut Instance3),
    bad: fn(&mut Instance3) -> Status,
) -> Outcome {
    call_on(fresh(fmu), stage, bad)
}

/// [`call`] on a Model Exchange instance.
pub fn call_model_exchange(
    fmu: &Arc<Fmu3>,
    stage: fn(&mut Instance3),
    bad: fn(&mut Instance3) -> Status,
) -> Outcome {
    call_on(fresh_model_exchange(fmu), stage, bad)
}

pub fn call_on(
    mut inst: Instance3,
    stage: fn(&mut Instance3),
    bad: fn(&mut Instance3) -> Status,
) -> Outcome {
    stage(&mut inst);
    let staged = take_logs(&inst);
    assert!(staged.is_empty(), "the stage logged {staged:?}");
    let status = bad(&mut inst);
    Outcome {
        returned: Returned::Status(status),
        logs: take_logs(&inst),
        after: After::Instance(inst),
        problems: Vec::new(),
    }
}

// ---- the state after

/// The instance's state, read without changing it: a function of the other interface is refused
/// in every state, and its message names the state.
pub fn state_of(inst: &mut Instance3) -> Result<String, String> {
    take_logs(inst);
    // SAFETY: a live instance.
    let status = Status::from(unsafe {
        match made_as(inst) {
            Made::ModelExchange => inst.b().fmi3EnterStepMode(inst.instance),
            Made::CoSimulation { .. } => inst.b().fmi3EnterContinuousTimeMode(inst.instance),
        }
    });
    let logs = take_logs(inst);
    let message = logs.last().map(|(_, _, m)| m.clone()).unwrap_or_default();
    if status != Status::Error {
        return Err(format!(
            "the probe of the state (a function of the other interface) returned {status:?}: {logs:?}"
        ));
    }
    message
        .split("not allowed in state ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .ok_or_else(|| format!("the probe of the state logged {message:?}"))
}

/// A legal continuation from `state` succeeds without a message: what an importer does next. Its
/// first call is one that only `state` allows (Terminated and Error: `fmi3Reset`).
pub fn continue_from(inst: &mut Instance3, state: &str) -> Result<(), String> {
    let made = made_as(inst);
    let mut calls: Vec<(&str, Status)> = Vec::new();
    let mut from = state;
    if matches!(from, "Terminated" | "Error") {
        calls.push(("fmi3Reset", reset(inst)));
        from = "Instantiated";
    }
    if from == "Instantiated" {
        calls.push((
            "fmi3EnterInitializationMode",
            inst.enter_initialization_mode(0.0),
        ));
        from = "InitializationMode";
    }
    if from == "InitializationMode" {
        calls.push((
            "fmi3ExitInitializationMode",
            inst.exit_initialization_mode(),
        ));
        from = match made {
            Made::CoSimulation {
                event_mode_used: false,
            } => "StepMode",
            _ => "EventMode",
        };
    }
    if from == "EventMode" {
        calls.push(("fmi3UpdateDiscreteStates", inst.update_discrete_states().0));
        if made == Made::ModelExchange {
            calls.push((
                "fmi3EnterContinuousTimeMode",
                enter_continuous_time_mode(inst),
            ));
            from = "ContinuousTimeMode";
        } else {
            calls.push(("fmi3EnterStepMode", inst.enter_step_mode()));
            from = "StepMode";
        }
    }
    let (status, time) = time_of(inst);
    calls.push(("fmi3GetFloat64(time)", status));
    match (from, made) {
        ("StepMode", Made::CoSimulation { .. }) => {
            calls.push(("fmi3DoStep", inst.do_step(time, STEP).status));
        }
        ("ContinuousTimeMode", Made::ModelExchange) => {
            calls.push((
                "fmi3CompletedIntegratorStep",
                completed_integrator_step(inst),
            ));
            calls.push(("fmi3SetTime", set_time(inst, time + STEP)));
            calls.push((
                "fmi3GetContinuousStateDerivatives",
                continuous_state_derivatives(inst, 3),
            ));
        }
        _ => return Err(format!("no legal continuation from {state} ({made:?})")),
    }
    let logs = take_logs(inst);
    if calls.iter().any(|(_, s)| *s != Status::Ok) || !logs.is_empty() {
        return Err(format!("continuing from {state}: {calls:?}, log {logs:?}"));
    }
    Ok(())
}

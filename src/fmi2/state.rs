//! The state machines of FMI 2.0 co-simulation (section 4.2.4) and Model Exchange (section 3.2.3)
//! in one table: each call lists the states it is allowed in, and calls of one interface are
//! refused on an instance of the other.

use crate::model::Interface;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub(super) enum State {
    Instantiated = 1 << 0,
    InitializationMode = 1 << 1,
    StepComplete = 1 << 2,
    StepInProgress = 1 << 3,
    StepFailed = 1 << 4,
    StepCanceled = 1 << 5,
    Terminated = 1 << 6,
    Error = 1 << 7,
    Fatal = 1 << 8,
    EventMode = 1 << 9,
    ContinuousTimeMode = 1 << 10,
}

impl State {
    /// The state after initialization: where the simulation runs.
    pub(super) fn running(interface: Interface) -> State {
        match interface {
            Interface::CoSimulation => State::StepComplete,
            Interface::ModelExchange => State::EventMode,
        }
    }

    /// Whether the parameters have been checked and the simulation runs.
    pub(super) fn is_running(self) -> bool {
        matches!(
            self,
            State::StepComplete | State::EventMode | State::ContinuousTimeMode
        )
    }
}

const INSTANTIATED: u16 = State::Instantiated as u16;
const INITIALIZATION: u16 = State::InitializationMode as u16;
const STEP_COMPLETE: u16 = State::StepComplete as u16;
const STEP_IN_PROGRESS: u16 = State::StepInProgress as u16;
const STEP_FAILED: u16 = State::StepFailed as u16;
const STEP_CANCELED: u16 = State::StepCanceled as u16;
const TERMINATED: u16 = State::Terminated as u16;
const ERROR_STATE: u16 = State::Error as u16;
const EVENT: u16 = State::EventMode as u16;
const CONTINUOUS: u16 = State::ContinuousTimeMode as u16;

const ANY_BUT_FATAL: u16 = INSTANTIATED
    | INITIALIZATION
    | STEP_COMPLETE
    | STEP_IN_PROGRESS
    | STEP_FAILED
    | STEP_CANCELED
    | TERMINATED
    | ERROR_STATE
    | EVENT
    | CONTINUOUS;
const AFTER_INSTANTIATION: u16 = ANY_BUT_FATAL & !STEP_IN_PROGRESS;
const READABLE: u16 = AFTER_INSTANTIATION & !INSTANTIATED;
/// Continuous-time Real inputs may also change in Continuous-Time Mode; everything else only
/// where the discrete equations are active.
const REAL_SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP_COMPLETE | EVENT | CONTINUOUS;
const SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP_COMPLETE | EVENT;
const STATUS_QUERY: u16 = STEP_COMPLETE | STEP_IN_PROGRESS | STEP_FAILED | TERMINATED;
const MODEL_EXCHANGE_RUNNING: u16 = EVENT | CONTINUOUS;

/// Every call that takes an instance.
#[derive(Clone, Copy, Debug)]
pub(super) enum Call {
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
    EnterEventMode,
    NewDiscreteStates,
    EnterContinuousTimeMode,
    CompletedIntegratorStep,
    SetTime,
    SetContinuousStates,
    GetDerivatives,
    GetEventIndicators,
    GetContinuousStates,
    GetNominalsOfContinuousStates,
}

impl Call {
    /// The one table: the states each call is allowed in, and the interface it belongs to (`None`
    /// for the common functions).
    fn rule(self) -> (u16, Option<Interface>) {
        use Interface::{CoSimulation as Cs, ModelExchange as Me};
        match self {
            Call::SetDebugLogging => (ANY_BUT_FATAL, None),
            Call::SetupExperiment | Call::EnterInitializationMode => (INSTANTIATED, None),
            Call::ExitInitializationMode => (INITIALIZATION, None),
            Call::Terminate => (STEP_COMPLETE | STEP_FAILED | MODEL_EXCHANGE_RUNNING, None),
            Call::Reset => (AFTER_INSTANTIATION, None),
            Call::GetReal | Call::GetInteger | Call::GetBoolean | Call::GetString => {
                (READABLE, None)
            }
            Call::SetReal => (REAL_SETTABLE, None),
            Call::SetInteger | Call::SetBoolean | Call::SetString => (SETTABLE, None),
            Call::GetFMUstate
            | Call::SetFMUstate
            | Call::FreeFMUstate
            | Call::SerializedFMUstateSize
            | Call::SerializeFMUstate
            | Call::DeSerializeFMUstate => (AFTER_INSTANTIATION, None),
            Call::GetDirectionalDerivative => (READABLE, None),
            Call::SetRealInputDerivatives => {
                (INSTANTIATED | INITIALIZATION | STEP_COMPLETE, Some(Cs))
            }
            Call::GetRealOutputDerivatives => (
                STEP_COMPLETE | STEP_FAILED | STEP_CANCELED | TERMINATED | ERROR_STATE,
                Some(Cs),
            ),
            Call::DoStep => (STEP_COMPLETE, Some(Cs)),
            Call::CancelStep => (STEP_IN_PROGRESS, Some(Cs)),
            Call::GetStatus
            | Call::GetRealStatus
            | Call::GetIntegerStatus
            | Call::GetBooleanStatus
            | Call::GetStringStatus => (STATUS_QUERY, Some(Cs)),
            Call::EnterEventMode => (MODEL_EXCHANGE_RUNNING, Some(Me)),
            // The standard allows it from Event Mode on, but its own pseudo-code, the FMU Checker
            // and OpenModelica's import before 2022 call it right after instantiation; it only
            // records the time, so it is accepted there too.
            Call::SetTime => (
                INSTANTIATED | INITIALIZATION | MODEL_EXCHANGE_RUNNING,
                Some(Me),
            ),
            Call::NewDiscreteStates | Call::EnterContinuousTimeMode => (EVENT, Some(Me)),
            Call::CompletedIntegratorStep | Call::SetContinuousStates => (CONTINUOUS, Some(Me)),
            Call::GetEventIndicators | Call::GetContinuousStates => (
                INITIALIZATION | MODEL_EXCHANGE_RUNNING | TERMINATED | ERROR_STATE,
                Some(Me),
            ),
            Call::GetDerivatives => (MODEL_EXCHANGE_RUNNING | TERMINATED | ERROR_STATE, Some(Me)),
            Call::GetNominalsOfContinuousStates => (
                INSTANTIATED | MODEL_EXCHANGE_RUNNING | TERMINATED | ERROR_STATE,
                Some(Me),
            ),
        }
    }

    /// Whether the call is allowed on an instance of `interface` in `state`. Every call asks;
    /// the message is built only for a refusal, since an `Option<String>` would be returned
    /// through memory on every call.
    #[inline(always)]
    pub(super) fn allows(self, interface: Interface, state: State) -> bool {
        let (states, belongs_to) = self.rule();
        states & state as u16 != 0 && belongs_to.is_none_or(|required| required == interface)
    }

    /// Why `allows` refuses the call. Both messages name the state, so an importer's log says
    /// where the instance was.
    pub(super) fn refusal(self, interface: Interface, state: State) -> String {
        match self.rule().1 {
            Some(required) if required != interface => format!(
                "{}: not allowed in state {state:?} of a {} instance: it is a {} function",
                self.name(),
                interface_name(interface),
                interface_name(required)
            ),
            _ => format!(
                "{}: not allowed in state {state:?} (the FMI 2.0 {} state machine)",
                self.name(),
                interface_name(interface)
            ),
        }
    }

    pub(super) fn name(self) -> &'static str {
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
            Call::EnterEventMode => "fmi2EnterEventMode",
            Call::NewDiscreteStates => "fmi2NewDiscreteStates",
            Call::EnterContinuousTimeMode => "fmi2EnterContinuousTimeMode",
            Call::CompletedIntegratorStep => "fmi2CompletedIntegratorStep",
            Call::SetTime => "fmi2SetTime",
            Call::SetContinuousStates => "fmi2SetContinuousStates",
            Call::GetDerivatives => "fmi2GetDerivatives",
            Call::GetEventIndicators => "fmi2GetEventIndicators",
            Call::GetContinuousStates => "fmi2GetContinuousStates",
            Call::GetNominalsOfContinuousStates => "fmi2GetNominalsOfContinuousStates",
        }
    }
}

pub(super) fn interface_name(interface: Interface) -> &'static str {
    match interface {
        Interface::CoSimulation => "co-simulation",
        Interface::ModelExchange => "Model Exchange",
    }
}

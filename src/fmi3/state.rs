//! The state machines of FMI 3.0 co-simulation (section 4.2) and Model Exchange (section 3.2) in
//! one table: each call lists the states it is allowed in, and calls of one interface are refused
//! on an instance of the other. Step Discarded, Configuration, Reconfiguration and Clock
//! Activation Mode never occur: steps are never discarded and there are no structural
//! parameters and no clocks.

use crate::model::Interface;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub(super) enum State {
    Instantiated = 1 << 0,
    InitializationMode = 1 << 1,
    EventMode = 1 << 2,
    StepMode = 1 << 3,
    ContinuousTimeMode = 1 << 4,
    /// Inside fmi3DoStep, while the importer's intermediateUpdate callback runs.
    IntermediateUpdateMode = 1 << 5,
    Terminated = 1 << 6,
    Error = 1 << 7,
    Fatal = 1 << 8,
}

impl State {
    /// Whether the parameters have been checked and the simulation runs.
    pub(super) fn is_running(self) -> bool {
        matches!(
            self,
            State::StepMode
                | State::EventMode
                | State::ContinuousTimeMode
                | State::IntermediateUpdateMode
        )
    }
}

const INSTANTIATED: u16 = State::Instantiated as u16;
const INITIALIZATION: u16 = State::InitializationMode as u16;
const EVENT: u16 = State::EventMode as u16;
const STEP: u16 = State::StepMode as u16;
const CONTINUOUS: u16 = State::ContinuousTimeMode as u16;
const INTERMEDIATE: u16 = State::IntermediateUpdateMode as u16;
const TERMINATED: u16 = State::Terminated as u16;
const ERROR_STATE: u16 = State::Error as u16;

const ANY_BUT_FATAL: u16 = INSTANTIATED
    | INITIALIZATION
    | EVENT
    | STEP
    | CONTINUOUS
    | INTERMEDIATE
    | TERMINATED
    | ERROR_STATE;
/// Outside the importer's callback: the instance is not in the middle of a step.
const OUTSIDE_STEP: u16 = ANY_BUT_FATAL & !INTERMEDIATE;
const READABLE: u16 = ANY_BUT_FATAL & !INSTANTIATED;
/// Continuous-time Float64 inputs may also change in Continuous-Time Mode; everything else only
/// where the discrete equations are active.
const FLOAT_SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP | EVENT | CONTINUOUS;
const SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP | EVENT;
const MODEL_EXCHANGE_RUNNING: u16 = EVENT | CONTINUOUS;
const EVALUATED: u16 = INITIALIZATION | MODEL_EXCHANGE_RUNNING | TERMINATED | ERROR_STATE;

/// Every call that takes an instance.
#[derive(Clone, Copy, Debug)]
pub(super) enum Call {
    SetDebugLogging,
    EnterInitializationMode,
    ExitInitializationMode,
    EnterEventMode,
    Terminate,
    Reset,
    /// A getter, by its function name.
    Get(&'static str),
    SetFloat64,
    /// A setter other than fmi3SetFloat64, by its function name.
    Set(&'static str),
    /// The FMU state functions, by name.
    FmuState(&'static str),
    GetDirectionalDerivative,
    UpdateDiscreteStates,
    GetOutputDerivatives,
    EnterStepMode,
    DoStep,
    EnterContinuousTimeMode,
    CompletedIntegratorStep,
    SetTime,
    SetContinuousStates,
    GetContinuousStateDerivatives,
    GetEventIndicators,
    GetContinuousStates,
    GetNominalsOfContinuousStates,
    /// fmi3GetNumberOfEventIndicators and fmi3GetNumberOfContinuousStates.
    Count(&'static str),
    /// A function of a feature the FMU does not have, by name.
    Unsupported(&'static str),
}

impl Call {
    /// The one table: the states each call is allowed in, and the interface it belongs to (`None`
    /// for the common functions).
    fn rule(self) -> (u16, Option<Interface>) {
        use Interface::{CoSimulation as Cs, ModelExchange as Me};
        match self {
            Call::SetDebugLogging | Call::Count(_) | Call::Unsupported(_) => (ANY_BUT_FATAL, None),
            Call::EnterInitializationMode => (INSTANTIATED, None),
            Call::ExitInitializationMode => (INITIALIZATION, None),
            // Co-simulation enters it from Step Mode (when eventModeUsed), Model Exchange from
            // Continuous-Time Mode; Event Mode again is accepted as FMI 2's layer accepts it.
            Call::EnterEventMode => (STEP | MODEL_EXCHANGE_RUNNING, None),
            Call::Terminate => (STEP | MODEL_EXCHANGE_RUNNING, None),
            Call::Reset => (OUTSIDE_STEP, None),
            Call::Get(_) => (READABLE, None),
            Call::SetFloat64 => (FLOAT_SETTABLE, None),
            Call::Set(_) => (SETTABLE, None),
            Call::FmuState(_) => (OUTSIDE_STEP, None),
            Call::GetDirectionalDerivative => (READABLE & !INTERMEDIATE, None),
            Call::UpdateDiscreteStates => (EVENT, None),
            Call::GetOutputDerivatives => {
                (STEP | INTERMEDIATE | TERMINATED | ERROR_STATE, Some(Cs))
            }
            Call::EnterStepMode => (EVENT, Some(Cs)),
            Call::DoStep => (STEP, Some(Cs)),
            Call::EnterContinuousTimeMode => (EVENT, Some(Me)),
            Call::CompletedIntegratorStep | Call::SetContinuousStates => (CONTINUOUS, Some(Me)),
            // The standard allows it from Event Mode on; it only records the time, so it is
            // accepted before too, as in the FMI 2 layer.
            Call::SetTime => (
                INSTANTIATED | INITIALIZATION | MODEL_EXCHANGE_RUNNING,
                Some(Me),
            ),
            Call::GetContinuousStateDerivatives
            | Call::GetEventIndicators
            | Call::GetContinuousStates => (EVALUATED, Some(Me)),
            Call::GetNominalsOfContinuousStates => (INSTANTIATED | EVALUATED, Some(Me)),
        }
    }

    /// Whether the call is allowed on an instance of `interface` in `state`; the message is built
    /// only for a refusal.
    #[inline(always)]
    pub(super) fn allows(self, interface: Interface, state: State) -> bool {
        let (states, belongs_to) = self.rule();
        states & state as u16 != 0 && belongs_to.is_none_or(|required| required == interface)
    }

    /// Why `allows` refuses the call; it names the state, so an importer's log says where the
    /// instance was.
    pub(super) fn refusal(self, interface: Interface, state: State) -> String {
        match self.rule().1 {
            Some(required) if required != interface => format!(
                "{}: not allowed in state {state:?} of a {} instance: it is a {} function",
                self.name(),
                interface_name(interface),
                interface_name(required)
            ),
            _ => format!(
                "{}: not allowed in state {state:?} (the FMI 3.0 {} state machine)",
                self.name(),
                interface_name(interface)
            ),
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Call::SetDebugLogging => "fmi3SetDebugLogging",
            Call::EnterInitializationMode => "fmi3EnterInitializationMode",
            Call::ExitInitializationMode => "fmi3ExitInitializationMode",
            Call::EnterEventMode => "fmi3EnterEventMode",
            Call::Terminate => "fmi3Terminate",
            Call::Reset => "fmi3Reset",
            Call::SetFloat64 => "fmi3SetFloat64",
            Call::GetDirectionalDerivative => "fmi3GetDirectionalDerivative",
            Call::UpdateDiscreteStates => "fmi3UpdateDiscreteStates",
            Call::GetOutputDerivatives => "fmi3GetOutputDerivatives",
            Call::EnterStepMode => "fmi3EnterStepMode",
            Call::DoStep => "fmi3DoStep",
            Call::EnterContinuousTimeMode => "fmi3EnterContinuousTimeMode",
            Call::CompletedIntegratorStep => "fmi3CompletedIntegratorStep",
            Call::SetTime => "fmi3SetTime",
            Call::SetContinuousStates => "fmi3SetContinuousStates",
            Call::GetContinuousStateDerivatives => "fmi3GetContinuousStateDerivatives",
            Call::GetEventIndicators => "fmi3GetEventIndicators",
            Call::GetContinuousStates => "fmi3GetContinuousStates",
            Call::GetNominalsOfContinuousStates => "fmi3GetNominalsOfContinuousStates",
            Call::Get(name)
            | Call::Set(name)
            | Call::FmuState(name)
            | Call::Count(name)
            | Call::Unsupported(name) => name,
        }
    }
}

pub(super) fn interface_name(interface: Interface) -> &'static str {
    match interface {
        Interface::CoSimulation => "co-simulation",
        Interface::ModelExchange => "Model Exchange",
    }
}

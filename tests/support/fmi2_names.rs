//! The names of the FMI 2.0 common, co-simulation and Model Exchange functions, written out from the standard
//! (fmi2Functions.h), not from the FMU's source. Plain data, so that tests that need no importer can
//! include this file alone (`#[path = "support/fmi2_names.rs"] mod fmi2_names;`).

/// The FMI 2.0 common functions, all of which fmusim resolves at load time.
pub const COMMON_FUNCTIONS: &[&str] = &[
    "fmi2GetTypesPlatform",
    "fmi2GetVersion",
    "fmi2SetDebugLogging",
    "fmi2Instantiate",
    "fmi2FreeInstance",
    "fmi2SetupExperiment",
    "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode",
    "fmi2Terminate",
    "fmi2Reset",
    "fmi2GetReal",
    "fmi2GetInteger",
    "fmi2GetBoolean",
    "fmi2GetString",
    "fmi2SetReal",
    "fmi2SetInteger",
    "fmi2SetBoolean",
    "fmi2SetString",
    "fmi2GetFMUstate",
    "fmi2SetFMUstate",
    "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize",
    "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative",
];

/// The FMI 2.0 co-simulation functions.
pub const CO_SIMULATION_FUNCTIONS: &[&str] = &[
    "fmi2SetRealInputDerivatives",
    "fmi2GetRealOutputDerivatives",
    "fmi2DoStep",
    "fmi2CancelStep",
    "fmi2GetStatus",
    "fmi2GetRealStatus",
    "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus",
    "fmi2GetStringStatus",
];

/// The FMI 2.0 Model Exchange functions.
pub const MODEL_EXCHANGE_FUNCTIONS: &[&str] = &[
    "fmi2EnterEventMode",
    "fmi2NewDiscreteStates",
    "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep",
    "fmi2SetTime",
    "fmi2SetContinuousStates",
    "fmi2GetDerivatives",
    "fmi2GetEventIndicators",
    "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates",
];

/// All three lists: every function an FMU of both interfaces must export.
pub fn all() -> impl Iterator<Item = &'static str> {
    COMMON_FUNCTIONS
        .iter()
        .chain(CO_SIMULATION_FUNCTIONS)
        .chain(MODEL_EXCHANGE_FUNCTIONS)
        .copied()
}

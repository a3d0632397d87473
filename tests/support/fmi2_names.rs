//! The names of the FMI 2.0 common and co-simulation functions, written out from the standard
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

/// Both lists: every function a co-simulation FMU must export.
pub fn all() -> impl Iterator<Item = &'static str> {
    COMMON_FUNCTIONS
        .iter()
        .chain(CO_SIMULATION_FUNCTIONS)
        .copied()
}

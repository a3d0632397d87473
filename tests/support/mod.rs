//! A small FMI 2.0 co-simulation importer for the tests and the demo, written the careful way a real
//! host works: it unpacks the `.fmu`, reads `modelDescription.xml` for the value references and
//! capability flags, loads `binaries/<platform>/<modelIdentifier>` and calls the C API.
//!
//! Use it from an integration test with `mod support;`, from an example with
//! `#[path = "../tests/support/mod.rs"] mod support;`.
//!
//! - [`Fmu`]: locate ([`default_fmu_path`]: `$ELASTOGAP_FMU` or `target/fmu/ElastoGap.fmu`),
//!   unpack, parse, load; [`Fmu::missing_functions`] lists FMI functions the binary lacks.
//! - [`Instance`]: one `fmi2Component`; every call returns the FMU's [`Status`].
//! - [`logger`]: the logger callback and the per-instance [`LogSink`].
//!   `ELASTOGAP_TEST_ECHO_LOG=1` also prints every message to stderr.
//! - [`cosim`]: the co-simulation master of `Modelica.Mechanics.Translational.Examples.ElastoGap`
//!   shared by `examples/msl_elastogap/` and `tests/demo_accuracy.rs`.
//! - [`cosim3`]: the same example through the FMI 3.0 FMU, its steps returning early at the
//!   contact's switches and taking them in event mode.
//! - [`model_exchange`]: the same example with the gaps as Model Exchange instances under an
//!   adaptive integrator with event location.
//! - [`masters`]: the Gauss–Seidel (gap first, body first) and Jacobi masters of one body or two.
//! - [`reference`], [`scenarios`]: the coupling acceptance cases' references and swept scenarios,
//!   and their report.
//! - [`fmi3`]: the same for the FMI 3.0 FMU (`$ELASTOGAP3_FMU` or `target/fmu/ElastoGap3.fmu`):
//!   instances with early return, event mode and the intermediate-update callback.
//! - [`early_return_master`]: a Gauss–Seidel and Jacobi master whose steps may end early, driving
//!   either FMU.
//! - [`gap_law`]: the MSL ElastoGap law written out independently of the FMU, the one reference
//!   the tests hold the FMU's force to, and its integral along a motion.
//! - [`random`]: a deterministic generator for tests that draw their cases.
//! - [`bad_input_doc`]: reading the bad-input tables of `docs/bad-input*.md`; [`damaged_state`]:
//!   serialized states damaged as their rows name; [`parameter_cases`]:
//!   the cases of parameter rules both tables make the same way.
//! - [`generated`]: the docs' blocks and rows that tests make from a run.
//! - [`performance_table`]: the table of the step real masters take, from a benchmark run.

#![allow(dead_code, unused_imports, unused_macros)]

pub mod bad_input_doc;
pub mod cosim;
pub mod cosim3;
pub mod damaged_state;
pub mod early_return_master;
pub mod exact;
pub mod fmi2_names;
pub mod fmi3;
pub mod fmu;
pub mod gap_law;
pub mod generated;
pub mod impact;
pub mod instance;
pub mod laws;
pub mod logger;
pub mod masters;
pub mod model_description;
pub mod model_exchange;
pub mod msl_reference;
pub mod parameter_cases;
pub mod performance_table;
pub mod random;
pub mod reference;
pub mod scenarios;
pub mod stick_slip;

pub use fmu::{default_fmu_path, Fmu};
pub use instance::{Environment, FmuState, Instance, InstantiateOptions, ResourceUri};
pub use logger::{LogRecord, LogSink};
pub use model_description::{ModelDescription, ScalarVariable, VarType};

use fmi_sys::fmi2;

/// An `fmi2Status` as returned, with unknown values kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    Warning,
    Discard,
    Error,
    Fatal,
    Pending,
    /// Not an `fmi2Status` value at all.
    Invalid(u32),
}

impl From<fmi2::fmi2Status> for Status {
    fn from(s: fmi2::fmi2Status) -> Status {
        match s {
            fmi2::fmi2Status_fmi2OK => Status::Ok,
            fmi2::fmi2Status_fmi2Warning => Status::Warning,
            fmi2::fmi2Status_fmi2Discard => Status::Discard,
            fmi2::fmi2Status_fmi2Error => Status::Error,
            fmi2::fmi2Status_fmi2Fatal => Status::Fatal,
            fmi2::fmi2Status_fmi2Pending => Status::Pending,
            other => Status::Invalid(other),
        }
    }
}

/// The inputs: flange_a's position and velocity, then flange_b's.
pub const INPUTS: [&str; 4] = ["flange_a.s", "flange_a.v", "flange_b.s", "flange_b.v"];

/// Every Real (FMI 3.0: Float64) output and local, in the order the tests read and record them.
pub const REALS: [&str; 9] = [
    "f",
    "s_rel",
    "v_rel",
    "lossPower",
    "heatPort.Q_flow",
    "f_mean",
    "E_loss",
    "f_c",
    "f_d",
];

/// The value reference of a variable of the FMU's variable table.
pub fn vr(var: elastogap::variables::Var) -> u32 {
    elastogap::variables::by_var(var).value_reference
}

/// The message a caught panic carries (`panic!` with a format or a literal), empty otherwise.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Asserts that a call the test needs to succeed returned fmi2OK.
#[track_caller]
pub fn ok(status: Status) {
    assert_eq!(status, Status::Ok, "a call the test relies on failed");
}

impl Status {
    /// The raw `fmi2Status` value.
    pub fn raw(self) -> fmi2::fmi2Status {
        match self {
            Status::Ok => fmi2::fmi2Status_fmi2OK,
            Status::Warning => fmi2::fmi2Status_fmi2Warning,
            Status::Discard => fmi2::fmi2Status_fmi2Discard,
            Status::Error => fmi2::fmi2Status_fmi2Error,
            Status::Fatal => fmi2::fmi2Status_fmi2Fatal,
            Status::Pending => fmi2::fmi2Status_fmi2Pending,
            Status::Invalid(v) => v,
        }
    }
}

/// The share of the impulse along the motion that a step holds, without a mass, when a contact
/// begins in it (a probe: `src/coupling/probe.rs`, docs/coupling.md): what `f_mean` and `E_loss` of such
/// a step are, against the integral along the motion. `contact_dynamics` checks the FMU against
/// this value.
#[allow(dead_code)]
pub const PROBE_SHARE: f64 = 1e-5;

//! The FMI 3.0 C ABI for co-simulation and Model Exchange, the second thin layer over the core
//! (modelled on `fmi2`). Everything unsafe lives here: pointers from the importer are checked and
//! turned into slices and strings once, and every call on an instance runs through
//! [`instance::run`], which checks the state table, catches panics and escalates the instance
//! state from the status. Parameter names follow the standard's headers.
//!
//! - `state`: the instance states and the one table of which call is allowed in which of them.
//! - `logging`: the declared log categories, the importer's `logMessage` and the failure type.
//! - `arguments`: the importer's pointers as slices, strings and out-parameters.
//! - `instance`: one instance, its get/set rules and `run`.
//! - `fmu_state`: getting, setting and serializing the FMU state (FMI 2's snapshot format).
//! - [`common`], [`values`], [`co_simulation`], [`model_exchange`]: the exported functions;
//!   [`unsupported`]: those of features the FMU does not have (clocks, Scheduled Execution, ...),
//!   exported so that every importer links, each refusing with a logged reason.

mod arguments;

mod instance;
mod logging;
mod state;

pub mod co_simulation;
pub mod common;
pub mod fmu_state;
pub mod model_exchange;
pub mod unsupported;
pub mod values;

pub use co_simulation::*;
pub use common::*;
pub use fmu_state::*;
pub use model_exchange::*;
pub use unsupported::*;
pub use values::*;

use fmi_sys::fmi3::fmi3Status;

const OK: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3OK;
const WARNING: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Warning;
const DISCARD: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Discard;
const ERROR: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Error;
const FATAL: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Fatal;

//! The FMI 2.0 C ABI for co-simulation and Model Exchange. Everything unsafe lives here: pointers
//! from the importer are checked and turned into slices and strings once, and every call on an
//! instance runs through [`instance::run`], which checks the state table, catches panics and
//! escalates the instance state from the status. Parameter names follow the standard's headers,
//! so the generated C header reads like them.
//!
//! - `state`: the instance states and the one table of which call is allowed in which of them.
//! - `logging`: the declared log categories, the logger and the failure type.
//! - `arguments`: the importer's pointers as slices and strings; resource URIs.
//! - `instance`: one instance, its get/set rules and `run`.
//! - [`common`], [`co_simulation`], [`model_exchange`]: the exported functions, by interface.

mod arguments;
mod instance;
mod logging;
mod state;

pub mod co_simulation;
pub mod common;
pub mod model_exchange;

pub use co_simulation::*;
pub use common::*;
pub use model_exchange::*;

use fmi_sys::fmi2::fmi2Status;

const OK: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2OK;
const WARNING: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Warning;
const DISCARD: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Discard;
const ERROR: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Error;
const FATAL: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Fatal;

//! The FMI 2.0 C ABI for co-simulation and Model Exchange on the FMI runtime (`crate::runtime`,
//! whose `Instance::run` every call on an instance runs through): the exported functions by
//! interface ([`common`], [`co_simulation`], [`model_exchange`]), FMI 2.0's `Standard` (its
//! statuses, logger and types) and its state table (`state`). Parameter names follow the
//! standard's headers, so the generated C header reads like them.

mod state;

pub mod co_simulation;
pub mod common;
pub mod model_exchange;

pub use co_simulation::*;
pub use common::*;
pub use model_exchange::*;

use std::ffi::{c_void, CStr, CString};

use fmi_sys::fmi2::{fmi2CallbackLogger, fmi2Status};

use crate::runtime::{Instance as RuntimeInstance, Standard, Status};
use crate::variables::{Kind, Variable};
use state::{Call, State};

/// The FMI 2.0 standard, as the runtime knows it.
pub(crate) struct Fmi2;

/// Named apart from the runtime's type, which cbindgen would take this alias for.
type Instance = RuntimeInstance<Fmi2>;

/// The importer's logger and the instance name it is told with every message.
pub(crate) struct Sink {
    callback: fmi2CallbackLogger,
    instance_name: CString,
}

impl Standard for Fmi2 {
    const NAME: &'static str = "FMI 2.0";
    const LIVE: u64 = 0x454c_4153_544f_4741; // "ELASTOGA"
    const REFERENCES: &'static str = "vr[]";
    const ORDERS: &'static str = "order[]";
    const VALUES: &'static str = "value[]";
    const FMU_STATE: &'static str = "FMUstate";
    const SET_TIME: &'static str = "fmi2SetTime";
    const SERIALIZED_SIZE: &'static str = "fmi2SerializedFMUstateSize";
    const RETURNS_EARLY: bool = false;
    const REAL: Kind = Kind::Real;
    const STRING: Kind = Kind::String;

    type Status = fmi2Status;
    type State = State;
    type Call = Call;
    type Type = Kind;
    type Sink = Sink;
    type Setup = ();

    fn emit(sink: &Sink, environment: *mut c_void, status: Status, category: &CStr, text: &str) {
        let Some(callback) = sink.callback else {
            return;
        };
        // The message is a printf format for the importer: escape '%', drop interior NULs.
        let text: String = text.replace('%', "%%").replace('\0', " ");
        let text = CString::new(text).unwrap_or_default();
        // SAFETY: the callback is the importer's logger; all strings are valid and NUL-terminated
        // for the duration of the call, and no variadic arguments are passed.
        unsafe {
            callback(
                environment,
                sink.instance_name.as_ptr(),
                Self::status(status),
                category.as_ptr(),
                text.as_ptr(),
            );
        }
    }

    fn admits(kind: Kind, variable: &Variable) -> bool {
        variable.kind == kind
    }

    fn mismatch(value_reference: u32, variable: &Variable, kind: Kind) -> String {
        format!(
            "value reference {value_reference} is {} ({:?}), not {kind:?}",
            variable.name, variable.kind
        )
    }
}

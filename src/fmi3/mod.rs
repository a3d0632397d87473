//! The FMI 3.0 C ABI for co-simulation and Model Exchange on the FMI runtime, as the FMI 2.0
//! layer: the exported functions ([`common`], [`values`], [`fmu_state`], [`co_simulation`],
//! [`model_exchange`]; [`unsupported`]: those of features the FMU does not have, exported so that
//! every importer links, each refusing with a logged reason), FMI 3.0's `Standard` and its state
//! table (`state`). Parameter names follow the standard's headers.

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

use std::ffi::{c_void, CStr, CString};

use fmi_sys::fmi3::{
    fmi3InstanceEnvironment, fmi3IntermediateUpdateCallback, fmi3Status, fmi3String,
};

use crate::model::{ElastoGap, Interface};
use crate::runtime::{Call as _, Instance as RuntimeInstance, Standard, Status};
use crate::variables::{Kind, Variable};
use state::{Call, State};

/// The FMI 3.0 standard, as the runtime knows it.
pub(crate) struct Fmi3;

/// Named apart from the runtime's type, which cbindgen would take this alias for.
type Instance = RuntimeInstance<Fmi3>;

/// The FMI 3.0 type a variable is got and set as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    Float64,
    /// Integers without a declared type.
    Int32,
    /// The Enumerations (Integers with a declared type), got and set through the Int64 functions.
    Int64,
    Boolean,
    String,
}

/// The importer's logger.
type Sink = unsafe extern "C" fn(fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3String);

/// How the importer set up a co-simulation instance (fmi3InstantiateCoSimulation).
pub(crate) struct Setup {
    event_mode_used: bool,
    early_return_allowed: bool,
    intermediate_update: fmi3IntermediateUpdateCallback,
    /// The step's start, for `do_step_to_switch`: allocated once with the instance, so that a step
    /// allocates nothing.
    step_start: ElastoGap,
}

impl Setup {
    /// `flags`: eventModeUsed, earlyReturnAllowed and intermediateUpdate.
    fn new(interface: Interface, flags: (bool, bool, fmi3IntermediateUpdateCallback)) -> Setup {
        let (event_mode_used, early_return_allowed, intermediate_update) = flags;
        Setup {
            event_mode_used,
            early_return_allowed,
            intermediate_update,
            step_start: ElastoGap::new(interface, 0.0),
        }
    }

    fn step_start(&mut self) -> &mut ElastoGap {
        &mut self.step_start
    }
}

impl Standard for Fmi3 {
    const NAME: &'static str = "FMI 3.0";
    const LIVE: u64 = 0x454c_4153_544f_4733; // "ELASTOG3"
    const REFERENCES: &'static str = "valueReferences[]";
    const ORDERS: &'static str = "orders[]";
    const VALUES: &'static str = "values[]";
    const FMU_STATE: &'static str = "FMUState";
    const SET_TIME: &'static str = "fmi3SetTime";
    const SERIALIZED_SIZE: &'static str = "fmi3SerializedFMUStateSize";
    const RETURNS_EARLY: bool = true;
    const REAL: Type = Type::Float64;
    const STRING: Type = Type::String;

    type Status = fmi3Status;
    type State = State;
    type Call = Call;
    type Type = Type;
    type Sink = Sink;
    type Setup = Setup;

    fn emit(
        callback: &Sink,
        environment: *mut c_void,
        status: Status,
        category: &CStr,
        text: &str,
    ) {
        // FMI 3.0 messages are plain text (no printf format); only interior NULs must go.
        let text = CString::new(text.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the callback is the importer's logger; both strings are valid and
        // NUL-terminated for the duration of the call.
        unsafe {
            callback(
                environment,
                Self::status(status),
                category.as_ptr(),
                text.as_ptr(),
            )
        };
    }

    fn admits(ty: Type, variable: &Variable) -> bool {
        match ty {
            Type::Float64 => variable.kind == Kind::Real,
            Type::Int32 => variable.kind == Kind::Integer && variable.declared_type.is_none(),
            Type::Int64 => variable.kind == Kind::Integer && variable.declared_type.is_some(),
            Type::Boolean => variable.kind == Kind::Boolean,
            Type::String => variable.kind == Kind::String,
        }
    }

    fn mismatch(value_reference: u32, variable: &Variable, ty: Type) -> String {
        let of = match (variable.kind, variable.declared_type) {
            (Kind::Real, _) => "Float64",
            (Kind::Integer, None) => "Int32",
            (Kind::Integer, Some(_)) => "an Enumeration (Int64)",
            (Kind::Boolean, _) => "Boolean",
            (Kind::String, _) => "String",
        };
        format!(
            "value reference {value_reference} is {}, of type {of}, not {ty:?}",
            variable.name
        )
    }

    /// A co-simulation instance whose master said it uses no event mode has no Event Mode in
    /// its state machine: entering it is a call in the wrong state, which changes nothing.
    fn refuses(setup: &Setup, interface: Interface, call: Call) -> Option<String> {
        let no_event_mode = interface == Interface::CoSimulation && !setup.event_mode_used;
        (matches!(call, Call::EnterEventMode) && no_event_mode).then(|| {
            format!(
                "{}: the instance was instantiated with eventModeUsed = false, so its state machine has no Event Mode",
                call.name()
            )
        })
    }
}

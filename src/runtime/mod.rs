//! The FMI runtime, written once under both layers and generic over the standard ([`Standard`]):
//! the instance an importer holds and [`Instance::run`], the one path of every call on it (the
//! instance check, the state table, the panic barrier, the logging of failures and the
//! escalation of the instance state); the importer's pointers as slices and strings; value
//! lookup, type checks and the rules of getting and setting; the logger and its categories; the
//! FMU states; the directional and output derivatives; the co-simulation step from the master's
//! time with its log; Model Exchange's arrays.
//!
//! It names no FMI version: each layer implements [`Standard`] (its C status, its state machine,
//! its logger, its type checks and the names its headers spell) and keeps only its exported
//! signatures, its conversions of the C types and its table of which call is allowed when.
//! Unsafe code, as in the layers: it dereferences the importer's pointers.

pub mod arguments;
pub mod derivatives;
pub mod fmu_state;
pub mod instance;
pub mod logging;
pub mod modes;
pub mod step;

use std::ffi::{c_void, CStr};
use std::fmt::Debug;

pub use instance::Instance;
pub use logging::{Category, Logger};

use crate::model::Interface;
use crate::variables::Variable;

/// A call's result as the runtime knows it, numbered as both standards number their C statuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    Warning = 1,
    /// A request the FMU cannot serve, which leaves the instance as it was.
    Discard = 2,
    Error = 3,
    Fatal = 4,
}

/// A failed call: its status and the message that says why.
pub struct Failure {
    pub status: Status,
    pub message: String,
}

/// A rule's message (`layer`'s errors) as an error.
impl From<String> for Failure {
    fn from(message: String) -> Failure {
        error(message)
    }
}

pub fn error(message: impl Into<String>) -> Failure {
    Failure {
        status: Status::Error,
        message: message.into(),
    }
}

pub type Outcome = Result<(), Failure>;

/// What a layer tells the runtime of its standard.
pub trait Standard: Sized + 'static {
    /// The standard in messages ("FMI x.y").
    const NAME: &'static str;
    /// Marks a live instance of this standard, so a stale or foreign pointer (one of the other
    /// layer's too, where both are built) is refused instead of used.
    const LIVE: u64;
    /// The names of a getter's or setter's arrays, and of the FMU state argument, as the
    /// standard's headers spell them.
    const REFERENCES: &'static str;
    const ORDERS: &'static str;
    const VALUES: &'static str;
    const FMU_STATE: &'static str;
    /// The functions that set the time and tell a serialized state's size, named in refusals.
    const SET_TIME: &'static str;
    const SERIALIZED_SIZE: &'static str;
    /// Whether a co-simulation step may return early, at a switch of the contact: only then may
    /// a state hold `contact` latched there.
    const RETURNS_EARLY: bool;
    /// The types Reals and `tableFile` are got and set as.
    const REAL: Self::Type;
    const STRING: Self::Type;

    /// The C status, from the number of a [`Status`].
    type Status: From<u32>;
    type State: StateMachine;
    type Call: Call;
    /// The type a variable is got and set as.
    type Type: Copy + Debug;
    /// The importer's logger, as the instance keeps it.
    type Sink;
    /// What an instance keeps of the standard beyond the runtime's fields.
    type Setup;

    fn status(status: Status) -> Self::Status {
        Self::Status::from(status as u32)
    }
    /// Hands one message to the importer's logger.
    fn emit(
        sink: &Self::Sink,
        environment: *mut c_void,
        status: Status,
        category: &CStr,
        text: &str,
    );
    /// Whether a value of `ty` gets and sets `variable`, and the refusal where it does not.
    fn admits(ty: Self::Type, variable: &Variable) -> bool;
    fn mismatch(value_reference: u32, variable: &Variable, ty: Self::Type) -> String;
    /// A refusal the state table cannot express (of a call that the importer's setup rules
    /// out), which leaves the state as it is.
    fn refuses(_setup: &Self::Setup, _interface: Interface, _call: Self::Call) -> Option<String> {
        None
    }
}

/// The instance states the runtime needs to know of a standard's state machine.
pub trait StateMachine: Copy + PartialEq + Debug {
    const INSTANTIATED: Self;
    const INITIALIZATION: Self;
    const EVENT: Self;
    const CONTINUOUS: Self;
    const ERROR: Self;
    const FATAL: Self;
    /// The state's bit in the state table.
    fn bits(self) -> u16;
    /// Whether the parameters have been checked and the simulation runs.
    fn is_running(self) -> bool;
}

/// Every call that takes an instance, with its row of the layer's state table ([`call_table`]).
pub trait Call: Copy {
    /// The states the call is allowed in ([`StateMachine::bits`]) and the interface it belongs to
    /// (`None` for the common functions).
    fn rule(self) -> (u16, Option<Interface>);
    /// The function's name, as the standard spells it.
    fn name(self) -> &'static str;
}

/// The interface a call belongs to, in a state table's rows.
pub const ANY: Option<Interface> = None;
pub const CS: Option<Interface> = Some(Interface::CoSimulation);
pub const ME: Option<Interface> = Some(Interface::ModelExchange);

/// A layer's state table: the calls that take an instance, a row each with the states the call
/// is allowed in and the interface it belongs to. A call's name is the standard's prefix and its
/// own; the calls in brackets carry their function's name (one row for a family of them).
macro_rules! call_table {
    (
        $prefix:literal;
        $($(#[$meta:meta])* $call:ident: $states:expr, $interface:expr;)+
        $([$($(#[$named_meta:meta])* $named:ident: $named_states:expr, $named_interface:expr;)*])?
    ) => {
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Call {
            $($(#[$meta])* $call,)+
            $($($(#[$named_meta])* $named(&'static str),)*)?
        }

        impl $crate::runtime::Call for Call {
            #[inline(always)]
            fn rule(self) -> (u16, Option<$crate::model::Interface>) {
                match self {
                    $(Call::$call => ($states, $interface),)+
                    $($(Call::$named(_) => ($named_states, $named_interface),)*)?
                }
            }

            fn name(self) -> &'static str {
                match self {
                    $(Call::$call => concat!($prefix, stringify!($call)),)+
                    $($(Call::$named(name) => name,)*)?
                }
            }
        }
    };
}
pub(crate) use call_table;

/// A layer's [`StateMachine`], for its `State` enum with a bit for each state, named as the
/// standards name them; `running` lists the states in which the simulation runs.
macro_rules! state_machine {
    ($state:ident; running: $($running:ident)|+) => {
        impl $crate::runtime::StateMachine for $state {
            const INSTANTIATED: Self = Self::Instantiated;
            const INITIALIZATION: Self = Self::InitializationMode;
            const EVENT: Self = Self::EventMode;
            const CONTINUOUS: Self = Self::ContinuousTimeMode;
            const ERROR: Self = Self::Error;
            const FATAL: Self = Self::Fatal;

            fn bits(self) -> u16 {
                self as u16
            }

            fn is_running(self) -> bool {
                matches!(self, $(Self::$running)|+)
            }
        }
    };
}
pub(crate) use state_machine;

/// Whether `call` is allowed on an instance of `interface` in `state`. Every call asks; the
/// message is built only for a refusal, since an `Option<String>` would be returned through
/// memory on every call.
#[inline(always)]
pub fn allows<S: Standard>(call: S::Call, interface: Interface, state: S::State) -> bool {
    let (states, belongs_to) = call.rule();
    states & state.bits() != 0 && belongs_to.is_none_or(|required| required == interface)
}

/// Why `allows` refuses the call. Both messages name the state, so an importer's log says where
/// the instance was.
pub fn refusal<S: Standard>(call: S::Call, interface: Interface, state: S::State) -> String {
    match call.rule().1 {
        Some(required) if required != interface => format!(
            "{}: not allowed in state {state:?} of a {} instance: it is a {} function",
            call.name(),
            interface_name(interface),
            interface_name(required)
        ),
        _ => format!(
            "{}: not allowed in state {state:?} (the {} {} state machine)",
            call.name(),
            S::NAME,
            interface_name(interface)
        ),
    }
}

pub fn interface_name(interface: Interface) -> &'static str {
    match interface {
        Interface::CoSimulation => "co-simulation",
        Interface::ModelExchange => "Model Exchange",
    }
}

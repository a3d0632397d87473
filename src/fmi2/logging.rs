//! The log categories declared in `<LogCategories>`, the importer's logger, and the failure a call
//! returns with its reason.

use std::ffi::{CStr, CString};

use fmi_sys::fmi2::{fmi2CallbackLogger, fmi2ComponentEnvironment, fmi2Status};

use super::{DISCARD, ERROR};

/// The categories declared in `<LogCategories>`, in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Category {
    Events = 0,
    StatusDiscard = 1,
    StatusError = 2,
    StatusFatal = 3,
    Coupling = 4,
    StatusWarning = 5,
}

pub(super) const CATEGORY_NAMES: [&CStr; 6] = [
    c"logEvents",
    c"logStatusDiscard",
    c"logStatusError",
    c"logStatusFatal",
    c"logCoupling",
    c"logStatusWarning",
];
pub(super) const ALL_CATEGORIES: &str = "logAll";

pub(super) struct Logger {
    pub(super) callback: fmi2CallbackLogger,
    pub(super) environment: fmi2ComponentEnvironment,
    pub(super) instance_name: CString,
    /// Debug logging as switched by `loggingOn` and `fmi2SetDebugLogging`, per category.
    pub(super) enabled: [bool; CATEGORY_NAMES.len()],
}

impl Logger {
    pub(super) fn is_enabled(&self, category: Category) -> bool {
        self.callback.is_some() && self.enabled[category as usize]
    }

    /// Every non-OK status reaches the importer with its reason, whatever `loggingOn` says;
    /// events only when enabled.
    pub(super) fn log(&self, status: fmi2Status, category: Category, message: &str) {
        let Some(callback) = self.callback else {
            return;
        };
        let always = !matches!(category, Category::Events | Category::Coupling);
        if !always && !self.enabled[category as usize] {
            return;
        }
        // The message is a printf format for the importer: escape '%', drop interior NULs.
        let text: String = message.replace('%', "%%").replace('\0', " ");
        let text = CString::new(text).unwrap_or_default();
        // SAFETY: the callback is the importer's logger; all strings are valid and NUL-terminated
        // for the duration of the call, and no variadic arguments are passed.
        unsafe {
            callback(
                self.environment,
                self.instance_name.as_ptr(),
                status,
                CATEGORY_NAMES[category as usize].as_ptr(),
                text.as_ptr(),
            );
        }
    }
}

/// A failed call: its status and the message that says why.
pub(super) struct Failure {
    pub(super) status: fmi2Status,
    pub(super) message: String,
}

/// A rule's message (`layer`'s errors) as an error.
impl From<String> for Failure {
    fn from(message: String) -> Failure {
        error(message)
    }
}

pub(super) fn error(message: impl Into<String>) -> Failure {
    Failure {
        status: ERROR,
        message: message.into(),
    }
}

/// A request the FMU cannot serve, which leaves the instance as it was.
pub(super) fn discard(message: impl Into<String>) -> Failure {
    Failure {
        status: DISCARD,
        message: message.into(),
    }
}

pub(super) type Outcome = Result<(), Failure>;

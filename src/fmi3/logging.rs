//! The log categories declared in `<LogCategories>`, the importer's `logMessage`, and the failure
//! a call returns with its reason.

use std::ffi::{CStr, CString};

use fmi_sys::fmi3::{fmi3InstanceEnvironment, fmi3LogMessageCallback, fmi3Status};

use super::{DISCARD, ERROR};

/// The categories declared in `<LogCategories>`, in that order (the same as FMI 2's).
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
    pub(super) callback: fmi3LogMessageCallback,
    /// Handed back unchanged with every message (and to the intermediateUpdate callback).
    pub(super) environment: fmi3InstanceEnvironment,
    /// Debug logging as switched by `loggingOn` and `fmi3SetDebugLogging`, per category.
    pub(super) enabled: [bool; CATEGORY_NAMES.len()],
}

impl Logger {
    pub(super) fn is_enabled(&self, category: Category) -> bool {
        self.callback.is_some() && self.enabled[category as usize]
    }

    /// Every non-OK status reaches the importer with its reason, whatever `loggingOn` says;
    /// events and coupling notes only when enabled.
    pub(super) fn log(&self, status: fmi3Status, category: Category, message: &str) {
        let Some(callback) = self.callback else {
            return;
        };
        let always = !matches!(category, Category::Events | Category::Coupling);
        if !always && !self.enabled[category as usize] {
            return;
        }
        // FMI 3.0 messages are plain text (no printf format); only interior NULs must go.
        let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the callback is the importer's logger; both strings are valid and
        // NUL-terminated for the duration of the call.
        unsafe {
            callback(
                self.environment,
                status,
                CATEGORY_NAMES[category as usize].as_ptr(),
                text.as_ptr(),
            );
        }
    }
}

/// A failed call: its status and the message that says why.
pub(super) struct Failure {
    pub(super) status: fmi3Status,
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
#[allow(dead_code)]
pub(super) fn discard(message: impl Into<String>) -> Failure {
    Failure {
        status: DISCARD,
        message: message.into(),
    }
}

pub(super) type Outcome = Result<(), Failure>;

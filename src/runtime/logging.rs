//! The log categories declared in `<LogCategories>` (the same in both standards), the importer's
//! logger, and debug logging as the importer switches it.

use std::ffi::{c_char, c_void, CStr};

use super::arguments::{slice, string};
use super::{error, Instance, Outcome, Standard, Status};

/// The categories declared in `<LogCategories>`, in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Events = 0,
    StatusDiscard = 1,
    StatusError = 2,
    StatusFatal = 3,
    Coupling = 4,
    StatusWarning = 5,
}

pub const CATEGORY_NAMES: [&CStr; 6] = [
    c"logEvents",
    c"logStatusDiscard",
    c"logStatusError",
    c"logStatusFatal",
    c"logCoupling",
    c"logStatusWarning",
];
pub const ALL_CATEGORIES: &str = "logAll";

pub struct Logger<S: Standard> {
    /// `None` where the importer gave no logger.
    pub sink: Option<S::Sink>,
    /// Handed back unchanged with every message (and to an intermediate-update callback).
    pub environment: *mut c_void,
    /// Debug logging as switched by `loggingOn` and the SetDebugLogging call, per category.
    pub enabled: [bool; CATEGORY_NAMES.len()],
}

impl<S: Standard> Logger<S> {
    pub fn new(sink: Option<S::Sink>, environment: *mut c_void, logging_on: bool) -> Self {
        Logger {
            sink,
            environment,
            enabled: [logging_on; CATEGORY_NAMES.len()],
        }
    }

    pub fn is_enabled(&self, category: Category) -> bool {
        self.sink.is_some() && self.enabled[category as usize]
    }

    /// Every non-OK status reaches the importer with its reason, whatever `loggingOn` says;
    /// events and coupling notes only when enabled.
    pub fn log(&self, status: Status, category: Category, message: &str) {
        let Some(sink) = &self.sink else {
            return;
        };
        let always = !matches!(category, Category::Events | Category::Coupling);
        if !always && !self.enabled[category as usize] {
            return;
        }
        let name = CATEGORY_NAMES[category as usize];
        S::emit(sink, self.environment, status, name, message);
    }
}

impl<S: Standard> Instance<S> {
    /// The SetDebugLogging call: `loggingOn` for the named categories, or for all of them where
    /// none (or `logAll`) is named; an unknown name changes nothing.
    pub fn set_debug_logging(
        &mut self,
        on: bool,
        categories: *const *const c_char,
        n: usize,
    ) -> Outcome {
        let names = slice(categories, n, "categories[]")?;
        if names.is_empty() {
            self.logger.enabled = [on; CATEGORY_NAMES.len()];
            return Ok(());
        }
        let mut enabled = self.logger.enabled;
        for name in names {
            let name =
                string(*name).ok_or_else(|| error("a category name is NULL or not UTF-8"))?;
            #[cfg(feature = "panic-probe")]
            if name == "elastogap-panic-probe" {
                panic!("the panic probe was asked for");
            }
            if name == ALL_CATEGORIES {
                enabled = [on; CATEGORY_NAMES.len()];
            } else if let Some(k) = CATEGORY_NAMES.iter().position(|c| c.to_str() == Ok(name)) {
                enabled[k] = on;
            } else {
                let declared: Vec<&str> = CATEGORY_NAMES
                    .iter()
                    .filter_map(|c| c.to_str().ok())
                    .chain([ALL_CATEGORIES])
                    .collect();
                return Err(error(format!(
                    "unknown log category '{name}' (declared: {})",
                    declared.join(", ")
                )));
            }
        }
        self.logger.enabled = enabled;
        Ok(())
    }
}

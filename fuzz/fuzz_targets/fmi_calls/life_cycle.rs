//! The calls of an instance's life cycle: logging, the experiment, initialization, termination
//! and reset.

use std::ffi::CString;

use elastogap::fmi2::*;
use elastogap_fuzz::{Instance, OK};
use fmi_sys::fmi2::{fmi2Boolean, fmi2String};

use super::{Call, Category, Real};

/// Runs fmi2SetDebugLogging, fmi2SetupExperiment, fmi2Enter/ExitInitializationMode,
/// fmi2Terminate or fmi2Reset.
pub(super) fn run(instance: &Instance, call: &Call) {
    match call {
        Call::SetDebugLogging {
            on,
            categories,
            array,
        } => {
            let owned: Vec<Option<CString>> = categories
                .iter()
                .map(|category| match category {
                    Category::Known(k) => {
                        let names = elastogap_fuzz::declared_categories();
                        Some(CString::new(names[usize::from(*k) % names.len()]).unwrap())
                    }
                    Category::Null => None,
                    Category::Other(text) => text.make("logNothing"),
                })
                .collect();
            let pointers: Vec<fmi2String> = owned
                .iter()
                .map(|s| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()))
                .collect();
            let (p, n) = array.pass(&pointers);
            instance.call("fmi2SetDebugLogging", |c| unsafe {
                fmi2SetDebugLogging(c, fmi2Boolean::from(*on), n, p)
            });
        }
        Call::SetupExperiment {
            tolerance,
            start,
            stop,
        } => {
            instance.call("fmi2SetupExperiment", |c| unsafe {
                fmi2SetupExperiment(
                    c,
                    fmi2Boolean::from(tolerance.is_some()),
                    tolerance.map_or(0.0, Real::value),
                    start.value(),
                    fmi2Boolean::from(stop.is_some()),
                    stop.map_or(0.0, Real::value),
                )
            });
        }
        Call::EnterInitializationMode => {
            instance.call("fmi2EnterInitializationMode", |c| unsafe {
                fmi2EnterInitializationMode(c)
            });
        }
        Call::ExitInitializationMode => {
            let status = instance.call("fmi2ExitInitializationMode", |c| unsafe {
                fmi2ExitInitializationMode(c)
            });
            if status == OK {
                instance.check_outputs("after fmi2ExitInitializationMode");
            }
        }
        Call::Terminate => {
            instance.call("fmi2Terminate", |c| unsafe { fmi2Terminate(c) });
        }
        Call::Reset => {
            instance.call("fmi2Reset", |c| unsafe { fmi2Reset(c) });
        }
        _ => unreachable!("not a life-cycle call"),
    }
}

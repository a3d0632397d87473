//! The FMI layer's panic barrier at work: a panic inside an exported call is caught, the call
//! returns `fmi2Fatal` with the reason logged under `logStatusFatal`, that instance refuses every
//! later call with `fmi2Fatal`, it can still be freed, and the process (and any other instance)
//! carries on.
//!
//! No input can make the FMU panic (everything is checked first), so the test-only feature
//! `panic-probe` plants one: `fmi2SetDebugLogging` panics for the category
//! `elastogap-panic-probe`. The calls go in-process through the rlib, which is the same FMI layer as
//! the shipped binaries; `tests/run_all.sh` runs this natively and `tests/win64/run.sh` cross-built
//! under Wine, where unwinding goes through Windows' structured exception handling with the DLL's
//! own toolchain and profile settings (panic=unwind).
#![cfg(feature = "panic-probe")]

mod support;

use std::ffi::{c_char, CStr};

use elastogap::fmi2::*;
use elastogap::variables::{by_var, Var};
use fmi_sys::fmi2::{fmi2CallbackFunctions, fmi2Component, fmi2Type_fmi2CoSimulation};
use support::{LogSink, Status};

fn instantiate(sink: &LogSink, name: &CStr) -> fmi2Component {
    let callbacks = fmi2CallbackFunctions {
        logger: support::logger::logger_callback(),
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: sink as *const LogSink as *mut _,
    };
    let guid = std::ffi::CString::new(elastogap::GUID).unwrap();
    // SAFETY: valid strings and callbacks; the FMU copies the callback struct.
    let c = unsafe {
        fmi2Instantiate(
            name.as_ptr(),
            fmi2Type_fmi2CoSimulation,
            guid.as_ptr(),
            std::ptr::null::<c_char>(),
            &callbacks,
            0,
            0,
        )
    };
    assert!(!c.is_null());
    c
}

fn running(c: fmi2Component) {
    // SAFETY: a live instance of this library.
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), 0);
        assert_eq!(fmi2EnterInitializationMode(c), 0);
        assert_eq!(fmi2ExitInitializationMode(c), 0);
        assert_eq!(fmi2DoStep(c, 0.0, 1e-3, 1), 0);
    }
}

#[test]
fn a_panic_in_a_call_becomes_fmi2fatal_and_the_process_carries_on() {
    let (victim_log, bystander_log) = (LogSink::new(), LogSink::new());
    let victim = instantiate(&victim_log, c"victim");
    let bystander = instantiate(&bystander_log, c"bystander");
    running(victim);
    running(bystander);

    let probe = [c"elastogap-panic-probe".as_ptr()];
    // SAFETY: a live instance and one valid category name.
    let status = unsafe { fmi2SetDebugLogging(victim, 1, 1, probe.as_ptr()) };
    assert_eq!(Status::from(status), Status::Fatal);
    let records = victim_log.take();
    let fatal = records
        .iter()
        .find(|r| r.status == Status::Fatal)
        .unwrap_or_else(|| panic!("no Fatal record: {records:?}"));
    assert_eq!(fatal.category.as_deref(), Some("logStatusFatal"));
    assert!(
        fatal
            .message
            .contains("fmi2SetDebugLogging: internal error")
            && fatal.message.contains("the panic probe was asked for"),
        "{}",
        fatal.message
    );

    // The instance is unusable from now on, whatever is asked of it.
    let f = [by_var(Var::F).value_reference];
    let mut value = [0.0];
    // SAFETY: live instances, arrays of the announced lengths.
    unsafe {
        assert_eq!(
            Status::from(fmi2GetReal(victim, f.as_ptr(), 1, value.as_mut_ptr())),
            Status::Fatal
        );
        assert_eq!(
            Status::from(fmi2DoStep(victim, 1e-3, 1e-3, 1)),
            Status::Fatal
        );
        assert_eq!(Status::from(fmi2Reset(victim)), Status::Fatal);
        // The other instance never noticed.
        assert_eq!(
            Status::from(fmi2GetReal(bystander, f.as_ptr(), 1, value.as_mut_ptr())),
            Status::Ok
        );
        assert_eq!(
            Status::from(fmi2DoStep(bystander, 1e-3, 1e-3, 1)),
            Status::Ok
        );
        fmi2FreeInstance(victim);
        fmi2FreeInstance(bystander);
    }
    assert!(bystander_log.take().is_empty());
}

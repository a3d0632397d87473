//! A panic unwinds (it does not abort) on every platform the FMU ships for, so that the panic
//! barrier of the FMI layer (`catch_unwind` around each call's body, then `fmi2Fatal`) can work.
//!
//! tests/win64/run.sh runs this cross-built under Wine, where unwinding is Windows' structured
//! exception handling through MinGW's libgcc, built by the same toolchain and std as the DLL
//! (`packaging/win64_cargo.sh`, panic=unwind). No call of the FMU can be made to panic from
//! outside: every input is checked before use, so the barrier in the DLL itself is not reached by
//! these tests. Making it reachable needs a test-only trigger inside the FMU's call path (say, a
//! cargo feature `panic-probe` under which `fmi2SetDebugLogging` panics for a category named
//! `elastogap-test-panic`), then a test that expects `fmi2Fatal`, a logged "internal error" and a
//! process that carries on.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Stands for an FMU's body behind a C entry point: called through a function pointer with the
/// "C-unwind" ABI, the panic leaves a foreign frame as it would leave the FMI layer's closure.
extern "C-unwind" fn body_that_panics(depth: u32) -> u32 {
    if depth == 0 {
        panic!("raised {depth} frames down");
    }
    // Frames with something to drop on the way out, as the FMI layer has.
    let guard = depth.to_string();
    let entry: extern "C-unwind" fn(u32) -> u32 = std::hint::black_box(body_that_panics);
    entry(depth - 1) + guard.len() as u32
}

#[test]
fn a_panic_behind_a_c_entry_point_is_caught_and_the_process_carries_on() {
    let caught = catch_unwind(AssertUnwindSafe(|| body_that_panics(8)));
    let payload = caught.expect_err("the panic must unwind to catch_unwind");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert_eq!(message, "raised 0 frames down");
    // The process carries on: later calls work as before.
    assert_eq!(
        catch_unwind(|| 2 + 2).ok(),
        Some(4),
        "catch_unwind after a caught panic"
    );
}

#[test]
fn a_panic_on_another_thread_is_reported_by_join() {
    let joined = std::thread::spawn(|| body_that_panics(3)).join();
    assert!(joined.is_err(), "the thread's panic must unwind to join");
}

#[test]
fn drops_run_while_unwinding() {
    struct Flag<'a>(&'a std::cell::Cell<bool>);
    impl Drop for Flag<'_> {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let dropped = std::cell::Cell::new(false);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let _flag = Flag(&dropped);
        body_that_panics(2)
    }));
    assert!(caught.is_err());
    assert!(
        dropped.get(),
        "a value on the unwound stack was not dropped"
    );
}

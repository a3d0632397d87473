//! `fmi3DoStep` with early return and event mode, `fmi3SetFloat64`, `fmi3GetFloat64` and the
//! event-mode calls at a switch allocate nothing, in or out of contact, through a mass or along the
//! motion: called in-process (the library linked as an rlib with the `fmi3` feature) under a global
//! allocator that counts, per thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::CString;

use elastogap::fmi3::*;
use elastogap::variables::{by_var, Var};

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn vr(var: Var) -> u32 {
    by_var(var).value_reference
}

/// A lone 1 kg body bouncing on the stop under gravity, stepped at 1 ms by a Gauss–Seidel master
/// that returns early at every touch-down and takes the switch in event mode; the calls after the
/// first contact are counted.
fn bouncing_body_allocates_nothing(m_eff: f64) {
    let name = CString::new("gap").unwrap();
    let token = CString::new(elastogap::GUID).unwrap();
    // SAFETY: valid strings; no callbacks.
    let instance = unsafe {
        fmi3InstantiateCoSimulation(
            name.as_ptr(),
            token.as_ptr(),
            std::ptr::null(),
            false,
            false,
            true,
            true,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            None,
            None,
        )
    };
    assert!(!instance.is_null());
    let set = |var: Var, value: f64| {
        // SAFETY: arrays of one element.
        unsafe { fmi3SetFloat64(instance, &vr(var), 1, &value, 1) }
    };
    let get = |var: Var| {
        let mut value = f64::NAN;
        // SAFETY: arrays of one element.
        let status = unsafe { fmi3GetFloat64(instance, &vr(var), 1, &mut value, 1) };
        assert_eq!(status, 0);
        value
    };
    let (mut discrete, mut terminate, mut nominals, mut values, mut defined, mut next) =
        (false, false, false, false, false, 0.0);
    let mut update = || {
        // SAFETY: a live instance; valid output pointers.
        unsafe {
            assert_eq!(fmi3EnterEventMode(instance), 0);
            assert_eq!(
                fmi3UpdateDiscreteStates(
                    instance,
                    &mut discrete,
                    &mut terminate,
                    &mut nominals,
                    &mut values,
                    &mut defined,
                    &mut next,
                ),
                0
            );
            assert_eq!(fmi3EnterStepMode(instance), 0);
        }
    };
    // SAFETY: a live instance.
    unsafe {
        assert_eq!(
            fmi3EnterInitializationMode(instance, false, 0.0, 0.0, false, 0.0),
            0
        )
    };
    for (var, value) in [
        (Var::C, 1e5),
        (Var::D, 50.0),
        (Var::MEff, m_eff),
        (Var::FlangeBS, 0.01),
    ] {
        assert_eq!(set(var, value), 0);
    }
    // SAFETY: a live instance; it leaves initialization in Event Mode (event mode used).
    unsafe { assert_eq!(fmi3ExitInitializationMode(instance), 0) };
    update();
    let (mut x, mut v, mut t, h, g): (f64, f64, f64, f64, f64) = (0.01, 0.0, 0.0, 1e-3, -9.81);
    let (mut counted, mut early_returns, mut before) = (false, 0, 0);
    while t < 0.5 {
        if !counted && get(Var::ELoss) > 0.0 {
            counted = true;
            before = allocations();
        }
        assert_eq!(set(Var::FlangeBS, x), 0);
        assert_eq!(set(Var::FlangeBV, v), 0);
        let grid = ((t / h + 1e-9).floor() + 1.0) * h;
        let (mut event, mut stop, mut early, mut last) = (false, false, false, 0.0);
        // SAFETY: a live instance; valid output pointers.
        let status = unsafe {
            fmi3DoStep(
                instance,
                t,
                grid - t,
                true,
                &mut event,
                &mut stop,
                &mut early,
                &mut last,
            )
        };
        assert_eq!(status, 0);
        let end = if early { last } else { grid };
        if event {
            early_returns += 1;
            update();
        }
        let a = g - get(Var::FMean);
        x += v * (end - t) + 0.5 * a * (end - t) * (end - t);
        v += a * (end - t);
        t = end;
    }
    assert!(
        counted && early_returns >= 2,
        "contacts: {counted}, early returns {early_returns}"
    );
    assert_eq!(
        allocations() - before,
        0,
        "allocations in the hot path (m_eff {m_eff})"
    );
    // SAFETY: a live instance, freed once.
    unsafe { fmi3FreeInstance(instance) };
}

#[test]
fn steps_with_early_return_and_event_mode_do_not_allocate() {
    bouncing_body_allocates_nothing(1.0);
    bouncing_body_allocates_nothing(0.0);
}

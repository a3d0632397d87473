//! The hot paths allocate nothing: `fmi2DoStep`, `fmi2SetReal` and `fmi2GetReal`, and the Model
//! Exchange calls a solver makes at every right-hand side, step and event, are called
//! in-process (the library linked as an rlib) under a global allocator that counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{c_char, c_void, CStr};

use std::cell::Cell;

use elastogap::fmi2::*;
use elastogap::variables::{by_var, Var};
use fmi_sys::fmi2::fmi2CallbackFunctions;

struct CountingAllocator;

// Counted per thread: the test harness's own threads allocate at times of their choosing.
thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// An instance without logger or memory callbacks (the FMU copies the struct, so a local will do).
fn instantiate(name: &CStr, fmu_type: fmi_sys::fmi2::fmi2Type) -> fmi_sys::fmi2::fmi2Component {
    let callbacks = fmi2CallbackFunctions {
        logger: None,
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: std::ptr::null_mut::<c_void>(),
    };
    let guid = std::ffi::CString::new(elastogap::GUID).unwrap();
    // SAFETY: valid strings and callbacks for the duration of the call.
    let c = unsafe {
        fmi2Instantiate(
            name.as_ptr(),
            fmu_type,
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

#[test]
fn step_set_and_get_do_not_allocate_in_or_out_of_contact() {
    // Along the extrapolated motion (m_eff = 0: until the FMU has estimated the mass) and with
    // the contact's own dynamics (m_eff given: closed form for n = 1, adaptive for n = 1.5).
    for (n, m_eff) in [(1.5, 0.0), (1.0, 1.0), (1.5, 1.0)] {
        hot_path_does_not_allocate(n, m_eff, None, false);
    }
    // With friction: its own pass over each step in contact.
    for m_eff in [0.0, 1.0] {
        hot_path_does_not_allocate(1.0, m_eff, None, true);
    }
    // The Gap Force on tables (shared with the step by reference count, never copied).
    let table = std::env::temp_dir().join(format!(
        "elastogap-no-allocation-{}.json",
        std::process::id()
    ));
    std::fs::write(
        &table,
        r#"{"stiffness": [[-0.01, -2000], [-0.005, -600], [0, 0], [0.01, 1000]],
            "damping": [[-1, -40], [0, 0], [1, 40]]}"#,
    )
    .unwrap();
    let path = std::ffi::CString::new(table.to_str().unwrap()).unwrap();
    for m_eff in [0.0, 1.0] {
        hot_path_does_not_allocate(1.0, m_eff, Some(&path), false);
    }
    std::fs::remove_file(table).unwrap();
}

fn hot_path_does_not_allocate(n: f64, m_eff: f64, gap_force_table: Option<&CStr>, friction: bool) {
    let vr = |var| by_var(var).value_reference;
    unsafe {
        let c = instantiate(c"hot path", fmi_sys::fmi2::fmi2Type_fmi2CoSimulation);
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), 0);
        let parameters = [
            vr(Var::C),
            vr(Var::D),
            vr(Var::N),
            vr(Var::MaxSubstepSize),
            vr(Var::MEff),
        ];
        assert_eq!(
            fmi2SetReal(
                c,
                parameters.as_ptr(),
                5,
                [1e4, 20.0, n, 1e-5, m_eff].as_ptr()
            ),
            0
        );
        if let Some(table) = gap_force_table {
            assert_eq!(
                fmi2SetInteger(c, [vr(Var::ForceLaw)].as_ptr(), 1, [7].as_ptr()),
                0
            );
            let text = [table.as_ptr()];
            assert_eq!(
                fmi2SetString(c, [vr(Var::TableFile)].as_ptr(), 1, text.as_ptr()),
                0
            );
        }
        if friction {
            assert_eq!(
                fmi2SetInteger(c, [vr(Var::FrictionLaw)].as_ptr(), 1, [2].as_ptr()),
                0
            );
            let slip = [vr(Var::VTx), vr(Var::VTy)];
            assert_eq!(fmi2SetReal(c, slip.as_ptr(), 2, [0.3, -0.2].as_ptr()), 0);
        }
        assert_eq!(fmi2EnterInitializationMode(c), 0);
        assert_eq!(fmi2ExitInitializationMode(c), 0);

        let inputs = [vr(Var::FlangeBS), vr(Var::FlangeBV)];
        let outputs = [
            vr(Var::F),
            vr(Var::FMean),
            vr(Var::ELoss),
            vr(Var::LossPower),
            vr(Var::SRel),
        ];
        let mut values = [0.0; 5];
        let h = 1e-3;
        let before = allocations();
        // A 1 kg mass pushed into the gap by a constant 50 N: it bounces, then rests in contact.
        let (mut x, mut v) = (0.2, 0.0);
        let (mut contact_steps, mut free_steps) = (0, 0);
        for k in 0..20_000 {
            assert_eq!(fmi2SetReal(c, inputs.as_ptr(), 2, [x, v].as_ptr()), 0);
            assert_eq!(fmi2DoStep(c, k as f64 * h, h, 1), 0);
            assert_eq!(fmi2GetReal(c, outputs.as_ptr(), 5, values.as_mut_ptr()), 0);
            let a = -values[1] - 50.0;
            x += h * (v + 0.5 * a * h);
            v += a * h;
            if values[0] != 0.0 {
                contact_steps += 1;
            } else {
                free_steps += 1;
            }
        }
        let allocations = allocations() - before;
        assert!(
            contact_steps > 1000 && free_steps > 100,
            "n = {n}, m_eff = {m_eff}: steps in contact {contact_steps}, free {free_steps}"
        );
        assert_eq!(
            allocations, 0,
            "n = {n}, m_eff = {m_eff}: allocations in 20,000 set/step/get cycles"
        );
        fmi2FreeInstance(c);
    }
}

/// Model Exchange: what a solver calls at every right-hand side and every step allocates nothing
/// either, in and out of contact and across events.
#[test]
fn model_exchange_right_hand_sides_and_events_do_not_allocate() {
    let vr = |var| by_var(var).value_reference;
    unsafe {
        let c = instantiate(
            c"model exchange hot path",
            fmi_sys::fmi2::fmi2Type_fmi2ModelExchange,
        );
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), 0);
        let parameters = [vr(Var::C), vr(Var::D)];
        assert_eq!(
            fmi2SetReal(c, parameters.as_ptr(), 2, [1e4, 20.0].as_ptr()),
            0
        );
        assert_eq!(fmi2EnterInitializationMode(c), 0);
        assert_eq!(fmi2ExitInitializationMode(c), 0);
        let mut info = fmi_sys::fmi2::fmi2EventInfo::default();
        assert_eq!(fmi2NewDiscreteStates(c, &mut info), 0);
        assert_eq!(fmi2EnterContinuousTimeMode(c), 0);

        let inputs = [vr(Var::FlangeBS), vr(Var::FlangeBV)];
        let outputs = [vr(Var::F), vr(Var::LossPower)];
        // E_loss and the stiction deformation (0 here); four event indicators.
        let (mut values, mut derivative, mut indicators) = ([0.0; 2], [0.0; 3], [0.0; 4]);
        let mut last_indicators = [1.0; 4];
        let (mut enter_event_mode, mut terminate) = (0, 0);
        let h = 1e-4;
        let before = allocations();
        // The same mass and push as above, integrated by a forward-Euler "solver".
        let (mut x, mut v, mut e_loss) = (0.2, 0.0, 0.0);
        let mut events = 0;
        for k in 0..20_000 {
            assert_eq!(fmi2SetTime(c, k as f64 * h), 0);
            assert_eq!(
                fmi2SetContinuousStates(c, [e_loss, 0.0, 0.0].as_ptr(), 3),
                0
            );
            assert_eq!(fmi2SetReal(c, inputs.as_ptr(), 2, [x, v].as_ptr()), 0);
            assert_eq!(fmi2GetReal(c, outputs.as_ptr(), 2, values.as_mut_ptr()), 0);
            assert_eq!(fmi2GetDerivatives(c, derivative.as_mut_ptr(), 3), 0);
            assert_eq!(fmi2GetEventIndicators(c, indicators.as_mut_ptr(), 4), 0);
            if (indicators[0] > 0.0) != (last_indicators[0] > 0.0) {
                assert_eq!(fmi2EnterEventMode(c), 0);
                assert_eq!(fmi2NewDiscreteStates(c, &mut info), 0);
                assert_eq!(fmi2EnterContinuousTimeMode(c), 0);
                events += 1;
            }
            last_indicators = indicators;
            assert_eq!(
                fmi2CompletedIntegratorStep(c, 1, &mut enter_event_mode, &mut terminate),
                0
            );
            let a = -values[0] - 50.0;
            x += h * v;
            v += h * a;
            e_loss += h * derivative[0];
        }
        let allocations = allocations() - before;
        assert!(
            events >= 2 && e_loss > 0.0,
            "events {events}, E_loss {e_loss}"
        );
        assert_eq!(allocations, 0, "allocations in 20,000 Model Exchange steps");
        fmi2FreeInstance(c);
    }
}

//! No globals: instances on two threads, and interleaved on one, match sequential runs.

use std::sync::{Arc, Barrier};
use std::thread;

use crate::common::{drive, initialize, Oscillation, OSCILLATION_SETTINGS};
use crate::support::{Fmu, Instance};

// ---------------------------------------------------------------------------------------------
// No globals: instances on threads
// ---------------------------------------------------------------------------------------------

const THREAD_SETTINGS_B: [(&str, f64); 8] = [
    ("c", 5e4),
    ("d", 100.0),
    ("n", 1.0),
    ("s_rel0", 0.001),
    ("f_ref", 30.0),
    ("maxSubstepSize", 5e-5),
    ("accelerationEstimate", 1.0),
    ("useHeatPort", 1.0),
];

const THREAD_MOTION_B: Oscillation = Oscillation {
    mean: 0.0,
    amplitude: 0.01,
    omega: 2.0 * std::f64::consts::PI * 7.0,
};

const THREAD_STEPS: usize = 3000;

#[test]
fn instances_on_two_threads_match_sequential_runs() {
    let fmu = Fmu::load_default();
    let run = |inst: &mut Instance, settings: &[(&str, f64)], motion: &Oscillation| {
        initialize(inst, settings);
        drive(inst, motion, 1e-3, 0..THREAD_STEPS, false)
    };
    let motion_a = Oscillation::DEFAULT;
    let sequential_a = run(
        &mut Instance::new(&fmu, "a"),
        &OSCILLATION_SETTINGS,
        &motion_a,
    );
    let sequential_b = run(
        &mut Instance::new(&fmu, "b"),
        &THREAD_SETTINGS_B,
        &THREAD_MOTION_B,
    );
    assert_ne!(sequential_a, sequential_b);

    // Both on their own threads at the same time.
    let mut a = Instance::new(&fmu, "thread-a");
    let mut b = Instance::new(&fmu, "thread-b");
    let start = Arc::new(Barrier::new(2));
    let start_b = Arc::clone(&start);
    let thread_a = thread::spawn(move || {
        start.wait();
        let rows = run(&mut a, &OSCILLATION_SETTINGS, &motion_a);
        (rows, a.logs())
    });
    let thread_b = thread::spawn(move || {
        start_b.wait();
        let rows = run(&mut b, &THREAD_SETTINGS_B, &THREAD_MOTION_B);
        (rows, b.logs())
    });
    let (parallel_a, logs_a) = thread_a.join().expect("thread a");
    let (parallel_b, logs_b) = thread_b.join().expect("thread b");
    assert!(parallel_a == sequential_a, "instance a on a thread differs");
    assert!(parallel_b == sequential_b, "instance b on a thread differs");
    assert!(logs_a.is_empty() && logs_b.is_empty());

    // Interleaved step by step on one thread: any shared state would show deterministically.
    let mut a = Instance::new(&fmu, "lockstep-a");
    let mut b = Instance::new(&fmu, "lockstep-b");
    initialize(&mut a, &OSCILLATION_SETTINGS);
    initialize(&mut b, &THREAD_SETTINGS_B);
    let (mut rows_a, mut rows_b) = (Vec::new(), Vec::new());
    for k in 0..THREAD_STEPS {
        rows_a.extend(drive(&mut a, &motion_a, 1e-3, k..k + 1, false));
        rows_b.extend(drive(&mut b, &THREAD_MOTION_B, 1e-3, k..k + 1, false));
    }
    assert!(rows_a == sequential_a, "instance a interleaved differs");
    assert!(rows_b == sequential_b, "instance b interleaved differs");
}

//! The packaged FMU under valgrind's memcheck, loaded and driven the way an importer does it
//! (unpacked, `dlopen`ed and called through the C ABI by `tests/support`): no invalid memory access
//! and no definite or indirect leak over 100,000 instance life cycles and over 100,000 FMU-state
//! get/set/serialize/deserialize/free cycles.
//!
//! Each test re-runs this very test binary under valgrind, filtered down to itself, with
//! [`CHILD_ENV`] naming it; the child sees that variable and runs the workload instead of
//! starting valgrind again. The parent then reads valgrind's exit status and summary. Two more
//! tests run a deliberately faulty importer the same way and expect valgrind to object, so a
//! memcheck run that could not see anything does not pass silently.
//!
//! valgrind is required: without it these tests fail (`packaging/setup.sh` installs it).

mod support;

use std::ffi::c_void;
use std::process::{Command, ExitStatus};
use std::sync::Arc;

use elastogap::variables::Var;
use fmi_sys::fmi2;
use support::{ok, vr, Fmu, FmuState, Instance, InstantiateOptions, Status};

/// Set (to the test's name) in the environment of the child that valgrind runs.
const CHILD_ENV: &str = "ELASTOGAP_MEMCHECK_CHILD";
/// valgrind's exit status when it found errors, leaks of the checked kinds included; distinct
/// from the 101 of a failed Rust test so the parent can tell the two apart.
const VALGRIND_FOUND_ERRORS: i32 = 97;
/// The cycles of each workload.
const CYCLES: usize = 100_000;
const STEP: f64 = 1e-3;

/// What the parent saw of one valgrind run.
struct Memcheck {
    test: &'static str,
    status: ExitStatus,
    /// valgrind's own messages (its `--log-file`).
    log: String,
    /// The test binary's stdout and stderr.
    output: String,
    seconds: f64,
}

/// In the child (under valgrind): runs `workload` and returns `None`. In the parent: runs this
/// test binary under valgrind with only `test` selected and returns what happened.
fn memcheck(test: &'static str, workload: impl FnOnce()) -> Option<Memcheck> {
    if std::env::var_os(CHILD_ENV).is_some_and(|name| name == test) {
        workload();
        return None;
    }
    let this_binary = std::env::current_exe().expect("the test binary's path");
    let scratch = tempfile::tempdir().expect("a temporary directory for valgrind's log");
    let log_file = scratch.path().join("valgrind.log");
    let started = std::time::Instant::now();
    let run = Command::new("valgrind")
        .arg("--tool=memcheck")
        .arg(format!("--error-exitcode={VALGRIND_FOUND_ERRORS}"))
        .arg("--leak-check=full")
        .arg("--show-leak-kinds=definite,indirect")
        .arg("--errors-for-leak-kinds=definite,indirect")
        // No suppressions: the Rust test harness and std leave nothing definitely or indirectly
        // lost, so every such block is the FMU's or this importer's.
        // The FMU is unloaded before the leak check runs; keep its symbols for the stack traces.
        .arg("--keep-debuginfo=yes")
        .arg("--num-callers=30")
        .arg(format!("--log-file={}", log_file.display()))
        .arg(&this_binary)
        .args([test, "--exact", "--test-threads=1"])
        .env(CHILD_ENV, test)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run valgrind ({e}); it is required: install it (packaging/setup.sh does)"
            )
        });
    let seconds = started.elapsed().as_secs_f64();
    let log = std::fs::read_to_string(&log_file)
        .unwrap_or_else(|e| panic!("valgrind wrote no log {}: {e}", log_file.display()));
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    eprintln!(
        "{test}: {seconds:.1} s under valgrind; {}",
        summary_lines(&log)
    );
    Some(Memcheck {
        test,
        status: run.status,
        log,
        output,
        seconds,
    })
}

/// valgrind's error and leak summary lines, without the `==pid==` prefixes, on one line.
fn summary_lines(log: &str) -> String {
    log.lines()
        .map(|line| line.split_once("== ").map_or(line, |(_, rest)| rest).trim())
        .filter(|line| {
            [
                "ERROR SUMMARY",
                "definitely lost",
                "indirectly lost",
                "All heap blocks",
            ]
            .iter()
            .any(|key| line.starts_with(key))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The number after `key` in valgrind's log (thousands separated by commas), if present.
fn number_after(log: &str, key: &str) -> Option<u64> {
    let rest = &log[log.find(key)? + key.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

impl Memcheck {
    fn context(&self) -> String {
        format!(
            "{}: exit status {:?} after {:.1} s\n--- valgrind log ---\n{}\n--- test output ---\n{}",
            self.test,
            self.status.code(),
            self.seconds,
            self.log,
            self.output
        )
    }

    /// The child's test harness ran the one test, and it passed: the workload really ran.
    fn assert_workload_passed(&self) {
        assert!(
            self.output.contains(&format!("test {} ... ok", self.test))
                && self.output.contains("1 passed"),
            "the workload did not run to completion under valgrind\n{}",
            self.context()
        );
    }

    fn assert_clean(&self) {
        self.assert_workload_passed();
        assert!(
            self.status.success(),
            "valgrind reported errors\n{}",
            self.context()
        );
        assert_eq!(
            number_after(&self.log, "ERROR SUMMARY:"),
            Some(0),
            "{}",
            self.context()
        );
        let no_leaks = self
            .log
            .contains("All heap blocks were freed -- no leaks are possible")
            || (number_after(&self.log, "definitely lost:") == Some(0)
                && number_after(&self.log, "indirectly lost:") == Some(0));
        assert!(no_leaks, "leaks\n{}", self.context());
    }
}

// ---------------------------------------------------------------------------------------------
// Workloads
// ---------------------------------------------------------------------------------------------

/// SplitMix64: a reproducible spread of parameters without a dependency.
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One parameter set; every tunable and fixed parameter of the FMU varies.
struct Parameters {
    c: f64,
    d: f64,
    s_rel0: f64,
    n: f64,
    s_ref: f64,
    f_ref: f64,
    max_substep_size: f64,
    max_substep_count: i32,
    acceleration_estimate: i32,
    use_heat_port: bool,
}

impl Parameters {
    fn draw(numbers: &mut Numbers) -> Parameters {
        Parameters {
            c: numbers.between(1e2, 1e5),
            d: numbers.between(0.0, 50.0),
            s_rel0: numbers.between(-1e-3, 1e-3),
            n: numbers.between(1.0, 2.5),
            s_ref: numbers.between(1e-3, 1.0),
            f_ref: if numbers.below(2) == 0 {
                0.0
            } else {
                numbers.between(1.0, 100.0)
            },
            max_substep_size: numbers.between(2e-5, 1e-3),
            max_substep_count: 100 + numbers.below(1000) as i32,
            acceleration_estimate: numbers.below(4) as i32,
            use_heat_port: numbers.below(2) == 0,
        }
    }

    fn apply(&self, inst: &mut Instance) {
        ok(inst.set_real(
            &[
                vr(Var::C),
                vr(Var::D),
                vr(Var::SRel0),
                vr(Var::N),
                vr(Var::SRef),
                vr(Var::FRef),
                vr(Var::MaxSubstepSize),
            ],
            &[
                self.c,
                self.d,
                self.s_rel0,
                self.n,
                self.s_ref,
                self.f_ref,
                self.max_substep_size,
            ],
        ));
        ok(inst.set_integer(
            &[vr(Var::MaxSubstepCount), vr(Var::AccelerationEstimate)],
            &[self.max_substep_count, self.acceleration_estimate],
        ));
        ok(inst.set_boolean(&[vr(Var::UseHeatPort)], &[self.use_heat_port]));
        // The workload prescribes the motion, jumping between steps: so it says (heldForce =
        // None). Left at Auto, the port's bound cuts the forces of the model the FMU fits to it,
        // and the steps are far slower (docs/coupling.md).
        ok(inst.set_integer(&[vr(Var::HeldForce)], &[4]));
    }
}

const INPUTS: [Var; 4] = [Var::FlangeAS, Var::FlangeAV, Var::FlangeBS, Var::FlangeBV];

/// flange_b runs into the gap and out again over two steps, flange_a moving along at `base`:
/// `s_rel(t) = s_rel0 - depth + (2 depth/h^2)(t - h)^2`, so `s_rel(0) = s_rel(2h) = s_rel0 + depth`
/// and `s_rel(h) = s_rel0 - depth`.
fn bounce_inputs(s_rel0: f64, depth: f64, base: f64, t: f64) -> [f64; 4] {
    let curvature = 2.0 * depth / (STEP * STEP);
    let s_rel = s_rel0 - depth + curvature * (t - STEP) * (t - STEP);
    let v_rel = 2.0 * curvature * (t - STEP);
    [base, 0.1, base + s_rel, 0.1 + v_rel]
}

fn set_inputs(inst: &mut Instance, values: [f64; 4]) {
    ok(inst.set_real(&INPUTS.map(vr), &values));
}

/// `f_mean` and `contact` after a step.
fn step_outputs(inst: &mut Instance) -> (f64, bool) {
    let (status, values) = inst.get_real(&[vr(Var::FMean)]);
    ok(status);
    let (status, contact) = inst.get_boolean(&[vr(Var::Contact)]);
    ok(status);
    (values[0], contact[0])
}

/// instantiate, set every parameter, set up, initialize, two steps into and out of contact,
/// (sometimes terminate, reset and go again, or a refused call that logs an error), free.
fn instance_life_cycles(cycles: usize) {
    let fmu = Fmu::load_default();
    let mut numbers = Numbers(0x5eed_0001);
    for k in 0..cycles {
        let parameters = Parameters::draw(&mut numbers);
        let depth = numbers.between(1e-5, 1e-3);
        let base = numbers.between(-1.0, 1.0);
        let options = InstantiateOptions {
            // Events (contact starts and ends) go through the logger callback on some cycles.
            logging_on: k % 4 == 0,
            ..InstantiateOptions::named(&format!("cycle {k}"))
        };
        let mut inst = Instance::instantiate(&fmu, &options)
            .unwrap_or_else(|f| panic!("fmi2Instantiate failed: {:?}", f.logs));
        parameters.apply(&mut inst);
        let run = |inst: &mut Instance| {
            ok(inst.setup_experiment(Some(1e-6), 0.0, Some(1.0)));
            ok(inst.enter_initialization_mode());
            set_inputs(inst, bounce_inputs(parameters.s_rel0, depth, base, 0.0));
            ok(inst.exit_initialization_mode());
            ok(inst.do_step(0.0, STEP, true));
            let (f_mean, _) = step_outputs(inst);
            set_inputs(inst, bounce_inputs(parameters.s_rel0, depth, base, STEP));
            let (_, in_contact) = step_outputs(inst);
            ok(inst.do_step(STEP, STEP, true));
            (f_mean, in_contact)
        };
        let (f_mean, in_contact) = run(&mut inst);
        assert!(in_contact && f_mean < 0.0, "cycle {k}: no contact");
        match k % 8 {
            1 => ok(inst.terminate()),
            3 => {
                ok(inst.terminate());
                ok(inst.reset());
                parameters.apply(&mut inst);
                let (f_mean, in_contact) = run(&mut inst);
                assert!(
                    in_contact && f_mean < 0.0,
                    "cycle {k}: no contact after reset"
                );
            }
            5 => {
                // Wrong communication point: refused, an error message logged.
                assert_eq!(inst.do_step(0.5, STEP, true), Status::Error);
                assert!(!inst.logs().is_empty());
            }
            _ => {}
        }
        inst.free();
    }
}

/// On one instance at a time (a new one every 10,000 cycles): step, take a new state and
/// overwrite a kept one, step, restore, serialize, deserialize into a new state and into the kept
/// one, restore that, free; now and then leave a state for `fmi2Reset` or `fmi2FreeInstance` to
/// free. A restored state must continue exactly like the original.
fn state_cycles(cycles: usize) {
    let fmu = Fmu::load_default();
    let mut numbers = Numbers(0x5eed_0002);
    let mut inst: Option<Instance> = None;
    let mut kept = FmuState::null();
    let mut time = 0.0;
    let mut s_rel0 = 0.0;
    let mut contacts = 0;
    for k in 0..cycles {
        if k % 10_000 == 0 {
            // The kept state goes with the instance (freed by fmi2FreeInstance, not by us).
            kept = FmuState::null();
            let mut fresh = Instance::new(&fmu, &format!("states {k}"));
            let parameters = Parameters::draw(&mut numbers);
            s_rel0 = parameters.s_rel0;
            parameters.apply(&mut fresh);
            ok(fresh.setup_experiment(None, 0.0, None));
            ok(fresh.enter_initialization_mode());
            ok(fresh.exit_initialization_mode());
            ok(fresh.get_fmu_state(&mut kept));
            inst = Some(fresh);
            time = 0.0;
        }
        let inst = inst.as_mut().expect("an instance");
        if k % 1000 == 500 {
            // fmi2Reset frees the states the importer did not; the kept one is gone with them.
            let mut forgotten = FmuState::null();
            ok(inst.get_fmu_state(&mut forgotten));
            ok(inst.reset());
            ok(inst.set_integer(&[vr(Var::HeldForce)], &[4]));
            ok(inst.setup_experiment(None, 0.0, None));
            ok(inst.enter_initialization_mode());
            ok(inst.exit_initialization_mode());
            kept = FmuState::null();
            ok(inst.get_fmu_state(&mut kept));
            time = 0.0;
        }
        // Tunable parameters change while stepping.
        ok(inst.set_real(
            &[vr(Var::C), vr(Var::D)],
            &[numbers.between(1e2, 1e5), numbers.between(0.0, 50.0)],
        ));
        // Every other step starts in contact, so the steps before the states are taken and the
        // ones replayed after restoring them go through it.
        let depth = numbers.between(1e-5, 1e-3);
        let phase = if k % 2 == 0 { 0.0 } else { STEP };
        set_inputs(inst, bounce_inputs(s_rel0, depth, 0.0, phase));
        ok(inst.do_step(time, STEP, false));
        time += STEP;
        let (_, contact) = step_outputs(inst);
        contacts += usize::from(contact);

        let mut taken = FmuState::null();
        ok(inst.get_fmu_state(&mut taken));
        ok(inst.get_fmu_state(&mut kept));
        ok(inst.do_step(time, STEP, false));
        let first = step_outputs(inst);
        ok(inst.set_fmu_state(&taken));
        ok(inst.do_step(time, STEP, false));
        assert_eq!(step_outputs(inst), first, "cycle {k}: restored state");

        let (status, bytes) = inst.serialize_fmu_state(&taken);
        ok(status);
        let mut restored = FmuState::null();
        ok(inst.deserialize_fmu_state(&bytes, &mut restored));
        ok(inst.deserialize_fmu_state(&bytes, &mut kept));
        ok(inst.set_fmu_state(&restored));
        ok(inst.do_step(time, STEP, false));
        assert_eq!(step_outputs(inst), first, "cycle {k}: deserialized state");
        // Back at `time` once more, from the overwritten state.
        ok(inst.set_fmu_state(&kept));

        ok(inst.free_fmu_state(&mut taken));
        assert!(taken.is_null());
        if k % 1000 != 999 {
            ok(inst.free_fmu_state(&mut restored));
        }
        // else: left for fmi2FreeInstance or fmi2Reset to free.
    }
    assert!(contacts > cycles / 4, "only {contacts} steps in contact");
}

// ---------------------------------------------------------------------------------------------
// Clean runs
// ---------------------------------------------------------------------------------------------

#[test]
fn instance_life_cycles_are_memcheck_clean() {
    let Some(run) = memcheck("instance_life_cycles_are_memcheck_clean", || {
        instance_life_cycles(CYCLES)
    }) else {
        return;
    };
    run.assert_clean();
}

#[test]
fn fmu_state_cycles_are_memcheck_clean() {
    let Some(run) = memcheck("fmu_state_cycles_are_memcheck_clean", || {
        state_cycles(CYCLES)
    }) else {
        return;
    };
    run.assert_clean();
}

// ---------------------------------------------------------------------------------------------
// The check can fail: a faulty importer is caught
// ---------------------------------------------------------------------------------------------

/// `fmi2Instantiate` through the binding, bypassing the support wrapper's bookkeeping.
fn raw_instance(fmu: &Arc<Fmu>) -> fmi2::fmi2Component {
    let instantiate = fmu.binding.fmi2Instantiate.as_ref().expect("exported");
    let callbacks = fmi2::fmi2CallbackFunctions {
        logger: None,
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: std::ptr::null_mut::<c_void>(),
    };
    let guid = std::ffi::CString::new(fmu.model_description.guid.as_str()).unwrap();
    // SAFETY: valid strings and callback struct for the duration of the call.
    let component = unsafe {
        instantiate(
            c"raw".as_ptr(),
            fmi2::fmi2Type_fmi2CoSimulation,
            guid.as_ptr(),
            std::ptr::null(),
            &callbacks,
            0,
            0,
        )
    };
    assert!(!component.is_null());
    component
}

#[test]
fn memcheck_reports_instances_the_importer_never_frees() {
    let Some(run) = memcheck(
        "memcheck_reports_instances_the_importer_never_frees",
        || {
            let fmu = Fmu::load_default();
            for _ in 0..100 {
                // Dropping the only copy of the pointer: the instance becomes unreachable.
                raw_instance(&fmu);
            }
        },
    ) else {
        return;
    };
    run.assert_workload_passed();
    assert_eq!(
        run.status.code(),
        Some(VALGRIND_FOUND_ERRORS),
        "{}",
        run.context()
    );
    let lost = number_after(&run.log, "definitely lost:").unwrap_or(0)
        + number_after(&run.log, "indirectly lost:").unwrap_or(0);
    assert!(lost > 0, "no leak reported\n{}", run.context());
    assert!(
        run.log.contains("fmi2Instantiate"),
        "the leak is not traced to fmi2Instantiate\n{}",
        run.context()
    );
}

#[test]
fn memcheck_reports_a_call_on_a_freed_instance() {
    let Some(run) = memcheck("memcheck_reports_a_call_on_a_freed_instance", || {
        let fmu = Fmu::load_default();
        let component = raw_instance(&fmu);
        let free = fmu.binding.fmi2FreeInstance.as_ref().expect("exported");
        let get_real = fmu.binding.fmi2GetReal.as_ref().expect("exported");
        let reference = vr(Var::F);
        let mut value = 0.0;
        // SAFETY: deliberately not: the second call reads the freed instance. It runs only in
        // the child under valgrind, whose allocator keeps freed blocks aside and reports the read.
        unsafe {
            free(component);
            get_real(component, &reference, 1, &mut value);
        }
    }) else {
        return;
    };
    run.assert_workload_passed();
    assert_eq!(
        run.status.code(),
        Some(VALGRIND_FOUND_ERRORS),
        "{}",
        run.context()
    );
    assert!(
        number_after(&run.log, "ERROR SUMMARY:").is_some_and(|n| n > 0)
            && run.log.contains("Invalid read")
            && run.log.contains("fmi2GetReal"),
        "the read of the freed instance in fmi2GetReal was not reported\n{}",
        run.context()
    );
}

//! The criterion groups `laws`, `kinematic`, `do_step`, `c_baseline`, `io`, `lifecycle` and
//! `fmu_state`.

use std::cell::Cell;
use std::ffi::CString;
use std::hint::black_box;
use std::ptr;

use criterion::{Criterion, Throughput};
use elastogap::laws::{AffineRegion, ContactLaw, Forces, GapLaw, Partials};
use elastogap::step::{integrate_step, Motion, SubstepLimits};
use elastogap::variables::Var;
use fmi_sys::fmi2;

use super::c_baseline::CBaseline;
use super::library::{
    callbacks, supply_accelerations, Component, Library, BOOLEAN_OUTPUTS, INPUTS, OK, REAL_OUTPUTS,
};
use super::{
    criterion_dir, limits, relative_motion, DEFAULT_SUBSTEPS_PER_STEP, EXACT_AGREEMENT,
    INPUT_ACCELERATIONS, IN_CONTACT, LAW, OUT_OF_CONTACT, PIECES_IN_CONTACT, STEP, STEP_SIZES,
    SUBSTEP_COUNTS, TOLERANCE,
};

// ---------------------------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------------------------

/// Points of the contact motion a step visits, all in contact and on the linear damper branch, so
/// the bare evaluations do the same work as those inside a step.
pub(crate) const EVALUATION_POINTS: usize = 256;

pub(crate) fn evaluation_points() -> Vec<(f64, f64)> {
    let motion = relative_motion(IN_CONTACT, Some(INPUT_ACCELERATIONS));
    let points: Vec<(f64, f64)> = (0..EVALUATION_POINTS)
        .map(|k| {
            let p = motion.at(STEP * k as f64 / EVALUATION_POINTS as f64);
            (p.s, p.v)
        })
        .collect();
    assert!(points.iter().all(|&(s, v)| {
        let forces = LAW.evaluate(s, v);
        forces.contact && forces.f_d == LAW.d * v
    }));
    points
}

/// The floor: the bare law at every point, summed so that no evaluation can be skipped.
pub(crate) fn evaluate_all(points: &[(f64, f64)]) -> f64 {
    evaluate_all_with(&LAW, points)
}

pub(crate) fn evaluate_all_with(law: &GapLaw, points: &[(f64, f64)]) -> f64 {
    // The law is read through a reference, as the step reads its instance's parameters.
    let law = black_box(law);
    let mut sum = 0.0;
    for &(s, v) in black_box(points) {
        let forces = law.evaluate(s, v);
        sum += forces.f + forces.loss_power;
    }
    sum
}

pub(crate) fn bench_laws(c: &mut Criterion) {
    let mut group = c.benchmark_group("laws");
    let points = evaluation_points();
    group.throughput(Throughput::Elements(EVALUATION_POINTS as u64));
    group.bench_function("evaluate", |b| b.iter(|| evaluate_all(&points)));
    // The other exponents go through powf: the floor of the n = 1.5 rows of `kinematic`.
    let law_1_5 = GapLaw { n: 1.5, ..LAW };
    group.bench_function("evaluate_n1.5", |b| {
        b.iter(|| evaluate_all_with(&law_1_5, &points))
    });
    group.finish();
}

/// The law with a count of its evaluations, for the evaluations per step that the report puts
/// beside the times.
pub(crate) struct Counting {
    pub(crate) law: GapLaw,
    pub(crate) evaluations: Cell<u32>,
}

impl ContactLaw for Counting {
    fn s_rel0(&self) -> f64 {
        self.law.s_rel0
    }
    fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        self.evaluations.set(self.evaluations.get() + 1);
        self.law.evaluate(s_rel, v_rel)
    }
    fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        self.law.partials(s_rel, v_rel)
    }
    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        ContactLaw::kink_indicator(&self.law, s_rel, v_rel)
    }
    fn kink_indicator_with(&self, forces: &Forces, s_rel: f64, v_rel: f64) -> f64 {
        self.law.kink_indicator_with(forces, s_rel, v_rel)
    }
    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64 {
        self.law.kink_indicator_rate(s_rel, v_rel, a_rel)
    }
    fn affine_region(&self, s_rel: f64, v_rel: f64) -> Option<AffineRegion> {
        self.law.affine_region(s_rel, v_rel)
    }
    fn is_piecewise_affine(&self) -> bool {
        self.law.is_piecewise_affine()
    }
    fn length_scale(&self) -> f64 {
        self.law.length_scale()
    }
}

/// Touches down at `0.1 h` and lifts off at `0.9 h`, at 1 m/s both times, `0.2 h` deep at most:
/// one whole contact inside the step, with the damper bound acting at both ends.
fn whole_contact(h: f64) -> Motion {
    let (enter, leave) = (0.1 * h, 0.9 * h);
    let a = 2.5 / h;
    Motion {
        s: 0.5 * a * enter * leave,
        v: -0.5 * a * (enter + leave),
        a,
    }
}

pub(crate) fn bench_kinematic(c: &mut Criterion) {
    let mut group = c.benchmark_group("kinematic");
    let mut counts = serde_json::Map::new();
    // The in-contact step of `do_step`: one piece for any maxSubstepSize.
    for substeps in SUBSTEP_COUNTS {
        let motion = relative_motion(IN_CONTACT, None);
        assert_eq!(
            integrate_step(&LAW, motion, STEP, limits(substeps)).substeps,
            PIECES_IN_CONTACT
        );
        group.bench_function(format!("integrate_step_{substeps}"), |b| {
            b.iter(|| {
                integrate_step(
                    black_box(&LAW),
                    black_box(motion),
                    black_box(STEP),
                    black_box(limits(substeps)),
                )
            })
        });
    }
    let law_1_5 = GapLaw { n: 1.5, ..LAW };
    for (h, label) in STEP_SIZES {
        let motion = whole_contact(h);
        let default_limits = limits(DEFAULT_SUBSTEPS_PER_STEP);
        let unbounded = SubstepLimits {
            max_size: h,
            ..default_limits
        };
        for (id, law, limits) in [
            (format!("n1_whole_contact_{label}"), LAW, default_limits),
            (format!("n1.5_whole_contact_{label}"), law_1_5, unbounded),
            (
                format!("n1.5_max_1e-4_whole_contact_{label}"),
                law_1_5,
                default_limits,
            ),
        ] {
            let counting = Counting {
                law,
                evaluations: Cell::new(0),
            };
            let step = integrate_step(&counting, motion, h, limits);
            assert_eq!(step.transition_count, 2, "{id}");
            // Outside the timing: the tolerance is met, against the same integration far tighter.
            let reference = integrate_step(
                &law,
                motion,
                h,
                SubstepLimits {
                    max_size: h,
                    max_count: 1_000_000,
                    tolerance: 1e-12,
                },
            );
            let error = |a: f64, b: f64| (a - b).abs() / b.abs();
            let (impulse_error, dissipated_error) = (
                error(step.impulse, reference.impulse),
                error(step.dissipated, reference.dissipated),
            );
            let bound = if law.n == 1.0 { 1e-12 } else { TOLERANCE };
            assert!(
                impulse_error <= bound && dissipated_error <= bound,
                "{id}: {step:?} vs {reference:?}"
            );
            counts.insert(
                id.clone(),
                serde_json::json!({
                    "pieces": step.substeps,
                    "evaluations": counting.evaluations.get(),
                    "impulse_error": impulse_error,
                    "dissipated_error": dissipated_error,
                }),
            );
            group.bench_function(&id, |b| {
                b.iter(|| {
                    integrate_step(
                        black_box(&law),
                        black_box(motion),
                        black_box(h),
                        black_box(limits),
                    )
                })
            });
        }
    }
    group.finish();
    let path = criterion_dir().join("kinematic_counts.json");
    std::fs::create_dir_all(path.parent().unwrap()).expect("criterion's folder");
    std::fs::write(&path, serde_json::to_string_pretty(&counts).unwrap()).expect("write counts");
}

pub(crate) fn bench_do_step(c: &mut Criterion, library: &Library) {
    let do_step = entry!(library, fmi2DoStep);
    let set_real = entry!(library, fmi2SetReal);
    let set_derivatives = entry!(library, fmi2SetRealInputDerivatives);
    let mut group = c.benchmark_group("do_step");
    for (label, inputs) in [("contact", IN_CONTACT), ("free", OUT_OF_CONTACT)] {
        for substeps in SUBSTEP_COUNTS {
            for with_derivatives in [false, true] {
                let id = format!(
                    "{label}_{substeps}{}",
                    if with_derivatives {
                        "_with_derivatives"
                    } else {
                        ""
                    }
                );
                let accelerations = with_derivatives.then_some(INPUT_ACCELERATIONS);
                let expected = if label == "contact" {
                    PIECES_IN_CONTACT
                } else {
                    0
                };
                let integrated = integrate_step(
                    &LAW,
                    relative_motion(inputs, accelerations),
                    STEP,
                    limits(substeps),
                );
                assert_eq!(integrated.substeps, expected, "{id}");
                assert_eq!(integrated.transition_count, 0, "{id}");

                let instance = Component::ready(library, &id, substeps, inputs);
                let raw = instance.raw;
                let mut time = 0.0;
                // As a master feeds a prescribed motion: the inputs set before every step.
                group.bench_function(&id, |b| {
                    b.iter(|| {
                        // SAFETY: a live instance and arrays of the announced lengths.
                        unsafe {
                            set_real(raw, INPUTS.as_ptr(), 4, inputs.as_ptr());
                            if with_derivatives {
                                supply_accelerations(set_derivatives, raw);
                            }
                            let status = do_step(raw, time, STEP, 1);
                            time += STEP;
                            status
                        }
                    })
                });
                // A failed call leaves the instance in the error state, where every later step
                // fails too: one good step now shows that none failed while timed.
                // SAFETY: a live instance and arrays of the announced lengths.
                let status = unsafe {
                    set_real(raw, INPUTS.as_ptr(), 4, inputs.as_ptr());
                    if with_derivatives {
                        supply_accelerations(set_derivatives, raw);
                    }
                    do_step(raw, time, STEP, 1)
                };
                assert_eq!(status, OK, "{id}");
                assert_eq!(instance.contact(), label == "contact", "{id}");
                assert!(
                    (instance.real(Var::FMean) - integrated.impulse / STEP).abs()
                        <= 1e-12 * integrated.impulse.abs() / STEP,
                    "{id}"
                );
            }
        }
    }
    group.finish();
}

pub(crate) fn bench_c_baseline(c: &mut Criterion, library: &Library) {
    let baseline = CBaseline::build();
    baseline.check_against_rust();
    let (do_step, set_accelerations) = (baseline.do_step, baseline.set_accelerations);
    let mut group = c.benchmark_group("c_baseline");
    for substeps in SUBSTEP_COUNTS {
        for with_derivatives in [false, true] {
            let id = format!(
                "contact_{substeps}{}",
                if with_derivatives {
                    "_with_derivatives"
                } else {
                    ""
                }
            );
            // The FMU's mean force after the same first step is the reference for the C one.
            let fmu = Component::ready(library, &id, substeps, IN_CONTACT);
            let instance = baseline.instance(substeps, IN_CONTACT);
            let raw = instance.raw;
            // SAFETY: live instances and arrays of the announced lengths.
            unsafe {
                if with_derivatives {
                    let set_derivatives = entry!(library, fmi2SetRealInputDerivatives);
                    let status = supply_accelerations(set_derivatives, fmu.raw);
                    assert_eq!(status, OK);
                    set_accelerations(raw, INPUT_ACCELERATIONS[0], INPUT_ACCELERATIONS[1]);
                }
                assert_eq!(entry!(library, fmi2DoStep)(fmu.raw, 0.0, STEP, 1), OK);
                assert_eq!(do_step(raw, 0.0, STEP), 0);
                // One closed-form piece against the C baseline's equal substeps: both exact for n = 1.
                let (rust, c) = (fmu.real(Var::FMean), (baseline.f_mean)(raw));
                assert!(
                    (rust - c).abs() <= EXACT_AGREEMENT * rust.abs(),
                    "{id}: {rust} vs {c}"
                );
            }
            let mut time = STEP;
            group.bench_function(&id, |b| {
                b.iter(|| {
                    // SAFETY: a live C instance.
                    unsafe {
                        baseline.set_inputs(raw, IN_CONTACT);
                        if with_derivatives {
                            set_accelerations(raw, INPUT_ACCELERATIONS[0], INPUT_ACCELERATIONS[1]);
                        }
                        let status = do_step(raw, time, STEP);
                        time += STEP;
                        status
                    }
                })
            });
            // SAFETY: a live C instance.
            assert_eq!(unsafe { do_step(raw, time, STEP) }, 0, "{id}");
        }
    }
    group.finish();
}

pub(crate) fn bench_io(c: &mut Criterion, library: &Library) {
    let (set_real, get_real, get_boolean, do_step, set_derivatives) = (
        entry!(library, fmi2SetReal),
        entry!(library, fmi2GetReal),
        entry!(library, fmi2GetBoolean),
        entry!(library, fmi2DoStep),
        entry!(library, fmi2SetRealInputDerivatives),
    );
    let mut group = c.benchmark_group("io");
    let instance = Component::ready(library, "io", 10, IN_CONTACT);
    let raw = instance.raw;
    // SAFETY: a live instance.
    assert_eq!(unsafe { do_step(raw, 0.0, STEP, 1) }, OK);
    let mut time = STEP;
    let mut reals = [0.0; REAL_OUTPUTS.len()];
    let mut booleans = [0; BOOLEAN_OUTPUTS.len()];
    group.bench_function("set_all_inputs", |b| {
        b.iter(|| {
            // SAFETY: a live instance and arrays of the announced lengths.
            unsafe { set_real(raw, INPUTS.as_ptr(), 4, black_box(IN_CONTACT).as_ptr()) }
        })
    });
    group.bench_function("get_all_outputs", |b| {
        b.iter(|| {
            // SAFETY: a live instance and arrays of the announced lengths.
            unsafe {
                let status = get_real(raw, REAL_OUTPUTS.as_ptr(), 7, reals.as_mut_ptr());
                (
                    status,
                    get_boolean(raw, BOOLEAN_OUTPUTS.as_ptr(), 1, booleans.as_mut_ptr()),
                )
            }
        })
    });
    // Read once more here: with a filter (`cargo bench --bench fmi_abi -- <filter>`, which runs
    // the paired ratios alone) the benchmark above has not run.
    // SAFETY: a live instance and arrays of the announced lengths.
    assert_eq!(
        unsafe { get_real(raw, REAL_OUTPUTS.as_ptr(), 7, reals.as_mut_ptr()) },
        OK
    );
    assert!(instance.contact());
    assert_eq!(reals[0], instance.real(Var::F));
    // What a master does per communication step: inputs and their derivatives in, step, outputs
    // out.
    group.bench_function("communication_step_10", |b| {
        b.iter(|| {
            // SAFETY: a live instance and arrays of the announced lengths.
            unsafe {
                set_real(raw, INPUTS.as_ptr(), 4, black_box(IN_CONTACT).as_ptr());
                supply_accelerations(set_derivatives, raw);
                let status = do_step(raw, time, STEP, 1);
                time += STEP;
                get_real(raw, REAL_OUTPUTS.as_ptr(), 7, reals.as_mut_ptr());
                get_boolean(raw, BOOLEAN_OUTPUTS.as_ptr(), 1, booleans.as_mut_ptr());
                status
            }
        })
    });
    // SAFETY: a live instance.
    assert_eq!(unsafe { do_step(raw, time, STEP, 1) }, OK);
    group.finish();
}

pub(crate) fn bench_lifecycle(c: &mut Criterion, library: &Library) {
    let (instantiate, setup, enter, exit, free) = (
        entry!(library, fmi2Instantiate),
        entry!(library, fmi2SetupExperiment),
        entry!(library, fmi2EnterInitializationMode),
        entry!(library, fmi2ExitInitializationMode),
        entry!(library, fmi2FreeInstance),
    );
    let callbacks = callbacks();
    let name = CString::new("lifecycle").unwrap();
    let run = || {
        // SAFETY: valid strings and callbacks; the instance is freed before they go.
        unsafe {
            let raw = instantiate(
                name.as_ptr(),
                fmi2::fmi2Type_fmi2CoSimulation,
                library.guid.as_ptr(),
                library.resource_uri.as_ptr(),
                &*callbacks,
                0,
                0,
            );
            let statuses = [setup(raw, 0, 0.0, 0.0, 1, 1.0), enter(raw), exit(raw)];
            free(raw);
            (raw.is_null(), statuses)
        }
    };
    assert_eq!(run(), (false, [OK; 3]));
    let mut group = c.benchmark_group("lifecycle");
    group.bench_function("instantiate_initialize_free", |b| b.iter(run));
    group.finish();
}

pub(crate) fn bench_fmu_state(c: &mut Criterion, library: &Library) {
    let (get_state, set_state, free_state, size_of, serialize, deserialize, do_step) = (
        entry!(library, fmi2GetFMUstate),
        entry!(library, fmi2SetFMUstate),
        entry!(library, fmi2FreeFMUstate),
        entry!(library, fmi2SerializedFMUstateSize),
        entry!(library, fmi2SerializeFMUstate),
        entry!(library, fmi2DeSerializeFMUstate),
        entry!(library, fmi2DoStep),
    );
    let instance = Component::ready(library, "state", 10, IN_CONTACT);
    let raw = instance.raw;
    let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: a live instance; `state` is NULL or one of its states.
    let mut bytes = unsafe {
        assert_eq!(do_step(raw, 0.0, STEP, 1), OK);
        assert_eq!(get_state(raw, &mut state), OK);
        assert_eq!(size_of(raw, state, &mut size), OK);
        let mut bytes = vec![0u8; size];
        assert_eq!(serialize(raw, state, bytes.as_mut_ptr().cast(), size), OK);
        assert_eq!(
            deserialize(raw, bytes.as_ptr().cast(), size, &mut state),
            OK
        );
        assert_eq!(set_state(raw, state), OK);
        bytes
    };
    let mut group = c.benchmark_group("fmu_state");
    // SAFETY (all closures): a live instance, `state` one of its states, buffers of `size` bytes.
    group.bench_function("get_into_existing", |b| {
        b.iter(|| unsafe { get_state(raw, &mut state) })
    });
    group.bench_function("get_new_and_free", |b| {
        b.iter(|| unsafe {
            let mut fresh: fmi2::fmi2FMUstate = ptr::null_mut();
            (get_state(raw, &mut fresh), free_state(raw, &mut fresh))
        })
    });
    group.bench_function("set", |b| b.iter(|| unsafe { set_state(raw, state) }));
    group.bench_function("serialize", |b| {
        b.iter(|| unsafe {
            let mut size = 0usize;
            let status = size_of(raw, state, &mut size);
            (
                status,
                serialize(raw, state, bytes.as_mut_ptr().cast(), size),
            )
        })
    });
    group.bench_function("deserialize_into_existing", |b| {
        b.iter(|| unsafe { deserialize(raw, bytes.as_ptr().cast(), size, &mut state) })
    });
    group.finish();
    // SAFETY: as above; one good step shows that no timed call failed.
    unsafe {
        assert_eq!(do_step(raw, STEP, STEP, 1), OK);
        assert_eq!(free_state(raw, &mut state), OK);
    }
}

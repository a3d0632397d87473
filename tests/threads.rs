//! Instances share nothing: eight threads, each co-simulating its own system with two instances
//! of the one loaded FMU library, give bit for bit what the same eight runs give one after another
//! on a single thread, at every one of 100,000 steps.
//!
//! Each run is a small co-simulation master: a mass on a soft spring between two ElastoGaps, the
//! left one pushed by a wall that oscillates far enough to reach the mass, the right one against
//! a fixed wall. The mass moves under the gaps' mean step forces `f_mean`, so the outputs feed back
//! into the next inputs and any difference between two runs grows instead of washing out. Every
//! run has its own parameters (c, d, n, s_rel0, maxSubstepSize, accelerationEstimate per gap), its
//! own wall motion and start velocity, and passes through contact hundreds of times on both gaps.
//! Half the runs log their contact events through the (mutex-guarded, per-instance) logger
//! callback of `tests/support`, half hand the FMU the accelerations as input derivatives.

mod support;

use std::f64::consts::PI;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

use elastogap::variables::Var;
use support::{ok, vr, Fmu, Instance, InstantiateOptions, Status};

const THREADS: usize = 8;
const STEPS: usize = 100_000;
const STEP: f64 = 1e-3;
const MASS: f64 = 1.0;
/// The soft spring holding the mass near 0, and a light drag on it.
const SPRING: f64 = 400.0;
const DRAG: f64 = 0.5;
/// The left wall oscillates about `-LEFT_WALL`, the right one stands at `RIGHT_WALL`.
const LEFT_WALL: f64 = 4e-3;
const RIGHT_WALL: f64 = 1.5e-3;
/// Contacts of each gap every run must see, at least.
const MIN_CONTACTS: usize = 100;

/// Every Real output and local, then `contact`.
const OUTPUT_REALS: [Var; 9] = [
    Var::F,
    Var::SRel,
    Var::VRel,
    Var::LossPower,
    Var::HeatPortQFlow,
    Var::FMean,
    Var::ELoss,
    Var::FC,
    Var::FD,
];
const INPUTS: [Var; 4] = [Var::FlangeAS, Var::FlangeAV, Var::FlangeBS, Var::FlangeBV];
const VELOCITY_INPUTS: [Var; 2] = [Var::FlangeAV, Var::FlangeBV];

#[derive(Clone, Copy, Debug)]
struct GapSettings {
    c: f64,
    d: f64,
    n: f64,
    s_rel0: f64,
    max_substep_size: f64,
    acceleration_estimate: i32,
}

impl GapSettings {
    /// The `k`-th of eight settings, each parameter spread over its range independently.
    fn nth(k: usize) -> GapSettings {
        const SUBSTEPS: [f64; 8] = [1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5, 3e-4];
        let x = k as f64;
        GapSettings {
            c: 2e3 * 1.8f64.powi(k as i32),
            d: 5.0 + 10.0 * ((3 * k) % 8) as f64,
            n: 1.0 + 0.2 * ((5 * k) % 8) as f64,
            s_rel0: (x - 3.5) * 2e-4,
            max_substep_size: SUBSTEPS[k],
            acceleration_estimate: (k % 4) as i32,
        }
    }

    fn apply(&self, inst: &mut Instance) {
        ok(inst.set_real(
            &[
                vr(Var::C),
                vr(Var::D),
                vr(Var::N),
                vr(Var::SRel0),
                vr(Var::SRef),
                vr(Var::MaxSubstepSize),
            ],
            // A small s_ref keeps n > 1 stiff at the millimetre penetrations of these runs.
            &[
                self.c,
                self.d,
                self.n,
                self.s_rel0,
                1e-3,
                self.max_substep_size,
            ],
        ));
        ok(inst.set_integer(
            &[vr(Var::AccelerationEstimate)],
            &[self.acceleration_estimate],
        ));
    }
}

#[derive(Clone, Copy, Debug)]
struct Scenario {
    left: GapSettings,
    right: GapSettings,
    wall_amplitude: f64,
    wall_omega: f64,
    start_velocity: f64,
    logging: bool,
    input_derivatives: bool,
}

impl Scenario {
    fn nth(k: usize) -> Scenario {
        let x = k as f64;
        Scenario {
            left: GapSettings::nth(k),
            right: GapSettings::nth((k + 3) % 8),
            wall_amplitude: 5e-3 + 4e-4 * x,
            wall_omega: 2.0 * PI * (2.0 + 0.6 * x),
            start_velocity: 0.1 + 0.05 * x,
            logging: k % 2 == 1,
            input_derivatives: k % 4 < 2,
        }
    }

    /// Position, velocity and acceleration of the left wall.
    fn wall(&self, t: f64) -> [f64; 3] {
        let (a, w) = (self.wall_amplitude, self.wall_omega);
        let (sin, cos) = (w * t).sin_cos();
        [-LEFT_WALL + a * sin, a * w * cos, -a * w * w * sin]
    }
}

/// What a run leaves to compare.
#[derive(Debug)]
struct Trace {
    /// A digest of every output of both gaps and the master's state, per step.
    step_digests: Vec<u64>,
    /// Every output of the left then the right gap after the last step, and the mass's position
    /// and velocity, as bit patterns.
    final_state: Vec<u64>,
    /// Contacts started (seen at communication points) on the left and right gap.
    contacts: [usize; 2],
    /// The messages the two instances logged, in order.
    logs: Vec<String>,
}

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// Mixes one word into a running digest (FNV-1a over the word's bytes).
fn mix(digest: u64, word: u64) -> u64 {
    word.to_le_bytes().iter().fold(digest, |h, byte| {
        (h ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Every output of `inst` as bits, `contact` last (0 or 1).
fn outputs(inst: &mut Instance, reals: &[u32], contact: u32) -> Vec<u64> {
    let (status, values) = inst.get_real(reals);
    ok(status);
    let (status, flag) = inst.get_boolean(&[contact]);
    ok(status);
    let mut bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
    bits.push(u64::from(flag[0]));
    bits
}

/// The outputs of both gaps and the mass's position and velocity, as bit patterns.
fn state(rows: &[Vec<u64>; 2], x: f64, v: f64) -> Vec<u64> {
    let mut words = rows.concat();
    words.extend([x.to_bits(), v.to_bits()]);
    words
}

fn instance(fmu: &Arc<Fmu>, name: &str, settings: &GapSettings, logging: bool) -> Instance {
    let options = InstantiateOptions {
        logging_on: logging,
        ..InstantiateOptions::named(name)
    };
    let mut inst = Instance::instantiate(fmu, &options)
        .unwrap_or_else(|f| panic!("fmi2Instantiate({name}) failed: {:?}", f.logs));
    settings.apply(&mut inst);
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    inst
}

/// The co-simulation of run `k`: mass `x, v` at `flange_b` of the left gap and `flange_a` of the
/// right one; it feels `-f` of the left gap and `+f` of the right one (MSL sign convention).
fn simulate(fmu: &Arc<Fmu>, k: usize, scenario: &Scenario) -> Trace {
    let mut gaps =
        [("left", &scenario.left), ("right", &scenario.right)].map(|(side, settings)| {
            instance(fmu, &format!("run {k} {side}"), settings, scenario.logging)
        });
    let inputs = INPUTS.map(vr);
    let velocity_inputs = VELOCITY_INPUTS.map(vr);
    let reals = OUTPUT_REALS.map(vr);
    let contact = vr(Var::Contact);
    let f_mean = OUTPUT_REALS
        .iter()
        .position(|v| *v == Var::FMean)
        .expect("f_mean is recorded");

    let (mut x, mut v, mut a) = (0.0f64, scenario.start_velocity, 0.0f64);
    let mut in_contact = [false; 2];
    let mut contacts = [0; 2];
    let mut step_digests = Vec::with_capacity(STEPS);
    let mut rows: [Vec<u64>; 2] = Default::default();
    for step in 0..STEPS {
        let t = step as f64 * STEP;
        let [wall_s, wall_v, wall_a] = scenario.wall(t);
        let motions = [[wall_s, wall_v, x, v], [x, v, RIGHT_WALL, 0.0]];
        let accelerations = [[wall_a, a], [a, 0.0]];
        for (side, gap) in gaps.iter_mut().enumerate() {
            ok(gap.set_real(&inputs, &motions[side]));
            if scenario.input_derivatives {
                ok(gap.set_real_input_derivatives(&velocity_inputs, &[1, 1], &accelerations[side]));
            }
            let status = gap.do_step(t, STEP, true);
            assert_eq!(status, Status::Ok, "run {k} step {step}");
            rows[side] = outputs(gap, &reals, contact);
            let now = rows[side][OUTPUT_REALS.len()] == 1;
            contacts[side] += usize::from(now && !in_contact[side]);
            in_contact[side] = now;
        }

        // Semi-implicit Euler under the mean forces of the step just taken.
        let force = -f64::from_bits(rows[0][f_mean]) + f64::from_bits(rows[1][f_mean])
            - SPRING * x
            - DRAG * v;
        a = force / MASS;
        v += STEP * a;
        x += STEP * v;
        assert!(x.abs() < 1.0, "run {k} diverged at step {step}: x = {x}");

        step_digests.push(state(&rows, x, v).into_iter().fold(FNV_OFFSET_BASIS, mix));
    }
    let final_state = state(&rows, x, v);
    let logs = gaps
        .iter()
        .flat_map(Instance::logs)
        .map(|r| {
            format!(
                "{:?} {:?} {:?} {}",
                r.instance_name, r.status, r.category, r.message
            )
        })
        .collect();
    Trace {
        step_digests,
        final_state,
        contacts,
        logs,
    }
}

#[test]
fn eight_threads_reproduce_the_sequential_runs_bit_for_bit() {
    let fmu = Fmu::load_default();
    let scenarios: Vec<Scenario> = (0..THREADS).map(Scenario::nth).collect();

    let started = Instant::now();
    let sequential: Vec<Trace> = scenarios
        .iter()
        .enumerate()
        .map(|(k, scenario)| simulate(&fmu, k, scenario))
        .collect();
    let sequential_seconds = started.elapsed().as_secs_f64();

    let started = Instant::now();
    // All threads instantiate, initialize and step at the same time.
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = scenarios
        .iter()
        .enumerate()
        .map(|(k, scenario)| {
            let (fmu, start, scenario) = (Arc::clone(&fmu), Arc::clone(&start), *scenario);
            thread::Builder::new()
                .name(format!("run {k}"))
                .spawn(move || {
                    start.wait();
                    simulate(&fmu, k, &scenario)
                })
                .expect("a thread")
        })
        .collect();
    let parallel: Vec<Trace> = handles
        .into_iter()
        .map(|h| h.join().expect("a run thread panicked"))
        .collect();
    let parallel_seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{THREADS} runs of {STEPS} steps (2 instances each): {sequential_seconds:.2} s one after \
         another, {parallel_seconds:.2} s on {THREADS} threads"
    );

    for (k, alone) in sequential.iter().enumerate() {
        eprintln!(
            "run {k}: {:?} contacts (left, right), {} log messages",
            alone.contacts,
            alone.logs.len(),
        );
    }
    for (k, (alone, threaded)) in sequential.iter().zip(&parallel).enumerate() {
        assert!(
            alone.contacts.iter().all(|&n| n >= MIN_CONTACTS),
            "run {k} has only {:?} contacts (left, right)",
            alone.contacts
        );
        assert_eq!(
            !alone.logs.is_empty(),
            scenarios[k].logging,
            "run {k}: contact events are logged exactly when logging is on"
        );
        let first_difference = alone
            .step_digests
            .iter()
            .zip(&threaded.step_digests)
            .position(|(a, b)| a != b);
        assert_eq!(
            first_difference, None,
            "run {k}: the step at which its thread first differs from the sequential run"
        );
        assert_eq!(
            alone.final_state, threaded.final_state,
            "run {k}: final outputs"
        );
        assert_eq!(alone.logs, threaded.logs, "run {k}: log messages");
        assert_eq!(alone.contacts, threaded.contacts, "run {k}: contacts");
    }

    // Each run follows its own settings: were they ignored, the runs could match their twins all
    // the same.
    for k in 0..THREADS {
        for j in 0..k {
            assert_ne!(
                sequential[j].final_state, sequential[k].final_state,
                "runs {j} and {k} end in the same state"
            );
        }
    }
}

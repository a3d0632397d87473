//! The behaviour trace: a broad set of runs through the packaged FMU whose every output is kept,
//! bit for bit, as one hash per run in `tests/data/trace.txt`. A change meant to move code and
//! not behaviour must leave every hash as it was:
//! `cargo test --release --test trace`. After a change that is meant to alter behaviour, write
//! the file anew with `TRACE_WRITE=1 cargo test --release --test trace` and say why in the commit.
//!
//! The runs: bodies alone, under gravity, on a driven spring and with a second body behind, under
//! the three masters, for every force law (and the Gap Force's table), `m_eff` 0, right and off,
//! `heldForce` Auto and told, reading the held force only or every output, with and without
//! friction on a prescribed slip; the MSL example under every coupling of the demo and as Model
//! Exchange (Dormand–Prince with event location); the classic stick–slip under the three masters;
//! and every fuzz seed of `fmi2DeSerializeFMUstate`, stepped after it is restored. Each run ends
//! with its state as `fmi2SerializeFMUstate` writes it.

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fmi_sys::fmi2;
use support::cosim::{run_demo, Coupling, DemoOptions};
use support::laws::LawCase;
use support::random::Random;
use support::stick_slip::{Order, OSCILLATOR};
use support::{Fmu, FmuState, Instance, Status, VarType};

/// FNV-1a over 64 bits: enough to tell two traces apart, with no dependency.
#[derive(Clone, Copy)]
struct Hash(u64);

impl Hash {
    fn new() -> Hash {
        Hash(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn f64(&mut self, value: f64) {
        self.bytes(&value.to_bits().to_le_bytes());
    }

    fn status(&mut self, status: Status) {
        self.bytes(&status.raw().to_le_bytes());
    }
}

/// What one run left: its hash and how many values went into it.
struct Trace {
    hash: Hash,
    values: usize,
}

impl Trace {
    fn new() -> Trace {
        Trace {
            hash: Hash::new(),
            values: 0,
        }
    }

    fn value(&mut self, value: f64) {
        self.hash.f64(value);
        self.values += 1;
    }

    fn status(&mut self, status: Status) {
        self.hash.status(status);
        self.values += 1;
    }

    fn text(&mut self, text: &str) {
        self.hash.bytes(text.as_bytes());
        self.values += 1;
    }

    fn line(&self, name: &str) -> String {
        format!("{name} {:016x} {}", self.hash.0, self.values)
    }
}

/// Every Real output and local, and `contact`, of the instance.
struct Recorder {
    reals: Vec<u32>,
    contact: u32,
}

impl Recorder {
    fn new(inst: &Instance) -> Recorder {
        let md = &inst.fmu().model_description;
        let reals = md
            .variables
            .iter()
            .filter(|v| v.var_type == VarType::Real)
            .filter(|v| v.causality == "output" || v.causality == "local")
            // The event indicators' variables are the indicator vector the Model Exchange runs
            // step on; recorded here they would only repeat it.
            .filter(|v| !v.name.starts_with("eventIndicator."))
            .map(|v| v.value_reference)
            .collect();
        Recorder {
            reals,
            contact: inst.vr("contact", VarType::Boolean),
        }
    }

    fn record(&self, inst: &mut Instance, trace: &mut Trace) {
        let (status, values) = inst.get_real(&self.reals);
        trace.status(status);
        values.into_iter().for_each(|v| trace.value(v));
        let (status, contact) = inst.get_boolean(&[self.contact]);
        trace.status(status);
        trace.value(if contact.first() == Some(&true) {
            1.0
        } else {
            0.0
        });
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Lone,
    Gravity,
    Driven,
    Partner,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Master {
    GapFirst,
    BodiesFirst,
    Jacobi,
}

/// One body at flange_b (flange_a held at 0), approaching the stop at `s_rel < 0`, with what
/// else acts on it.
#[derive(Clone, Copy, Debug)]
struct Plant {
    kind: Kind,
    mass: f64,
    x: f64,
    v: f64,
    /// Gravity toward the stop, or the spring's stiffness (driven, partner).
    g: f64,
    k: f64,
    drive: f64,
    omega: f64,
    partner: (f64, f64),
}

impl Plant {
    /// The body's and the partner's accelerations with the force `held` at flange_b.
    fn accelerations(&self, t: f64, s: [f64; 4], held: f64) -> (f64, f64) {
        let [x, _, x2, _] = s;
        let external = match self.kind {
            Kind::Lone => 0.0,
            Kind::Gravity => -self.g * self.mass,
            Kind::Driven => -self.k * (x - self.x) + self.drive * (self.omega * t).sin(),
            Kind::Partner => self.k * (x2 - x - (self.partner.0 - self.x)),
        };
        let partner = -self.k * (x2 - x - (self.partner.0 - self.x)) / self.mass;
        ((external - held) / self.mass, partner)
    }

    /// RK4 over `h` in ten substeps under the held force.
    fn advance(&self, t: f64, s: [f64; 4], held: f64, h: f64) -> [f64; 4] {
        let f = |t: f64, s: [f64; 4]| {
            let (a, a2) = self.accelerations(t, s, held);
            [
                s[1],
                a,
                s[3],
                if self.kind == Kind::Partner { a2 } else { 0.0 },
            ]
        };
        let dt = h / 10.0;
        let mut s = s;
        for i in 0..10 {
            let t = t + i as f64 * dt;
            let k1 = f(t, s);
            let at = |k: [f64; 4], c: f64| std::array::from_fn(|j| s[j] + c * dt * k[j]);
            let k2 = f(t + 0.5 * dt, at(k1, 0.5));
            let k3 = f(t + 0.5 * dt, at(k2, 0.5));
            let k4 = f(t + dt, at(k3, 1.0));
            s = std::array::from_fn(|j| s[j] + dt / 6.0 * (k1[j] + 2.0 * (k2[j] + k3[j]) + k4[j]));
        }
        s
    }
}

/// One co-simulation run of a plant and the gap.
struct Run {
    plant: Plant,
    master: Master,
    settings: Vec<(&'static str, f64)>,
    table: bool,
    every: bool,
    friction: bool,
    h: f64,
    steps: usize,
}

impl Run {
    fn trace(&self, fmu: &Arc<Fmu>) -> Trace {
        let mut trace = Trace::new();
        let mut inst = Instance::new(fmu, "trace");
        let recorder = Recorder::new(&inst);
        for (name, value) in &self.settings {
            trace.status(inst.set_by_name(name, *value));
        }
        if self.table {
            trace.status(inst.set_string(
                &[inst.vr("tableFile", VarType::String)],
                &["gap_force_example.json"],
            ));
        }
        trace.status(inst.setup_experiment(None, 0.0, None));
        trace.status(inst.enter_initialization_mode());
        let mut s = [
            self.plant.x,
            self.plant.v,
            self.plant.partner.0,
            self.plant.partner.1,
        ];
        self.set_inputs(&mut inst, 0.0, s, &mut trace);
        trace.status(inst.exit_initialization_mode());
        let held_name = if self.master == Master::Jacobi {
            "f_next"
        } else {
            "f_mean"
        };
        let held_vr = inst.vr(held_name, VarType::Real);
        let mut held = 0.0;
        for k in 0..self.steps {
            let t = k as f64 * self.h;
            if self.master == Master::Jacobi {
                let (status, v) = inst.get_real(&[held_vr]);
                trace.status(status);
                held = v[0];
            }
            if self.master == Master::BodiesFirst {
                s = self.plant.advance(t, s, held, self.h);
            }
            if self.master != Master::BodiesFirst || k > 0 {
                self.set_inputs(&mut inst, t, s, &mut trace);
            }
            let status = inst.do_step(t, self.h, true);
            trace.status(status);
            if !matches!(status, Status::Ok | Status::Warning) {
                break;
            }
            if self.master != Master::Jacobi {
                let (status, v) = inst.get_real(&[held_vr]);
                trace.status(status);
                held = v[0];
            }
            if self.every {
                recorder.record(&mut inst, &mut trace);
            } else {
                for name in ["E_port", "E_loss", "m_eff_estimate"] {
                    trace.value(inst.real(name));
                }
            }
            if self.master != Master::BodiesFirst {
                s = self.plant.advance(t, s, held, self.h);
            }
            s.iter().for_each(|v| trace.value(*v));
        }
        recorder.record(&mut inst, &mut trace);
        serialized(&mut inst, &mut trace);
        trace
    }

    fn set_inputs(&self, inst: &mut Instance, t: f64, s: [f64; 4], trace: &mut Trace) {
        for (name, value) in [("flange_b.s", s[0]), ("flange_b.v", s[1])] {
            trace.status(inst.set_by_name(name, value));
        }
        if self.friction {
            trace.status(inst.set_by_name("v_tx", 0.3 * (7.0 * t).cos()));
            trace.status(inst.set_by_name("v_ty", 0.1 * (3.0 * t).sin()));
        }
    }
}

/// The instance's state as `fmi2SerializeFMUstate` writes it: the format must not move either.
fn serialized(inst: &mut Instance, trace: &mut Trace) {
    let mut state = FmuState::null();
    trace.status(inst.get_fmu_state(&mut state));
    let (status, bytes) = inst.serialize_fmu_state(&state);
    trace.status(status);
    trace.hash.bytes(&bytes);
    trace.values += 1;
    trace.status(inst.free_fmu_state(&mut state));
}

/// Every law the FMU has, with parameters that exercise it.
fn laws() -> Vec<(LawCase, f64)> {
    vec![
        (LawCase::ElastoGap, 1.0),
        (LawCase::SpringDamper, 1.0),
        (LawCase::NoPulling, 1.0),
        (LawCase::HuntCrossley { e: 0.6 }, 1.5),
        (LawCase::AdamsImpact { d_max: 1e-3 }, 1.5),
        (LawCase::RecurDynPower { n_d: 1.0, rdf: 0.5 }, 1.5),
        (
            LawCase::RecurDynStep {
                d_max: 1e-3,
                rdf: 1.0,
            },
            1.0,
        ),
        (LawCase::GapForce { n_v: 1.0 }, 1.5),
    ]
}

/// The seeded co-simulation runs.
fn runs() -> Vec<(String, Run)> {
    let mut rng = Random(0x0036_7ace);
    let masters = [Master::GapFirst, Master::BodiesFirst, Master::Jacobi];
    let kinds = [Kind::Lone, Kind::Gravity, Kind::Driven, Kind::Partner];
    let mut runs = Vec::new();
    for (i, (law, n)) in laws().into_iter().enumerate() {
        for (j, kind) in kinds.into_iter().enumerate() {
            let mass = rng.log_uniform(0.1, 10.0);
            let c = rng.log_uniform(1e4, 1e7);
            let d = 2.0 * rng.log_uniform(0.02, 0.5) * (c * mass).sqrt();
            let t_c = std::f64::consts::PI * (mass / c).sqrt();
            let h = t_c * rng.log_uniform(0.005, 20.0);
            let v = -rng.log_uniform(0.1, 3.0);
            let k = mass * (2.0 * std::f64::consts::PI / (30.0 * h)).powi(2);
            let plant = Plant {
                kind,
                mass,
                x: -v * h * (0.5 + 2.0 * rng.unit()),
                v,
                g: 9.81,
                k,
                drive: 0.2 * c * (v * h).abs(),
                omega: (k / mass).sqrt() * (0.9 + 0.2 * rng.unit()),
                partner: (0.0, 0.0),
            };
            let plant = Plant {
                partner: (plant.x + 0.05, v),
                ..plant
            };
            let m_eff = [0.0, mass, 2.0 * mass, 0.5 * mass][(i + j) % 4];
            let held = [1.0, 1.0, 2.0, 3.0][(i + 2 * j) % 4];
            for (l, master) in masters.into_iter().enumerate() {
                let mut settings = vec![("c", c), ("d", d), ("n", n), ("m_eff", m_eff)];
                settings.extend(law.settings());
                let told = held != 1.0 && (master == Master::Jacobi) == (held == 3.0);
                settings.push(("heldForce", if told { held } else { 1.0 }));
                let friction = (i + j + l) % 3 == 0;
                if friction {
                    settings.extend([("frictionLaw", 1.0 + (i % 2) as f64), ("mu_s", 0.4)]);
                    settings.extend([("mu_d", 0.3), ("v_s", 0.01), ("v_d", 0.05)]);
                }
                let name = format!("cosim-{i}-{kind:?}-{master:?}");
                runs.push((
                    name,
                    Run {
                        plant,
                        master,
                        settings,
                        table: false,
                        every: (i + j + l) % 2 == 0,
                        friction,
                        h,
                        steps: 80,
                    },
                ));
            }
        }
    }
    runs.extend(prescribed_and_table(&mut rng));
    runs
}

/// A prescribed motion (`heldForce` = None), a body pressed at rest, and the Gap Force's table.
fn prescribed_and_table(rng: &mut Random) -> Vec<(String, Run)> {
    let plant = Plant {
        kind: Kind::Lone,
        mass: 1.0,
        x: 0.002,
        v: -0.5,
        g: 0.0,
        k: 0.0,
        drive: 0.0,
        omega: 0.0,
        partner: (0.0, 0.0),
    };
    let mut runs = Vec::new();
    for (name, settings, table) in [
        (
            "prescribed",
            vec![("c", 1e5), ("d", 50.0), ("heldForce", 4.0)],
            false,
        ),
        ("table", vec![("forceLaw", 7.0)], true),
        (
            "gravity-resting",
            vec![("c", 1e6), ("d", 200.0), ("m_eff", 1.0)],
            false,
        ),
    ] {
        for master in [Master::GapFirst, Master::Jacobi] {
            let h = 1e-3 * (1.0 + rng.unit());
            let plant = if name == "gravity-resting" {
                Plant {
                    kind: Kind::Gravity,
                    x: -1e-5,
                    v: 0.0,
                    g: 9.81,
                    ..plant
                }
            } else {
                plant
            };
            runs.push((
                format!("{name}-{master:?}"),
                Run {
                    plant,
                    master,
                    settings: settings.clone(),
                    table,
                    every: true,
                    friction: false,
                    h,
                    steps: 60,
                },
            ));
        }
    }
    runs
}

/// The MSL example under every coupling of the demo, co-simulated and as Model Exchange.
fn demo_traces(fmu: &Arc<Fmu>, traces: &mut BTreeMap<String, Trace>) {
    let couplings = [
        Coupling::Best,
        Coupling::MeanForce,
        Coupling::Naive,
        Coupling::Jacobi,
        Coupling::ModelExchange,
    ];
    for coupling in couplings {
        for (m_eff, step) in [(0.0, 0.01), (1.0, 0.002)] {
            let options = DemoOptions {
                step,
                coupling,
                m_eff,
                ..DemoOptions::default()
            };
            let mut trace = Trace::new();
            match run_demo(fmu, &options) {
                Ok(run) => trace.text(&format!("{:?} {:?}", run.rows, run.m_eff_estimates)),
                Err(message) => trace.text(&message),
            }
            traces.insert(format!("demo-{coupling:?}-m_eff{m_eff}"), trace);
        }
    }
}

/// The classic stick–slip under the three orderings.
fn stick_slip_traces(fmu: &Arc<Fmu>, traces: &mut BTreeMap<String, Trace>) {
    for order in [Order::GapFirst, Order::BodiesFirst, Order::Jacobi] {
        let run = OSCILLATOR.cosimulate(fmu, 1e-3, 3.0, order);
        let mut trace = Trace::new();
        trace.text(&format!("{run:?}"));
        traces.insert(format!("stick-slip-{order:?}"), trace);
    }
}

/// Every fuzz seed of `fmi2DeSerializeFMUstate`, restored into a running instance and stepped.
fn fuzz_seed_traces(fmu: &Arc<Fmu>, traces: &mut BTreeMap<String, Trace>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/deserialize_state");
    let mut seeds: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the fuzz corpus is in the repository")
        .map(|entry| entry.expect("a readable corpus entry").path())
        .collect();
    seeds.sort();
    for seed in seeds {
        let bytes = std::fs::read(&seed).expect("a readable seed");
        let mut trace = Trace::new();
        let mut inst = Instance::new(fmu, "trace");
        let recorder = Recorder::new(&inst);
        trace.status(inst.setup_experiment(None, 0.0, None));
        trace.status(inst.enter_initialization_mode());
        trace.status(inst.exit_initialization_mode());
        trace.status(inst.do_step(0.0, 1e-3, true));
        let mut state = FmuState::null();
        trace.status(inst.deserialize_fmu_state(&bytes, &mut state));
        trace.status(inst.set_fmu_state(&state));
        for h in [1e-4, 1e-3, 1e-2] {
            let (status, t) = inst.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
            trace.status(status);
            trace.status(inst.do_step(t, h, true));
            recorder.record(&mut inst, &mut trace);
        }
        trace.status(inst.free_fmu_state(&mut state));
        serialized(&mut inst, &mut trace);
        let name = seed.file_name().unwrap().to_string_lossy().into_owned();
        traces.insert(format!("fuzz-{name}"), trace);
    }
}

fn all_traces() -> BTreeMap<String, Trace> {
    let fmu = Fmu::load_default();
    let mut traces = BTreeMap::new();
    for (name, run) in runs() {
        traces.insert(name, run.trace(&fmu));
    }
    demo_traces(&fmu, &mut traces);
    stick_slip_traces(&fmu, &mut traces);
    fuzz_seed_traces(&fmu, &mut traces);
    traces
}

fn trace_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/trace.txt")
}

#[test]
fn every_traced_run_gives_the_recorded_bits() {
    let traces = all_traces();
    let mut text = String::from("# run, FNV-1a 64 of its outputs' bits, values hashed\n");
    for (name, trace) in &traces {
        writeln!(text, "{}", trace.line(name)).unwrap();
    }
    if std::env::var("TRACE_WRITE").is_ok_and(|v| v == "1") {
        std::fs::write(trace_file(), &text).expect("tests/data is writable");
        return;
    }
    let recorded = std::fs::read_to_string(trace_file()).expect("tests/data/trace.txt");
    let recorded: BTreeMap<&str, &str> = recorded
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .collect();
    let differing: Vec<String> = traces
        .iter()
        .filter(|(name, trace)| {
            recorded.get(name.as_str()).copied() != trace.line(name).split_once(' ').map(|p| p.1)
        })
        .map(|(name, trace)| trace.line(name))
        .collect();
    assert_eq!(
        recorded.len(),
        traces.len(),
        "the trace file lists other runs than the test makes"
    );
    assert!(
        differing.is_empty(),
        "{} of {} runs differ from tests/data/trace.txt:\n{}",
        differing.len(),
        traces.len(),
        differing.join("\n")
    );
}

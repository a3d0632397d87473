//! `benches/c/master.c`, a co-simulation master in C that drives the packaged binary as an
//! importer does (dlopen, set, step, get, the body moved under the force it holds), compiled with
//! the system's `cc` and run at a smoke size: every configuration a master uses (heldForce None,
//! Auto with and without a mass, FMean, FNext) in every kind of step (free, resting, and a
//! bouncing body's flights, approaches and contacts) runs without a failed call or a non-finite
//! motion, and reports its nanoseconds per step. The timings are printed, not judged;
//! `C_MASTER_STEPS=<n>` runs n steps per scenario (docs/performance.md).

mod support;

use std::path::Path;
use std::process::Command;

use elastogap::variables::{by_var, Var};
use support::Fmu;

/// Steps per scenario at the smoke size.
const SMOKE_STEPS: usize = 3000;
const CONFIGURATIONS: [&str; 5] = ["None", "Auto_m0", "Auto_m1", "FMean_m1", "FNext_m1"];
const KINDS: [&str; 5] = ["free", "resting", "flight", "contact", "approach"];

fn value_reference(var: Var) -> String {
    by_var(var).value_reference.to_string()
}

#[test]
fn the_c_master_runs_every_configuration_of_the_packaged_binary() {
    let steps = std::env::var("C_MASTER_STEPS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(SMOKE_STEPS);
    let fmu = Fmu::load_default();
    let out = tempfile::tempdir().expect("a temporary directory");
    let program = out.path().join("master");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/c/master.c");
    let compiled = Command::new("cc")
        .args([
            "-std=c99",
            "-D_POSIX_C_SOURCE=199309L",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .args(["-ldl", "-lm"])
        .output()
        .expect("run the system C compiler `cc`");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let library = fmu.dir().join(support::fmu::binary_path_in_archive(
        &fmu.model_description.model_identifier,
    ));
    let references = [
        Var::FlangeBS,
        Var::FlangeBV,
        Var::FMean,
        Var::FNext,
        Var::C,
        Var::D,
        Var::MEff,
        Var::HeldForce,
    ]
    .map(value_reference);
    let run = Command::new(&program)
        .arg(&library)
        .arg(&fmu.model_description.guid)
        .arg(fmu.resource_uri())
        .arg(steps.to_string())
        .args(references)
        .output()
        .expect("run the C master");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}\n{}",
        stdout,
        String::from_utf8_lossy(&run.stderr)
    );
    println!("{stdout}");
    for configuration in CONFIGURATIONS {
        for kind in KINDS {
            let line = stdout
                .lines()
                .find(|l| l.starts_with(&format!("{configuration} {kind} ")))
                .unwrap_or_else(|| panic!("no {configuration} {kind} line in\n{stdout}"));
            let fields: Vec<&str> = line.split_whitespace().collect();
            let ns: f64 = fields[2].parse().expect("ns per step");
            let steps: usize = fields[3].parse().expect("steps");
            assert!(ns.is_finite() && steps > 0, "{line}");
        }
    }
}

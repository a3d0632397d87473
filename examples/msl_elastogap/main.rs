//! `Modelica.Mechanics.Translational.Examples.ElastoGap` (MSL 4.1) with the two ElastoGaps as two
//! instances of the packaged FMU; the masses and SpringDampers are integrated by this master. By
//! default a co-simulation (`tests/support/cosim.rs`); `--coupling model-exchange` imports the FMU
//! as Model Exchange under an adaptive integrator with event location
//! (`tests/support/model_exchange.rs`), `--step` then being the output interval.
//!
//! ```text
//! cargo run --release --example msl_elastogap -- --fmu target/fmu/ElastoGap.fmu --out out/ \
//!     [--step 0.01] [--coupling best|mean|naive|jacobi|model-exchange] [--m-eff KG]
//!     [--reference ../shared/msl/ElastoGap/ElastoGap.csv] [--force-law N] [--laws-figure]
//!     [--fmi3 target/fmu/ElastoGap3.fmu [--no-early-return] [--no-event-mode]]
//! ```
//! Writes `<out>/ElastoGap_cosim.csv` and `<out>/ElastoGap_cosim.svg` (`ElastoGap_me.*` with
//! Model Exchange, `ElastoGap_meff.*` with `--m-eff`, `ElastoGap_jacobi.*` /
//! `ElastoGap_meff_jacobi.*` with `--coupling jacobi`). With `--reference`, prints
//! the largest deviation of each MSL comparison signal and exits with status 1 if one leaves the
//! MSL tube (2e-3). Status 2: bad arguments or a failed FMU call.
//!
//! `--fmi3 ElastoGap3.fmu` runs the example through the FMI 3.0 FMU as well
//! (`tests/support/cosim3.rs`: its steps return early at the contact's start and end and take the
//! switch in event mode) and plots it beside the FMI 2.0 run under the same Gauss–Seidel master
//! (`f_mean` held, no input derivatives, as FMI 3.0 has none) and the reference, the early returns
//! marked (`<out>/ElastoGap_fmi3.csv`, `<out>/ElastoGap_fmi3.svg`). With `--reference`, the FMI 3.0
//! run is the one compared with the tube.
//!
//! `--laws-figure` draws the figure of the MSL ElastoGap documentation instead: the example run
//! with `forceLaw` SpringDamper, NoPulling and ElastoGap, the force of elastoGap1 of each in one
//! plot (`<out>/ElastoGap_laws.csv`, `<out>/ElastoGap_laws.svg`).

#[path = "../../tests/support/mod.rs"]
mod support;

mod fmi3;
mod plot;

use std::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use fmi3::fmi3_demo;
use plot::{laws_figure, plot};
use support::cosim::{self, Coupling, DemoOptions, DemoRun, TimeSeries, COMPARISON_SIGNALS, TUBE};
use support::Fmu;

const USAGE: &str = "\
usage: msl_elastogap [--fmu FILE.fmu] [--out DIR] [--step SECONDS] [--m-eff KG]
                     [--coupling best|mean|naive|jacobi|model-exchange] [--reference MSL.csv]
                     [--force-law N] [--laws-figure]
                     [--fmi3 FILE.fmu [--no-early-return] [--no-event-mode]]

  --fmu        the ElastoGap FMU (default: $ELASTOGAP_FMU or target/fmu/ElastoGap.fmu)
  --out        output directory (default: out)
  --step       communication step in s (default: 0.01); the output interval with model-exchange
  --coupling   best: Gauss-Seidel, input derivatives, mean forces f_mean (default)
               mean: mean forces f_mean, the FMU estimating the acceleration itself
               naive: forces f at the start of each step held over the step
               jacobi: all units stepped at once (OMSimulator's default); mass2 holds over
                 each step the forces f_next the gaps output before it
               model-exchange: the gaps imported as Model Exchange, one adaptive integrator
                 (Dormand-Prince 5(4), rtol 1e-10) that locates the FMUs' events
  --m-eff      the gaps' parameter m_eff in kg (default 0: the FMU estimates it after the first
               contact). mass2 (1 kg) meets each gap against a fixed wall, and never both gaps at
               once, so its effective mass is 1 kg: --m-eff 1 integrates each contact's own
               dynamics inside the step, right at large steps (co-simulation only)
  --reference  MSL reference result; compare the comparison signals with it (tube 2e-3)
  --force-law  the gaps' parameter forceLaw (default 1, ElastoGap: the MSL law of the example)
  --laws-figure
               the figure of the MSL ElastoGap documentation: elastoGap1.f of the example
               with forceLaw 2 SpringDamper (curve 1), 3 NoPulling (2) and 1 ElastoGap (3)
  --fmi3       the FMI 3.0 FMU (ElastoGap3.fmu): run the example through it, its steps returning
               early at the contact's start and end and taking the switch in event mode
               (Gauss-Seidel, f_mean held), and plot it beside the FMI 2.0 run of --fmu (coupling
               mean unless --coupling says otherwise) and the reference: ElastoGap_fmi3.*
  --no-early-return, --no-event-mode
               the FMI 3.0 run without early return (its steps are FMI 2.0's) or without event
               mode (the switch is taken by the next step)";

struct Args {
    fmu: PathBuf,
    out: PathBuf,
    options: DemoOptions,
    reference: Option<PathBuf>,
    laws_figure: bool,
    /// `--fmi3`: the FMI 3.0 FMU, and whether `--coupling` was given (else the FMI 2.0 run beside
    /// it holds `f_mean`, as the FMI 3.0 master does).
    fmi3: Option<PathBuf>,
    coupling_given: bool,
    early_return: bool,
    event_mode: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        fmu: support::default_fmu_path(),
        out: PathBuf::from("out"),
        options: DemoOptions::default(),
        reference: None,
        laws_figure: false,
        fmi3: None,
        coupling_given: false,
        early_return: true,
        event_mode: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{key} needs a value"))
        };
        match key.as_str() {
            "--fmu" => args.fmu = PathBuf::from(value()?),
            "--out" => args.out = PathBuf::from(value()?),
            "--step" => {
                let v = value()?;
                let step: f64 = v.parse().map_err(|_| format!("--step {v}: not a number"))?;
                if !(step > 0.0 && step <= cosim::STOP_TIME) {
                    return Err(format!(
                        "--step {v}: must be in (0, {}] s",
                        cosim::STOP_TIME
                    ));
                }
                args.options.step = step;
            }
            "--coupling" => {
                args.options.coupling = value()?.parse()?;
                args.coupling_given = true;
            }
            "--fmi3" => args.fmi3 = Some(PathBuf::from(value()?)),
            "--no-early-return" => args.early_return = false,
            "--no-event-mode" => args.event_mode = false,
            "--m-eff" => {
                let v = value()?;
                let m_eff: f64 = v
                    .parse()
                    .map_err(|_| format!("--m-eff {v}: not a number"))?;
                if !(m_eff >= 0.0 && m_eff.is_finite()) {
                    return Err(format!("--m-eff {v}: must be a finite mass >= 0 kg"));
                }
                args.options.m_eff = m_eff;
            }
            "--reference" => args.reference = Some(PathBuf::from(value()?)),
            "--force-law" => {
                let v = value()?;
                args.options.force_law = v
                    .parse()
                    .map_err(|_| format!("--force-law {v}: not an integer"))?;
            }
            "--laws-figure" => args.laws_figure = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Ok(false): a comparison signal left the tube.
fn run(args: &Args) -> Result<bool, Box<dyn Error>> {
    let fmu = std::sync::Arc::new(
        Fmu::open(&args.fmu).map_err(|e| format!("cannot load {}: {e}", args.fmu.display()))?,
    );
    let missing = fmu.missing_functions();
    if !missing.is_empty() {
        return Err(format!("the FMU lacks FMI 2.0 functions: {}", missing.join(", ")).into());
    }
    if args.laws_figure {
        laws_figure(&fmu, args)?;
        return Ok(true);
    }
    if let Some(path) = &args.fmi3 {
        return fmi3_demo(&fmu, path, args);
    }
    let reference = args
        .reference
        .as_deref()
        .map(TimeSeries::read_csv)
        .transpose()?;

    let started = std::time::Instant::now();
    let run = cosim::run_demo(&fmu, &args.options)?;
    let elapsed = started.elapsed();

    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let stem = match (args.options.coupling, args.options.m_eff > 0.0) {
        _ if args.options.force_law != 1 => "ElastoGap_law",
        (Coupling::ModelExchange, _) => "ElastoGap_me",
        (Coupling::Jacobi, true) => "ElastoGap_meff_jacobi",
        (Coupling::Jacobi, false) => "ElastoGap_jacobi",
        (_, true) => "ElastoGap_meff",
        (_, false) => "ElastoGap_cosim",
    };
    let csv = args.out.join(format!("{stem}.csv"));
    let svg = args.out.join(format!("{stem}.svg"));
    write_csv(&run, &csv)?;
    plot(&run, reference.as_ref(), &svg).map_err(|e| format!("plot {}: {e}", svg.display()))?;

    let o = &run.options;
    let model_exchange = o.coupling == Coupling::ModelExchange;
    println!(
        "Modelica.Mechanics.Translational.Examples.ElastoGap, {} 0..{} s",
        if model_exchange {
            "Model Exchange"
        } else {
            "co-simulated"
        },
        o.stop_time
    );
    println!(
        "  FMU:       {} ({} {}, two instances: elastoGap1, elastoGap2)",
        args.fmu.display(),
        fmu.model_description.model_name,
        fmu.model_description.guid
    );
    println!(
        "  step:      {} s ({} {}, {:.0} ms wall time)",
        o.step,
        run.rows.len() - 1,
        if model_exchange {
            "output intervals"
        } else {
            "communication steps"
        },
        elapsed.as_secs_f64() * 1e3
    );
    println!(
        "  coupling:  {} ({})",
        o.coupling,
        match o.coupling {
            Coupling::Best =>
                "Gauss-Seidel; mass2's acceleration given as input derivative; mean gap forces f_mean held over each step",
            Coupling::MeanForce =>
                "Gauss-Seidel; mean gap forces f_mean held over each step, from the FMU's own acceleration estimate",
            Coupling::Naive => "gap forces f at the start of each step held over the step; no input derivatives",
            Coupling::Jacobi =>
                "Jacobi, all units stepped at once; the gap forces f_next read before each step held over it",
            Coupling::ModelExchange =>
                "Model Exchange; one Dormand-Prince 5(4) integrator (rtol 1e-10) for the whole system, the FMUs' events located to 1e-13 s",
        }
    );
    if !model_exchange {
        println!(
            "  m_eff:     {}",
            if o.m_eff > 0.0 {
                format!(
                    "{} kg (mass2 against a wall): each step integrates the contact's own dynamics",
                    o.m_eff
                )
            } else {
                "0 (the FMU's default): estimated by the FMU after the first contact".to_string()
            }
        );
        println!(
            "  estimate:  m_eff_estimate {} kg (elastoGap1), {} kg (elastoGap2) at the end",
            run.m_eff_estimates[0], run.m_eff_estimates[1]
        );
    }
    println!("  results:   {}", csv.display());
    println!("  plot:      {}", svg.display());

    let mut inside = true;
    if let (Some(reference), Some(path)) = (&reference, &args.reference) {
        let worst = cosim::max_deviation_from_csv(&run, reference)?;
        println!(
            "Deviation from the reference {} (MSL tube {TUBE}):",
            path.display()
        );
        for (name, (dev, at)) in COMPARISON_SIGNALS.iter().zip(worst) {
            let ok = dev <= TUBE;
            inside &= ok;
            println!(
                "  {name:<20} max |deviation| = {dev:.3e} at t = {at:.3} s  {}",
                if ok { "inside" } else { "OUTSIDE the tube" }
            );
        }
        println!(
            "{}",
            if inside {
                "All comparison signals stay inside the tube."
            } else {
                "FAILED: a comparison signal leaves the tube."
            }
        );
    }
    Ok(inside)
}

fn write_csv(run: &DemoRun, path: &Path) -> Result<(), String> {
    let names = [
        "time",
        "elastoGap1.v_rel",
        "elastoGap2.s_rel",
        "springDamper1.v_rel",
        "springDamper2.s_rel",
        "mass1.s",
        "mass1.v",
        "mass2.s",
        "mass2.v",
        "elastoGap1.f",
        "elastoGap2.f",
        "elastoGap1.f_mean",
        "elastoGap2.f_mean",
        "elastoGap1.contact",
        "elastoGap2.contact",
        "elastoGap1.E_loss",
        "elastoGap2.E_loss",
        "springDamper1.f",
        "springDamper2.f",
    ];
    let mut text = String::new();
    let header: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    text.push_str(&header.join(","));
    text.push('\n');
    for r in &run.rows {
        let c = r.comparison();
        let values = [
            r.time,
            c[0],
            c[1],
            c[2],
            c[3],
            r.x1,
            r.v1,
            r.x2,
            r.v2,
            r.gap1.f,
            r.gap2.f,
            r.gap1.f_mean,
            r.gap2.f_mean,
            f64::from(u8::from(r.gap1.contact)),
            f64::from(u8::from(r.gap2.contact)),
            r.gap1.e_loss,
            r.gap2.e_loss,
            r.spring_damper1_f(),
            r.spring_damper2_f(),
        ];
        let line: Vec<String> = values.iter().map(|v| format!("{v}")).collect();
        writeln!(text, "{}", line.join(",")).expect("write to String");
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

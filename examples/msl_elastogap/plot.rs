//! The plots of the co-simulation and of the MSL documentation's figure (`--laws-figure`), and
//! the chart helpers every plot of the example uses.

use std::error::Error;
use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::support::cosim::{self, Coupling, DemoOptions, DemoRun, TimeSeries};
use crate::support::Fmu;
use crate::Args;

/// A curve of the plot: its legend and how to read it from a row.
pub(crate) type Signal = (&'static str, fn(&cosim::Row) -> f64);

/// Positions of both masses (with the reference's, dashed, if given) and the two gap forces.
pub(crate) fn plot(
    run: &DemoRun,
    reference: Option<&TimeSeries>,
    path: &Path,
) -> Result<(), Box<dyn Error>> {
    let o = &run.options;
    let stop = o.stop_time;
    let colors = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
    let root = SVGBackend::new(path, (1100, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "MSL Translational.Examples.ElastoGap: 2 ElastoGap FMU instances ({})",
        if o.coupling == Coupling::ModelExchange {
            "Model Exchange, adaptive integrator with event location".to_string()
        } else {
            format!(
                "co-simulation, step {} s, coupling {}{}",
                o.step,
                o.coupling,
                if o.m_eff > 0.0 {
                    format!(", m_eff = {} kg", o.m_eff)
                } else {
                    String::new()
                }
            )
        }
    );
    let root = root.titled(&title, ("sans-serif", 20))?;
    let (upper, lower) = root.split_vertically(390);

    // Positions.
    let mut chart = ChartBuilder::on(&upper)
        .caption("Positions of the masses", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, -2.6..2.0)?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc("position s (m)")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let series: [Signal; 2] = [
        ("mass1.s (between springDamper1 and springDamper2)", |r| {
            r.x1
        }),
        ("mass2.s (between elastoGap1 and elastoGap2)", |r| r.x2),
    ];
    for ((label, get), color) in series.into_iter().zip(colors) {
        draw_curve(
            &mut chart,
            run.rows.iter().map(|r| (r.time, get(r))),
            label,
            color,
            3,
        )?;
    }
    if let Some(reference) = reference {
        // x = 2 m - s_rel of the component between the mass and the right wall.
        for (i, column) in ["springDamper2.s_rel", "elastoGap2.s_rel"]
            .into_iter()
            .enumerate()
        {
            if let Some(values) = reference.column(column) {
                let points: Vec<(f64, f64)> = reference
                    .time
                    .iter()
                    .zip(values)
                    .map(|(&t, &s)| (t, cosim::WALL_RIGHT - s))
                    .collect();
                let style = BLACK.stroke_width(1);
                let drawn = chart.draw_series(DashedLineSeries::new(points, 5, 5, style))?;
                if i == 0 {
                    drawn
                        .label("MSL reference result (Dymola), dashed")
                        .legend(|(x, y)| {
                            PathElement::new(vec![(x, y), (x + 8, y)], BLACK.stroke_width(1))
                        });
                }
            }
        }
    }
    // mass2 touches elastoGap1 below -0.5 m and elastoGap2 above +0.5 m.
    let threshold = RGBColor(0, 150, 80);
    for (i, s) in [-0.5, 0.5].into_iter().enumerate() {
        let drawn = chart.draw_series(DashedLineSeries::new(
            [(0.0, s), (stop, s)],
            3,
            6,
            threshold.stroke_width(1),
        ))?;
        if i == 0 {
            drawn
                .label("mass2 in contact beyond -0.5 m (elastoGap1) / +0.5 m (elastoGap2)")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], threshold.stroke_width(1))
                });
        }
    }
    draw_legend(&mut chart)?;

    let mut chart = force_chart(&lower, &run.rows, stop)?;
    let forces: [Signal; 2] = [
        ("elastoGap1.f (wall at -2 m to mass2)", |r| r.gap1.f),
        ("elastoGap2.f (mass2 to wall at +2 m)", |r| r.gap2.f),
    ];
    for ((label, get), color) in forces.into_iter().zip(colors) {
        draw_curve(
            &mut chart,
            run.rows.iter().map(|r| (r.time, get(r))),
            label,
            color,
            2,
        )?;
    }
    draw_legend(&mut chart)?;
    root.present()?;
    Ok(())
}

/// The curves of the MSL documentation's figure: `forceLaw` and legend.
const LAW_CURVES: [(i32, &str); 3] = [
    (
        2,
        "1: SpringDamper, the unmodified spring/damper: pulls at the end of each contact",
    ),
    (
        3,
        "2: NoPulling, pulling forces set to zero: jumps at touch-down",
    ),
    (1, "3: ElastoGap, the MSL law: continuous, never pulls"),
];

/// The example under each law of [`LAW_CURVES`], and elastoGap1.f of each in one plot.
pub(crate) fn laws_figure(fmu: &std::sync::Arc<Fmu>, args: &Args) -> Result<(), Box<dyn Error>> {
    let mut runs = Vec::new();
    for (force_law, _) in LAW_CURVES {
        let options = DemoOptions {
            force_law,
            ..args.options.clone()
        };
        runs.push(cosim::run_demo(fmu, &options)?);
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let csv = args.out.join("ElastoGap_laws.csv");
    let svg = args.out.join("ElastoGap_laws.svg");
    let mut text = String::from("\"time\"");
    for (force_law, _) in LAW_CURVES {
        write!(text, ",\"elastoGap1.f (forceLaw = {force_law})\"")?;
    }
    text.push('\n');
    for (k, row) in runs[0].rows.iter().enumerate() {
        write!(text, "{}", row.time)?;
        for run in &runs {
            write!(text, ",{}", run.rows[k].gap1.f)?;
        }
        text.push('\n');
    }
    std::fs::write(&csv, text).map_err(|e| format!("cannot write {}: {e}", csv.display()))?;

    let stop = args.options.stop_time;
    let root = SVGBackend::new(&svg, (1100, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "MSL Translational.Examples.ElastoGap: elastoGap1.f under three force laws ({})",
        if args.options.coupling == Coupling::ModelExchange {
            "Model Exchange".to_string()
        } else {
            format!("co-simulation, step {} s", args.options.step)
        }
    );
    let forces = runs
        .iter()
        .flat_map(|run| run.rows.iter().map(|row| row.gap1.f));
    let y_desc = "force f at flange_b (N)";
    let mut chart = force_axes(&root, (&title, 18, 14), y_desc, forces, stop)?;
    let colors = [
        RGBColor(214, 39, 40),
        RGBColor(255, 127, 14),
        RGBColor(31, 119, 180),
    ];
    for ((run, (_, label)), color) in runs.iter().zip(LAW_CURVES).zip(colors) {
        draw_curve(
            &mut chart,
            run.rows.iter().map(|r| (r.time, r.gap1.f)),
            label,
            color,
            2,
        )?;
    }
    draw_legend(&mut chart)?;
    root.present()?;
    println!("The figure of the MSL ElastoGap documentation, elastoGap1.f under three laws:");
    for ((force_law, label), run) in LAW_CURVES.iter().zip(&runs) {
        let most_pulling = run.rows.iter().map(|r| r.gap1.f).fold(0.0, f64::max);
        println!("  forceLaw = {force_law} ({label}): largest pulling force {most_pulling:.3} N");
    }
    println!("  results:   {}", csv.display());
    println!("  plot:      {}", svg.display());
    Ok(())
}

/// A chart of these plots: time or position against a force or position.
pub(crate) type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// The chart of the two gaps' forces over `[0, stop]`, its range padded around every force of
/// `rows`.
pub(crate) fn force_chart<'a, 'b: 'a, 'r>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    rows: impl IntoIterator<Item = &'r cosim::Row>,
    stop: f64,
) -> Result<Chart<'a, 'b>, Box<dyn Error>> {
    let caption = ("Forces of the two ElastoGap FMUs (at flange_b)", 16, 12);
    let forces = rows.into_iter().flat_map(|r| [r.gap1.f, r.gap2.f]);
    force_axes(area, caption, "force f (N)", forces, stop)
}

/// A chart of forces against the time over `[0, stop]`: its caption with the caption's font size
/// and the chart's margin, the force axis `y_desc`, its range padded around every one of
/// `forces` (and 0).
pub(crate) fn force_axes<'a, 'b: 'a>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    (caption, size, margin): (&str, u32, u32),
    y_desc: &str,
    forces: impl IntoIterator<Item = f64>,
    stop: f64,
) -> Result<Chart<'a, 'b>, Box<dyn Error>> {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for f in forces {
        lo = lo.min(f);
        hi = hi.max(f);
    }
    let pad = 0.05 * (hi - lo).max(1.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", size))
        .margin(margin)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, (lo - pad)..(hi + pad))?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc(y_desc)
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    Ok(chart)
}

/// One curve with its legend entry.
pub(crate) fn draw_curve<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    points: impl Iterator<Item = (f64, f64)>,
    label: &str,
    color: RGBColor,
    width: u32,
) -> Result<(), Box<dyn Error>> {
    chart
        .draw_series(LineSeries::new(points, color.stroke_width(width)))?
        .label(label)
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(width))
        });
    Ok(())
}

/// The legend, lower right, where every plot here leaves room.
pub(crate) fn draw_legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>) -> Result<(), Box<dyn Error>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

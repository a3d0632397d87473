"""The FMU's icon, its documentation plots and documentation/index.html.

matplotlib draws the icon (PNG) and the plots (SVG files beside index.html); Jinja2 renders
index.html from packaging/templates/index.html (which includes force_laws.html and imports
tables.html). The plots' numbers come from force_samples, which reads them from the built binary.
"""

import io

from . import GLIBC_FLOOR, ROOT, WINDOWS_FLOOR
from .force_samples import (FORCE_PLOT_PARAMETERS, LAW_PLOT_SPRING, LAW_PLOT_TOUCHDOWN_SPEED, sample_force, sample_friction,
                            sample_law_forces)

TEMPLATES = ROOT / "packaging" / "templates"
PLATFORM_NOTES = {
    "linux64": f"x86-64 Linux with glibc {GLIBC_FLOOR} or newer (RHEL/CentOS 7, Ubuntu 18.04 and later)",
    "win64": f"x86-64 {WINDOWS_FLOOR} or later: the floor of Rust's standard library for this target "
             f"(x86_64-pc-windows-gnu), which calls APIs older Windows lacks; needs no DLL besides "
             f"Windows' own",
    "darwin64": "x86-64 macOS",
}
# The same platforms under FMI 3.0's platform tuples.
PLATFORM_NOTES.update({"x86_64-linux": PLATFORM_NOTES["linux64"], "x86_64-windows": PLATFORM_NOTES["win64"],
                       "x86_64-darwin": PLATFORM_NOTES["darwin64"]})
# The FMI 2.0 functions the shared prose names, as FMI 3.0 calls them, for the FMI 3.0 FMU's page.
FMI3_NAMES = {
    "fmi2GetReal": "fmi3GetFloat64",
    "fmi2GetDerivatives": "fmi3GetContinuousStateDerivatives",
    "fmi2NewDiscreteStates": "fmi3UpdateDiscreteStates",
    "fmi2CompletedIntegratorStep": "fmi3CompletedIntegratorStep",
    "fmi2DoStep": "fmi3DoStep",
    "fmi2ExitInitializationMode": "fmi3ExitInitializationMode",
    "fmi2GetContinuousStates": "fmi3GetContinuousStates",
    "fmi2SetContinuousStates": "fmi3SetContinuousStates",
    "fmi2OK": "fmi3OK",
    "fmi2Warning": "fmi3Warning",
}
CURVE_COLORS = ["#c62828", "#ef6c00", "#212121", "#2e7d32", "#1565c0", "#6a1b9a", "#00838f"]
# Pixel sizes of the plots in the page, at 100 dots per inch.
DPI = 100
FORCE_PLOT_SIZE = (720, 430)
LAW_PLOT_SIZE = (720, 330)


def pyplot():
    """matplotlib's pyplot without a display, writing reproducible files: SVG text kept as text
    (searchable, smaller than glyph outlines), element ids from a fixed salt, no dates."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update({
        "svg.fonttype": "none",
        "svg.hashsalt": "elastogap-documentation",
        "font.family": "sans-serif",  # the page's own: matplotlib measures text with its DejaVu Sans
        "font.size": 10,
    })
    import matplotlib.pyplot as plt

    return plt


def draw_icon(size=256, image_format="png"):
    """model.png (and FMI 3.0's terminalsAndIcons/icon.png and icon.svg): flange_a (filled), spring over damper in parallel, a gap, flange_b (open), in
    Modelica's icon coordinates (x, y in [-100, 100], y up)."""
    from matplotlib.patches import Rectangle

    plt = pyplot()
    figure = plt.figure(figsize=(size / DPI, size / DPI), dpi=DPI)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(-100, 100)
    axes.set_ylim(-100, 100)
    axes.set_axis_off()
    points_per_unit = size / 200 * 72 / DPI  # line widths are given in icon units

    def line(points, width=2.5, color="black"):
        xs, ys = zip(*points)
        axes.plot(xs, ys, color=color, linewidth=width * points_per_unit, solid_capstyle="round",
                  solid_joinstyle="round")

    def box(x0, y0, x1, y1, fill, border=None, width=2.5):
        axes.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=fill, edgecolor=border or "none",
                                 linewidth=width * points_per_unit if border else 0))

    green = "#007f00"
    # Rods from the flanges and the two joining bars of the parallel spring and damper.
    line([(-80, 0), (-60, 0)])
    line([(-60, -30), (-60, 30)])
    line([(30, -30), (30, 30)])
    line([(30, 0), (50, 0)])
    # Spring (upper branch): straight, six zigzag teeth, straight.
    zigzag = [(-60, 30), (-45, 30)]
    for tooth in range(6):
        x = -45 + tooth * 10
        zigzag += [(x + 2.5, 42), (x + 7.5, 18)]
    line(zigzag + [(15, 30), (30, 30)])
    # Damper (lower branch): piston rod and plate inside an open cylinder.
    box(-25, -46, 12, -14, fill="#dcdcdc")
    line([(-60, -30), (-15, -30)])
    line([(-15, -42), (-15, -18)], width=3.5)
    line([(-25, -14), (12, -14), (12, -46), (-25, -46)])
    line([(12, -30), (30, -30)])
    # The gap: a stop plate on each side; the contact opens while s_rel > s_rel0.
    line([(50, -16), (50, 16)], width=5)
    line([(66, -16), (66, 16)], width=5)
    line([(66, 0), (80, 0)])
    # Flanges as in the Modelica Standard Library: flange_a filled, flange_b open, both green.
    box(-100, -10, -80, 10, fill=green, border=green, width=2.0)
    box(80, -10, 100, 10, fill="white", border=green, width=2.0)
    image = io.BytesIO()
    metadata = {"Software": None} if image_format == "png" else {"Date": None}
    figure.savefig(image, format=image_format, dpi=DPI, transparent=True, metadata=metadata)
    plt.close(figure)
    return image.getvalue()


def line_plot_svg(x_values, curves, x_label, y_label, legend_label, size, legend_outside=False,
                  contact_boundary=None):
    """An SVG line plot of `curves` (key -> y values over x_values), one labelled curve per key."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(size[0] / DPI, size[1] / DPI), dpi=DPI, layout="constrained")
    for (key, curve), color in zip(curves.items(), CURVE_COLORS):
        axes.plot(x_values, curve, color=color, linewidth=1.5, label=legend_label(key))
    axes.axhline(0.0, color="#9e9e9e", linewidth=0.8)
    if contact_boundary is not None:
        # Room above the curves for the boundary's labels.
        bottom, top = axes.get_ylim()
        axes.set_ylim(bottom, top + 0.12 * (top - bottom))
        axes.axvline(contact_boundary, color="#616161", linestyle=(0, (6, 4)), linewidth=1.0)
        top = axes.get_ylim()[1]
        axes.annotate(f"s_rel0 = {contact_boundary:g} m", (contact_boundary, top), xytext=(6, -14),
                      textcoords="offset points", color="#616161")
        axes.annotate("contact", (contact_boundary, top), xytext=(-6, -14), textcoords="offset points",
                      color="#616161", horizontalalignment="right")
    axes.set_xlim(min(x_values), max(x_values))
    axes.grid(color="#e0e0e0")
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    if legend_outside:
        axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    else:
        axes.legend(loc="upper left", framealpha=0.9)
    svg = io.StringIO()
    figure.savefig(svg, format="svg", metadata={"Date": None})
    plt.close(figure)
    return svg.getvalue()


def signed(value):
    """A number as the ticks write it, with a true minus sign."""
    return f"{value:g}".replace("-", "\u2212")


def write_plots(stage, md, documentation):
    """Samples the binary in `stage`, writes the plots' SVG files into `documentation`; returns
    what the template needs of each plot."""
    s_values, force_curves = sample_force(stage, md)
    force_plot = {
        "file": "force_plot.svg",
        "description": "Force f at flange_b versus s_rel for several v_rel",
        "parameters": FORCE_PLOT_PARAMETERS,
        "width": FORCE_PLOT_SIZE[0],
        "height": FORCE_PLOT_SIZE[1],
    }
    (documentation / force_plot["file"]).write_text(line_plot_svg(
        s_values, force_curves, x_label="s_rel = flange_b.s \u2212 flange_a.s  [m]",
        y_label="f (force at flange_b)  [N]", legend_label=lambda v: f"v_rel = {signed(v)} m/s",
        size=FORCE_PLOT_SIZE, contact_boundary=FORCE_PLOT_PARAMETERS["s_rel0"],
    ), encoding="utf-8")

    deltas, law_curves = sample_law_forces(stage, md)
    law_plots = []
    for name, curves in law_curves:
        plot = {
            "name": name,
            "file": f"force_law_{name}.svg",
            "description": f"Normal force of the {name} law against penetration at several rates",
            "width": LAW_PLOT_SIZE[0],
            "height": LAW_PLOT_SIZE[1],
        }
        (documentation / plot["file"]).write_text(line_plot_svg(
            [1e3 * delta for delta in deltas], curves,
            x_label="penetration \u03b4 = s_rel0 \u2212 s_rel  [mm]", y_label="normal force F_n = \u2212f  [N]",
            legend_label=lambda rate: f"d\u03b4/dt = {signed(rate)} m/s", size=LAW_PLOT_SIZE, legend_outside=True,
        ), encoding="utf-8")
        law_plots.append(plot)
    (deformations, sticking), (speeds, sliding) = sample_friction(stage, md)
    friction_plots = []
    for file, x_values, curves, x_label, description in [
        ("friction_stick.svg", deformations, sticking, "stiction deformation \u03be  [mm]",
         "Sticking: f_tx against the deformation a slip of a tenth of v_s builds (maxStictionDeformation = 0.1 mm)"),
        ("friction_slip.svg", speeds, sliding, "slip speed v_tx  [m/s]",
         "Slipping: f_tx against the slip speed, Adams' curve (v_s = 0.01 m/s, v_d = 0.1 m/s)"),
    ]:
        (documentation / file).write_text(line_plot_svg(
            x_values, curves, x_label=x_label, y_label="f_tx  [N]  (|f| = 20 N)",
            legend_label=lambda key: {"stick": "sticking: \u03bc_s|f|\u00b7\u03be/\u03b4",
                                      "slip": "slipping: \u03bc(v)|f|"}[key],
            size=LAW_PLOT_SIZE, legend_outside=True,
        ), encoding="utf-8")
        friction_plots.append({"file": file, "description": description, "width": LAW_PLOT_SIZE[0],
                               "height": LAW_PLOT_SIZE[1]})
    return force_plot, law_plots, friction_plots


def render_index(md, platforms, force_plot, law_plots, friction_plots):
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    page = environment.get_template("index.html").render(
        md=md,
        fmi3=md.is_fmi3,
        platforms=[(name, PLATFORM_NOTES.get(name, name)) for name in platforms],
        force_plot=force_plot,
        law_plots=law_plots,
        friction_plots=friction_plots,
        law_spring=LAW_PLOT_SPRING,
        touchdown_speed=LAW_PLOT_TOUCHDOWN_SPEED,
    )
    if md.is_fmi3:
        for fmi2_name, fmi3_name in FMI3_NAMES.items():
            page = page.replace(fmi2_name, fmi3_name)
    return page


def write_icons(stage, md):
    """model.png as FMI 2.0 has it; FMI 3.0 also wants it as terminalsAndIcons/icon.png (with an SVG
    beside it), where its terminalsAndIcons.xml places it."""
    (stage / "model.png").write_bytes(draw_icon())
    if md.is_fmi3:
        icons = stage / "terminalsAndIcons"
        icons.mkdir(exist_ok=True)
        (icons / "icon.png").write_bytes(draw_icon())
        (icons / "icon.svg").write_bytes(draw_icon(image_format="svg"))


def write_documentation(stage, md, platforms, plots=None):
    """documentation/index.html and its plots, and the icons, into the staging folder. The plots are
    sampled through the binary in `stage`, or, given `plots` (what an earlier call returned), copied
    from that call's folder. Returns what a later call can copy."""
    write_icons(stage, md)
    documentation = stage / "documentation"
    documentation.mkdir(exist_ok=True)
    if plots is None:
        force_plot, law_plots, friction_plots = write_plots(stage, md, documentation)
    else:
        source, (force_plot, law_plots, friction_plots) = plots
        for plot in [force_plot, *law_plots, *friction_plots]:
            (documentation / plot["file"]).write_bytes((source / plot["file"]).read_bytes())
    # Drawn through the packaged FMU by tools/coupling_map.py (a minute of co-simulations), so kept
    # in the repository and copied here.
    (documentation / "coupling_mass_error.png").write_bytes(
        (ROOT / "docs" / "coupling" / "mass_error.png").read_bytes())
    (documentation / "index.html").write_text(render_index(md, platforms, force_plot, law_plots, friction_plots),
                                              encoding="utf-8")
    return documentation, (force_plot, law_plots, friction_plots)

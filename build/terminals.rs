//! `terminalsAndIcons.xml` (FMI 3.0): the flanges and the heat port as Modelica connectors, their
//! members named by the variable table's `Var` (so a renamed or removed variable fails the build),
//! and the icon's place.

use crate::common_xml::xml_escape;
use crate::variables::{self, Var};
use std::fmt::Write as _;

/// How a terminal member is connected (FMI 3.0's predefined `variableKind`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemberKind {
    /// Equal values in connected terminals.
    Signal,
    /// A flow (Kirchhoff's current law), positive into the FMU: Modelica's sign of a flange's force.
    Inflow,
    /// A flow, positive out of the FMU.
    Outflow,
}

/// A variable of a terminal, under the name the terminal's matching uses.
struct TerminalMember {
    member_name: &'static str,
    var: Var,
    kind: MemberKind,
}

/// An FMI 3.0 terminal (`terminalsAndIcons/terminalsAndIcons.xml`): the variables an importer
/// connects as one Modelica connector.
struct Terminal {
    name: &'static str,
    /// The Modelica connector's class, as the standard's examples name one.
    terminal_kind: &'static str,
    matching_rule: &'static str,
    description: &'static str,
    members: &'static [TerminalMember],
}

const fn member(member_name: &'static str, var: Var, kind: MemberKind) -> TerminalMember {
    TerminalMember {
        member_name,
        var,
        kind,
    }
}

/// The flanges and the heat port of MSL's ElastoGap. Matching is `bus` (by member name, some may be
/// missing), not `plug`: a co-simulation flange also carries the velocity, which Modelica's `Flange`
/// lacks, and the FMU has no heat port temperature. MSL's force is `flange_b.f = f` and
/// `flange_a.f = -f`, both positive into the component: `f` is flange_b's inflow and flange_a's
/// outflow, so one variable serves both flanges with the right sign.
const TERMINALS: [Terminal; 3] = [
    Terminal {
        name: "flange_a",
        terminal_kind: "Modelica.Mechanics.Translational.Interfaces.Flange_a",
        matching_rule: "bus",
        description:
            "Left flange: position and velocity in, the force on it out (-f, as outflow f)",
        members: &[
            member("s", Var::FlangeAS, MemberKind::Signal),
            member("v", Var::FlangeAV, MemberKind::Signal),
            member("f", Var::F, MemberKind::Outflow),
        ],
    },
    Terminal {
        name: "flange_b",
        terminal_kind: "Modelica.Mechanics.Translational.Interfaces.Flange_b",
        matching_rule: "bus",
        description: "Right flange: position and velocity in, the force on it out (f)",
        members: &[
            member("s", Var::FlangeBS, MemberKind::Signal),
            member("v", Var::FlangeBV, MemberKind::Signal),
            member("f", Var::F, MemberKind::Inflow),
        ],
    },
    Terminal {
        name: "heatPort",
        terminal_kind: "Modelica.Thermal.HeatTransfer.Interfaces.HeatPort_a",
        matching_rule: "bus",
        description:
            "Conditional heat port (useHeatPort): the dissipated power leaves through Q_flow",
        members: &[member("Q_flow", Var::HeatPortQFlow, MemberKind::Inflow)],
    },
];

/// The icon (packaging's `terminalsAndIcons/icon.png`) fills Modelica's default icon extent, the
/// standard's default coordinate system.
const GRAPHICAL_REPRESENTATION: &str = r#"  <GraphicalRepresentation>
    <CoordinateSystem x1="-100" y1="-100" x2="100" y2="100" suggestedScalingFactorTo_mm="0.1"/>
    <Icon x1="-100" y1="-100" x2="100" y2="100"/>
  </GraphicalRepresentation>
"#;

pub fn terminals_and_icons() -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!-- Written by build.rs (build/terminals.rs) from the variable table in src/variables.rs. -->\n\
         <fmiTerminalsAndIcons fmiVersion=\"3.0\">\n",
    );
    out.push_str(GRAPHICAL_REPRESENTATION);
    out.push_str("  <Terminals>\n");
    for terminal in &TERMINALS {
        writeln!(
            out,
            "    <Terminal name=\"{}\" matchingRule=\"{}\" terminalKind=\"{}\" description=\"{}\">",
            xml_escape(terminal.name),
            xml_escape(terminal.matching_rule),
            xml_escape(terminal.terminal_kind),
            xml_escape(terminal.description)
        )
        .unwrap();
        for member in terminal.members {
            let kind = match member.kind {
                MemberKind::Signal => "signal",
                MemberKind::Inflow => "inflow",
                MemberKind::Outflow => "outflow",
            };
            writeln!(
                out,
                "      <TerminalMemberVariable variableName=\"{}\" memberName=\"{}\" variableKind=\"{kind}\"/>",
                xml_escape(variables::by_var(member.var).name),
                xml_escape(member.member_name)
            )
            .unwrap();
        }
        out.push_str("    </Terminal>\n");
    }
    out.push_str("  </Terminals>\n</fmiTerminalsAndIcons>\n");
    out
}

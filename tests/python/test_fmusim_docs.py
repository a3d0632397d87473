"""Every fmusim and fmusim-c command line that README.md and docs/*.md give (a code span or a line of
a code block that starts with `fmusim ` or `fmusim-c `) is run as written, by the tool it names, on
the FMU it names, in a folder holding the motion's input CSV as in.csv (fmusim_runs.py): it must
exit 0, `fmusim validate` print no error, and where it writes out.csv every row must obey the law
at the s_rel and v_rel it reports (the parameters are the model description's defaults and the
command's own start values).

A command in an outdated syntax (`fmusim --interface-type ...` is fmusim-c's, which the Rust tool
refuses) fails here; so does a page that names neither tool any more.
"""

import re
import shlex
from pathlib import Path

import pytest

import fmusim_runs as runs
from gap_law import assert_obeys_law
from reference_tools import require, run

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FMUS = {"ElastoGap.fmu": "fmu_path", "ElastoGap3.fmu": "fmu3_path"}


def documented_commands():
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        spans = re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
        blocks = [line for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S) for line in block.splitlines()]
        for candidate in [*spans, *blocks]:
            command = " ".join(candidate.split())
            if command.startswith(("fmusim ", "fmusim-c ")):
                found.append((page.relative_to(ROOT).as_posix(), command))
    return found


COMMANDS = documented_commands()


def test_the_pages_give_commands_of_both_tools():
    tools = {command.split()[0] for _, command in COMMANDS}
    assert tools == {"fmusim", "fmusim-c"}, COMMANDS


def start_values(tool, words):
    """The command's --start-value settings: NAME=VALUE for fmusim, NAME VALUE for fmusim-c."""
    values = {}
    for i, word in enumerate(words):
        if word == "--start-value":
            if tool == "fmusim":
                name, value = words[i + 1].split("=", 1)
            else:
                name, value = words[i + 1], words[i + 2]
            values[name] = value
    return values


@pytest.mark.parametrize("page, command", COMMANDS, ids=[f"{page}: {command}" for page, command in COMMANDS])
def test_documented_command_runs_as_written(request, tmp_path, page, command):
    words = shlex.split(command)
    tool, fmu_name = words[0], Path(words[-1]).name
    assert fmu_name in FMUS, f"{page}: `{command}` does not end with one of {sorted(FMUS)}"
    binary = require(tool)
    fmu = request.getfixturevalue(FMUS[fmu_name])
    runs.write_input_csv(tmp_path / "in.csv")
    done = run([binary, *words[1:-1], fmu], timeout=runs.TIMEOUT, cwd=tmp_path)
    if words[1] == "validate":
        # It exits 0 on some problems it prints (test_fmusim.py's validation test says which).
        assert "error" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    if "out.csv" not in words:
        return
    md = runs.model_description(fmu)
    booleans = {name for name, tag in md["type"].items() if tag == "Boolean"}
    out = runs.read_output_csv(tmp_path / "out.csv", booleans)
    p = runs.law_parameters(md, start_values(tool, words))
    assert out["s_rel"][0] == runs.S0, "the first row is not the CSV's first position"
    assert_obeys_law(out["s_rel"], out["v_rel"], {k: out[k] for k in ("f", "lossPower")}, p, where=f"{command}: ")

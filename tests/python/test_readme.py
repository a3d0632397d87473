"""The README stays the front door: it opens with the two commands, stays short, and every page it
points to exists (the long tables live in docs/, where their own tests read them)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def test_the_readme_opens_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    commands = [line.split("#", 1)[0].strip() for line in first_block.splitlines()]
    assert commands == ["bash packaging/demo.sh", "bash tests/run_all.sh"]


def test_the_readme_is_under_200_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) < 200


def test_every_relative_link_of_the_readme_and_docs_resolves():
    pages = [README, ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_the_architecture_page_names_the_layers_in_at_most_150_lines():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for folder in ("src/variables.rs", "src/laws/", "src/step/", "src/coupling/", "src/model/", "src/fmi2/"):
        assert folder in text, folder

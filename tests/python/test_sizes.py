"""Sizes a person can hold: no file of src/ over 700 lines, no function over 80, but for the
exceptions tools/sizes.py names with their reason."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_source_file_or_function_is_over_its_limit():
    checked = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "sizes.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_size_check_reads_the_sources():
    tables = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "sizes.py")], capture_output=True, text=True, check=True
    ).stdout
    assert "`src/model/do_step.rs`" in tables and "functions," in tables

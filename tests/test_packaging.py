"""The package people install: its name on PyPI is its own, its version is written once, and no install
line in the README, the docs, the examples or a message fetches the unrelated ``converge`` from PyPI."""

from __future__ import annotations

import re
import tomllib

import pytest

import converge
from tests.helpers import ROOT, run

#: ``pip install converge`` or ``pip install 'converge[rl]'``, not ``converge-game``.
BARE = re.compile(r"pip install\s+['\"]?converge(?![-\w])")


def test_the_distribution_name_and_the_version_are_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == converge.DISTRIBUTION == "converge-game"
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "converge.__version__"}
    assert (ROOT / "LICENSE").is_file() and project["project"]["license-files"] == ["LICENSE"]
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["converge"]


def test_version_names_the_distribution(capsys: object) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.strip() == f"converge {converge.__version__} (installed as converge-game, imported as converge)"


def test_no_install_line_fetches_the_other_converge() -> None:
    # the README, every page of the documentation site and what it includes (the changelog, the rules), the
    # examples, the sources and their messages, the benchmarks, the build and CI scripts
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "RULES.md", ROOT / "mkdocs.yml",
             *(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.py"), *(ROOT / "examples").rglob("*.py"),
             *(ROOT / "src").rglob("*.py"), *(ROOT / "src").rglob("*.js"), *(ROOT / "src").rglob("*.md"),
             *(ROOT / "benchmarks").rglob("*.py"), *(ROOT / ".ci").iterdir(), ROOT / "Makefile"]
    assert ROOT / "docs" / "install.md" in files and ROOT / "docs" / "releasing.md" in files
    found = [f"{f.relative_to(ROOT)}:{n}: {line.strip()}" for f in files if f.is_file()
             for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1) if BARE.search(line)]
    assert found == []
    assert BARE.search("pip install 'converge[rl]'") and BARE.search("pip install converge")
    assert not BARE.search("pip install 'converge-game[rl]'")


def test_the_citation_file_is_valid_and_names_this_version() -> None:
    """CITATION.cff (GitHub's "Cite this repository", Zenodo): the fields CFF 1.2.0 requires, and the version
    the package has (a release that forgets to change it fails here)."""
    yaml = pytest.importorskip("yaml")
    doc = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert doc["cff-version"] == "1.2.0" and doc["type"] == "software"
    assert doc["message"] and doc["title"].startswith("Converge") and doc["authors"]
    assert all("name" in a or "family-names" in a for a in doc["authors"])
    assert doc["version"] == converge.__version__
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert doc["license"] == project["license"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(doc["date-released"]))

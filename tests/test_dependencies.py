"""A fresh machine installs what CI tested (issue 9 item 1): every dependency has a tested
range in setup.cfg, and constraints.txt (what `make install` installs with) pins them all."""

from __future__ import annotations

import configparser
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def _requirements() -> list[Requirement]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    lines = config["options"]["install_requires"].splitlines()
    for extra in config["options.extras_require"].values():
        lines += extra.splitlines()
    return [Requirement(line) for line in lines if line.strip()]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    return pins


def test_every_dependency_has_a_lower_and_an_upper_bound():
    for requirement in _requirements():
        operators = {spec.operator for spec in requirement.specifier}
        assert ">=" in operators and "<" in operators, f"{requirement} needs a tested range"


def test_constraints_pin_every_dependency_inside_its_range():
    pins = _pins()
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not pinned in constraints.txt: run `make lock`"
        assert requirement.specifier.contains(pins[name]), \
            f"constraints.txt pins {name}=={pins[name]}, outside {requirement}: run `make lock`"
        for extra in requirement.extras:  # redis[hiredis] brings hiredis
            assert canonicalize_name(extra) in pins, f"{extra} is not pinned"


def test_installed_packages_are_the_pinned_ones():
    for name, version in _pins().items():
        assert metadata.version(name) == version, \
            f"{name} {metadata.version(name)} is installed, constraints.txt says {version}: " \
            "run `make install`"

"""The web client's files are served by the app itself, from the package (issue 15)."""

from __future__ import annotations

import configparser
import fnmatch
from pathlib import Path

import service.web

STATIC = Path(service.web.__file__).parent / "static"
SETUP_CFG = Path(__file__).parents[2] / "setup.cfg"


def test_the_root_redirects_to_the_web_client(api):
    response = api.client.get("/")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/play/")


def test_the_page_is_served_with_a_policy_that_allows_no_inline_script_or_other_origin(api):
    response = api.client.get("/play/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert b'<script type="module" src="app.js"></script>' in response.data


def test_the_modules_and_boards_are_served_as_javascript(api):
    for path in ["app.js", "dom.js", "boards/generic.js", "boards/loot.js",
                 "boards/maskmen.js", "boards/faker_blue.js"]:
        response = api.client.get(f"/play/{path}")
        assert response.status_code == 200, path
        assert response.mimetype == "text/javascript", path


def test_the_page_has_no_inline_script_or_style():
    html = (STATIC / "index.html").read_text()
    assert "<script>" not in html and "<style" not in html and " style=" not in html
    assert " on" not in html.replace(" onl", "")  # no onclick= and the like


def test_every_static_file_is_package_data_so_an_installed_package_serves_it():
    config = configparser.ConfigParser()
    config.read(SETUP_CFG)
    patterns = [p.strip() for p in config["options.package_data"]["service.web"].split(",")]
    files = [p.relative_to(STATIC.parent).as_posix() for p in STATIC.rglob("*") if p.is_file()]
    assert files

    def covered(path: str) -> bool:
        # setuptools globs: '*' stays within one directory
        parts = path.split("/")
        return any(len(glob.split("/")) == len(parts) and all(
            fnmatch.fnmatchcase(part, g) for part, g in zip(parts, glob.split("/"), strict=True))
            for glob in patterns)

    assert [f for f in files if not covered(f)] == []

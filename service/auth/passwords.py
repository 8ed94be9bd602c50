"""Passwords, the fallback to passkeys: argon2id with argon2-cffi's recommended parameters
(``PasswordHasher()``'s defaults, RFC 9106's second recommended option), a length floor, and a
check against the most common passwords (NIST SP 800-63B §3.1.1.2). A password is never stored,
logged or returned: only its hash is kept."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from service.app.errors import BadRequest

MIN_LENGTH = 10
MAX_LENGTH = 256  # argon2 takes any length; a bound keeps a request's hashing cost bounded

_HASHER = PasswordHasher()
# Verified when the handle is unknown, so that an unknown handle and a wrong password cost the
# same time (the answer is the same too).
_DUMMY_HASH = _HASHER.hash("not a password of anyone's: answers take as long either way")


@cache
def common_passwords() -> frozenset[str]:
    """The bundled list of the most common passwords (case folded)."""
    path = Path(__file__).with_name("common_passwords.txt")
    return frozenset(line.strip().casefold() for line in path.read_text().splitlines()
                     if line.strip() and not line.startswith("#"))


def check_new(password: str, handle: str | None = None) -> None:
    """BadRequest when ``password`` may not be chosen: too short or long, common, the handle."""
    if len(password) < MIN_LENGTH:
        raise BadRequest("password_too_short",
                         "A password has at least {min} characters; a few words make a good one.",
                         params={"min": MIN_LENGTH})
    if len(password) > MAX_LENGTH:
        raise BadRequest("password_too_long", "A password has at most {max} characters.",
                                              params={"max": MAX_LENGTH})
    folded = password.casefold()
    if folded in common_passwords() or (handle and handle.casefold() in folded):
        raise BadRequest("password_too_common",
                         "That password is among the most common ones (or holds your handle); "
                         "choose another.")


def _off_the_loop(func: Callable[..., Any], *args: Any) -> Any:
    """Run a hash (tens of ms of CPU) in gevent's thread pool when the process is gevent's
    (tablestream serve): argon2's C code releases the GIL, so the worker's other connections go
    on meanwhile instead of stalling behind a sign-in. Elsewhere, a plain call."""
    from gevent import monkey

    if not monkey.is_module_patched("threading"):
        return func(*args)
    from gevent import get_hub

    return get_hub().threadpool.apply(func, args)


def hash_password(password: str) -> str:
    return _off_the_loop(_HASHER.hash, password)


def verify(stored_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches; with no stored hash, a dummy is verified for the time."""
    try:
        matched = _off_the_loop(_HASHER.verify, stored_hash or _DUMMY_HASH, password)
        return bool(matched) and stored_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash: str) -> bool:
    """Whether the hash was made with other parameters than today's (rehash on sign-in)."""
    return _HASHER.check_needs_rehash(stored_hash)

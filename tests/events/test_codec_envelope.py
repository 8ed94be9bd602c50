"""An append's envelope hash, put together from its parts, is the event hash."""

from __future__ import annotations

import pytest

from events.codec import canonical, envelope_hash, event_hash


@pytest.mark.parametrize(("data", "command", "text"), [
    ({"seat": 0, "amount": 1}, {"type": "add", "amount": 1}, "added"),
    ({"cards": ["é", "\u2028", 'q"uote\\'], "n": None, "ok": True}, None, "played"),
    ([1, [2, {"b": 1, "a": -3}]], {"type": "x", "note": "\x00\x1f\n\t"}, "tabs\tand\nlines"),
    ({}, {}, "empty"),
])
def test_the_envelope_put_together_hashes_as_the_whole_envelope(data, command, text):
    expected = event_hash(7, text, data, "1", "p:pl:ü", 1796315424833, "ab" * 32, command)
    got = envelope_hash(7, text, canonical(data), "1", "p:pl:ü", 1796315424833, "ab" * 32,
                        None if command is None else canonical(command))
    assert got == expected


def test_an_envelope_field_that_is_not_a_string_is_refused():
    with pytest.raises(TypeError):
        envelope_hash(1, "t", b"{}", 0, "c", 1, "p")  # type: ignore[arg-type]

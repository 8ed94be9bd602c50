"""An open live stream keeps checking the token it was opened with (issue 23 item 10): a revoked
or rotated token's streams end within STREAM_TOKEN_SECONDS, on every process, rather than
delivering that seat's cards for as long as the connection lasts."""

from __future__ import annotations

import time
from typing import Any

from service.app.errors import Unauthorized

# A revocation elsewhere ends the stream within STREAM_TOKEN_SECONDS: its token is checked
# again at the first batch or wake-up TOKEN_CHECK_SECONDS after its last check, and a check
# may be answered from the process's token cache when that is younger than TOKEN_CACHE_AGE
# (the cache re-checks its tokens in the background, one pipelined round trip for all of a
# process's tokens half-way there: service.app.accounts). The long cache and the short check
# leave a re-check seconds to come back: at 1,024 games a stream whose cached check was a
# little too old waited for a re-check queued behind the moves, before its push (issue 29).
STREAM_TOKEN_SECONDS = 10.0
TOKEN_CHECK_SECONDS = STREAM_TOKEN_SECONDS / 4
TOKEN_CACHE_AGE = STREAM_TOKEN_SECONDS - TOKEN_CHECK_SECONDS
# The stream's last words when its token stopped working (a comment: EventSource ignores it;
# its reconnection gets the 401 that says why).
TOKEN_ENDED = b": token no longer valid\n\n"


class TokenWatch:
    """The token a stream was opened with (None: an anonymous stream, nothing to check), and
    when the stream last wrote, so that it wakes often enough to check without writing more
    keep-alives than its heartbeat asks."""

    def __init__(self, accounts: Any, token: str | None, player_id: str | None,
                 heartbeat: float):
        self.accounts = accounts
        self.token = token if player_id is not None else None
        self.player_id = player_id
        self.heartbeat = heartbeat
        self.checked = self.wrote = time.monotonic()

    @property
    def wake(self) -> float:
        """How long the stream may wait for a batch before coming back here."""
        return self.heartbeat if self.token is None else min(self.heartbeat, TOKEN_CHECK_SECONDS)

    def ended(self) -> bool:
        """Whether the token stopped working (revoked, rotated, expired): checked again once
        TOKEN_CHECK_SECONDS have passed since the last check."""
        if self.token is None:
            return False
        now = time.monotonic()
        if now - self.checked < TOKEN_CHECK_SECONDS:
            return False
        self.checked = now
        try:
            player = self.accounts.authenticate(self.token, max_age=TOKEN_CACHE_AGE)
        except Unauthorized:
            return True
        return player["id"] != self.player_id

    def keep_alive_due(self) -> bool:
        """At a wake-up without a batch: whether a heartbeat's time passed since the last
        write (then it counts as written)."""
        now = time.monotonic()
        if now - self.wrote < self.heartbeat:
            return False
        self.wrote = now
        return True

    def wrote_now(self) -> None:
        self.wrote = time.monotonic()

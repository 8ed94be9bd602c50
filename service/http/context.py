"""Per-app objects (service, accounts, lobby) and the caller's identity, for the handlers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import after_this_request, current_app, g, request

from service.app.accounts import Accounts
from service.app.application import GameService
from service.app.errors import BadRequest
from service.app.limiter import BotGames, Quotas, ReadBudget, StreamSlots, limited_address
from service.app.lobby import Lobby
from service.runtime.config import Config
from service.runtime.fanout import Fanout


@dataclass
class Tablestream:
    config: Config
    service: GameService
    accounts: Accounts
    lobby: Lobby
    limiter: Any
    quotas: Quotas  # players, games and disputes per minute
    fanout: Fanout  # this process's shared live reads, behind every SSE stream
    streams: StreamSlots  # caps on open live streams (issue 23 item 4)
    reads: ReadBudget  # reads paid for by their work (issue 23 item 5)
    bot_games: BotGames  # think time and bot-only games per player (issue 23 item 7)
    auth: Any = None  # service.auth.service.AuthService: accounts, sessions, passkeys
    ratings: Any = None  # service.app.ratings.Ratings: ratings, profiles, leaderboards


def ctx() -> Tablestream:
    return current_app.extensions["tablestream"]


# The only endpoints that take the token in their URL (``?access_token=``): the live event
# streams (a game's, and a player's notices), because a browser's EventSource cannot set
# headers. A URL ends up in logs, proxies and browser history, so everywhere else the token
# goes in the Authorization header alone (issue 9 item 10).
URL_TOKEN_ENDPOINTS = frozenset({"events.EventStream", "me.MyNotices"})


def bearer_token(from_url: bool = False) -> str | None:
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.args.get("access_token") if from_url else None


def refuse_token_in_url() -> None:
    """Before every request: ``access_token`` in the URL of any other endpoint is a 400, so a
    client learns to stop putting its token where logs keep it."""
    # No query string, no token in it: its parse into ``args`` is spared (every move).
    if request.environ.get("QUERY_STRING") and "access_token" in request.args \
            and request.endpoint not in URL_TOKEN_ENDPOINTS:
        raise BadRequest("token_in_url",
                         "Send the token as 'Authorization: Bearer <token>'; only the event "
                         "streams accept access_token in their URL.")


def current_player(from_url: bool = False, tablestream: Tablestream | None = None
                   ) -> dict[str, Any]:
    """The authenticated caller (401 problem when the token is missing or wrong)."""
    player = (tablestream or ctx()).accounts.authenticate(bearer_token(from_url))
    g.player_id = player["id"]  # for the access log
    return player


def optional_player(from_url: bool = False) -> dict[str, Any] | None:
    return current_player(from_url) if bearer_token(from_url) else None


def client_address() -> str:
    """The caller's address as the per-address limits count it (an IPv6 one by its /64,
    limiter.limited_address): the connection's, or X-Forwarded-For's as far as TRUSTED_PROXIES
    lets ProxyFix believe it."""
    return limited_address(request.remote_addr or "unknown")


def charge_read(events: int = 0, tablestream: Tablestream | None = None) -> None:
    """Pay for a read of ``events`` events (1 unit + 1 per event) from the caller's budget:
    the signed-in player's, else the address's (429 ``read_budget_exceeded`` without it). A
    wrong token is a 401 before anything is charged."""
    tablestream = tablestream or ctx()
    player_id = g.get("player_id")  # authenticated already by this request
    if player_id is None:
        player = optional_player(from_url=request.endpoint in URL_TOKEN_ENDPOINTS)
        player_id = player["id"] if player else None
    tablestream.reads.charge(1 + max(0, events), player_id, client_address())


# The lists a long poll (`wait`, issue 26) can hold open: a connection held as long as a
# stream's, so it takes a stream slot too, or 4,000 long polls would do what 4,000 streams
# may not (issue 23 item 4).
LONG_POLL_ENDPOINTS = frozenset({"events.Events", "me.MyNoticeList"})


def waits(wait: str | None) -> bool:
    """Whether a request's ``wait`` query parameter (None: not given) makes it a long poll."""
    return wait not in (None, "", "0")


def _holds_a_connection() -> bool:
    if request.endpoint in URL_TOKEN_ENDPOINTS:
        return True
    return request.endpoint in LONG_POLL_ENDPOINTS and waits(request.args.get("wait"))


def take_stream_slot() -> None:
    """Before every request: a live stream or a long poll takes one of the caller's stream
    slots before anything else is done for it, so a refusal (429 ``too_many_streams``) costs
    little; a long poll gives it back when its answer is made (release_stream_slot)."""
    if not _holds_a_connection():
        return
    tablestream = ctx()
    player = optional_player(from_url=request.endpoint in URL_TOKEN_ENDPOINTS)
    g.stream_slot = tablestream.streams.take(player["id"] if player else None,
                                             client_address())


def hold_stream(stream: Any) -> Any:
    """``stream`` holding the request's stream slot until it ends (issue 23 item 4)."""
    slot = g.pop("stream_slot", None)
    if slot is None:
        return stream

    @after_this_request
    def release_on_close(response: Any) -> Any:
        # Also when the answer is closed before its stream was ever read (the server closes
        # it; a generator never started would not run its own cleanup).
        response.call_on_close(slot.release)
        return response

    return slot.hold(stream)


def release_stream_slot(_: BaseException | None = None) -> None:
    """After a request: the slot of a stream that never started (refused, 404) is free."""
    slot = g.pop("stream_slot", None)
    if slot is not None:
        slot.release()

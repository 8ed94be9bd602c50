"""The RQ job functions (STYLE.md rule 11): module-level, ids and ints only, safe to repeat.

Each one runs the process-wide GameService, built once from the environment (REDIS_URL, else the
embedded server; QUEUE_REDIS_URL, else the same server), so a worker keeps its projection cache
and store connections across jobs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator

from service.app.application import GameService
from service.app.errors import NotFound

log = logging.getLogger(__name__)

EARLY_TOLERANCE = 5.0  # seconds: a clock alarm this early (clock skew) waits instead of dropping

_service: GameService | None = None
_service_lock = threading.Lock()


def build_service() -> GameService:
    """A GameService over $REDIS_URL (or the embedded server) issuing jobs on $QUEUE_REDIS_URL."""
    from events.embedded_redis import redis_url
    from events.redis_store import RedisEventStore, connect
    from service.app.inbox import build_inbox
    from service.app.lobby import Lobby
    from service.runtime.config import Config
    from workers.scheduling import JobScheduler

    url = redis_url()
    client = connect(url)
    scheduler = JobScheduler.from_url(url, os.environ.get("QUEUE_REDIS_URL") or None)
    # The lobby too: a game a bot finishes must leave the "running" index.
    return GameService(RedisEventStore(client), followups=scheduler, lobby=Lobby(client),
                       inbox=build_inbox(client, scheduler, Config.from_env()))


def service() -> GameService:
    """The process-wide GameService (built on first use, after any fork)."""
    global _service
    with _service_lock:
        if _service is None:
            _service = build_service()
        return _service


def use_service(game_service: GameService | None) -> None:
    """Run jobs in this process against ``game_service`` (tests, benchmarks); None resets."""
    global _service
    with _service_lock:
        _service = game_service


def bot_turn(game_id: str, seat: int, since: int) -> int | None:
    """Play bot ``seat``'s decision opened at ``since``; the new version, or None when stale."""
    try:
        outcome = service().bot_move(game_id, seat, since)
    except NotFound:
        return None  # the game is gone: nothing to play
    return outcome.version if outcome else None


def turn_timeout(game_id: str, seat: int, since: int) -> int | None:
    """``seat``'s clock ran out on the prompt opened at ``since``: the default command, or None."""
    game_service = service()
    try:
        outcome = game_service.expire_clock(game_id, seat, since)
        if outcome is None:
            early = _early_by(game_service, game_id, seat, since)
            if early is not None and early <= EARLY_TOLERANCE:
                # This host's clock runs behind the appender's: nothing else would re-arm it.
                time.sleep(early)
                outcome = game_service.expire_clock(game_id, seat, since)
    except NotFound:
        return None
    return outcome.version if outcome else None


def undo_lapse(game_id: str, seat: int, since: int) -> int | None:
    """The takeback ``seat`` asked for at version ``since`` went unanswered: it is declined."""
    try:
        outcome = service().lapse_undo(game_id, since)
    except NotFound:
        return None
    return outcome.version if outcome else None


def clock_warning(game_id: str, seat: int, since: int) -> bool:
    """Tell ``seat``'s player that the clock of the decision opened at ``since`` runs out soon
    (nothing when the seat has acted meanwhile); whether a notice went out."""
    from service.app.inbox import warn_clock

    try:
        return warn_clock(service(), game_id, seat, since)
    except NotFound:
        return False


class DeliveryDeadline(OSError):
    """An attempt ran past its total deadline: a network failure like any other (an OSError,
    which the delivery records and retries)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise DeliveryDeadline in this (main) thread after ``seconds``: a socket timeout bounds
    each read, not a receiver that sends a byte every few seconds. RQ's own alarm (the job
    timeout) is put back afterwards. Off the main thread (no signals there) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise DeliveryDeadline(f"no answer within {seconds:.0f} s")

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # RQ's job timeout: what is left of it
            signal.setitimer(signal.ITIMER_REAL,
                             max(0.001, outer - (time.monotonic() - started)))


def deliver_webhook(player_id: str, webhook_id: str, delivery_id: str) -> str:
    """One attempt at a webhook delivery, within its total deadline; after a failure the next
    attempt is scheduled."""
    from service.app.webhooks import DEADLINE

    game_service = service()
    webhooks = game_service.inbox.webhooks
    with deadline(DEADLINE):
        wait = webhooks.deliver(player_id, webhook_id, delivery_id)
    if wait is None:
        return "settled"
    game_service.followups.enqueue_webhook(player_id, webhook_id, delivery_id, delay=wait)
    return f"retry in {wait:.0f}s"


def deliver_push(player_id: str, subscription_id: str, delivery_id: str) -> str:
    """One attempt at a Web Push delivery; after a failure the next attempt is scheduled."""
    game_service = service()
    wait = game_service.inbox.push.deliver(player_id, subscription_id, delivery_id)
    if wait is None:
        return "settled"
    game_service.followups.enqueue_push(player_id, subscription_id, delivery_id, delay=wait)
    return f"retry in {wait:.0f}s"


def sweep() -> int:
    """Re-issue the jobs that running games need and have lost; how many were re-issued."""
    from workers.sweeper import Sweeper

    game_service = service()
    return Sweeper(game_service, game_service.followups).run()  # type: ignore[arg-type]


def fold_ratings() -> int:
    """Fold the rated games finished since the last run into the ratings (service.app.ratings);
    safe to run twice, or on two workers at once: a game counts once."""
    from service.app.ratings import Ratings

    game_service = service()
    return Ratings(game_service.store.client).fold_finished(game_service)


def noop() -> None:
    """Does nothing: the baseline for job latency in bench/bots_and_clocks.py."""
    return None


def _early_by(game_service: GameService, game_id: str, seat: int, since: int) -> float | None:
    """Seconds until the deadline of the prompt opened at ``since``, if it is still ahead."""
    projection = game_service.projection(game_id)
    prompt = game_service.pending_public(projection).get(str(seat))
    if not prompt or prompt["since"] != since or prompt["deadline"] is None:
        return None
    ahead = prompt["deadline"] - game_service.clock()
    return ahead if ahead > 0 else None

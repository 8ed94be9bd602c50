"""Two players each follow a game of Loot with nothing but the long poll of the client generated
from openapi.yaml (issue 26): each waits on ``list_events(after=..., wait=25)`` until something
happens, looks at the game, and moves when it may; no stream, no polling in a loop. Everything
is typed (issue 26 item 4): the game is a ``LootGame`` whose view holds the seat's hand, the
pages hold Loot's own events (another seat's draw without its card), and the result
its winners and scores.

Run by tests/e2e/test_generated_client.py, which generates ``tablestream_client`` first. Usage:
``python play_by_long_poll.py BASE_URL``; prints how the game ended and how many long polls
each player made, the largest hand each held and how many draws of the other each saw.
"""

from __future__ import annotations

import random
import sys
import threading

import httpx
from tablestream_client import AuthenticatedClient, Client
from tablestream_client.api.commands import send_command
from tablestream_client.api.events import list_events
from tablestream_client.api.games import create_game, get_game, join_game, start_game
from tablestream_client.api.players import create_player
from tablestream_client.models import (
    GameCreate,
    LootCardDrawnEvent,
    LootEventPage,
    LootGame,
    LootView,
    PlayerCreate,
    PlayerCreated,
    SeatSpec,
    SeatSpecKind,
)

WAIT = 25  # seconds: the longest the server holds a long poll
TIMEOUT = httpx.Timeout(WAIT + 15)
MAX_POLLS = 5000


def new_player(base_url: str, name: str) -> AuthenticatedClient:
    created = create_player.sync(client=Client(base_url=base_url), body=PlayerCreate(name=name))
    if not isinstance(created, PlayerCreated):
        raise SystemExit(f"could not create a player: {created}")
    return AuthenticatedClient(base_url=base_url, token=created.token, timeout=TIMEOUT)


def look(player: AuthenticatedClient, game_id: str) -> LootGame:
    game = get_game.sync(client=player, game_id=game_id)
    if not isinstance(game, LootGame):
        raise SystemExit(f"could not read Loot game {game_id}: {game}")
    return game


def play_seat(player: AuthenticatedClient, game_id: str, seed: int, polls: list[int],
              ended: list[str], seen: list[int]) -> None:
    """Wait for the game to change, move when it is this seat's turn, until the game ends;
    ``seen``: the largest hand held, and how many other seats' draws it saw (never their card)."""
    rng = random.Random(seed)
    for _ in range(MAX_POLLS):
        game = look(player, game_id)
        if game.status == "finished":
            if game.result is None:
                raise SystemExit("finished without a result")
            scores = {int(seat): score
                      for seat, score in game.result.scores.additional_properties.items()}
            ended.append(f"finished at version {game.version}, winners "
                         f"{game.result.winners}, scores {dict(sorted(scores.items()))}")
            return
        if isinstance(game.view, LootView) and game.view.hand is not None:
            seen[0] = max(seen[0], len(game.view.hand))
        if game.legal_commands:
            answer = send_command.sync(client=player, game_id=game_id,
                                       body=rng.choice(game.legal_commands))
            if answer is None:
                raise SystemExit("no answer to a command")
            continue  # refused (the game moved on meanwhile) or done: look again
        # Not this seat's turn: hold one request until the game moves past what we saw.
        page = list_events.sync(client=player, game_id=game_id, after=game.version, wait=WAIT)
        if not isinstance(page, LootEventPage):
            raise SystemExit(f"the long poll failed: {page}")
        polls.append(len(page.events))
        for event in page.events:
            if isinstance(event, LootCardDrawnEvent) and event.seat != game.you:
                if event.data is not None and isinstance(event.data.card, str):
                    raise SystemExit(f"seat {game.you} saw another seat draw {event.data.card}")
                seen[1] += 1
    raise SystemExit(f"no end after {MAX_POLLS} polls")


def main(base_url: str) -> None:
    players = [new_player(base_url, f"poller-{i}") for i in range(2)]
    seats = [SeatSpec(kind=SeatSpecKind.HUMAN) for _ in players]
    created = create_game.sync(client=players[0], body=GameCreate(game="loot", seats=seats))
    if not isinstance(created, LootGame):
        raise SystemExit(f"could not create a game: {created}")
    if not isinstance(join_game.sync(client=players[1], game_id=created.id), LootGame):
        raise SystemExit("could not join")
    if not isinstance(start_game.sync(client=players[0], game_id=created.id), LootGame):
        raise SystemExit("could not start")
    polls: list[list[int]] = [[] for _ in players]
    ended: list[str] = []
    seen: list[list[int]] = [[0, 0] for _ in players]
    threads = [threading.Thread(target=play_seat, args=(player, created.id, seat, polls[seat],
                                                        ended, seen[seat]))
               for seat, player in enumerate(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if len(ended) != len(players):
        raise SystemExit("a player stopped before the end")
    print(f"loot: {ended[0]}")
    for seat, made in enumerate(polls):
        empty = sum(1 for count in made if count == 0)
        print(f"seat {seat}: {len(made)} long polls, {empty} empty, largest hand "
              f"{seen[seat][0]}, others' draws seen {seen[seat][1]}")


if __name__ == "__main__":
    main(sys.argv[1])

"""Plays a whole game of every title with the Python client generated from the served OpenAPI
document: typed requests and answers, and no dict-building beyond the legal commands. A game
comes back as its own type (``LootGame``, ``WotrGame`` ...: the document's ``GameOut`` is a union
discriminated by ``game``, issue 26), with a typed view and result.

Run by tests/e2e/test_generated_client.py, which generates ``tablestream_client`` first and
checks this script with ``mypy --strict``. Usage: ``python play_every_game.py BASE_URL``.
"""

from __future__ import annotations

import random
import sys

from tablestream_client import AuthenticatedClient, Client
from tablestream_client.api.commands import send_command
from tablestream_client.api.games import create_game, get_catalog, get_game, join_game, start_game
from tablestream_client.api.players import create_player
from tablestream_client.models import (
    CatalogEntry,
    CommandOut,
    FakerBlueGame,
    GameCreate,
    LootGame,
    MagblastGame,
    MaskmenGame,
    PlayerCreate,
    PlayerCreated,
    SeatSpec,
    SeatSpecKind,
    TallyGame,
    WotrGame,
)

MAX_MOVES = 20_000
GameOut = FakerBlueGame | LootGame | MagblastGame | MaskmenGame | TallyGame | WotrGame
GAMES = (FakerBlueGame, LootGame, MagblastGame, MaskmenGame, TallyGame, WotrGame)


def new_player(base_url: str, name: str) -> AuthenticatedClient:
    created = create_player.sync(client=Client(base_url=base_url), body=PlayerCreate(name=name))
    if not isinstance(created, PlayerCreated):
        raise SystemExit(f"could not create a player: {created}")
    return AuthenticatedClient(base_url=base_url, token=created.token)


def look(player: AuthenticatedClient, game_id: str) -> GameOut:
    game = get_game.sync(client=player, game_id=game_id)
    if not isinstance(game, GAMES):
        raise SystemExit(f"could not read game {game_id}: {game}")
    return game


def play_one(entry: CatalogEntry, players: list[AuthenticatedClient], rng: random.Random) -> str:
    """Create, fill and start a game of ``entry`` with humans only, play it to its end with
    random legal commands, and return how it ended."""
    seats = [SeatSpec(kind=SeatSpecKind.HUMAN) for _ in range(entry.min_seats)]
    created = create_game.sync(client=players[0], body=GameCreate(game=entry.name, seats=seats))
    if not isinstance(created, GAMES):
        raise SystemExit(f"could not create a {entry.name} game: {created}")
    for player in players[1:entry.min_seats]:
        if not isinstance(join_game.sync(client=player, game_id=created.id), GAMES):
            raise SystemExit("could not join")
    if not isinstance(start_game.sync(client=players[0], game_id=created.id), GAMES):
        raise SystemExit("could not start")
    for _ in range(MAX_MOVES):
        public = look(players[0], created.id)
        if public.status == "finished":
            if public.result is None:
                raise SystemExit(f"{entry.name}: finished without a result")
            return (f"{entry.title}: finished at version {public.version}, "
                    f"winners {public.result.winners}")
        seat = int(min(public.pending.to_dict()))
        mine = look(players[seat], created.id)
        if not mine.legal_commands:
            continue  # settling (a batch in flight): look again
        command = mine.legal_commands[rng.randrange(len(mine.legal_commands))]
        answer = send_command.sync(client=players[seat], game_id=created.id, body=command)
        if not isinstance(answer, CommandOut):
            raise SystemExit(f"{entry.name}: {command.to_dict()} was refused: {answer}")
    raise SystemExit(f"{entry.name}: no end after {MAX_MOVES} moves")


def main(base_url: str) -> None:
    catalog = get_catalog.sync(client=Client(base_url=base_url))
    if not isinstance(catalog, list):
        raise SystemExit(f"no catalog: {catalog}")
    rng = random.Random(7)
    for entry in catalog:
        players = [new_player(base_url, f"{entry.name}-{i}") for i in range(entry.min_seats)]
        print(play_one(entry, players, rng))


if __name__ == "__main__":
    main(sys.argv[1])

"""``tablestream play``: a terminal client for a running server, using only its REST API.

It knows no rules: it shows the table in words (service/clients/play_text.py), tells what the others
did since your last look, and numbers the legal commands the server lists, each explained; the
player picks one by number (Enter picks the first). It speaks the terminal's language (LANG,
e.g. ko_KR.UTF-8) and asks the server for it (Accept-Language), English the fallback.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

import click

from service.app import i18n
from service.clients import play_text
from service.clients.play_text import _


def default_server() -> str:
    """$TABLESTREAM_URL, else the local server on $PORT (what `make run` serves)."""
    return os.environ.get("TABLESTREAM_URL") or \
        f"http://127.0.0.1:{os.environ.get('PORT', '8000')}/v1"


class Client:
    def __init__(self, base: str, token: str | None = None):
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Accept-Language", play_text.LOCALE)
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            try:
                problem = json.loads(error.read() or b"{}")
            except ValueError:
                problem = {"code": error.code, "detail": error.reason}
            raise click.ClickException(f"{problem.get('code')}: {problem.get('detail')}") \
                from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise click.ClickException(
                _("Cannot reach the Tablestream server at {server} ({reason}). Is it running? "
                  "Start one with `make run`, or point --server or TABLESTREAM_URL at yours.")
                .format(server=self.base, reason=reason)) from None


@click.command()
@click.option("--server", default=default_server,
              show_default="$TABLESTREAM_URL, else http://127.0.0.1:$PORT/v1 (PORT 8000)")
@click.option("--token", envvar="TABLESTREAM_TOKEN", help="your bearer token ($TABLESTREAM_TOKEN)")
@click.option("--name", help="create a new player with this name (instead of --token)")
@click.option("--game", "game_id", help="a game to join or resume")
@click.option("--new", "new_game", help="create a game of this type")
@click.option("--seats", default="human,bot:basic", show_default=True,
              help="for --new: human or bot:LEVEL per seat; you take the first human seat")
@click.option("--option", "options", multiple=True, help="for --new: NAME=VALUE (JSON value)")
@click.option("--poll", default=1.0, show_default=True, help="seconds between looks while waiting")
def play(server: str, token: str | None, name: str | None, game_id: str | None,
         new_game: str | None, seats: str, options: tuple[str, ...], poll: float) -> None:
    """Play a game in the terminal against a running server."""
    before, play_text.LOCALE = play_text.LOCALE, i18n.locale_from_environment()
    try:
        _play(server, token, name, game_id, new_game, seats, options, poll)
    finally:
        play_text.LOCALE = before  # called in-process (tests, scripts): leave no language behind


def _play(server: str, token: str | None, name: str | None, game_id: str | None,
          new_game: str | None, seats: str, options: tuple[str, ...], poll: float) -> None:
    client = Client(server, token)
    if not token:
        if not name:
            raise click.UsageError("give --token or --name")
        player = client.call("POST", "/players", {"name": name})
        client.token = player["token"]
        click.echo(_("You are {name} ({id}); token: {token}").format(**player))
    if new_game:
        game_id = _create(client, new_game, seats, options)
    if not game_id:
        raise click.UsageError("give --game or --new")
    _join_and_start(client, game_id)
    _loop(client, game_id, poll)


def _create(client: Client, game: str, seats: str, options: tuple[str, ...]) -> str:
    spec = [{"kind": "human"} if s == "human" else {"kind": "bot", "level": s.split(":", 1)[1]}
            for s in (x.strip() for x in seats.split(","))]
    values = {k: json.loads(v) for k, v in (o.split("=", 1) for o in options)}
    created = client.call("POST", "/games", {"game": game, "seats": spec, "options": values})
    click.echo(_("Created {game} game {id}").format(game=game, id=created["id"]))
    return created["id"]


def _join_and_start(client: Client, game_id: str) -> None:
    view = client.call("GET", f"/games/{game_id}")
    if view["status"] == "open" and view["you"] is None:
        view = client.call("POST", f"/games/{game_id}/join", {})
    if view["status"] == "open":
        free = [s["seat"] for s in view["seats"] if s["kind"] == "human" and not s["player"]]
        if free:
            click.echo(_("Waiting for players in seats {seats}; share the game id {id}.")
                       .format(seats=free, id=game_id))
        while free:
            time.sleep(1)
            view = client.call("GET", f"/games/{game_id}")
            free = [s["seat"] for s in view["seats"] if s["kind"] == "human" and not s["player"]]
        if view["status"] == "open":
            client.call("POST", f"/games/{game_id}/start")


def _loop(client: Client, game_id: str, poll: float) -> None:
    shown = -1
    told = 0  # the last version narrated
    while True:
        game = client.call("GET", f"/games/{game_id}")
        if game["version"] != shown:
            told = _tell(client, game_id, game, told)
            if game["status"] == "finished":
                click.echo(play_text.result_text(game))
                return
            click.echo("")
            for line in play_text.render(game):
                click.echo(line)
            shown = game["version"]
        legal = game["legal_commands"]
        if not legal:
            time.sleep(poll)
            continue
        for number, command in enumerate(legal, 1):
            click.echo(f"  {number:3}. {play_text.describe_command(command, game)}")
        choice = click.prompt(_("Your move"), default=1, type=click.IntRange(1, len(legal)))
        try:
            client.call("POST", f"/games/{game_id}/commands", legal[choice - 1])
        except click.ClickException as exc:
            click.echo(_("Not accepted: {reason}").format(reason=exc.message))


def _tell(client: Client, game_id: str, game: dict[str, Any], told: int) -> int:
    """Narrate the events after version ``told`` (the first look tells only the last few)."""
    first = max(told + 1, game["version"] - 5) if told == 0 else told + 1
    if first > game["version"]:
        return told
    page = client.call("GET", f"/games/{game_id}/events?from={first}&to={game['version']}"
                              "&limit=200")
    for event in page["events"]:
        line = play_text.narrate(event, game)
        if line:
            click.echo(f"  * {line}")
        told = event["version"]
    return told

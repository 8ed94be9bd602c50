"""What anyone could make the server do (issue 9 items 9 and 10): unlisted games are not
creatable over HTTP; creating players and games is rate-limited per client; a token goes in a
URL only where a client cannot set headers (the event stream); tokens are stored hashed."""

from __future__ import annotations

import hashlib
import json
import threading
import uuid

import pytest

from service.app.errors import RateLimited
from service.app.limiter import WindowLimiter, limited_address
from tests.service.conftest import Api
from tests.service.test_sse import _read_events


def _assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code


def _address() -> str:
    """A client address of this test's own: the limits' counts live in the shared Redis."""
    return f"fd00:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"  # an IPv6 /64 of its own


def _new_player(api, address: str, **headers):
    return api.client.post("/v1/players", json={"name": "ann"}, headers=headers,
                           environ_base={"REMOTE_ADDR": address})


# --- unlisted games (item 9) -------------------------------------------------------------------

def test_the_unlisted_tally_cannot_be_created_over_http(make_app):
    api = Api(make_app(limits={"unlisted_games": False}))
    host = api.player()
    response = api.client.post("/v1/games", headers=host, json={
        "game": "tally", "seats": [{"kind": "human"}], "options": {"target": 10_000_000}})
    _assert_problem(response, 400, "unknown_game_type")
    known = response.json["details"]["known"]
    assert "tally" not in known and "loot" in known
    listed = api.client.post("/v1/games", headers=host, json={
        "game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert listed.status_code == 201, listed.json


# --- creation limits (item 9) ------------------------------------------------------------------

def test_players_created_from_one_address_are_limited(make_app):
    api = Api(make_app(limits={"players_per_minute": 2}))
    address = _address()
    statuses = [_new_player(api, address).status_code for _ in range(3)]
    assert statuses == [201, 201, 429]
    refused = _new_player(api, address)
    _assert_problem(refused, 429, "rate_limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert _new_player(api, _address()).status_code == 201  # another client is not held up


def test_x_forwarded_for_is_not_believed_unless_a_proxy_is_trusted(make_app):
    direct = Api(make_app(limits={"players_per_minute": 1}))
    address = _address()
    first = _new_player(direct, address, **{"X-Forwarded-For": _address()})
    forged = _new_player(direct, address, **{"X-Forwarded-For": _address()})
    assert (first.status_code, forged.status_code) == (201, 429)

    proxied = Api(make_app(limits={"players_per_minute": 1, "trusted_proxies": 1}))
    proxy = _address()
    clients = [_new_player(proxied, proxy, **{"X-Forwarded-For": _address()})
               for _ in range(2)]
    assert [c.status_code for c in clients] == [201, 201]


def test_an_ipv6_caller_is_counted_by_its_64_whichever_of_its_addresses_it_uses(make_app):
    """A subscriber's /64 holds 2^64 addresses: a new one for each request must not buy a new
    allowance, directly or through a trusted proxy; another /64 is another caller."""
    network = f"fd00:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}"
    direct = Api(make_app(limits={"players_per_minute": 2}))
    statuses = [_new_player(direct, f"{network}:{n}::{n}").status_code for n in range(1, 4)]
    assert statuses == [201, 201, 429]
    _assert_problem(_new_player(direct, f"{network}:ffff:ffff:ffff:ffff"), 429, "rate_limited")
    assert _new_player(direct, _address()).status_code == 201

    proxied = Api(make_app(limits={"players_per_minute": 1, "trusted_proxies": 1}))
    network = f"fd00:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}"
    proxy = _address()
    clients = [_new_player(proxied, proxy, **{"X-Forwarded-For": f"{network}::{n}"})
               for n in (1, 2)]
    assert [c.status_code for c in clients] == [201, 429]


@pytest.mark.parametrize(("address", "counted_as"), [
    ("203.0.113.7", "203.0.113.7"),
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("2001:DB8:1:2::9", "2001:db8:1:2::/64"),  # any spelling of the same /64
    ("2001:db8:1:3::9", "2001:db8:1:3::/64"),  # the next /64 is another caller
    ("::ffff:203.0.113.7", "203.0.113.7"),  # an IPv4 address in IPv6 dress is itself
    ("fe80::1%eth0", "fe80::/64"),
    ("::1", "::1"),
    ("unknown", "unknown"),
    ("not:an:address", "not:an:address"),
])
def test_the_limits_count_an_ipv6_caller_by_its_64(address, counted_as):
    assert limited_address(address) == counted_as


def test_games_created_by_one_player_are_limited(make_app):
    api = Api(make_app(limits={"games_per_minute": 2}))
    host = api.player()
    body = {"game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}]}
    statuses = [api.client.post("/v1/games", headers=host, json=body).status_code
                for _ in range(3)]
    assert statuses == [201, 201, 429]
    _assert_problem(api.client.post("/v1/games", headers=host, json=body), 429, "rate_limited")
    assert api.client.post("/v1/games", headers=api.player("bob"), json=body).status_code == 201


def test_a_burst_across_a_minute_edge_is_still_limited(redis_client):
    now = [60 * 29_938_742 - 0.01]  # just before a minute starts on the wall clock
    limiter = WindowLimiter(redis_client, f"test-{uuid.uuid4().hex}", 2, "new games",
                            clock=lambda: now[0])
    limiter.check("ann")
    limiter.check("ann")
    now[0] += 0.02  # a new wall-clock minute: a per-minute counter would start again at 0
    with pytest.raises(RateLimited) as refused:
        limiter.check("ann")
    assert refused.value.extra["retry_after"] == 60
    limiter.check("bob")


def test_a_refused_client_gets_in_once_its_oldest_action_is_a_period_old(redis_client):
    now = [1_000.0]
    limiter = WindowLimiter(redis_client, f"test-{uuid.uuid4().hex}", 2, "new games",
                            clock=lambda: now[0])
    limiter.check("ann")
    now[0] += 30
    limiter.check("ann")
    now[0] += 29
    with pytest.raises(RateLimited) as refused:  # the refusal itself is not counted
        limiter.check("ann")
    assert refused.value.extra["retry_after"] == 1
    now[0] += 1.5
    limiter.check("ann")  # the first action is 60.5 s old
    with pytest.raises(RateLimited) as again:
        limiter.check("ann")
    assert again.value.extra["retry_after"] == 30  # the second, 29.5 s from leaving the window


# --- tokens (item 10) --------------------------------------------------------------------------

def test_a_token_in_the_url_is_refused_outside_the_event_stream(api):
    game_id, players = api.table("tally", 1, {"target": 50})
    token = players[0]["Authorization"].split()[1]
    version = api.get(game_id)["version"]
    move = api.client.post(f"/v1/games/{game_id}/commands?access_token={token}",
                           json={"type": "add", "amount": 1, "expected_version": version})
    _assert_problem(move, 400, "token_in_url")
    assert api.log_length(game_id) == version
    _assert_problem(api.client.get(f"/v1/games/{game_id}?access_token={token}"), 400,
                    "token_in_url")
    _assert_problem(api.client.post(f"/v1/games?access_token={token}", json={
        "game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}]}), 400, "token_in_url")
    _assert_problem(api.client.get(f"/v1/me?access_token={token}"), 400, "token_in_url")


def test_the_event_streams_take_the_token_in_their_url(api):
    game_id, players = api.table("tally", 1, {"target": 1})
    version = api.get(game_id)["version"]
    api.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    token = players[0]["Authorization"].split()[1]
    response = api.client.get(
        f"/v1/games/{game_id}/events/stream?last_event_id={version}&access_token={token}",
        buffered=False)
    assert response.status_code == 200
    move = _read_events(response, 1)[0]
    # The command as sent is shown to its sender alone: the token was taken.
    assert move["event"] == "added" and move["data"]["command"]["amount"] == 1
    # And the account's notice stream, the other one a browser opens with EventSource.
    notices = api.client.get(f"/v1/me/events/stream?access_token={token}", buffered=False)
    assert notices.status_code == 200 and notices.mimetype == "text/event-stream"
    notices.close()


def test_tokens_are_stored_only_as_hashes(api, redis_client):
    created = api.client.post("/v1/players", json={"name": "ann"}).json
    token = created["token"]
    digest = hashlib.sha256(token.encode()).hexdigest()
    assert redis_client.get(f"tokens:{digest}") == created["id"]
    assert redis_client.get(f"tokens:{token}") is None
    # Nothing kept about the player holds the token itself (its record keeps the hash).
    for key in redis_client.scan_iter(match=f"*{created['id']}*"):
        kind = redis_client.type(key)
        value = redis_client.hgetall(key) if kind == "hash" else redis_client.get(key) \
            if kind == "string" else None
        assert token not in json.dumps(value), key


class HeldPipeline:
    """A token re-check's pipeline, held until ``gate`` opens (a connection long to come);
    ``waiting`` is set once the re-check asks for its answer."""

    def __init__(self, pipe, gate: threading.Event, waiting: threading.Event):
        self.pipe, self.gate, self.waiting = pipe, gate, waiting

    def __getattr__(self, name):
        return getattr(self.pipe, name)

    def execute(self):
        self.waiting.set()
        assert self.gate.wait(10)
        return self.pipe.execute()


def test_tokens_in_use_are_checked_again_together_and_a_revoked_one_stops(redis_client,
                                                                          monkeypatch):
    """A process re-checks the tokens it caches (another process may revoke one, issue 13): when
    one is due, every token used since its check and at least TOKEN_RECHECK_SECONDS old goes in
    the same round trip."""
    from service.app import accounts as module

    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    here, there = module.Accounts(redis_client), module.Accounts(redis_client)
    (ann, ann_token), (bob, bob_token) = here.create("ann"), here.create("bob")
    (cid, cid_token) = here.create("cid")
    for token in (ann_token, bob_token, cid_token):
        here.authenticate(token)  # each checked at 1000
    now[0] += 4  # past TOKEN_RECHECK_SECONDS, short of half the cache's life (no refresh yet)
    here.authenticate(ann_token)  # used since its check: bob's and cid's are not
    here.authenticate(bob_token)
    [bobs] = there.tokens(bob["id"])
    there.revoke_token(bob["id"], bobs["id"])  # another process: this one still trusts it
    assert here.authenticate(bob_token)["id"] == bob["id"]
    sent: list[str] = []
    real = redis_client.pipeline
    monkeypatch.setattr(redis_client, "pipeline", lambda *a, **k: sent.append("pipeline")
                        or real(*a, **k))
    monkeypatch.setattr(redis_client, "get", lambda *a: sent.append("get") or pytest.fail())
    now[0] = 1000 + module.TOKEN_CACHE_SECONDS
    assert here.authenticate(ann_token)["id"] == ann["id"]  # due: ann and bob checked at once
    assert sent == ["pipeline"]
    assert here._tokens[module._token_key(ann_token)][1] == now[0]
    assert module._token_key(bob_token) not in here._tokens  # revoked: forgotten
    assert here._tokens[module._token_key(cid_token)][1] == 1000.0  # not used: left alone
    monkeypatch.undo()
    now[0] += 1
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    with pytest.raises(module.Unauthorized):
        here.authenticate(bob_token)
    assert here.authenticate(cid_token)["id"] == cid["id"]


def test_a_token_due_while_a_recheck_is_under_way_waits_for_it_instead_of_asking_alone(
        redis_client, monkeypatch):
    """At 1,024 games a process's streams come due together: while one re-check waits for a
    Redis connection, a caller whose token it covers takes its answer, without a GET of its
    own (which would queue for a connection too)."""
    from service.app import accounts as module

    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    here = module.Accounts(redis_client)
    (ann, ann_token), (bob, bob_token) = here.create("ann"), here.create("bob")
    here.authenticate(ann_token)
    here.authenticate(bob_token)
    now[0] += 4
    here.authenticate(ann_token)  # both used since their check: both go in the next re-check
    here.authenticate(bob_token)
    now[0] = 1000 + module.TOKEN_CACHE_SECONDS
    gate, waiting = threading.Event(), threading.Event()
    real = redis_client.pipeline
    monkeypatch.setattr(redis_client, "pipeline",
                        lambda *a, **k: HeldPipeline(real(transaction=False), gate, waiting))
    gets: list[str] = []
    real_get = redis_client.get
    monkeypatch.setattr(redis_client, "get", lambda key: gets.append(key) or real_get(key))
    found: dict[str, str] = {}
    first = threading.Thread(target=lambda: found.update(ann=here.authenticate(ann_token)["id"]))
    first.start()
    assert waiting.wait(10)  # ann's call re-checks both tokens, and waits for Redis
    second = threading.Thread(target=lambda: found.update(bob=here.authenticate(bob_token)["id"]))
    second.start()
    second.join(0.3)
    assert second.is_alive() and gets == []  # bob's call waits for that re-check
    gate.set()
    first.join(10)
    second.join(10)
    assert found == {"ann": ann["id"], "bob": bob["id"]}
    assert gets == []  # one round trip for both


def test_a_token_half_way_due_is_rechecked_in_the_background_while_its_cache_answers(
        redis_client, monkeypatch):
    """Issue 29: at 1,024 games every stream and move whose cached check came due waited for a
    re-check queued behind the moves in flight. Half-way through its cache's life a token is
    re-checked in the background, on a side connection of the process's own, with its
    player's language: the caller is answered from the cache meanwhile, and a token revoked
    elsewhere is forgotten all the same."""
    from events.redis_store import side_client
    from service.app import accounts as module

    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    side = side_client(redis_client)
    here, there = module.Accounts(redis_client, side=side), module.Accounts(redis_client)
    (ann, ann_token), (bob, bob_token) = here.create("ann"), here.create("bob")
    here.authenticate(ann_token)
    here.authenticate(bob_token)
    here.set_locale(ann["id"], "ko")
    now[0] += 3
    here.authenticate(bob_token)  # used since its check, not half-way due: no re-check yet
    now[0] += 3
    [bobs] = there.tokens(bob["id"])
    there.revoke_token(bob["id"], bobs["id"])  # another process
    there.set_locale(ann["id"], "en")
    gate, waiting = threading.Event(), threading.Event()
    real = side.pipeline
    monkeypatch.setattr(side, "pipeline",
                        lambda *a, **k: HeldPipeline(real(transaction=False), gate, waiting))
    for name in ("pipeline", "get", "hget", "hgetall"):  # the moves' pool is not used
        monkeypatch.setattr(redis_client, name, lambda *a, _name=name, **k: pytest.fail(_name))
    found: dict[str, str] = {}
    caller = threading.Thread(target=lambda: found.update(ann=here.authenticate(ann_token)["id"]))
    caller.start()
    caller.join(5)
    assert found == {"ann": ann["id"]}  # answered from the cache, the re-check still held
    assert waiting.wait(5)
    under_way = here._recheck_under_way
    assert here.authenticate(bob_token)["id"] == bob["id"]  # still within its cache's life
    gate.set()
    assert under_way is not None and under_way.wait(10)
    assert module._token_key(bob_token) not in here._tokens  # revoked: forgotten
    assert here._tokens[module._token_key(ann_token)][1] == now[0]
    assert here.locale(ann["id"]) == "en"  # read with the tokens: no round trip
    monkeypatch.undo()
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    with pytest.raises(module.Unauthorized):
        here.authenticate(bob_token)

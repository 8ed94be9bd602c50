"""The account stream: every account's events (created, password_set, password_changed,
passkey_added, signed_in, tokens_revoked...) in a Redis stream of its own, hash-chained as a
game's log is, so an audit can show who did what to an account and that nothing was changed
since. Never holds a secret: no password, hash, token or public key."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

GENESIS = "0" * 64
MAX_EVENTS = 1000  # per account: the oldest go first (an audit reads the recent past)

# Appends an event when the stream's last hash is still ARGV[1] (compare and append: one key, so
# it works on Redis Cluster); else returns that last hash for the caller to chain to and retry.
_APPEND_LUA = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local prev = ARGV[1]
if last[1] then
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'hash' then prev = fields[i + 1] end
  end
end
if prev ~= ARGV[2] then return prev end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'type', ARGV[4], 'data', ARGV[5],
           'at', ARGV[6], 'prev', prev, 'hash', ARGV[7])
return false
"""


def stream_key(player_id: str) -> str:
    return f"{{acct:{player_id}}}:events"


def event_hash(prev: str, kind: str, data: dict[str, Any], at: int) -> str:
    body = json.dumps({"prev": prev, "type": kind, "data": data, "at": at}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()


class AccountLog:
    def __init__(self, client: Any):
        self.redis = client
        self._append = client.register_script(_APPEND_LUA)

    def append(self, player_id: str, kind: str, **data: Any) -> None:
        """Record ``kind`` on the player's stream, chained to the event before it."""
        prev = GENESIS  # a guess: the script answers with the real last hash
        for _ in range(10):
            at = int(time.time() * 1000)
            text = json.dumps(data, sort_keys=True)
            current = self._append(keys=[stream_key(player_id)], args=[
                GENESIS, prev, MAX_EVENTS, kind, text, at, event_hash(prev, kind, data, at)])
            if current is None:
                return
            prev = _text(current)  # another append came first: chain to it
        raise RuntimeError(f"the account stream of {player_id} kept moving")

    def read(self, player_id: str, limit: int = 100) -> list[dict[str, Any]]:
        """The account's latest events, oldest first."""
        entries = self.redis.xrevrange(stream_key(player_id), count=limit)
        return [_event(entry_id, fields) for entry_id, fields in reversed(entries)]

    def verify(self, player_id: str) -> bool:
        """Whether every event's hash matches its content and the one before it."""
        prev = None
        for event in self.read(player_id, MAX_EVENTS * 2):
            if prev is not None and event["prev"] != prev:
                return False
            if event["hash"] != event_hash(event["prev"], event["type"], event["data"],
                                           event["at"]):
                return False
            prev = event["hash"]
        return True


def _event(entry_id: Any, fields: dict[Any, Any]) -> dict[str, Any]:
    f = {_text(k): _text(v) for k, v in fields.items()}
    return {"id": _text(entry_id), "type": f["type"], "data": json.loads(f["data"]),
            "at": int(f["at"]), "prev": f["prev"], "hash": f["hash"]}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


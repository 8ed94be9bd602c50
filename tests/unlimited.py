"""Settings for tests that create many players and games from one address and play the
unlisted ``tally``: no rate limits (nor caps on streams, connections per address, reads by cost
and bot-only games), unlisted games and test-only options (Mag Blast's stacked deal) allowed.
The limits and the refusal of unlisted games have tests of their own
(tests/service/test_limits_and_tokens.py, test_disputes_and_clocks.py,
tests/e2e/test_server_refusals.py), which set them."""

from __future__ import annotations

# Config(**CONFIG) for an app built in-process.
CONFIG = {"rate_limit_per_second": 0, "players_per_minute": 0, "games_per_minute": 0,
          "disputes_per_minute": 0, "unlisted_games": True, "test_options": True,
          "streams_per_address": 0,
          "streams_per_player": 0, "streams_per_process": 0,
          "anonymous_streams_per_process": 0, "read_units_per_second": 0,
          "player_read_units_per_second": 0, "bot_games_per_player": 0,
          "connections_per_address": 0}

# The same as environment variables, for `tablestream serve` in a subprocess.
ENV = {"RATE_LIMIT_PER_SECOND": "0", "RATE_LIMIT_PLAYERS_PER_MINUTE": "0",
       "RATE_LIMIT_GAMES_PER_MINUTE": "0", "RATE_LIMIT_DISPUTES_PER_MINUTE": "0",
       "UNLISTED_GAMES": "1", "TEST_OPTIONS": "1", "STREAMS_PER_ADDRESS": "0",
       "STREAMS_PER_PLAYER": "0",
       "STREAMS_PER_PROCESS": "0", "ANONYMOUS_STREAMS_PER_PROCESS": "0",
       "READ_UNITS_PER_SECOND": "0", "PLAYER_READ_UNITS_PER_SECOND": "0",
       "BOT_GAMES_PER_PLAYER": "0", "CONNECTIONS_PER_ADDRESS": "0"}

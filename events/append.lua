-- Append a batch of events to one game's log atomically (DESIGN.md, Events and the store).
--
-- KEYS[1] {g:<id>}:meta   KEYS[2] {g:<id>}:log   KEYS[3] {g:<id>}:cmds
-- KEYS[4] {g:<id>}:secret   KEYS[5] {g:<id>}:archive
-- ARGV[1] expected version   ARGV[2] prev: the last_hash the caller chained its hashes from
-- ARGV[3] command id ("" for none)   ARGV[4] n events   ARGV[5] n meta fields
-- ARGV[6] sha256 of the command as sent ("" for none: a machine's command or no command id)
-- ARGV[7] the secret of a game this append creates ("" for an append to an existing game): the
-- game's meta, secret and first events are then written in this one step, so a game is never
-- left as a meta and secret with no log (issue 23 item 3: a create refused half-way by a full
-- disk); an id already taken, live or archived, returns {"exists"} and writes nothing
-- ARGV[8] the game's live channel ("" for none) and ARGV[9] what to PUBLISH there once the
-- append is made (events.live: its events, to the processes following the game)
-- then 8 values per event: type, data, seat, cmd, at, prev, hash, command ("" for none)
-- (its version is expected + i)
-- then n meta field/value pairs;
-- then, optionally, an outbox (events.store.Outbox): ns, nr, then 3 values per stream
-- (approximate max length, field, value) for the streams KEYS[6..5+ns], to XADD to once the
-- append is made, and the hashes KEYS[6+ns..5+ns+nr] to read back (HVALS).
--
-- Returns {"ok", first, last} (with an outbox: {"ok", first, last, ids, reads})
--       | {"dup", first, last} | {"reused", first, last}
--       | {"conflict", actual} | {"notfound"} | {"exists"}.
-- The command hash records what the id was first used for ("first:last:sha", or "first:last" in
-- records older than the hash): the same id with another command is "reused" and appends nothing.
-- Every check runs before the first write: a Lua error after a write would not roll back.

local meta, log, cmds = KEYS[1], KEYS[2], KEYS[3]
local expected = tonumber(ARGV[1])
local prev, cmd, body, secret = ARGV[2], ARGV[3], ARGV[6], ARGV[7]
local n, nmeta = tonumber(ARGV[4]), tonumber(ARGV[5])

local state
if secret ~= '' then
  if redis.call('EXISTS', meta) == 1 or redis.call('EXISTS', KEYS[5]) == 1 then
    return {'exists'}
  end
  state = {'0', prev}  -- the new game, as the checks below expect it (written at the end)
else
  state = redis.call('HMGET', meta, 'version', 'last_hash')
  if not state[1] then
    return {'notfound'}
  end
end

-- A retried command returns its first answer even if its expected version has gone stale since.
if cmd ~= '' then
  local seen = redis.call('HGET', cmds, cmd)
  if seen then
    local first, last, hash = string.match(seen, '^(%d+):(%d+):?(%x*)$')
    if body ~= '' and hash ~= '' and hash ~= body then
      return {'reused', first, last}
    end
    return {'dup', first, last}
  end
end

local actual = tonumber(state[1])
if actual ~= expected or state[2] ~= prev then
  return {'conflict', state[1]}
end

-- The stream itself must end at the expected version too, else XADD below would fail half-way.
local top = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
local top_id = top[1] and top[1][1] or '0-0'
if top_id ~= (expected .. '-0') then
  return {'conflict', state[1]}
end

local last_hash = prev
for i = 1, n do
  local base = 9 + (i - 1) * 8
  local version = expected + i
  if ARGV[base + 8] == '' then
    redis.call('XADD', log, version .. '-0',
      'type', ARGV[base + 1], 'data', ARGV[base + 2], 'seat', ARGV[base + 3],
      'cmd', ARGV[base + 4], 'at', ARGV[base + 5], 'prev', ARGV[base + 6], 'hash', ARGV[base + 7])
  else
    redis.call('XADD', log, version .. '-0',
      'type', ARGV[base + 1], 'data', ARGV[base + 2], 'seat', ARGV[base + 3],
      'cmd', ARGV[base + 4], 'at', ARGV[base + 5], 'prev', ARGV[base + 6], 'hash', ARGV[base + 7],
      'command', ARGV[base + 8])
  end
  last_hash = ARGV[base + 7]
end

local first, last = expected + 1, expected + n
if cmd ~= '' then
  local record = first .. ':' .. last
  if body ~= '' then
    record = record .. ':' .. body
  end
  redis.call('HSET', cmds, cmd, record)
end
redis.call('HSET', meta, 'version', last, 'last_hash', last_hash)
if secret ~= '' then
  redis.call('SET', KEYS[4], secret)
end
local mbase = 9 + n * 8
for i = 1, nmeta do
  redis.call('HSET', meta, ARGV[mbase + 2 * i - 1], ARGV[mbase + 2 * i])
end
if ARGV[8] ~= '' then
  redis.call('PUBLISH', ARGV[8], ARGV[9])
end

-- The outbox goes last and by pcall: the append above is made whatever becomes of it.
local obase = mbase + 2 * nmeta
if not ARGV[obase + 1] then
  return {'ok', tostring(first), tostring(last)}
end
local ns, nr = tonumber(ARGV[obase + 1]), tonumber(ARGV[obase + 2])
local ids, reads = {}, {}
for j = 1, ns do
  local a = obase + 2 + (j - 1) * 3
  local id = redis.pcall('XADD', KEYS[5 + j], 'MAXLEN', '~', ARGV[a + 1], '*',
                         ARGV[a + 2], ARGV[a + 3])
  if type(id) ~= 'string' then
    id = ''
  end
  ids[j] = id
end
for j = 1, nr do
  local values = redis.pcall('HVALS', KEYS[5 + ns + j])
  if values['err'] then
    values = {}
  end
  reads[j] = values
end
return {'ok', tostring(first), tostring(last), ids, reads}

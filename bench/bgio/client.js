// The closed-loop client of bench/bgio_compare.py, the shape of bench/game_client.py: N games,
// each seat a boardgame.io client on its own socket.io connection (its live stream); the seat
// whose turn it is sends one `add` (one message a move, the POST's equivalent) and the other seat
// learns of it from its own connection.
//   node client.js BASE GAMES WARMUP_S SECONDS
// Prints "measuring" when the window opens and one JSON line of results when it closes.
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Race } = require('./game');

const [base, gamesArg, warmupArg, secondsArg] = process.argv.slice(2);
const GAMES = Number(gamesArg);
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

const w = { measuring: false, stopping: false, moves: 0, latencies: [], pushes: [], errors: 0,
  finished: 0 };

async function post(path, body) {
  const answer = await fetch(`${base}${path}`, { method: 'POST',
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!answer.ok) throw new Error(`HTTP ${answer.status} on ${path}`);
  return answer.json();
}

function table() {
  const t = { moves: 0, made: 0, clients: [], acked: new Map() };
  t.start = async () => {
    const { matchID } = await post('/games/race/create', { numPlayers: 2 });
    const seats = [];
    for (const playerID of ['0', '1']) {
      const { playerCredentials } = await post(`/games/race/${matchID}/join`,
        { playerID, playerName: `p${playerID}` });
      seats.push(playerCredentials);
    }
    let lastSeen = [-1, -1];
    t.clients = ['0', '1'].map((playerID, i) => {
      const client = Client({ game: Race, matchID, playerID, credentials: seats[i],
        multiplayer: SocketIO({ server: base }), debug: false });
      const seat = { sentAt: 0, sentFor: -1 };
      client.subscribe((state) => {
        if (!state || state._stateID <= lastSeen[i]) return;
        lastSeen[i] = state._stateID;
        const at = now();
        // A new state: the mover's acknowledgement, or the other seat's push (either may come
        // first); the push latency is the other's receipt less the mover's, 0 if it came first.
        const seen = t.acked.get(state._stateID) || {};
        if (seat.sentAt && state._stateID > seat.sentFor) {
          seen.ack = at;
          if (w.measuring) { w.moves += 1; t.moves += 1; w.latencies.push(at - seat.sentAt); }
          t.made += 1;
          seat.sentAt = 0;
        } else {
          seen.push = at;
        }
        if (seen.ack && seen.push) {
          if (w.measuring) w.pushes.push(Math.max(0, seen.push - seen.ack));
          t.acked.delete(state._stateID);
        } else {
          t.acked.set(state._stateID, seen);
        }
        if (state.ctx.gameover) {
          if (i === 0) { w.finished += w.measuring; t.restart(); }
          return;
        }
        if (!w.stopping && state.ctx.currentPlayer === String(i) && !seat.sentAt) {
          seat.sentAt = now();
          seat.sentFor = state._stateID;
          // Not from inside the store's own dispatch; and not once the game's clients were
          // stopped in between (its end seen by the other seat): their socket is gone.
          setImmediate(() => { if (!client.benchStopped) client.moves.add(); });
        }
      });
      client.start();
      return client;
    });
  };
  t.restart = () => {
    setImmediate(() => {
      for (const c of t.clients) stop(c);
      t.acked.clear();
      if (!w.stopping) t.start().catch(() => { w.errors += 1; });
    });
  };
  return t;
}

// A client whose socket never opened (or was stopped) throws on stop(): nothing to close.
function stop(client) {
  client.benchStopped = true;
  try { client.stop(); } catch (error) { /* already closed */ }
}

function pct(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null;
}

async function main() {
  const tables = Array.from({ length: GAMES }, table);
  for (let i = 0; i < tables.length; i += 16) {
    await Promise.all(tables.slice(i, i + 16).map((t) => t.start()));
  }
  await new Promise((r) => setTimeout(r, Number(warmupArg) * 1000));
  const deadline = Date.now() + 60000;
  while (tables.some((t) => !t.made) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const t of tables) t.moves = 0;
  const cpuBefore = process.cpuUsage();
  process.stdout.write('measuring\n');
  const started = now();
  w.measuring = true;
  await new Promise((r) => setTimeout(r, Number(secondsArg) * 1000));
  w.measuring = false;
  const elapsed = (now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  w.stopping = true;
  process.stdout.write(`${JSON.stringify({
    games: GAMES, moves: w.moves, seconds: elapsed, moves_per_s: w.moves / elapsed,
    errors: w.errors, p50_ms: pct(w.latencies, 0.5), p99_ms: pct(w.latencies, 0.99),
    push_p50_ms: pct(w.pushes, 0.5), push_p99_ms: pct(w.pushes, 0.99), pushes: w.pushes.length,
    slowest_game_moves: Math.min(...tables.map((t) => t.moves)), games_finished: w.finished,
    client_cpu_s: (cpu.user + cpu.system) / 1e6 })}\n`);
  for (const t of tables) for (const c of t.clients) stop(c);
  setTimeout(() => process.exit(0), 200);
}

main().catch((error) => { console.error(error); process.exit(1); });

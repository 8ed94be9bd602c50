// boardgame.io 0.50 server for bench/bgio_compare.py:
//   node server.js PORT memory|flatfile [DIR]
// FlatFile (node-persist) writes every match's state and log to DIR on each move.
const { Server, FlatFile, Origins } = require('boardgame.io/server');
const { Race } = require('./game');

const [port, storage, dir] = process.argv.slice(2);
const db = storage === 'flatfile' ? new FlatFile({ dir, logging: false, ttl: false }) : undefined;
const server = Server({ games: [Race], db, origins: [Origins.LOCALHOST] });
server.run({ port: Number(port) }, () => console.error(`bgio ${storage} on ${port}`));

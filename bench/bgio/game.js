// The minimal 2-player game of the comparison (issue 29 item 4): each turn one move, `add`,
// then the turn passes to the other player (maxMoves 1). The move runs on the server only
// (client: false), so the mover's new state is the server's acknowledgement, as Tablestream's
// POST answer is. A game ends after LENGTH moves, so games are replaced mid-run as real ones are.
const LENGTH = Number(process.env.BGIO_GAME_LENGTH || 200);

const Race = {
  name: 'race',
  setup: () => ({ n: 0 }),
  moves: {
    add: { move: ({ G }) => { G.n += 1; }, client: false },
  },
  turn: { minMoves: 1, maxMoves: 1 },
  endIf: ({ G }) => (G.n >= LENGTH ? { draw: true } : undefined),
};

module.exports = { Race };

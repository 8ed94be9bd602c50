// Results explained (issue 27 item 7): who won and why in a sentence, then the scores that
// matter in that game, in its own units (gold, points, health, hull, victory points).
import { el } from './dom.js';
import { plain } from './log.js';

const SIDE_NAME = { fp: 'the Free Peoples', sh: 'the Shadow' };

// "Mina", "Mina and Bo", "Mina, Bo and Kai"
function listed(items) {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// Every seat's score, best first: "Bo 64, ann 31".
function scoreList(result, who, unit) {
  const order = (result.ranking || []).flat();
  const seats = order.length ? order : Object.keys(result.scores || {}).map(Number);
  return seats.filter((s) => result.scores && String(s) in result.scores)
    .map((s) => `${who(s)} ${unit(result.scores[String(s)])}`).join(', ');
}

// The words for each game: [why the winners won, the scores line].
const EXPLAIN = {
  loot: (r, who, best) => [
    `${best.names} ${best.verb} with ${plural(best.score, 'gold coin')} in captured merchant ships.`,
    `Gold captured: ${scoreList(r, who, (v) => v)}.`],
  maskmen: (r, who, best) => [
    `${best.names} ${best.verb} with the most points over the seasons (${best.score}).`,
    `Points: ${scoreList(r, who, (v) => v)}.`],
  faker_blue: (r, who, best, body) => {
    const why = r.reason === 'last_survivor'
      ? `${best.names} ${best.verb} as the last player standing, with ${plural(best.score, 'health point')} left.`
      : `The draw pile ran out: ${best.names} ${best.verb} with the most health (${best.score})`
        + `${(r.tiebreak || []).some((t) => r.winners.includes(t.seat)) ? ', the tie settled by the value of the cards in hand' : ''}.`;
    const tie = (r.tiebreak || []).length
      ? ` Tied on health, cards in hand worth: ${r.tiebreak.map((t) => `${who(t.seat)} ${t.value}`).join(', ')}.` : '';
    return [why, `Health left: ${scoreList(r, who, (v) => v)}.${tie}`];
  },
  magblast: (r, who, best) => [
    `${best.names} ${best.verb}: ${best.count > 1 ? 'their command ships are' : 'their command ship is'} the last still flying, with ${plural(best.score, 'hull point')} left.`,
    `Command ship hull left: ${scoreList(r, who, (v) => (v ? v : 'destroyed'))}.`],
  wotr: (r, who, best, body) => {
    const view = body.view || {};
    const side = r.winner_side || view.winner;
    const need = view.vp_to_win || {};
    // the rules' own sentence for how it ended (wotr.md §15), else one made here
    const why = r.summary ? `${best.names} (${SIDE_NAME[side]}) ${best.verb}. ${r.summary}` : r.reason === 'military_victory'
      ? `${best.names} (${SIDE_NAME[side]}) ${best.verb} a military victory: ${plural((view.vp || {})[side] ?? best.score, 'victory point')}, ${need[side] ?? '?'} needed.`
      : `${best.names} (${SIDE_NAME[side]}) ${best.verb}: the Shadow did not win by arms before the end of round ${view.max_rounds || view.round || '?'}, so the Ring is destroyed.`;
    const vp = view.vp || {};
    return [why, `Victory points: the Free Peoples ${vp.fp ?? r.scores?.['0'] ?? 0} (of ${need.fp ?? '?'} needed), the Shadow ${vp.sh ?? r.scores?.['1'] ?? 0} (of ${need.sh ?? '?'} needed).`];
  },
};

// body: the finished game as the API gives it; names: seat -> display name.
export function resultParts(body, names) {
  const result = body.result || {};
  const who = (seat) => (Number(seat) === body.you ? 'you' : names[seat] || `Seat ${Number(seat) + 1}`);
  const winners = (result.winners || []).map(Number);
  if (!winners.length) {
    return [`No winner${result.reason ? `: ${plain(result.reason)}` : ''}.`, null];
  }
  const youWon = winners.includes(body.you);
  const shown = winners.map(who);
  const first = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const best = {
    names: first(listed(shown)),
    verb: youWon && winners.length === 1 ? 'win' : (winners.length > 1 ? 'win' : 'wins'),
    score: result.scores ? result.scores[String(winners[0])] : null,
    count: winners.length,
  };
  const explain = EXPLAIN[body.game];
  if (explain) {
    try { return explain(result, who, best, body); } catch (error) { console.error(error); }
  }
  const scores = result.scores ? `Scores: ${scoreList(result, who, (v) => v)}.` : null;
  return [`${best.names} ${best.verb}${result.reason ? ` (${plain(result.reason)})` : ''}.`, scores];
}

export function drawResult(body, names) {
  const [why, scores] = resultParts(body, names);
  return el('div', { class: 'result', id: 'result', role: 'status' },
    el('p', {}, el('strong', {}, 'Game over. '), why),
    scores ? el('p', { class: 'scores' }, scores) : null);
}

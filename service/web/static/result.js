// Results explained (issue 27 item 7): who won and why in a sentence, then the scores that
// matter in that game, in its own units (gold, points, health, hull, victory points).
import { el } from './dom.js';
import { plain } from './log.js';
import { locale, num, t, tn, term } from './i18n.js';

const sideName = (side) => term(`wotr.side.${side}`, { fp: 'Free Peoples', sh: 'Shadow' }[side] || '?'); // i18n-ignore: term()'s English fallback

// "Mina", "Mina and Bo", "Mina, Bo and Kai"
function listed(items) {
  return items.length < 2 ? items.join('')
    : t('{some} and {last}', { some: items.slice(0, -1).join(', '), last: items.at(-1) });
}

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
    tn('{names} {verb} with {n} gold coin in captured merchant ships.',
      '{names} {verb} with {n} gold coins in captured merchant ships.', best.score, best),
    t('Gold captured: {scores}.', { scores: scoreList(r, who, num) })],
  maskmen: (r, who, best) => [
    t('{names} {verb} with the most points over the seasons ({score}).', best),
    t('Points: {scores}.', { scores: scoreList(r, who, num) })],
  faker_blue: (r, who, best) => {
    const tiebroken = (r.tiebreak || []).some((x) => r.winners.includes(x.seat));
    const why = r.reason === 'last_survivor'
      ? tn('{names} {verb} as the last player standing, with {n} health point left.',
        '{names} {verb} as the last player standing, with {n} health points left.', best.score, best)
      : (tiebroken
        ? t('The draw pile ran out: {names} {verb} with the most health ({score}), the tie settled by the value of the cards in hand.', best)
        : t('The draw pile ran out: {names} {verb} with the most health ({score}).', best));
    const tie = (r.tiebreak || []).length
      ? ` ${t('Tied on health, cards in hand worth: {values}.', { values: r.tiebreak.map((x) => `${who(x.seat)} ${x.value}`).join(', ') })}` : '';
    return [why, `${t('Health left: {scores}.', { scores: scoreList(r, who, num) })}${tie}`];
  },
  magblast: (r, who, best) => [
    best.count > 1
      ? tn('{names} {verb}: their command ships are the last still flying, with {n} hull point left.',
        '{names} {verb}: their command ships are the last still flying, with {n} hull points left.', best.score, best)
      : tn('{names} {verb}: their command ship is the last still flying, with {n} hull point left.',
        '{names} {verb}: their command ship is the last still flying, with {n} hull points left.', best.score, best),
    t('Command ship hull left: {scores}.', { scores: scoreList(r, who, (v) => (v ? num(v) : t('destroyed'))) })],
  wotr: (r, who, best, body) => {
    const view = body.view || {};
    const side = r.winner_side || view.winner;
    const need = view.vp_to_win || {};
    const fields = { ...best, side: sideName(side) };
    // the rules' own sentence for how it ended (wotr.md §15; English), else one made here
    const why = r.summary && locale() === 'en' ? `${t('{names} ({side}) {verb}.', fields)} ${r.summary}` : r.reason === 'military_victory'
      ? tn('{names} ({side}) {verb} a military victory: {n} victory point, {need} needed.',
        '{names} ({side}) {verb} a military victory: {n} victory points, {need} needed.',
        (view.vp || {})[side] ?? best.score, { ...fields, need: need[side] ?? '?' })
      : t('{names} ({side}) {verb}: the Shadow did not win by arms before the end of round {round}, so the Ring is destroyed.',
        { ...fields, round: view.max_rounds || view.round || '?' });
    const vp = view.vp || {};
    return [why, t('Victory points: the Free Peoples {fp} (of {fp_need} needed), the Shadow {sh} (of {sh_need} needed).', {
      fp: vp.fp ?? r.scores?.['0'] ?? 0, fp_need: need.fp ?? '?', sh: vp.sh ?? r.scores?.['1'] ?? 0, sh_need: need.sh ?? '?' })];
  },
};

// body: the finished game as the API gives it; names: seat -> display name.
export function resultParts(body, names) {
  const result = body.result || {};
  const who = (seat) => (Number(seat) === body.you ? t('you') : names[seat] || t('Seat {n}', { n: Number(seat) + 1 }));
  const winners = (result.winners || []).map(Number);
  if (!winners.length) {
    return [result.reason ? t('No winner: {reason}.', { reason: reasonWords(result.reason) }) : t('No winner.'), null];
  }
  const youWon = winners.includes(body.you);
  const shown = winners.map(who);
  const first = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const best = {
    names: first(listed(shown)),
    verb: youWon && winners.length === 1 ? t('win') : (winners.length > 1 ? t('win') : t('wins')),
    score: result.scores ? result.scores[String(winners[0])] : null,
    count: winners.length,
  };
  const explain = EXPLAIN[body.game];
  if (explain) {
    try { return explain(result, who, best, body); } catch (error) { console.error(error); }
  }
  const scores = result.scores ? t('Scores: {scores}.', { scores: scoreList(result, who, num) }) : null;
  return [result.reason ? t('{names} {verb} ({reason}).', { ...best, reason: reasonWords(result.reason) })
    : t('{names} {verb}.', best), scores];
}

export function drawResult(body, names) {
  const [why, scores] = resultParts(body, names);
  return el('div', { class: 'result', id: 'result', role: 'status' },
    el('p', {}, el('strong', {}, `${t('Game over.')} `), why),
    scores ? el('p', { class: 'scores' }, scores) : null);
}

// A result's reason in words.
function reasonWords(reason) {
  return ({ last_survivor: t('last survivor'), deck_out: t('the draw pile ran out'),
    military_victory: t('military victory'), ring_destroyed: t('the Ring is destroyed'),
    abandoned: t('abandoned'), timeout: t('timeout'), resigned: t('resigned'),
    all_eliminated: t('everyone is out') })[reason] || plain(reason);
}

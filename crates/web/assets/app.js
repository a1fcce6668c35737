// mancala serve: the browser front end. Plain ES2020, no framework, no
// build step, no network but this server's JSON API (docs/web.md). The page
// runs under a strict Content-Security-Policy, so everything is built with
// DOM calls (no inline handlers or style attributes, no eval).
//
// Stable hooks for the end-to-end tests (tests/web/e2e.mjs):
//   tab-play, tab-analyse, tab-results   the view tabs (links to #play, ...)
//   view-play, view-analyse, view-results  the views; data-busy="1" while a
//                                        request or an animation is running;
//                                        view-play also has data-plies (plies
//                                        played) and data-over ("1" when over)
//   status (aria-live), error            the status line and the error area
//   animate, theme                       the animation checkbox, the theme button
//   Play: g-name g-pits g-seeds g-pie g-spec g-start a-preset a-spec seat
//     two-humans new-game swap undo hint flip link link-url hint-out result
//     notice (data-kind: extra, swap, capture) players moves-text
//     move-list (li: data-move, data-player)
//   Boards (SVG): play-board, x-board, x-pv-board, v-board. Their cells are
//     <g> elements with data-testid PREFIX-pit-P-I (player P's pit I, from 0)
//     and PREFIX-store-P, with data-cell, data-count, and a child
//     <text class="count">; legal pits also carry data-move and class
//     "legal"; best moves class "best"; burnt holes class "burnt". PREFIX is
//     empty on the Play board ("pit-0-2"), "x-" on the analysed position,
//     "pv-" on the principal-variation board and "v-" on the game viewer.
//   Analyse: x-spec x-start x-from-play x-pos x-load x-editor x-mover x-ms
//     x-nodes x-agent x-go x-verdict (data-value, data-exact) x-table (rows
//     x-row-MOVE with data-value, data-exact, data-best) x-pv x-pv-at
//     (data-at) x-pv-line
//   Results: r-folders (buttons folder-PATH), r-title, r-report (iframe),
//     r-agent r-result r-end r-prev r-next r-count r-games (buttons game-ID),
//     viewer v-title v-first v-prev v-next v-last v-at (data-at, data-plies)
//     v-timeline (marks tl-N with data-blunder, bars bar-N) v-info (dd
//     elements info-move, info-player, info-ms, info-clock, info-search,
//     info-note; data-blunder on info-note)
// ------------------------------------------------------------ helpers

const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Builds an element: attrs are attributes, except `text` (its text) and
// functions (event listeners, `onclick` -> "click").
function make(ns, tag, attrs, kids) {
  const el = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') el.textContent = v;
    else if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids || []) if (kid) el.append(kid);
  return el;
}
const h = (tag, attrs, ...kids) => make(null, tag, attrs, kids);
const s = (tag, attrs, ...kids) => make(SVGNS, tag, attrs, kids);

// A toggle button's new state (aria-pressed), after a click.
function toggled(button) {
  const on = button.getAttribute('aria-pressed') !== 'true';
  button.setAttribute('aria-pressed', String(on));
  return on;
}

// Local storage can be refused (private modes); preferences then last a page.
function load(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
function save(key, v) { try { localStorage.setItem(key, v); } catch (e) { /* not kept */ } }

const fmtVal = (v) => (v === null || v === undefined) ? '?' :
  (v > 0 ? '+' : v < 0 ? '\u2212' : '') + (Number.isInteger(v) ? Math.abs(v) : Math.abs(v).toFixed(2));
const fmtMs = (ms) => (ms === null || ms === undefined) ? '\u2014' :
  (ms >= 100 ? Math.round(ms).toLocaleString('en') : ms >= 1 ? ms.toFixed(1) : ms.toFixed(3)) + ' ms';
const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;

// ------------------------------------------------------------ the API

// `status`: the HTTP status of a refusal (undefined: no answer).
class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

// One JSON request. A body makes it a POST. An {"error": ...} answer (or a
// server out of reach) throws ApiError with the server's words.
async function api(path, body, signal) {
  const opts = body === undefined ? { signal } : {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal,
  };
  let res;
  try { res = await fetch(path, opts); } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError('the server cannot be reached');
  }
  let data = null;
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) throw new ApiError((data && data.error) || `${res.status} ${res.statusText}`, res.status);
  return data;
}

function setStatus(text) { $('status').textContent = text; }
function showError(e) {
  if (e && e.name === 'AbortError') return; // we stopped it ourselves
  const box = $('error');
  box.textContent = e instanceof ApiError ? e.message : `Error: ${e && e.message ? e.message : e}`;
  box.hidden = false;
}
function clearError() { $('error').hidden = true; $('error').textContent = ''; }

// ------------------------------------------------------------ the board

// Column width and the height of the bands above and below the rows (pit
// numbers next to the board, move values further out).
const U = 100, LB = 44;

// Seed dot offsets. Pits: two rings round the count (7 inside, 13 outside),
// so an added seed takes the next place and the others stay put. Stores: a
// pile filling up from the bottom.
const PIT_DOTS = 20, STORE_DOTS = 60;
const pitDots = Array.from({ length: PIT_DOTS }, (_, k) => {
  const [r, n, j] = k < 7 ? [20, 7, k] : [31.5, 13, k - 7];
  const a = -Math.PI / 2 + (2 * Math.PI * j) / n + (k < 7 ? 0 : 0.24);
  return [r * Math.cos(a), r * Math.sin(a)];
});
const storeDots = Array.from({ length: STORE_DOTS }, (_, k) => [((k % 5) - 2) * 12.5, 72 - Math.floor(k / 5) * 12.5]);

const cellName = (st, c) => {
  const n = st.pits;
  if (c >= 2 * n) return `player ${c - 2 * n}'s ${st.game.startsWith('oware') ? 'captures' : 'store'}`;
  return `player ${c < n ? 0 : 1}'s pit ${(c % n) + 1}`;
};

// Draws a state into an <svg>. opts: board (counts shown instead of the
// state's, while animating), flip, prefix (of the test ids), onMove (makes
// the mover's legal pits clickable), lit/captured (Sets of cells), from
// (the cell a sowing started from), values ({move: {value, exact, best}}),
// names ([label of player 0, of player 1]).
function drawBoard(svg, st, opts = {}) {
  const n = st.pits, board = opts.board || st.board, cols = n + 2;
  const bottom = opts.flip ? 1 : 0, top = 1 - bottom;
  const pfx = opts.prefix || '';
  const legal = opts.onMove ? new Set(st.legal) : new Set();
  const burnt = (st.burnt || [[], []]).map((b) => new Set(b));
  const values = opts.values || {};
  svg._onMove = opts.onMove || null;
  svg.setAttribute('viewBox', `-6 0 ${cols * U + 12} ${2 * LB + 200}`);
  const hadFocus = svg.contains(document.activeElement) || document.activeElement === document.body;
  svg.replaceChildren();
  svg.append(s('rect', { class: 'frame', x: 0, y: LB, width: cols * U, height: 200, rx: 46 }));

  for (const p of [0, 1]) {
    const onBottom = p === bottom;
    for (let i = 0; i < n; i++) {
      const cell = p * n + i, count = board[cell];
      const col = onBottom ? i + 1 : n - i;
      const cx = col * U + U / 2, cy = LB + (onBottom ? 150 : 50);
      const move = String(i + 1);
      const isLegal = st.to_move === p && legal.has(move);
      const isBurnt = burnt[p].has(i);
      const v = st.to_move === p ? values[move] : undefined;
      const cls = ['cell', 'pit', isLegal && 'legal', opts.lit && opts.lit.has(cell) && 'lit',
        opts.captured && opts.captured.has(cell) && 'captured', opts.from === cell && 'from',
        v && v.best && 'best', isBurnt && 'burnt'].filter(Boolean).join(' ');
      const label = `pit ${i + 1}, ${plural(count, 'seed')}, player ${p}${isBurnt ? ', burnt' : ''}` +
        (v ? `, value ${fmtVal(v.value)}` : '');
      const g = s('g', {
        class: cls, 'data-testid': `${pfx}pit-${p}-${i}`, 'data-cell': cell, 'data-count': count,
        'data-move': isLegal ? move : null, role: isLegal ? 'button' : 'img', tabindex: isLegal ? 0 : null,
        'aria-label': label,
      });
      g.append(s('circle', { class: 'hole', cx, cy, r: 40 }));
      for (let k = 0; k < Math.min(count, PIT_DOTS); k++) {
        g.append(s('circle', { class: 'seed', cx: cx + pitDots[k][0], cy: cy + pitDots[k][1], r: 5.5 }));
      }
      if (isBurnt) {
        g.append(s('path', { class: 'burnt-x', d: `M${cx - 22},${cy - 22}L${cx + 22},${cy + 22}M${cx + 22},${cy - 22}L${cx - 22},${cy + 22}` }));
      }
      g.append(s('text', { class: 'count', x: cx, y: cy, text: count }));
      svg.append(g);
      // Pit numbers just outside the row; values further out.
      const inner = onBottom ? LB + 213 : LB - 13, outer = onBottom ? LB + 235 : LB - 35;
      svg.append(s('text', { class: 'pitno', x: cx, y: inner, text: i + 1 }));
      if (v) {
        const t = s('text', { class: 'value', x: cx, y: outer, 'data-testid': `${pfx}value-${p}-${i}`, text: fmtVal(v.value) + (v.exact ? '' : '~') });
        svg.append(t);
        fitWidth(t, U - 8);
      }
    }
    // The store: after the row's last pit, so on the right for the bottom
    // player and on the left for the top one.
    const cell = 2 * n + p, count = board[cell];
    const col = onBottom ? n + 1 : 0, cx = col * U + U / 2, cy = LB + 100;
    const g = s('g', {
      class: ['cell', 'store', st.to_move === p && 'turn', opts.lit && opts.lit.has(cell) && 'lit',
        opts.captured && opts.captured.has(cell) && 'captured'].filter(Boolean).join(' '),
      'data-testid': `${pfx}store-${p}`, 'data-cell': cell, 'data-count': count, role: 'img',
      'aria-label': `${cellName(st, cell)}, ${plural(count, 'seed')}`,
    });
    g.append(s('rect', { class: 'hole', x: cx - 40, y: LB + 12, width: 80, height: 176, rx: 38 }));
    for (let k = 0; k < Math.min(count, STORE_DOTS); k++) {
      g.append(s('circle', { class: 'seed', cx: cx + storeDots[k][0], cy: cy + storeDots[k][1], r: 5 }));
    }
    g.append(s('text', { class: 'count', x: cx, y: cy, text: count }));
    svg.append(g);
    const name = (opts.names && opts.names[p]) || `P${p}`;
    svg.append(s('text', { class: 'who', x: cx, y: onBottom ? LB + 213 : LB - 13, text: name.length > 12 ? `P${p}` : name }));
  }
  // Keyboard users keep their place: re-focus the pit they last played from.
  if (hadFocus && svg._focusCell !== undefined) {
    const el = svg.querySelector(`[data-cell="${svg._focusCell}"][tabindex]`);
    if (el) el.focus();
  }
}

// Squeezes an SVG text drawn wider than `width` (board units) into it: a
// long value under a pit ("-10.5~") would otherwise run into its
// neighbour's on a phone, where the labels are drawn larger. Measured once
// drawn (the font decides the width); a board not on screen measures 0.
function fitWidth(text, width) {
  const drawn = text.getComputedTextLength();
  if (drawn > width) {
    text.setAttribute('textLength', width);
    text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
  }
}

// Clicks and Enter/Space on a legal pit call the board's onMove. Installed
// once per <svg>, since drawBoard rebuilds its children.
function boardInput(svg) {
  const act = (ev, keyboard) => {
    const g = ev.target.closest && ev.target.closest('.cell.legal');
    if (!g || !svg._onMove) return;
    ev.preventDefault();
    svg._focusCell = keyboard ? g.dataset.cell : undefined;
    svg._onMove(g.dataset.move);
  };
  svg.addEventListener('click', (ev) => act(ev, false));
  svg.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') act(ev, true); });
}

// The cells whose count after the sowing differs from the state: what
// captures (and the end of the game) moved.
function capturedCells(before, ply) {
  const b = sownBoard(before, ply), out = new Set();
  if (ply.swap) return out;
  b.forEach((c, i) => { if (c !== ply.state.board[i]) out.add(i); });
  return out;
}
function sownBoard(before, ply) {
  const b = before.slice();
  for (const relay of ply.sowing || []) { b[relay.from] = 0; for (const c of relay.to) b[c]++; }
  return b;
}
const sownCells = (ply) => new Set((ply.sowing || []).flatMap((r) => r.to));

// Plays a ply's sowing seed by seed on the board, then shows the captures.
// `draw(board, lit, from, captured)` redraws; `alive()` false stops it (undo,
// new game). A long Congkak relay drops several seeds a frame, so that no
// move takes much more than a second and a half.
async function animateSowing(before, ply, draw, alive) {
  const b = before.slice();
  const relays = ply.sowing || [];
  const seeds = relays.reduce((a, r) => a + r.to.length, 0);
  const frames = Math.min(seeds + relays.length, 60);
  const perFrame = Math.ceil(seeds / Math.max(1, frames - relays.length));
  const delay = Math.max(20, Math.min(150, 1500 / Math.max(1, frames)));
  const lit = new Set();
  for (const relay of relays) {
    b[relay.from] = 0;
    draw(b, lit, relay.from, null);
    await sleep(delay);
    if (!alive()) return;
    for (let k = 0; k < relay.to.length; k += perFrame) {
      for (const c of relay.to.slice(k, k + perFrame)) { b[c]++; lit.add(c); }
      draw(b, lit, relay.from, null);
      await sleep(delay);
      if (!alive()) return;
    }
  }
  const caught = capturedCells(before, ply);
  if (caught.size) {
    draw(b, lit, null, caught);
    await sleep(450);
  }
}

// ------------------------------------------------------------ game specs

const DEFAULTS = { kalah: [6, 4], oware: [6, 4], congkak: [7, 7] };

// A spec from the structured controls, listing only what differs from the
// game's defaults (as the program's canonical form does).
function specFromControls() {
  const name = $('g-name').value, [dp, ds] = DEFAULTS[name];
  const pits = +$('g-pits').value || dp, seeds = +$('g-seeds').value || ds;
  const o = [];
  if (pits !== dp || seeds !== ds) o.push(`pits=${pits}`, `seeds=${seeds}`);
  if (name !== 'oware' && $('g-empty').checked) o.push('empty_capture=true');
  if (name === 'kalah' && $('g-pie').checked) o.push('pie=true');
  if (name === 'kalah' && $('g-end').value === 'delayed') o.push('game_end=delayed');
  if (name === 'congkak' && $('g-end').value === 'immediate') o.push('game_end=immediate');
  if (name === 'congkak' && $('g-rounds').value === 'many') o.push('rounds=many');
  if (name === 'oware' && $('g-slam').value !== 'no_capture') o.push(`grand_slam=${$('g-slam').value}`);
  return o.length ? `${name}:${o.join(',')}` : name;
}

// The controls from a spec (a restored link's game); keys they do not show
// stay in the text field only.
function controlsFromSpec(spec) {
  const [rawName, rest] = spec.split(':');
  let name = rawName.trim().toLowerCase();
  if (name === 'abapa') name = 'oware';
  if (name === 'congklak' || name === 'kongkak') name = 'congkak';
  if (!DEFAULTS[name]) return;
  const o = {};
  for (const kv of (rest || '').split(',')) {
    const [k, v] = kv.split('=').map((x) => (x || '').trim().toLowerCase());
    if (k) o[k] = v;
  }
  const yes = (v) => ['true', 'yes', 'on', '1'].includes(v);
  $('g-name').value = name;
  $('g-pits').value = o.pits || DEFAULTS[name][0];
  $('g-seeds').value = o.seeds || DEFAULTS[name][1];
  $('g-empty').checked = yes(o.empty_capture);
  $('g-pie').checked = yes(o.pie);
  $('g-end').value = o.game_end || (name === 'congkak' ? 'delayed' : 'immediate');
  $('g-slam').value = o.grand_slam || 'no_capture';
  $('g-rounds').value = o.rounds || 'one';
  showGameOptions();
}

// Only the chosen game's options are shown.
function showGameOptions() {
  const name = $('g-name').value;
  for (const el of document.querySelectorAll('#setup .opt')) el.hidden = !el.classList.contains(name);
}

// ------------------------------------------------------------ Play

const play = {
  game: null,        // canonical spec, from the server
  startPos: '',      // the start position given by the user ('' = the game's start)
  start: null,       // STATE at the start
  plies: [],         // PLY list played so far
  agent: 'minimax:depth=4',
  seat: 0, two: false, flip: false,
  watch: false, agent2: 'random', paused: false,
  gen: 0,            // bumped by new game / undo: stale answers are dropped
  busy: false, abort: null,
  seed: Math.floor(Math.random() * 1e9),
  hint: null,        // {values, text} for the current position
  judged: null,      // {line, notes, done}: "Analyse game"'s judgement of each move
  notice: null,
  cursor: null,      // plies shown while reviewing the game (null: the live position)
};
const current = () => (play.plies.length ? play.plies[play.plies.length - 1].state : play.start);
// The position on the board: the live one, or the one after `cursor` plies.
const reviewing = () => play.cursor !== null;
const shown = () => (!reviewing() ? current() : play.cursor ? play.plies[play.cursor - 1].state : play.start);
// Who plays each seat: two humans, a human and an agent, or (watching)
// `agent` as player 0 and `agent2` as player 1.
const isHuman = (p) => play.two || (!play.watch && p === play.seat);
const agentOf = (p) => (play.watch && p === 1 ? play.agent2 : play.agent);
const humanToMove = (st) => st && st.to_move !== null && isHuman(st.to_move);
const animateOn = () => $('animate').checked;

function playerName(p) {
  if (play.two) return `Player ${p}`;
  return isHuman(p) ? `You (player ${p})` : `${agentOf(p)} (player ${p})`;
}

function setBusy(flag) {
  play.busy = flag;
  $('view-play').dataset.busy = flag ? '1' : '0';
  renderPlayControls();
}

// Stops whatever is in flight (an agent's search, an animation) so that a
// new game or an undo starts clean.
function cancelPlay() {
  play.gen++;
  if (play.abort) play.abort.abort();
  play.abort = null;
  setBusy(false);
}

function decorations() {
  const n = reviewing() ? play.cursor : play.plies.length;
  if (!n) return {};
  const ply = play.plies[n - 1];
  const before = n > 1 ? play.plies[n - 2].state.board : play.start.board;
  return { from: ply.swap ? null : (ply.sowing[0] || {}).from, captured: capturedCells(before, ply) };
}

// The stores' labels: "You" for the human's against an agent.
const playNames = () => [0, 1].map((p) => (!play.two && isHuman(p) ? 'You' : `P${p}`));

function renderPlayBoard(over) {
  const st = shown();
  const canClick = !play.busy && !reviewing() && humanToMove(st);
  drawBoard($('play-board'), st, Object.assign({
    flip: play.flip, names: playNames(),
    onMove: canClick ? playMove : null, values: play.hint && !reviewing() ? play.hint.values : null,
  }, over || decorations()));
}

function renderPlayControls() {
  const st = current();
  if (!st) return;
  const mine = !play.busy && humanToMove(st);
  $('swap').hidden = !(st.legal.includes('swap') && humanToMove(st));
  $('swap').disabled = !mine;
  $('hint').disabled = play.busy || reviewing() || st.to_move === null;
  // While an agent is to move (and not paused) the game goes on.
  $('judge').disabled = play.busy || !play.plies.length || !(st.to_move === null || humanToMove(st) || (play.watch && play.paused));
  $('from-here').hidden = !reviewing();
  $('from-here').disabled = play.busy;
  $('undo').disabled = !play.plies.some((p) => isHuman(p.player));
  $('pause').hidden = !play.watch;
  $('step').hidden = !play.watch;
  $('step').disabled = !play.paused || play.busy || st.to_move === null;
}

function renderPlay() {
  const st = current();
  if (!st) return;
  if (view === 'play') setAddress(playHash(), false);
  const v = $('view-play');
  v.dataset.plies = play.plies.length;
  v.dataset.cursor = reviewing() ? play.cursor : '';
  // The agents' seeds are this plus the ply: a game can be played again.
  v.dataset.seed = play.seed;
  v.dataset.over = st.to_move === null ? '1' : '0';
  renderPlayBoard();
  renderPlayControls();
  // Who is who, and whose turn it is.
  const pl = $('players');
  // The top row's player first (▲), then the bottom row's (▼).
  pl.replaceChildren(...(play.flip ? [0, 1] : [1, 0]).map((p, i) => h('span', {
    class: st.to_move === p ? 'to-move' : null, 'data-testid': `player-${p}`,
    text: `${i ? '\u25bc' : '\u25b2'} ${playerName(p)}${st.to_move === p ? ' \u2014 to move' : ''}`,
  })));
  if (st.round) pl.append(h('span', { text: `Round ${st.round.number}, begun by player ${st.round.first}` }));
  // The move list, numbered, with who played each move.
  $('moves-text').textContent = play.plies.map((p) => p.move).join(' ');
  // Each move a button that shows the position after it (review).
  const at = reviewing() ? play.cursor : play.plies.length;
  // Judged moves carry what they gave away ("?" for a blunder).
  const notes = judgedNotes();
  $('move-list').replaceChildren(...play.plies.map((p, i) => {
    const note = notes[i], lost = note && note.loss ? note.loss : 0;
    return h('li', {
      class: `p${p.player}${i + 1 === at ? ' at' : ''}${note && note.blunder ? ' blunder' : ''}`, 'data-move': p.move, 'data-player': p.player,
      'data-loss': note && note.loss !== null ? note.loss : null, 'data-blunder': note ? (note.blunder ? '1' : '0') : null,
    }, h('button', {
      type: 'button', class: 'link', 'data-ply': i + 1, 'aria-current': i + 1 === at ? 'step' : null,
      title: [p.extra_turn && 'extra turn', note && (note.loss === null ? 'not valued' : `${fmtVal(lost).replace(/^\+/, '')} given away${note.exact ? '' : ' (estimate)'}${note.best.length ? `; best ${note.best.join(', ')}` : ''}`)].filter(Boolean).join('; ') || null,
      text: `${i + 1}. P${p.player} ${p.move}${p.extra_turn ? '+' : ''}${note && note.blunder ? '??' : lost ? '?' : ''}`,
    }));
  }));
  renderJudged(notes);
  const nt = $('notice');
  nt.textContent = play.notice ? play.notice.text : '';
  nt.dataset.kind = play.notice ? play.notice.kind : '';
  $('hint-out').textContent = play.hint ? play.hint.text : '';
  // The result, once over.
  const res = $('result');
  if (st.outcome) {
    const o = st.outcome;
    const who = o.winner === null || o.winner === undefined ? 'A draw' :
      play.two ? `Player ${o.winner} wins` : isHuman(o.winner) ? 'You win'
        : play.watch ? `${agentOf(o.winner)} (player ${o.winner}) wins` : `${play.agent} wins`;
    res.textContent = `Game over: ${who}, ${o.scores[0]}\u2013${o.scores[1]}` +
      `${o.winner === null || o.winner === undefined ? '' : ` (by ${Math.abs(o.margin)})`}; ${o.reason.replace(/_/g, ' ')}.`;
    res.dataset.winner = o.winner === null || o.winner === undefined ? 'draw' : o.winner;
    res.dataset.scores = o.scores.join(',');
    res.hidden = false;
    setStatus(`Game over. ${who}.`);
  } else {
    res.hidden = true;
    if (reviewing()) {
      setStatus(`Reviewing: after move ${play.cursor} of ${play.plies.length}. \u2190/\u2192 step, End returns to the game, or play on from here.`);
    } else if (!play.busy) {
      setStatus(humanToMove(st)
        ? `${playerName(st.to_move)} to move: choose a pit${st.legal.length ? ` (keys 1\u2013${st.pits > 9 ? 9 : st.pits})` : ''}${st.legal.includes('swap') ? ', or swap' : ''}.`
        : `${playerName(st.to_move)} to move.`);
    }
  }
}

// Replays the line with one more move on the server. The whole line, not
// just the last position, because Oware's repetition rule and max_plies
// count from the game's start.
async function serverPly(move, signal) {
  const body = { game: play.game, moves: play.plies.map((p) => p.move).concat([move]) };
  if (play.startPos) body.start = play.startPos;
  const r = await api('/api/line', body, signal);
  return r.plies[r.plies.length - 1];
}

// Adds a ply, animated when asked, and says what it did.
async function applyPly(ply, gen) {
  const before = current().board;
  play.hint = null;
  play.notice = null;
  // The last move's notice is not this one's: gone before it is sown.
  $('notice').textContent = '';
  $('notice').dataset.kind = '';
  if (animateOn() && !ply.swap && ply.sowing && ply.sowing.length) {
    const st = current();
    await animateSowing(before, ply, (b, lit, from, captured) => drawBoard($('play-board'), st, {
      board: b, lit, from, captured, flip: play.flip, names: playNames(),
    }), () => gen === play.gen);
    if (gen !== play.gen) return;
  }
  play.plies.push(ply);
  const who = `Player ${ply.player}`;
  if (ply.swap) play.notice = { kind: 'swap', text: `${who} swapped: the board turned round (pie rule).` };
  else if (ply.extra_turn && ply.state.to_move !== null) play.notice = { kind: 'extra', text: `Extra turn: ${who.toLowerCase()} moves again.` };
  else if (ply.captured > 0 && ply.state.to_move !== null) play.notice = { kind: 'capture', text: `${who} captured ${plural(ply.captured, 'seed')}.` };
  renderPlay();
}

async function playMove(move) {
  const st = current();
  if (play.busy || reviewing() || !humanToMove(st) || !st.legal.includes(move)) return;
  clearError();
  const gen = play.gen;
  setBusy(true);
  try {
    const ply = await serverPly(move);
    if (gen !== play.gen) return;
    await applyPly(ply, gen);
  } catch (e) {
    if (gen === play.gen) showError(e);
  } finally {
    if (gen === play.gen) setBusy(false);
  }
  if (gen === play.gen) { renderPlay(); nextTurn(); }
}

// After every change: the agent plays when it is its turn (watching two
// agents: unless paused; Step then plays one move).
function nextTurn() {
  const st = current();
  if (!st || play.busy || st.to_move === null || humanToMove(st) || reviewing()) return;
  if (play.watch && play.paused) return;
  agentMove();
}

async function agentMove() {
  const st = current(), gen = play.gen;
  const ctrl = new AbortController();
  play.abort = ctrl;
  setBusy(true);
  setStatus(`${agentOf(st.to_move)} (player ${st.to_move}) is thinking\u2026`);
  let ok = false;
  try {
    // The whole line, as for a ply: the agent sees the game's history.
    const body = { game: play.game, moves: play.plies.map((p) => p.move), agent: agentOf(st.to_move), seed: (play.seed + play.plies.length) % 4294967296 };
    if (play.startPos) body.position = play.startPos;
    const r = await api('/api/agent', body, ctrl.signal);
    if (gen !== play.gen) return;
    const ply = await serverPly(r.move, ctrl.signal);
    if (gen !== play.gen) return;
    await applyPly(ply, gen);
    ok = true;
    // An earlier refusal (a bad spec since changed) is over once it moves.
    clearError();
  } catch (e) {
    if (gen === play.gen) { showError(e); setStatus('The agent did not move: change its spec, or undo.'); }
  } finally {
    if (gen === play.gen) { play.abort = null; setBusy(false); }
  }
  if (ok && gen === play.gen) { renderPlay(); nextTurn(); }
}

// Moves pasted as text: the project's notation (`3 6 1 swap`), or copied
// from the move list (`1. P0 3+ 2. P1 4`): numbers, players and the
// extra-turn marks are dropped.
function pastedMoves(text) {
  return text.split(/[,\s]+/).filter((t) => t && !/^\d+\.$/.test(t) && !/^P[01]$/i.test(t)).map((t) => t.replace(/\+$/, ''));
}

async function newGame() {
  clearError();
  cancelPlay();
  readOpponent();
  const gen = play.gen, spec = $('g-spec').value.trim(), pos = $('g-start').value.trim();
  const moves = pastedMoves($('g-moves').value);
  setBusy(true);
  try {
    let start, plies = [];
    if (moves.length) {
      // The server replays them, and says which one is illegal.
      const body = { game: spec, moves };
      if (pos) body.start = pos;
      const r = await api('/api/line', body);
      start = r.start;
      plies = r.plies;
    } else {
      start = (await api('/api/new', pos ? { game: spec, position: pos } : { game: spec })).state;
    }
    if (gen !== play.gen) return;
    Object.assign(play, { game: start.game, start, startPos: pos ? start.position : '', plies, hint: null, judged: null, notice: null, cursor: null });
  } catch (e) {
    showError(e);
    // The game in play goes on: its rules go back in the controls, so that
    // they never show rules other than the board's.
    if (play.game && gen === play.gen) {
      const said = $('error').textContent.trimEnd();
      $('error').textContent = `${said}${/[.!?]$/.test(said) ? '' : '.'} The game in play (${play.game}) goes on.`;
      $('g-spec').value = play.game;
      controlsFromSpec(play.game);
    }
  } finally {
    if (gen === play.gen) setBusy(false);
  }
  if (gen === play.gen && play.start) { renderPlay(); nextTurn(); }
}

// The game as a line of a results folder's games.jsonl (the fields a game
// played here has), downloaded as a file.
function downloadGame() {
  const st = current();
  if (!st) return;
  const o = st.outcome;
  const agents = [0, 1].map((p) => (isHuman(p) ? 'human' : agentOf(p)));
  const record = {
    game: play.game,
    players: agents,
    agents,
    moves: play.plies.map((p) => p.move).join(' '),
    scores: o ? o.scores : null,
    winner: o ? (o.winner === undefined ? null : o.winner) : null,
    margin: o ? o.scores[0] - o.scores[1] : null,
    plies: play.plies.length,
    end: o ? o.reason : null,
    // Beyond games.jsonl: where the game began and where it stands.
    start: play.startPos || null,
    position: st.position,
  };
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(record)}\n`], { type: 'application/x-ndjson' }));
  const a = h('a', { href: url, download: 'mancala-game.jsonl' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Review: shows the position after `k` plies (the live one at the end).
function reviewAt(k) {
  if (play.busy || !play.start) return;
  const n = play.plies.length;
  const at = Math.max(0, Math.min(n, k));
  play.cursor = at === n ? null : at;
  renderPlay();
  if (!reviewing()) nextTurn();
}

function reviewStep(step) {
  const at = reviewing() ? play.cursor : play.plies.length;
  reviewAt({ prev: at - 1, next: at + 1, first: 0, last: play.plies.length }[step]);
}

// Plays on from the position reviewed: the moves after it are dropped.
function playFromHere() {
  if (!reviewing() || play.busy) return;
  clearError();
  cancelPlay();
  play.plies.length = play.cursor;
  play.cursor = null;
  play.hint = null;
  play.notice = null;
  renderPlay();
  nextTurn();
}

// Takes back the human's last move and the agent's answers to it (in
// two-humans mode: the last move).
function undo() {
  if (!play.plies.some((p) => isHuman(p.player))) return;
  clearError();
  cancelPlay();
  play.cursor = null;
  while (play.plies.length) {
    const p = play.plies.pop();
    if (isHuman(p.player)) break;
  }
  play.hint = null;
  play.notice = null;
  renderPlay();
  nextTurn();
}

async function hint() {
  const st = current();
  if (play.busy || !st || st.to_move === null) return;
  clearError();
  const gen = play.gen;
  setBusy(true);
  setStatus('Looking for the best move\u2026');
  try {
    // A short budget: small boards are solved at once; on big ones the
    // server's estimator answers within about a second.
    const r = await api('/api/analyse', { game: play.game, position: st.position, ms: 150, nodes: 20000 });
    if (gen !== play.gen) return;
    const values = {};
    for (const m of r.moves) values[m.move] = m;
    const best = r.moves.filter((m) => m.best).map((m) => m.move);
    play.hint = {
      values,
      text: `Hint for player ${st.to_move}: best ${best.length > 1 ? 'moves' : 'move'} ${best.join(', ')} ` +
        `(${fmtVal(r.value)}${r.exact ? ', exact' : `, an estimate${r.estimator ? ` by ${r.estimator}` : ''}`}). ` +
        r.moves.map((m) => `${m.move}: ${fmtVal(m.value)}${m.exact ? '' : '~'}`).join(' \u00b7 '),
    };
  } catch (e) {
    if (gen === play.gen) showError(e);
  } finally {
    if (gen === play.gen) setBusy(false);
  }
  if (gen === play.gen) renderPlay();
}

// "Analyse game": every move of the Play game judged as `mancala annotate`
// judges one: the position before it analysed (exact where the solver
// settles it within the budget, else the server's estimate), the move
// played against the best. A blunder, as annotate marks one, is an exact
// loss that changes the result (a win thrown to a draw or a loss, a draw
// to a loss); estimated losses are shown, never called blunders.
const JUDGE_MS = 300, JUDGE_NODES = 20000;

// The judgement of the move `ply` from the analysis of the position
// before it.
function judgement(r, ply) {
  const m = r.moves.find((x) => x.move === ply.move);
  const played = m ? m.value : null, value = r.value;
  const exact = !!(m && m.exact && r.exact);
  const known = played !== null && played !== undefined && value !== null && value !== undefined;
  const loss = known ? Math.max(0, value - played) : null;
  return {
    player: ply.player, move: ply.move, value, played, exact, loss,
    best: r.moves.filter((x) => x.best).map((x) => x.move),
    blunder: exact && known && Math.sign(played) < Math.sign(value),
  };
}

async function judgeGame() {
  const st = current();
  if (play.busy || !play.plies.length || !st) return;
  clearError();
  const gen = play.gen, n = play.plies.length, ctrl = new AbortController();
  const line = play.plies.map((p) => p.move).join(' ');
  play.judged = { line, notes: [], done: false };
  play.abort = ctrl;
  setBusy(true);
  try {
    for (let k = 0; k < n; k++) {
      setStatus(`Analysing the game: move ${k + 1} of ${n}\u2026`);
      const before = k ? play.plies[k - 1].state : play.start;
      const r = await api('/api/analyse', { game: play.game, position: before.position, ms: JUDGE_MS, nodes: JUDGE_NODES }, ctrl.signal);
      if (gen !== play.gen) return;
      play.judged.notes.push(judgement(r, play.plies[k]));
      renderJudged();
    }
    play.judged.done = true;
  } catch (e) {
    if (gen === play.gen) { showError(e); play.judged = null; }
  } finally {
    if (gen === play.gen) { play.abort = null; setBusy(false); }
  }
  if (gen === play.gen) { renderPlay(); nextTurn(); }
}

// The judged moves still on the board: those of the line judged, while
// the game played since still starts with it.
function judgedNotes() {
  const j = play.judged;
  if (!j) return [];
  const line = play.plies.map((p) => p.move).join(' ');
  if (!(`${line} `).startsWith(`${j.line} `)) { play.judged = null; return []; }
  return j.notes;
}

// The value graph (player 0's value after each move: up is good for
// player 0; hollow points are estimates, red ones blunders; a point shows
// the position after its move) and the summary under it.
function renderJudged(notes = judgedNotes()) {
  const svg = $('judge-graph'), out = $('judge-out');
  // An SVG element has no `hidden` property: the attribute itself.
  svg.toggleAttribute('hidden', !notes.length);
  out.hidden = !notes.length;
  if (!notes.length) return;
  // A wide box whatever the game's length, so that the graph spans the
  // page: the points share its width.
  const H = 120, mid = H / 2, WIDTH = 720;
  const p0 = (n) => (n.played === null || n.played === undefined ? null : n.player === 0 ? n.played : -n.played);
  const start = notes[0].value === null || notes[0].value === undefined ? null : notes[0].player === 0 ? notes[0].value : -notes[0].value;
  const vals = [start, ...notes.map(p0)];
  const top = Math.max(4, ...vals.filter((v) => v !== null).map(Math.abs));
  const y = (v) => mid - (mid - 8) * v / top;
  const W = WIDTH / vals.length, r = Math.max(2.5, Math.min(6, W / 3));
  const at = reviewing() ? play.cursor : play.plies.length;
  svg.setAttribute('viewBox', `0 0 ${WIDTH} ${H}`);
  svg.replaceChildren(s('line', { class: 'axis', x1: 0, y1: mid, x2: WIDTH, y2: mid }));
  const pts = vals.map((v, k) => (v === null ? null : [k * W + W / 2, y(v)]));
  for (let k = 1; k < pts.length; k++) {
    if (pts[k - 1] && pts[k]) svg.append(s('line', { class: 'trace', x1: pts[k - 1][0], y1: pts[k - 1][1], x2: pts[k][0], y2: pts[k][1] }));
  }
  vals.forEach((v, k) => {
    const note = k ? notes[k - 1] : null;
    const g = s('g', {
      class: ['point', note && note.blunder && 'blunder', note && !note.exact && 'estimate', k === at && 'current'].filter(Boolean).join(' '),
      'data-testid': `jg-${k}`, 'data-ply': k, 'data-value': v === null ? '' : v,
    }, s('rect', { class: 'hit', x: k * W, y: 0, width: W, height: H }));
    if (v !== null) g.append(s('circle', { cx: k * W + W / 2, cy: y(v), r: note && note.blunder ? r * 1.4 : r }));
    g.append(s('title', { text: k ? `move ${k}: ${note.move} by player ${note.player}; player 0's value after it ${v === null ? 'unknown' : fmtVal(v)}${note.exact ? '' : ' (estimate)'}${note.loss ? `; ${fmtVal(note.loss).replace(/^\+/, '')} given away` : ''}${note.blunder ? '; a blunder' : ''}` : `the start: player 0's value ${v === null ? 'unknown' : fmtVal(v)}` }));
    svg.append(g);
  });
  const who = [0, 1].map((p) => {
    const mine = notes.filter((n) => n.player === p && n.loss !== null);
    const lost = mine.reduce((a, n) => a + n.loss, 0), blunders = mine.filter((n) => n.blunder).length;
    const best = mine.filter((n) => n.loss === 0).length;
    return `Player ${p}: best move ${best} of ${mine.length}, ${Number.isInteger(lost) ? lost : lost.toFixed(1)} seeds given away, ${plural(blunders, 'blunder')}`;
  });
  const exact = notes.filter((n) => n.exact).length;
  out.textContent = `${play.judged.done ? 'Analysed' : 'Analysing'}: ${notes.length} of ${play.plies.length} moves, ${exact} exact. ${who.join('; ')}.`;
}

// The opponent's settings apply at once (the next agent move uses them).
function readOpponent() {
  play.agent = $('a-spec').value.trim() || 'random';
  play.watch = $('seat').value === 'both';
  play.seat = play.watch ? 0 : +$('seat').value;
  play.agent2 = $('a-spec2').value.trim() || play.agent;
  play.two = $('two-humans').checked && !play.watch;
  $('a-spec2-box').hidden = !play.watch;
}
function opponentChanged() {
  readOpponent();
  if (!play.start) return;
  if (play.busy && play.abort) cancelPlay(); // re-ask with the new settings
  renderPlay();
  nextTurn();
}

// Each view's state in the address, so that reload, back and bookmarks
// return to it: a new entry for what the user opened (`push`), the same
// entry rewritten for steps within it. Nothing when it is already there
// (the address that brought us here).
let routing = false; // while route() follows the address, it is kept as it is
function setAddress(hash, push) {
  if (routing || location.hash === hash) return;
  if (push) history.pushState(null, '', hash); else history.replaceState(null, '', hash);
}

// Links keep ':' ',' '=' '/' readable; everything else is escaped.
const enc = (v) => encodeURIComponent(v).replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%3D/g, '=').replace(/%2F/g, '/');

// The Play game's address: rules, start, moves, players and the move
// reviewed. Kept up to date as the game goes (replaced, not pushed: one
// history entry a game), so reload and bookmarks return to it.
function playHash() {
  const parts = [`game=${enc(play.game)}`];
  if (play.startPos) parts.push(`start=${enc(play.startPos)}`);
  parts.push(`moves=${enc(play.plies.map((p) => p.move).join(','))}`);
  if (play.two) parts.push('two=1');
  else if (play.watch) parts.push(`agent=${enc(play.agent)}`, `agent2=${enc(play.agent2)}`, 'seat=both');
  else parts.push(`agent=${enc(play.agent)}`, `seat=${play.seat}`);
  if (reviewing()) parts.push(`at=${play.cursor}`);
  return `#play?${parts.join('&')}`;
}

function makeLink() {
  if (!play.start) return;
  const hash = playHash();
  // replaceState: the address changes without a hashchange (no reload of the game).
  history.replaceState(null, '', hash);
  const box = $('link-url');
  box.value = location.href;
  box.hidden = false;
  box.select();
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(location.href).then(() => setStatus('Link copied.'), () => setStatus('Link ready: copy it from the box.'));
  } else setStatus('Link ready: copy it from the box.');
}

// Restores a game from a link's parameters: the line is replayed by the server.
async function restoreGame(q) {
  clearError();
  cancelPlay();
  const spec = q.get('game'), start = q.get('start') || '';
  const moves = (q.get('moves') || '').split(/[,\s]+/).filter(Boolean);
  $('g-spec').value = spec;
  controlsFromSpec(spec);
  $('g-start').value = start;
  if (q.has('agent')) { $('a-spec').value = q.get('agent'); syncPreset(); }
  if (q.has('seat')) $('seat').value = ['1', 'both'].includes(q.get('seat')) ? q.get('seat') : '0';
  if (q.has('agent2')) $('a-spec2').value = q.get('agent2');
  $('two-humans').checked = q.get('two') === '1';
  readOpponent();
  const gen = play.gen;
  setBusy(true);
  try {
    const body = { game: spec, moves };
    if (start) body.start = start;
    const r = await api('/api/line', body);
    if (gen !== play.gen) return;
    const at = q.has('at') ? Number(q.get('at')) : NaN;
    const cursor = Number.isInteger(at) && at >= 0 && at < r.plies.length ? at : null;
    Object.assign(play, { game: r.start.game, start: r.start, startPos: start ? r.start.position : '', plies: r.plies, hint: null, judged: null, notice: null, cursor });
  } catch (e) {
    showError(e);
  } finally {
    if (gen === play.gen) setBusy(false);
  }
  if (gen === play.gen && play.start) { renderPlay(); nextTurn(); }
}

function syncPreset() {
  const v = $('a-spec').value.trim(), sel = $('a-preset');
  const hit = [...sel.options].find((o) => o.value === v);
  let custom = sel.querySelector('option[data-custom]');
  if (hit) { sel.value = v; return; }
  if (!custom) { custom = h('option', { 'data-custom': '1', text: 'Custom (the text field)' }); sel.append(custom); }
  custom.value = v;
  sel.value = v;
}

function initPlay() {
  boardInput($('play-board'));
  // The structured controls write the spec text; typing in it wins until a
  // control is touched again.
  const fromControls = () => { $('g-spec').value = specFromControls(); };
  $('g-name').addEventListener('change', () => {
    const d = DEFAULTS[$('g-name').value];
    $('g-pits').value = d[0];
    $('g-seeds').value = d[1];
    $('g-end').value = $('g-name').value === 'congkak' ? 'delayed' : 'immediate';
    showGameOptions();
    fromControls();
  });
  for (const id of ['g-pits', 'g-seeds', 'g-empty', 'g-pie', 'g-end', 'g-slam', 'g-rounds']) {
    $(id).addEventListener('input', fromControls);
    $(id).addEventListener('change', fromControls);
  }
  // A spec typed in sets the controls it has (15 pits: keys and board of
  // 15); the text stays as typed.
  $('g-spec').addEventListener('change', () => {
    controlsFromSpec($('g-spec').value);
  });
  $('a-preset').addEventListener('change', () => { $('a-spec').value = $('a-preset').value; opponentChanged(); });
  $('a-spec').addEventListener('change', () => { syncPreset(); opponentChanged(); });
  $('seat').addEventListener('change', opponentChanged);
  $('two-humans').addEventListener('change', opponentChanged);
  $('new-game').addEventListener('click', newGame);
  $('undo').addEventListener('click', undo);
  $('hint').addEventListener('click', hint);
  $('judge').addEventListener('click', judgeGame);
  $('judge-graph').addEventListener('click', (ev) => {
    const g = ev.target.closest('[data-ply]');
    if (g) reviewAt(Number(g.dataset.ply));
  });
  $('swap').addEventListener('click', () => playMove('swap'));
  $('flip').addEventListener('click', () => {
    play.flip = toggled($('flip'));
    renderPlay();
  });
  $('link').addEventListener('click', makeLink);
  $('from-here').addEventListener('click', playFromHere);
  $('download').addEventListener('click', downloadGame);
  $('a-spec2').addEventListener('change', opponentChanged);
  $('pause').addEventListener('click', () => {
    play.paused = toggled($('pause'));
    renderPlay();
    nextTurn();
  });
  $('step').addEventListener('click', () => {
    const st = current();
    if (play.paused && !play.busy && st && st.to_move !== null && !humanToMove(st) && !reviewing()) agentMove();
  });
  $('move-list').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-ply]');
    if (b) reviewAt(Number(b.dataset.ply));
  });
  showGameOptions();
  // On a phone the board matters more than the settings: start folded.
  if (matchMedia('(max-width: 600px)').matches) $('setup').open = false;
}

// ------------------------------------------------------------ Analyse

const xs = { state: null, result: null, pv: null, pvAt: 0, timer: null, gen: 0, flip: false, node: null };

// The moves explored from the position loaded form a tree, as an analysis
// board keeps them: the first move tried from a position is its main
// line, later ones side lines. `xs.node` is the position shown.
const xNode = (state, move, parent) => ({ state, move, parent, children: [] });
function xPath(node) {
  const moves = [];
  for (let n = node; n && n.parent; n = n.parent) moves.unshift(n.move);
  return moves;
}
function xRoot(node) {
  let n = node;
  while (n.parent) n = n.parent;
  return n;
}

function xBusy(flag) { $('view-analyse').dataset.busy = flag ? '1' : '0'; $('x-go').disabled = flag; }

// Takes a validated state as the position to analyse.
function xSet(state, keepEditor) {
  xs.state = state;
  // The address: the position loaded, and the line explored from it.
  if (view === 'analyse' && xs.node) {
    const line = xPath(xs.node);
    setAddress(`#analyse?game=${enc(state.game)}&position=${enc(xRoot(xs.node).state.position)}${line.length ? `&line=${enc(line.join(','))}` : ''}`, false);
  }
  xs.result = null;
  xs.pv = null;
  $('x-spec').value = state.game;
  $('x-pos').value = state.position;
  const mover = state.position.split('/')[3];
  if ([...$('x-mover').options].some((o) => o.value === mover)) $('x-mover').value = mover;
  if (keepEditor) xSum(); else xEditor(); // the editor already shows it: keep the focus there
  xRender();
}

// Exploring: plays `move` from the position analysed (a child of the tree
// already there, or a new one) and analyses the one it leads to.
async function xExplore(move) {
  const node = xs.node;
  if (!node || node.state.to_move === null) return;
  clearError();
  const gen = ++xs.gen;
  try {
    let child = node.children.find((c) => c.move === move);
    if (!child) {
      const r = await api('/api/line', { game: node.state.game, start: node.state.position, moves: [move] });
      if (gen !== xs.gen) return;
      child = xNode(r.plies[0].state, move, node);
      node.children.push(child);
    }
    xGo(child);
  } catch (e) { if (gen === xs.gen) showError(e); }
}

function xGo(node) {
  xs.node = node;
  xSet(node.state);
  analyse();
}

function xBack() {
  if (xs.node && xs.node.parent) xGo(xs.node.parent);
}

// A new tree from `position` (the rules' start when empty), with `line`
// (moves from it, an address's) played as its main line.
async function xLoad(spec, position, keepEditor, line = []) {
  clearError();
  const gen = ++xs.gen;
  try {
    const r = await api('/api/new', position ? { game: spec, position } : { game: spec });
    if (gen !== xs.gen) return;
    let node = xNode(r.state, null, null);
    if (line.length) {
      const l = await api('/api/line', { game: r.state.game, start: r.state.position, moves: line });
      if (gen !== xs.gen) return;
      for (const [i, ply] of l.plies.entries()) {
        const child = xNode(ply.state, line[i], node);
        node.children.push(child);
        node = child;
      }
    }
    xs.node = node;
    xSet(node.state, keepEditor);
  } catch (e) { if (gen === xs.gen) showError(e); }
}

// The tree as text: the main line, each side line in brackets after the
// move it replaces; every move a button to its position.
function xRenderTree() {
  const box = $('x-tree');
  const root = xs.node && xRoot(xs.node);
  box.hidden = !root || !root.children.length;
  if (box.hidden) return;
  const button = (n) => {
    const path = xPath(n);
    return h('button', {
      type: 'button', class: `link${n === xs.node ? ' at' : ''}`, 'data-testid': `x-node-${path.join('-')}`,
      'aria-current': n === xs.node ? 'step' : null, onclick: () => xGo(n),
      text: `P${n.parent.state.to_move} ${n.move}`,
    });
  };
  const line = (from) => {
    const out = [];
    for (let n = from; n.children.length;) {
      const [main, ...sides] = n.children;
      out.push(button(main));
      for (const side of sides) out.push(h('span', { class: 'side' }, '(', button(side), ...line(side), ')'));
      n = main;
    }
    return out;
  };
  box.replaceChildren(h('span', { class: 'small', text: 'Moves explored: ' }), ...line(root));
}

// The position editor: counts with +/- for each pit and store, laid out as
// on the board (player 1's row reversed on top).
function xEditor() {
  const st = xs.state, n = st.pits, box = $('x-editor');
  const f = st.position.split('/');
  const rows = [f[0].split(','), f[1].split(',')], stores = f[2].split(',');
  const cell = (label, value, testid) => {
    const input = h('input', { type: 'text', inputmode: 'numeric', value, 'aria-label': label, id: testid, 'data-testid': testid, oninput: xEdited });
    const bump = (d) => () => {
      if (input.value.trim() === 'x') return;
      input.value = Math.max(0, Math.min(255, (parseInt(input.value, 10) || 0) + d));
      xEdited();
    };
    return h('div', { class: 'ecell' },
      h('button', { type: 'button', 'aria-label': `${label}: one more`, onclick: bump(1), text: '+' }),
      input,
      h('button', { type: 'button', 'aria-label': `${label}: one fewer`, onclick: bump(-1), text: '\u2212' }));
  };
  const pitCells = (p) => rows[p].map((v, i) => cell(`player ${p}'s pit ${i + 1}`, v, `x-edit-${p}-${i}`));
  const top = pitCells(1).reverse();
  box.replaceChildren(
    h('div', { class: 'erow' }, h('span', { class: 'etag', text: `P1 pits ${n}\u20261` }), ...top),
    h('div', { class: 'erow' }, h('span', { class: 'etag', text: `P0 pits 1\u2026${n}` }), ...pitCells(0)),
    h('div', { class: 'erow' }, h('span', { class: 'etag', text: 'Stores P0, P1' }),
      cell('player 0\'s store', stores[0], 'x-edit-store-0'), cell('player 1\'s store', stores[1], 'x-edit-store-1')));
  xEditorHint();
  xSum();
}

// Says that the editor scrolls sideways when its rows are wider than the
// page (many pits on a phone): a scrolled-off pit is otherwise unseen.
function xEditorHint() {
  const box = $('x-editor');
  $('x-editor-hint').hidden = box.scrollWidth <= box.clientWidth + 1;
}

// The position text from the editor; validated by the server after a pause.
function xEdited() {
  const st = xs.state, n = st.pits, f = st.position.split('/');
  const val = (id) => { const v = $(id).value.trim(); return v === 'x' ? 'x' : String(Math.max(0, parseInt(v, 10) || 0)); };
  const row = (p) => Array.from({ length: n }, (_, i) => val(`x-edit-${p}-${i}`)).join(',');
  let mover = $('x-mover').value;
  if (f[3] === '-') mover = '-';
  const parts = [row(0), row(1), `${val('x-edit-store-0')},${val('x-edit-store-1')}`, mover];
  if (f[4]) parts.push(f[4]); // multi-round Congkak's round field is kept
  $('x-pos').value = parts.join('/');
  clearTimeout(xs.timer);
  // Only a board with the rules' number of seeds can be valid: while the
  // counts are off, say so here instead of asking the server.
  if (!xSum()) return;
  xs.timer = setTimeout(() => xLoad($('x-spec').value.trim(), $('x-pos').value.trim(), true), 300);
}

// Shows the seeds on the edited board; true when they add up to the start's.
function xSum() {
  const nums = $('x-pos').value.split('/').slice(0, 3).join(',').split(',').map((v) => parseInt(v, 10) || 0);
  const total = nums.reduce((a, b) => a + b, 0);
  const want = xs.state ? xs.state.board.reduce((a, b) => a + b, 0) : total;
  $('x-sum').textContent = `${plural(total, 'seed')} on the board${total !== want ? ` \u2014 the rules need ${want}: add or take away ${Math.abs(want - total)}` : ''}`;
  $('x-sum').classList.toggle('bad', total !== want);
  return total === want;
}

function xRender() {
  const st = xs.state, r = xs.result;
  if (!st) return;
  const values = {};
  if (r) for (const m of r.moves) values[m.move] = m;
  drawBoard($('x-board'), st, { prefix: 'x-', values: r ? values : null, onMove: st.to_move === null ? null : xExplore, flip: xs.flip });
  $('x-back').hidden = !(xs.node && xs.node.parent);
  xRenderTree();
  const verdict = $('x-verdict'), table = $('x-table');
  if (!r) {
    verdict.textContent = st.outcome ? `The game is over: ${st.outcome.scores[0]}\u2013${st.outcome.scores[1]}.` : '';
    table.hidden = true;
    $('x-pv').hidden = true;
    return;
  }
  const m = st.to_move, v = r.value;
  const lead = v > 0 ? `player ${m}` : `player ${1 - m}`;
  const by = Number.isInteger(v) ? Math.abs(v) : Math.abs(v).toFixed(2);
  let text = r.exact
    ? (v === 0 ? 'A draw with perfect play.' : `${lead[0].toUpperCase()}${lead.slice(1)} wins by ${by} with perfect play.`)
    : (v === 0 ? 'Estimate: level.' : `Estimate: ${lead} ahead by about ${by}.`);
  text += ` Player ${m} to move; ${r.exact ? 'solved' : `estimated${r.estimator ? ` by ${r.estimator}` : ''}`} in ${fmtMs(r.ms)}` +
    `${r.nodes !== undefined && r.nodes !== null ? `, ${r.nodes.toLocaleString('en')} nodes` : ''}.`;
  if (r.solver) text += ` (${r.solver})`;
  verdict.textContent = text;
  verdict.dataset.value = v;
  verdict.dataset.exact = r.exact;
  // Each row plays its move on the board (a click, or Enter on its button).
  const top = Math.max(...r.moves.map((mv) => mv.value));
  table.tBodies[0].replaceChildren(...r.moves.map((mv) => h('tr', {
    class: mv.best ? 'best' : null, 'data-testid': `x-row-${mv.move}`,
    'data-value': mv.value, 'data-exact': String(mv.exact), 'data-best': String(mv.best),
  }, h('td', {}, h('button', { type: 'button', class: 'link', 'data-move': mv.move, title: 'play this move', onclick: () => xExplore(mv.move), text: `${mv.move}${mv.best ? ' \u2605 best' : ''}` })),
  h('td', { text: fmtVal(mv.value) }),
  h('td', { 'data-testid': `x-worse-${mv.move}`, text: mv.best ? '\u2014' : fmtVal(top - mv.value).replace(/^\+/, '') }),
  h('td', { class: mv.exact ? null : 'estimate', text: mv.exact ? 'exact' : 'estimate' }), h('td', { text: fmtMs(mv.ms) }))));
  table.hidden = false;
  xRenderPv();
}

function xRenderPv() {
  const box = $('x-pv');
  if (!xs.pv || !xs.pv.plies.length) { box.hidden = true; return; }
  box.hidden = false;
  const plies = xs.pv.plies, k = xs.pvAt;
  const st = k ? plies[k - 1].state : xs.pv.start;
  const deco = {};
  if (k) {
    const before = k > 1 ? plies[k - 2].state.board : xs.pv.start.board;
    deco.from = plies[k - 1].swap ? null : (plies[k - 1].sowing[0] || {}).from;
    deco.captured = capturedCells(before, plies[k - 1]);
  }
  drawBoard($('x-pv-board'), st, Object.assign({ prefix: 'pv-', flip: xs.flip }, deco));
  const at = $('x-pv-at');
  at.textContent = k ? `After move ${k} of ${plies.length}: player ${plies[k - 1].player} played ${plies[k - 1].move}` : `The position; ${plural(plies.length, 'move')} of best play follow`;
  at.dataset.at = k;
  // Each move of the line a button to the position after it.
  $('x-pv-line').replaceChildren(...plies.map((p, i) => h('button', {
    type: 'button', class: `link${i + 1 === k ? ' at' : ''}`, 'data-testid': `x-pv-move-${i + 1}`,
    'aria-current': i + 1 === k ? 'step' : null, onclick: () => { xs.pvAt = i + 1; xRenderPv(); }, text: p.move,
  })));
}

function xStep(how) {
  if (!xs.pv) return;
  const n = xs.pv.plies.length;
  xs.pvAt = how === 'first' ? 0 : how === 'last' ? n : how === 'prev' ? Math.max(0, xs.pvAt - 1) : Math.min(n, xs.pvAt + 1);
  xRenderPv();
}

// `again`: the app's own repeat of an analysis that had only estimates,
// which leaves alone an error the user has yet to read (from another view).
async function analyse(again = false) {
  if (again !== true) clearError();
  const spec = $('x-spec').value.trim(), position = $('x-pos').value.trim();
  const body = { game: spec, position };
  const ms = parseInt($('x-ms').value, 10), nodes = parseInt($('x-nodes').value, 10), agent = $('x-agent').value.trim();
  if (ms > 0) body.ms = ms;
  if (nodes >= 0) body.nodes = nodes;
  if (agent) body.agent = agent;
  const gen = ++xs.gen;
  xBusy(true);
  setStatus('Analysing\u2026');
  try {
    const n = await api('/api/new', { game: spec, position });
    if (gen !== xs.gen) return;
    xs.state = n.state;
    // A position typed in and analysed without Set starts a tree of its own.
    if (!xs.node || xs.node.state.position !== n.state.position || xs.node.state.game !== n.state.game) {
      xs.node = xNode(n.state, null, null);
    }
    if (n.state.to_move === null) { // nothing to analyse: say so without asking
      xs.result = null;
      xRender();
      setStatus('The game is over in this position.');
      return;
    }
    const r = await api('/api/analyse', body);
    if (gen !== xs.gen) return;
    xs.result = r;
    xs.pv = null;
    xs.pvAt = 0;
    if (r.pv && r.pv.length) xs.pv = await api('/api/line', { game: spec, start: position, moves: r.pv });
    if (gen !== xs.gen) return;
    xRender();
    // The verdict's first sentence: up to a full stop that ends it, not
    // the decimal point of an estimate ("ahead by about 6.50.").
    const verdict = $('x-verdict').textContent;
    setStatus(`Analysed: ${(verdict.match(/^.*?\.(?=\s|$)/) || [verdict])[0]}`);
    // A rule set's first analysis starts building its solver: these are
    // estimates, and the same analysis asked again gets exact values.
    if (r.building) {
      setStatus('Estimates for now: the solver for these rules is being built; analysing again shortly\u2026');
      // Only while the analysis is on screen: elsewhere it would overwrite
      // another view's status line.
      setTimeout(() => { if (gen === xs.gen && view === 'analyse') analyse(true); }, 1500);
    }
  } catch (e) {
    if (gen === xs.gen) { showError(e); setStatus('The analysis failed.'); }
  } finally {
    if (gen === xs.gen) xBusy(false);
  }
}

function initAnalyse() {
  $('x-start').addEventListener('click', () => xLoad($('x-spec').value.trim(), ''));
  $('x-load').addEventListener('click', () => xLoad($('x-spec').value.trim(), $('x-pos').value.trim()));
  $('x-from-play').addEventListener('click', () => {
    // The position on Play's board: one being reviewed too.
    const st = shown();
    if (st) xLoad(play.game, st.position);
  });
  $('x-mover').addEventListener('change', () => { if (xs.state) xEdited(); });
  $('x-go').addEventListener('click', analyse);
  $('x-back').addEventListener('click', xBack);
  $('x-flip').addEventListener('click', () => {
    xs.flip = toggled($('x-flip'));
    xRender();
    if (xs.pv) xRenderPv();
  });
  for (const b of document.querySelectorAll('#x-pv [data-step]')) b.addEventListener('click', () => xStep(b.dataset.step));
}

// ------------------------------------------------------------ Results

const rs = { folders: null, folder: null, offset: 0, limit: 100, matched: 0, game: null, at: 0, loadedFilters: false, flip: false, live: false };

function rBusy(flag) { $('view-results').dataset.busy = flag ? '1' : '0'; }

// "yes" only when every game was judged: an annotate stopped early has
// judged some of them.
function annotatedText(f) {
  if (!f.annotated) return 'no';
  const n = f.annotated_games, games = f.games;
  if (n === null || n === undefined || games === null || games === undefined || n >= games) return 'yes';
  return `${n} of ${games} games`;
}

async function loadFolders() {
  rBusy(true);
  try {
    renderFolders(await api('/api/results'));
    rs.live = true;
  } catch (e) {
    rs.folders = [];
    showError(e);
    $('r-folders').tBodies[0].replaceChildren(h('tr', {}, h('td', { colspan: 4, text: 'The server serves no results (start it with --results DIR).' })));
  } finally { rBusy(false); }
}

// Live results: while the Results view is shown, the folder list is asked
// for again every few seconds, and an open tournament's games when its
// count changed, so that a run still writing shows its games as they
// finish, without a reload. A failed refresh is tried again at the next.
const LIVE_MS = 2000;
let liveAsking = false;
async function liveRefresh() {
  if (view !== 'results' || document.hidden || liveAsking || !rs.live) return;
  liveAsking = true;
  try {
    const r = await api('/api/results');
    const open = rs.folder && r.folders.find((x) => x.path === rs.folder.path);
    // The games in progress of the open folder (while it exists).
    if (open && !$('r-games-box').hidden) await loadLive().catch(() => { /* asked again shortly */ });
    if (JSON.stringify(r.folders) === JSON.stringify(rs.folders)) return;
    renderFolders(r);
    if (open && open.games !== rs.folder.games) {
      rs.folder = open;
      $('r-title').textContent = `${open.path} (${(open.kinds || [open.kind]).join(', ')})`;
      if (!$('r-games-box').hidden) await loadGames();
    }
  } catch (e) { /* kept as it was; asked again shortly */ } finally { liveAsking = false; }
}

function renderFolders(r) {
  rs.folders = r.folders;
  const body = $('r-folders').tBodies[0];
  body.replaceChildren(...r.folders.map((f) => h('tr', {},
    h('td', {}, h('button', { type: 'button', 'data-testid': `folder-${f.path}`, 'data-path': f.path, onclick: () => openFolder(f), text: f.path })),
    h('td', { text: (f.kinds || [f.kind]).join(', ') }), h('td', { text: f.games === null || f.games === undefined ? '' : f.games }),
    h('td', { 'data-testid': `annotated-${f.path}`, text: annotatedText(f) }))));
  if (!r.folders.length) body.append(h('tr', {}, h('td', { colspan: 4, text: 'No results folders under the root.' })));
  if (r.truncated) {
    body.append(h('tr', {}, h('td', { colspan: 4, 'data-testid': 'r-truncated', text: `Only the first ${r.max_folders} folders nearest the root are listed; serve a deeper folder with --results to see the rest.` })));
  }
}

// The games a run is playing in the open folder, each a button that
// follows it in the viewer; a game followed is brought up to date, and
// once it has ended it is shown from the games log.
async function loadLive() {
  const f = rs.folder;
  const r = await api(`/api/results/live?path=${encodeURIComponent(f.path)}`);
  if (rs.folder !== f) return;
  $('r-live-box').hidden = !r.games.length;
  $('r-live').replaceChildren(...r.games.map((g) => h('li', {}, h('button', {
    type: 'button', 'data-testid': `live-${g.id}`, onclick: () => openLiveGame(g.id),
    text: `Game ${g.id}: ${g.players.join(' vs ')}, ${plural(g.plies, 'move')} so far`,
  }))));
  if (rs.liveId === null || rs.liveId === undefined || !rs.game) return;
  // The game followed has ended when the run no longer shows it: its
  // record is in the log (asking for it in progress would be a 404).
  if (r.games.some((g) => g.id === rs.liveId)) await followLive();
  else await liveEnded(rs.liveId);
}

async function liveEnded(id) {
  rs.liveId = null;
  await loadGames();
  await openGame(id);
}

async function openLiveGame(id) {
  clearError();
  vAutoplay(false);
  rs.liveId = id;
  rs.game = null;
  await followLive();
}

async function followLive() {
  const f = rs.folder, id = rs.liveId;
  let r;
  try {
    r = await api(`/api/results/live-game?path=${encodeURIComponent(f.path)}&id=${id}`);
  } catch (e) {
    if (rs.folder !== f || rs.liveId !== id) return;
    // No longer in progress: it has ended, and is in the games log.
    if (e.status === 404) await liveEnded(id); else { rs.liveId = null; showError(e); }
    return;
  }
  if (rs.folder !== f || rs.liveId !== id) return;
  const old = rs.game, atEnd = !old || rs.at >= old.plies.length;
  rs.game = r;
  rs.gameId = id;
  if (atEnd) rs.at = r.plies.length;
  const rec = r.record || {};
  $('v-title').textContent = `Game ${id} (in progress): ${(rec.players || []).join(' vs ')} \u2014 ${rec.game || r.start.game}`;
  $('viewer').hidden = false;
  $('viewer').dataset.live = '1';
  vRender();
  if (!old) $('viewer').scrollIntoView({ block: 'start' });
}

function openFolder(f) {
  clearError();
  setAddress(`#results?path=${enc(f.path)}`, true);
  rs.folder = f;
  rs.liveId = null;
  $('r-live-box').hidden = true;
  rs.offset = 0;
  rs.loadedFilters = false;
  rs.game = null;
  $('viewer').hidden = true;
  $('r-folder').hidden = false;
  $('r-title').textContent = `${f.path} (${(f.kinds || [f.kind]).join(', ')})`;
  $('r-report').dataset.path = f.path;
  showReport();
  const tour = (f.kinds || [f.kind]).includes('tournament');
  $('r-games-box').hidden = !tour;
  for (const id of ['r-agent', 'r-end']) $(id).replaceChildren(h('option', { value: '', text: 'any' }));
  $('r-result').value = '';
  if (tour) { loadGames(); loadLive().catch(() => { /* asked again shortly */ }); }
}

async function loadGames() {
  const f = rs.folder, q = new URLSearchParams({ path: f.path, offset: rs.offset, limit: rs.limit });
  for (const [k, id] of [['agent', 'r-agent'], ['result', 'r-result'], ['end', 'r-end']]) if ($(id).value) q.set(k, $(id).value);
  // The last list asked for is the one shown: filters changed in quick
  // succession send requests whose answers may come back out of order.
  const gen = rs.listGen = (rs.listGen || 0) + 1;
  rBusy(true);
  try {
    const r = await api(`/api/results/games?${q}`);
    if (rs.folder !== f || gen !== rs.listGen) return;
    rs.matched = r.matched;
    // The filters' choices: the server lists them; else the games seen.
    if (!rs.loadedFilters) {
      const agents = r.agents || [...new Set(r.games.flatMap((g) => g.players))].sort();
      const ends = r.ends || [...new Set(r.games.map((g) => g.end))].sort();
      $('r-agent').append(...agents.map((a) => h('option', { value: a, text: a })));
      $('r-end').append(...ends.map((e) => h('option', { value: e, text: e })));
      rs.loadedFilters = true;
    }
    // Every game of the folder by agent: a tournament's interim standings
    // while it runs (the list is asked for again as games finish).
    $('r-standings').tBodies[0].replaceChildren(...(r.standings || []).map((l) => h('tr', { 'data-agent': l.agent },
      h('td', { text: l.agent }), h('td', { text: l.games }), h('td', { text: l.wins }), h('td', { text: l.draws }),
      h('td', { text: l.losses }), h('td', { text: `${(100 * (l.wins + l.draws / 2) / Math.max(1, l.games)).toFixed(1)}%` }))));
    const seats = r.seats || [0, 0, 0];
    $('r-seats').textContent = `By seat: the first player won ${seats[0]}, ${plural(seats[1], 'draw')}, the second won ${seats[2]}.`;
    $('r-count').textContent = `${r.matched} of ${r.total} games` + (r.matched > rs.limit ? `; ${rs.offset + 1}\u2013${Math.min(r.matched, rs.offset + rs.limit)} shown` : '');
    $('r-prev').disabled = rs.offset === 0;
    $('r-next').disabled = rs.offset + rs.limit >= r.matched;
    $('r-games').tBodies[0].replaceChildren(...r.games.map((g) => h('tr', {},
      h('td', {}, h('button', { type: 'button', 'data-testid': `game-${g.id}`, onclick: () => openGame(g.id), text: `Game ${g.id}` })),
      h('td', { text: g.players.join(' vs ') }),
      h('td', { text: `${g.scores.join('\u2013')}${g.winner === null ? ' draw' : `, ${g.players[g.winner]} wins`}` }),
      h('td', { text: g.end }), h('td', { text: g.plies }),
      h('td', { text: g.blunders ? g.blunders.join(' / ') : '\u2014' }))));
  } catch (e) { showError(e); } finally { rBusy(false); }
}

async function openGame(id) {
  clearError();
  const f = rs.folder;
  rBusy(true);
  try {
    const r = await api(`/api/results/game?path=${encodeURIComponent(f.path)}&id=${id}`);
    if (rs.folder !== f) return;
    vAutoplay(false);
    rs.liveId = null;
    $('viewer').dataset.live = '0';
    rs.game = r;
    rs.gameId = id;
    rs.at = 0;
    setAddress(`#results?path=${enc(f.path)}&id=${id}`, true);
    const rec = r.record || {};
    $('v-title').textContent = `Game ${id}: ${(rec.players || []).join(' vs ')} \u2014 ${rec.game || r.start.game}`;
    $('viewer').hidden = false;
    vRender();
    // The Next button has no id: it is found as the step buttons are.
    document.querySelector('#viewer [data-vstep="next"]').focus({ preventScroll: true });
    $('viewer').scrollIntoView({ block: 'start' });
  } catch (e) { showError(e); } finally { rBusy(false); }
}

function vStep(how) {
  if (!rs.game) return;
  const n = rs.game.plies.length;
  rs.at = how === 'first' ? 0 : how === 'last' ? n : how === 'prev' ? Math.max(0, rs.at - 1) : how === 'next' ? Math.min(n, rs.at + 1) : Math.max(0, Math.min(n, how));
  vRender();
}

function vRender() {
  const g = rs.game, n = g.plies.length, k = rs.at, rec = g.record || {};
  // A game in progress has no record to return to yet: the folder's address.
  if (rs.liveId === null || rs.liveId === undefined) setAddress(`#results?path=${enc(rs.folder.path)}&id=${rs.gameId}${k ? `&at=${k}` : ''}`, false);
  const ply = k ? g.plies[k - 1] : null, info = k ? (g.moves[k - 1] || {}) : null;
  const st = ply ? ply.state : g.start;
  const deco = {};
  if (ply) {
    const before = k > 1 ? g.plies[k - 2].state.board : g.start.board;
    deco.from = ply.swap ? null : (ply.sowing[0] || {}).from;
    deco.captured = capturedCells(before, ply);
    deco.lit = sownCells(ply);
  }
  drawBoard($('v-board'), st, Object.assign({ prefix: 'v-', names: rec.players, flip: rs.flip }, deco));
  const at = $('v-at');
  at.textContent = k ? `Move ${k} of ${n}` : `Start; ${plural(n, 'move')}`;
  at.dataset.at = k;
  at.dataset.plies = n;
  vTimeline();
  // The current move: who, how long, what the search said, the annotation.
  const name = (p) => `player ${p}${rec.players && rec.players[p] ? ` (${rec.players[p]})` : ''}`;
  const rows = [];
  const row = (label, text, testid, cls) => rows.push(h('dt', { text: label }), h('dd', { text, 'data-testid': testid, class: cls }));
  if (!ply) {
    row('Position', st.position, 'info-move');
    row('To move', st.to_move === null ? 'nobody (over)' : name(st.to_move), 'info-player');
  } else {
    row('Move', `${ply.move}${ply.extra_turn ? ' (extra turn)' : ''}${ply.swap ? ' (swap)' : ''}${ply.captured ? `, ${plural(ply.captured, 'seed')} captured` : ''}`, 'info-move');
    row('Played by', name(ply.player), 'info-player');
    row('Time', fmtMs(info.ms), 'info-ms');
    row('Clock left', info.clock_ms === null || info.clock_ms === undefined ? '\u2014' : fmtMs(info.clock_ms), 'info-clock');
    const sr = info.search;
    row('Search', sr ? [sr.depth !== undefined && sr.depth !== null && `depth ${sr.depth}`, sr.nodes !== undefined && sr.nodes !== null && `${sr.nodes.toLocaleString('en')} nodes`,
      sr.score !== undefined && sr.score !== null && `score ${fmtVal(sr.score)}`, sr.sims !== undefined && sr.sims !== null && `${sr.sims} simulations`,
      sr.pv && `pv ${Array.isArray(sr.pv) ? sr.pv.join(' ') : sr.pv}`].filter(Boolean).join(', ') || 'none' : 'none', 'info-search');
    const note = info.note;
    if (note) {
      rows.push(h('dt', { text: 'Annotation' }), h('dd', {
        'data-testid': 'info-note', 'data-blunder': note.blunder ? '1' : '0', class: note.blunder ? 'bad' : null,
        // A move annotate could not value (past the solver's budget) has
        // no values to show: say so rather than print "?" for each.
        text: note.value === null || note.value === undefined || note.played === null || note.played === undefined
          ? 'not judged: the solver did not value this move within the annotation\'s budget'
          : [`value before ${fmtVal(note.value)}`, `move played ${fmtVal(note.played)}`,
            note.best && note.best.length && `best ${note.best.join(', ')}`,
            note.loss !== undefined && note.loss !== null && `seeds given away ${note.loss}`, note.blunder && 'BLUNDER'].filter(Boolean).join(' \u00b7 '),
      }));
    } else row('Annotation', g.annotated ? 'not judged (beyond the budget, or an opening move)' : 'none (not annotated)', 'info-note');
  }
  if (st.outcome) row('Result', `${st.outcome.scores.join('\u2013')}, ${st.outcome.winner === null ? 'a draw' : `${name(st.outcome.winner)} wins`}; ${st.outcome.reason.replace(/_/g, ' ')}`, 'info-result');
  $('v-info').replaceChildren(...rows);
}

// One mark per ply (red for blunders, clickable) and, above it, a bar for
// the seeds the move gave away.
function vTimeline() {
  const g = rs.game, n = g.plies.length, svg = $('v-timeline');
  const W = 10;
  svg.setAttribute('viewBox', `0 0 ${Math.max(1, n) * W} 60`);
  svg.setAttribute('preserveAspectRatio', 'none');
  const losses = g.moves.map((m) => (m && m.note && m.note.loss) || 0);
  const maxLoss = Math.max(1, ...losses);
  svg.replaceChildren();
  g.plies.forEach((p, i) => {
    const note = g.moves[i] && g.moves[i].note, bl = !!(note && note.blunder);
    if (losses[i] > 0) {
      const hgt = 40 * losses[i] / maxLoss;
      svg.append(s('rect', { class: `bar${bl ? ' blunder' : ''}`, x: i * W + 2, y: 42 - hgt, width: W - 4, height: hgt, 'data-testid': `bar-${i + 1}`, 'data-loss': losses[i] }));
    }
    svg.append(s('rect', {
      class: `mark p${p.player}${bl ? ' blunder' : ''}${i + 1 === rs.at ? ' current' : ''}`, x: i * W + 1, y: 44, width: W - 2, height: 14,
      'vector-effect': 'non-scaling-stroke', 'data-testid': `tl-${i + 1}`, 'data-blunder': bl ? '1' : '0', 'data-ply': i + 1,
    }, s('title', { text: `move ${i + 1}: ${p.move} by player ${p.player}${bl ? ', blunder' : ''}${losses[i] ? `, ${losses[i]} given away` : ''}` })));
  });
}

// Autoplay in the viewer: a move every AUTOPLAY_MS until the last, or
// until it is pressed again, another game is opened or the view left.
const AUTOPLAY_MS = 700;
function vAutoplay(on) {
  clearInterval(rs.autoplay);
  rs.autoplay = null;
  $('v-auto').setAttribute('aria-pressed', String(on));
  if (!on || !rs.game) return;
  if (rs.at >= rs.game.plies.length) vStep('first');
  const game = rs.game;
  rs.autoplay = setInterval(() => {
    if (rs.game !== game || view !== 'results' || rs.at >= game.plies.length) { vAutoplay(false); return; }
    vStep('next');
    if (rs.at >= game.plies.length) vAutoplay(false);
  }, AUTOPLAY_MS);
}

// The viewer's position sent on: to Analyse, or to Play to play on from it
// (the game's moves so far replayed there, the human to move against
// Play's opponent).
function vSendTo(where) {
  const g = rs.game, k = rs.at;
  if (!g) return;
  const st = k ? g.plies[k - 1].state : g.start;
  if (where === 'analyse') {
    location.hash = `#analyse?game=${enc(st.game)}&position=${enc(st.position)}`;
    return;
  }
  const moves = g.plies.slice(0, k).map((p) => p.move).join(',');
  const seat = st.to_move === null ? play.seat : st.to_move;
  // A start of its own only when the record has one (else the rules').
  const start = g.record && g.record.start ? `&start=${enc(g.record.start)}` : '';
  location.hash = `#play?game=${enc(g.start.game)}${start}&moves=${enc(moves)}&agent=${enc(play.agent)}&seat=${seat}`;
}

function initResults() {
  $('v-to-analyse').addEventListener('click', () => vSendTo('analyse'));
  $('v-to-play').addEventListener('click', () => vSendTo('play'));
  $('v-auto').addEventListener('click', () => vAutoplay($('v-auto').getAttribute('aria-pressed') !== 'true'));
  $('v-timeline').addEventListener('click', (ev) => {
    const m = ev.target.closest('[data-ply]');
    if (m) vStep(+m.dataset.ply);
  });
  for (const b of document.querySelectorAll('#viewer [data-vstep]')) b.addEventListener('click', () => vStep(b.dataset.vstep));
  $('v-flip').addEventListener('click', () => {
    rs.flip = toggled($('v-flip'));
    if (rs.game) vRender();
  });
  for (const id of ['r-agent', 'r-result', 'r-end']) $(id).addEventListener('change', () => { rs.offset = 0; loadGames(); });
  $('r-prev').addEventListener('click', () => { rs.offset = Math.max(0, rs.offset - rs.limit); loadGames(); });
  $('r-next').addEventListener('click', () => { rs.offset += rs.limit; loadGames(); });
}

// ------------------------------------------------------------ views, keys, preferences

let view = 'play';

// The hash picks the view: #play, #analyse, #results; #play?game=...
// restores a game, #results?path=P&id=N opens a folder and a game.
async function route() {
  routing = true;
  try {
    await followAddress();
  } finally {
    routing = false;
  }
}

async function followAddress() {
  const [name, query] = location.hash.replace(/^#/, '').split('?');
  view = ['play', 'analyse', 'results'].includes(name) ? name : 'play';
  for (const v of ['play', 'analyse', 'results']) {
    $(`view-${v}`).hidden = v !== view;
    if (v === view) $(`tab-${v}`).setAttribute('aria-current', 'page'); else $(`tab-${v}`).removeAttribute('aria-current');
  }
  const q = new URLSearchParams(query || '');
  if (view === 'play') {
    if (q.has('game')) await restoreGame(q);
    else if (!play.start) await newGame();
    else renderPlay();
  } else if (view === 'analyse') {
    if (q.has('game')) await xLoad(q.get('game'), q.get('position') || '', false, (q.get('line') || '').split(',').filter(Boolean));
    else if (!xs.state) await xLoad(play.game || $('x-spec').value.trim(), current() ? current().position : '');
    setStatus('Set up a position, then Analyse.');
  } else {
    if (!rs.folders) await loadFolders();
    setStatus('Choose a results folder.');
    const f = q.get('path') && (rs.folders || []).find((x) => x.path === q.get('path'));
    // Back from a folder or a game closes it.
    if (!f && rs.folder) {
      rs.folder = null;
      rs.game = null;
      $('r-folder').hidden = true;
      $('viewer').hidden = true;
    }
    if (f && !q.has('id') && rs.game) {
      rs.game = null;
      $('viewer').hidden = true;
    }
    if (f && (!rs.folder || rs.folder.path !== f.path)) openFolder(f);
    if (f && q.has('id') && !(rs.game && rs.gameId === +q.get('id'))) await openGame(+q.get('id'));
    if (f && q.has('at') && rs.game) vStep(+q.get('at'));
  }
}

function onKey(ev) {
  const t = ev.target;
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
  const steps = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' };
  if (view === 'play') {
    const st = current();
    if (steps[ev.key] && play.start) { ev.preventDefault(); reviewStep(steps[ev.key]); return; }
    if (reviewing()) return;
    if (/^[1-9]$/.test(ev.key) && st && st.legal.includes(ev.key)) { ev.preventDefault(); playMove(ev.key); }
    else if (ev.key === 's' && st && st.legal.includes('swap')) { ev.preventDefault(); playMove('swap'); }
    return;
  }
  if (!steps[ev.key]) return;
  if (view === 'analyse' && xs.pv) { ev.preventDefault(); xStep(steps[ev.key]); }
  if (view === 'results' && rs.game && !$('viewer').hidden) { ev.preventDefault(); vStep(steps[ev.key]); }
}

// Theme: the system's, until the toggle picks one (kept in localStorage).
function effectiveTheme() {
  return document.documentElement.dataset.theme || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
}
// The report in its frame, in the page's theme when one was chosen (a
// framed page follows only the system's preference).
function showReport() {
  const frame = $('r-report'), path = frame.dataset.path;
  if (!path) return;
  const theme = document.documentElement.dataset.theme;
  frame.src = `/api/results/report?path=${encodeURIComponent(path)}${theme ? `&theme=${theme}` : ''}`;
}

function themeLabel() {
  const t = effectiveTheme();
  $('theme').textContent = t === 'dark' ? 'Light theme' : 'Dark theme';
  $('theme').setAttribute('aria-pressed', String(t === 'dark'));
}
function initPrefs() {
  const t = load('mancala.theme');
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
  themeLabel();
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', themeLabel);
  $('theme').addEventListener('click', () => {
    const next = effectiveTheme() === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    save('mancala.theme', next);
    themeLabel();
    showReport();
  });
  $('animate').checked = load('mancala.animate') !== '0';
  $('animate').addEventListener('change', () => save('mancala.animate', $('animate').checked ? '1' : '0'));
}

async function init() {
  initPrefs();
  initPlay();
  initAnalyse();
  initResults();
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', route);
  setInterval(liveRefresh, LIVE_MS);
window.addEventListener('resize', () => { if ($('x-editor').childElementCount) xEditorHint(); });
  // The agents' examples feed the agent fields' suggestions.
  api('/api/info').then((info) => {
    $('agent-examples').replaceChildren(...info.agents.map((a) => h('option', { value: a.example, label: `${a.name}: ${a.about}` })));
    // The operator's engines (`serve --engine NAME=COMMAND`), by name.
    for (const name of info.engines || []) {
      $('agent-examples').append(h('option', { value: name, label: `${name}: an engine this server offers` }));
      $('a-preset').append(h('option', { value: name, text: `Engine: ${name}` }));
    }
    if (!info.results) $('tab-results').title = 'The server was started without --results';
  }, showError);
  $('g-spec').value = specFromControls();
  await route();
}

init();

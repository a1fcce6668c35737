// End-to-end browser tests of `mancala serve`: a real server, a real
// results folder made with the CLI, Debian's chromium driven by
// playwright-core. Every board the page shows is checked against the
// engine (POST /api/line, or `mancala solve` for the analysis).
//
//   MANCALA_BIN=path/to/mancala SCREENSHOTS=dir node e2e.mjs
//
// Exits non-zero, naming the failed check, on any failure; the server is
// stopped whatever happens.
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, rmSync, cpSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const BIN = process.env.MANCALA_BIN ? resolve(process.env.MANCALA_BIN) : resolve(here, '../../target/debug/mancala');
const SHOTS = process.env.SCREENSHOTS ? resolve(process.env.SCREENSHOTS) : join(repo, 'results/web');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const GAME = 'kalah:pits=4,seeds=3';
const t0 = Date.now();

// ------------------------------------------------------------ plumbing

const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
let step = 'setup';
const problems = []; // console errors/warnings and page errors, from every page
let allowHttpError = null; // a status the current step provokes on purpose
let expectErrorShown = false; // the step shows an error in the page on purpose

// Every console error or warning, page error and error shown in the
// page's error box (even for a moment) fails the run, unless the step
// provokes it on purpose.
async function watch(page, name) {
  await page.exposeFunction('__errorShown', (text) => {
    if (!expectErrorShown) problems.push(`${name}, ${step}: error shown on the page: ${text}`);
  });
  // Installed in the top document once it has loaded (an init script would
  // also be tried in the report's frame, whose sandbox refuses scripts).
  page.on('domcontentloaded', () => page.evaluate(() => {
    const box = document.getElementById('error');
    if (!box) return;
    new MutationObserver(() => {
      const text = box.textContent.trim();
      if (!box.hidden && text) window.__errorShown(text);
    }).observe(box, { attributes: true, childList: true, subtree: true, characterData: true });
  }).catch(() => {}));
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning') return;
    // A request the step makes fail on purpose logs "Failed to load resource".
    if (allowHttpError && m.text().includes(`status of ${allowHttpError}`)) { log(`(expected: ${m.text()})`); return; }
    problems.push(`${name}, ${step}: console ${m.type()}: ${m.text()} (${m.location().url || '?'})`);
  });
  page.on('pageerror', (e) => problems.push(`${name}, ${step}: page error: ${e.message}`));
  return page;
}

let base = '';
async function api(path, body) {
  const res = await fetch(base + path, body === undefined ? {} : {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(`${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(data)}`);
  return data;
}
// The engine's state after a line of moves.
async function engineState(game, moves, start) {
  const body = { game, moves };
  if (start) body.start = start;
  const r = await api('/api/line', body);
  return r.plies.length ? r.plies[r.plies.length - 1].state : r.start;
}

// The board as the page shows it: every cell's count, from the count text
// (the data-count attribute must say the same), in cell order.
async function readBoard(page, prefix = '') {
  const cells = await page.$$eval(`[data-testid^="${prefix}pit-"], [data-testid^="${prefix}store-"]`, (els) => els.map((e) => ({
    cell: +e.dataset.cell, count: +e.dataset.count, text: e.querySelector('text.count').textContent, testid: e.dataset.testid,
  })));
  cells.sort((a, b) => a.cell - b.cell);
  for (const c of cells) assert.equal(String(c.count), c.text, `${c.testid}: data-count ${c.count} but the text says ${c.text}`);
  cells.forEach((c, i) => assert.equal(c.cell, i, `${prefix}board: cell ${i} missing`));
  return cells.map((c) => c.count);
}
async function checkBoard(page, prefix, state, what) {
  const shown = await readBoard(page, prefix);
  assert.deepEqual(shown, state.board, `${what}: the page shows ${JSON.stringify(shown)}, the engine ${JSON.stringify(state.board)} (${state.position})`);
}

// Which player's row is at the bottom of a board: player 0's unless flipped.
async function bottomRow(page, prefix) {
  const y = async (p) => (await page.locator(`[data-testid="${prefix}pit-${p}-0"]`).boundingBox()).y;
  return (await y(0)) > (await y(1)) ? 0 : 1;
}
// The board's flip button turns it round and back, the counts unchanged.
async function checkFlip(page, prefix, button) {
  const before = await readBoard(page, prefix);
  assert.equal(await bottomRow(page, prefix), 0, `${prefix}board: player 0 not at the bottom`);
  await page.click(button);
  assert.equal(await bottomRow(page, prefix), 1, `${button} did not flip the board`);
  assert.equal(await page.getAttribute(button, 'aria-pressed'), 'true');
  assert.deepEqual(await readBoard(page, prefix), before, `${button} changed the counts`);
  await page.click(button);
  assert.equal(await bottomRow(page, prefix), 0, `${button} did not flip the board back`);
}

const playBusy = (page) => page.evaluate(() => document.getElementById('view-play').dataset.busy);
async function waitIdle(page, view = 'play', timeout = 20000) {
  await page.waitForFunction((v) => document.getElementById(`view-${v}`).dataset.busy === '0', view, { timeout });
}
// Waits for `fn` to hold. A check that throws counts as not yet (a frame
// still loading is detached and replaced under it); its last error is
// reported if the time runs out.
async function until(fn, what, timeout = 20000) {
  const end = Date.now() + timeout;
  let last = null;
  for (;;) {
    try {
      if (await fn()) return;
    } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (last: ${last.message})` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const movesShown = (page) => page.$$eval('#move-list li', (lis) => lis.map((li) => li.dataset.move));
const textOf = (page, testid) => page.textContent(`[data-testid="${testid}"]`);

// A small seeded generator, so a failing game can be replayed.
let seed = Number(process.env.E2E_SEED || 12345);
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };

// ------------------------------------------------------------ a: the results folder

const tmp = mkdtempSync(join(tmpdir(), 'mancala-web-e2e-'));
const root = join(tmp, 'results');
let server = null;
let browser = null;
// Stops the server and removes the temporary folder; safe to call twice.
function cleanup() {
  if (server) { server.kill('SIGTERM'); server = null; }
  if (!process.env.E2E_KEEP) rmSync(tmp, { recursive: true, force: true });
}

function makeResults() {
  step = 'a: tournament and annotate';
  mkdirSync(root, { recursive: true });
  const config = join(tmp, 'tiny.toml');
  writeFileSync(config, [
    'name = "tiny"', `game = "${GAME}"`, 'format = "round_robin"', 'games_per_pair = 4', 'seed = 7', '',
    '[[agents]]', 'spec = "random"', '', '[[agents]]', 'spec = "greedy"', '',
    '[[agents]]', 'name = "minimax-2"', 'spec = "minimax:depth=2"', '',
  ].join('\n'));
  execFileSync(BIN, ['tournament', config, '--output', join(root, 'tiny'), '--threads', '1', '--quiet'], { stdio: 'pipe' });
  execFileSync(BIN, ['annotate', join(root, 'tiny'), '--threads', '1', '--quiet'], { stdio: 'pipe' });
  // This board's moves are all judged; a move past the solver's budget is
  // written without values, as annotate writes one on a big board: make
  // each game's first judged move such a one.
  const file = join(root, 'tiny', 'annotations.jsonl');
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  for (const a of lines) {
    if (a.moves.length) Object.assign(a.moves[0], { value: null, played: null, best: null, loss: null, blunder: false });
  }
  writeFileSync(file, lines.map((a) => JSON.stringify(a)).join('\n') + '\n');
  // The same folder with an annotate stopped after half its games.
  cpSync(join(root, 'tiny'), join(root, 'half'), { recursive: true });
  const half = lines.slice(0, Math.floor(lines.length / 2));
  writeFileSync(join(root, 'half', 'annotations.jsonl'), half.map((a) => JSON.stringify(a)).join('\n') + '\n');
  log('tournament and annotations in', join(root, 'tiny'));
}

// ------------------------------------------------------------ b: the server

async function startServer() {
  step = 'b: serve';
  server = spawn(BIN, ['serve', '--port', '0', '--results', root], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  server.stderr.on('data', (d) => { err += d; });
  base = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server printed no address in 30 s; stdout: ${out} stderr: ${err}`)), 30000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[^\s]+)/);
      if (m) { clearTimeout(timer); ok(m[1].replace(/\/$/, '')); }
    });
    server.on('exit', (code) => { clearTimeout(timer); fail(new Error(`the server exited (${code}): ${err}`)); });
  });
  server.removeAllListeners('exit');
  // The server goes whatever way this process ends (a crash, Ctrl-C, a closed pipe).
  process.on('exit', cleanup);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(130));
  process.stdout.on('error', () => process.exit(1));
  log('server at', base);
}

// ------------------------------------------------------------ c1: a whole game

async function testWholeGame(page) {
  step = 'c1: a whole game against random';
  await page.goto(`${base}/#play`);
  await waitIdle(page);
  // Animation off, and the choice survives a reload.
  await page.uncheck('#animate');
  await page.reload();
  await waitIdle(page);
  assert.equal(await page.isChecked('#animate'), false, 'the animation setting was not kept');
  // The structured controls write the spec.
  await page.fill('#g-pits', '4');
  await page.fill('#g-seeds', '3');
  assert.equal(await page.inputValue('#g-spec'), GAME, 'pits and seeds controls do not make the spec');
  await page.selectOption('#a-preset', 'random');
  assert.equal(await page.inputValue('#a-spec'), 'random');
  await page.selectOption('#seat', '0');

  // The app's agent requests are held until the test has checked the board
  // they were asked from, so every ply's board is checked, the agent's too.
  const held = [];
  await page.route('**/api/agent', (route) => { held.push(route); });
  await page.click('#new-game');
  const checked = new Set();
  let humanMoves = 0, undone = false, hinted = false, linked = false;
  for (let guard = 0; guard < 400; guard++) {
    await until(async () => held.length > 0 || (await playBusy(page)) === '0', 'the app to wait for the agent or the human');
    const moves = await movesShown(page);
    const state = await engineState(GAME, moves);
    await checkBoard(page, '', state, `after ${moves.join(' ') || 'no moves'}`);
    assert.equal(await page.getAttribute('#view-play', 'data-plies'), String(moves.length));
    checked.add(moves.length);
    if (held.length) { await held.shift().continue(); continue; }
    if (state.to_move === null) {
      // Over: the result shown is the engine's.
      const o = state.outcome;
      const res = await textOf(page, 'result');
      assert.ok(res.includes(`${o.scores[0]}\u2013${o.scores[1]}`), `result "${res}" lacks the scores ${o.scores}`);
      assert.equal(await page.getAttribute('[data-testid="result"]', 'data-winner'), o.winner === null ? 'draw' : String(o.winner));
      assert.ok((await textOf(page, 'status')).includes('Game over'), 'the status does not say the game is over');
      for (let k = 0; k <= moves.length; k++) assert.ok(checked.has(k), `the board after ${k} plies was never checked`);
      assert.ok(hinted && linked && undone, 'the game ended before hint, link and undo were tried (try another E2E_SEED)');
      assert.equal(await page.textContent('#moves-text'), moves.join(' '));
      log(`c1: game over after ${moves.length} plies (${o.scores.join('-')}), ${checked.size} boards checked`);
      break;
    }
    assert.equal(state.to_move, 0, 'the page waits for the human, but the engine says player 1 is to move');
    if (humanMoves === 1 && !hinted) {
      // Hint: values on the board, the best move(s) marked.
      hinted = true;
      await page.click('#hint');
      await waitIdle(page);
      const hint = await textOf(page, 'hint-out');
      assert.match(hint, /best move/, `hint text: ${hint}`);
      assert.ok((await page.$$('[data-testid^="pit-0-"].best')).length >= 1, 'no best move highlighted by the hint');
      assert.ok((await page.$$('[data-testid^="value-0-"]')).length === state.legal.length, 'the hint does not show every move\'s value');
    }
    if (humanMoves === 2 && !linked) {
      // The link restores the game in a fresh page.
      linked = true;
      await page.click('#link');
      const url = await page.inputValue('#link-url');
      assert.match(url, /#play\?game=kalah:pits=4,seeds=3&moves=[\d,]+&agent=random&seat=0$/, `link ${url}`);
      const other = await watch(await page.context().newPage(), 'link page');
      await other.goto(url);
      await until(async () => (await other.getAttribute('#view-play', 'data-plies')) === String(moves.length), 'the link to restore the game');
      await waitIdle(other);
      assert.deepEqual(await movesShown(other), moves, 'the link restored other moves');
      await checkBoard(other, '', state, 'the game restored from the link');
      await other.close();
    }
    if (humanMoves === 3 && !undone) {
      // Undo goes back to before the human's last move.
      undone = true;
      const plyPlayers = await page.$$eval('#move-list li', (lis) => lis.map((li) => +li.dataset.player));
      const at = plyPlayers.lastIndexOf(0);
      await page.click('#undo');
      await waitIdle(page);
      const after = await movesShown(page);
      assert.deepEqual(after, moves.slice(0, at), `undo left ${after.join(' ')}, expected ${moves.slice(0, at).join(' ')}`);
      await checkBoard(page, '', await engineState(GAME, after), 'after undo');
      continue;
    }
    // The human plays a random legal pit: mostly by clicking, sometimes with its key.
    const legal = await page.$$eval('[data-testid^="pit-0-"].legal', (els) => els.map((e) => e.dataset.move));
    assert.deepEqual([...legal].sort(), state.legal.filter((m) => m !== 'swap').sort(), 'the clickable pits are not the legal moves');
    const mv = legal[rand(legal.length)];
    if (humanMoves % 4 === 3) await page.keyboard.press(mv);
    else await page.click(`[data-testid="pit-0-${+mv - 1}"]`);
    humanMoves++;
  }
  assert.equal(await page.getAttribute('#view-play', 'data-over'), '1', 'the game did not end');
  await page.unroute('**/api/agent');
}

// ------------------------------------------------------------ c2: the pie swap

async function testPieSwap(page) {
  step = 'c2: the pie swap';
  await page.goto(`${base}/#play`);
  await waitIdle(page);
  await page.check('#animate'); // this one is animated: the sowing must end on the engine's board
  await page.fill('#g-pits', '4');
  await page.fill('#g-seeds', '3');
  await page.check('#g-pie');
  const spec = 'kalah:pits=4,seeds=3,pie=true';
  assert.equal(await page.inputValue('#g-spec'), spec);
  await page.check('#two-humans');
  await page.click('#new-game');
  await waitIdle(page);
  assert.equal(await page.isVisible('#swap'), false, 'swap offered before player 0 has moved');
  await page.click('[data-testid="pit-0-0"]');
  // The animation runs seed by seed: part way, the page is busy.
  await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '1', 'the sowing to finish', 10000);
  await waitIdle(page);
  const before = await readBoard(page);
  await checkBoard(page, '', await engineState(spec, ['1']), 'after player 0 sowed pit 1');
  assert.equal(await page.isVisible('#swap'), true, 'no Swap button for player 1');
  await page.click('#swap');
  await waitIdle(page);
  const state = await engineState(spec, ['1', 'swap']);
  await checkBoard(page, '', state, 'after the swap');
  const after = await readBoard(page);
  const n = 4;
  assert.deepEqual(after.slice(0, n), before.slice(n, 2 * n), 'player 0 did not get player 1\'s row');
  assert.deepEqual(after.slice(n, 2 * n), before.slice(0, n), 'player 1 did not get player 0\'s row');
  assert.deepEqual([after[2 * n], after[2 * n + 1]], [before[2 * n + 1], before[2 * n]], 'the stores did not change places');
  assert.equal(await page.getAttribute('#notice', 'data-kind'), 'swap', 'no swap notice');
  assert.equal(await page.textContent('#moves-text'), '1 swap');
  assert.equal(await page.isVisible('#swap'), false, 'swap still offered');
  await page.uncheck('#animate');
  await page.uncheck('#two-humans');
  log('c2: swap checked');
}

// Opens Play afresh with a game's settings (the controls a player sets)
// and starts it: `seat` is '0', '1' or 'both'; `two` two humans.
// Clicks a view's tab and waits for the view: the address changes at the
// click, the view at the hashchange event after it, and a key pressed in
// between would go to the view left.
async function tab(page, name) {
  await page.click(`[data-testid="tab-${name}"]`);
  await page.waitForSelector(`#view-${name}:not([hidden])`);
}

async function newPlay(page, { spec, agent, agent2, seat = '0', two = false, animate = false, moves = '' }) {
  await page.goto(`${base}/#play`);
  await waitIdle(page);
  await (animate ? page.check('#animate') : page.uncheck('#animate'));
  await (two ? page.check('#two-humans') : page.uncheck('#two-humans'));
  await page.fill('#g-spec', spec);
  await page.dispatchEvent('#g-spec', 'change');
  await page.fill('#g-moves', moves);
  await page.fill('#g-start', '');
  if (agent) {
    await page.fill('#a-spec', agent);
    await page.dispatchEvent('#a-spec', 'change');
  }
  await page.selectOption('#seat', seat);
  if (agent2) {
    await page.fill('#a-spec2', agent2);
    await page.dispatchEvent('#a-spec2', 'change');
  }
}

// ------------------------------------------------------------ c2b: what an animation shows

// During a sowing the stores keep their names ("You", not "P0") and the
// last move's notice is gone (it was about that move, not this one).
async function testAnimationLabels(page) {
  step = 'c2b: labels during an animation';
  // Greedy (player 1) answers with pit 3 too: its own extra turn, whose
  // notice must go before its next sowing. Deterministic, unlike random.
  await newPlay(page, { spec: 'kalah', agent: 'greedy', animate: true });
  await page.click('#new-game');
  await waitIdle(page);
  // Pit 3 of 4 seeds ends in the store: an extra turn, and its notice.
  await page.click('[data-testid="pit-0-2"]');
  await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '1', 'the first sowing');
  await waitIdle(page);
  assert.match(await page.textContent('#notice'), /Extra turn/);
  await page.evaluate(() => {
    window.__seen = { names: new Set(), notices: new Set() };
    const svg = document.getElementById('play-board');
    new MutationObserver(() => {
      // Frames of a sowing only (a lit pit; `.from` alone also marks the
      // last move on a finished board): once a move is sown its own notice
      // is right to show, while the agent thinks about its extra turn too.
      if (document.getElementById('view-play').dataset.busy !== '1' || !svg.querySelector('.cell.lit')) return;
      svg.querySelectorAll('text.who').forEach((t) => window.__seen.names.add(t.textContent));
      window.__seen.notices.add(document.getElementById('notice').textContent);
    }).observe(svg, { childList: true, subtree: true });
  });
  await page.click('[data-testid="pit-0-0"]');
  // The human's move and at least two of the agent's: pit 3, then another.
  await until(async () => Number(await page.getAttribute('#view-play', 'data-plies')) >= 4, 'the agent\'s extra turn');
  await waitIdle(page);
  const seen = await page.evaluate(() => ({ names: [...window.__seen.names], notices: [...window.__seen.notices] }));
  assert.ok(seen.names.length > 0, 'no board drawn during the animation');
  assert.ok(seen.names.includes('You') && !seen.names.includes('P0'), `stores named ${seen.names} during the animation`);
  assert.deepEqual(seen.notices, [''], `the last move's notice shown during the next one: ${seen.notices}`);
  await page.uncheck('#animate');
  log('c2b: store names and notices during an animation');
}

// ------------------------------------------------------------ c2c: reviewing a game in Play

// Each move of the list shows the position after it; the arrows step
// through them, the board takes no move meanwhile, End returns to the
// game, and "Play from here" drops the moves after the one shown.
async function testReview(page) {
  step = 'c2c: review in Play';
  await newPlay(page, { spec: 'kalah:pits=4,seeds=3', two: true });
  await page.click('#new-game');
  await waitIdle(page);
  const spec = 'kalah:pits=4,seeds=3';
  const moves = ['1', '2', '3'];
  for (const [i, m] of moves.entries()) {
    const st = await engineState(spec, moves.slice(0, i));
    await page.click(`[data-testid="pit-${st.to_move}-${Number(m) - 1}"]`);
    await until(async () => Number(await page.getAttribute('#view-play', 'data-plies')) === i + 1, `move ${i + 1}`);
    await waitIdle(page);
  }
  assert.equal(await page.isVisible('#from-here'), false, 'Play from here offered while live');
  await page.click('#move-list button[data-ply="1"]');
  await checkBoard(page, '', await engineState(spec, moves.slice(0, 1)), 'reviewing move 1');
  assert.equal(await page.getAttribute('#view-play', 'data-cursor'), '1');
  assert.match(await page.textContent('#status'), /Reviewing: after move 1 of 3/);
  assert.equal(await page.$$eval('#play-board .cell.legal', (c) => c.length), 0, 'pits clickable while reviewing');
  assert.equal(await page.getAttribute('#move-list li:nth-child(1) button', 'aria-current'), 'step');
  await page.keyboard.press('ArrowRight');
  const second = await engineState(spec, moves.slice(0, 2));
  await checkBoard(page, '', second, 'ArrowRight to move 2');
  // Analyse takes the position reviewed, not the live one.
  await tab(page, 'analyse');
  await page.click('#x-from-play');
  await until(async () => (await page.inputValue('#x-pos')) === second.position, 'the reviewed position in Analyse');
  await checkFlip(page, 'x-', '#x-flip');
  // Analyse's address holds its position (a reload shows it again: c3).
  assert.equal(await page.evaluate(() => location.hash), `#analyse?game=${second.game}&position=${second.position}`);
  await tab(page, 'play');
  assert.equal(await page.getAttribute('#view-play', 'data-cursor'), '2', 'the review lost on the way back');
  await page.keyboard.press('Home');
  await checkBoard(page, '', await engineState(spec, []), 'Home: the start');
  // A move key does nothing while reviewing.
  await page.keyboard.press('1');
  assert.equal(await page.getAttribute('#view-play', 'data-plies'), '3', 'a key played while reviewing');
  await page.keyboard.press('End');
  assert.equal(await page.getAttribute('#view-play', 'data-cursor'), '', 'End did not return to the game');
  await checkBoard(page, '', await engineState(spec, moves), 'End: the live position');
  await page.click('#move-list button[data-ply="1"]');
  await page.click('#from-here');
  await waitIdle(page);
  assert.equal(await page.getAttribute('#view-play', 'data-plies'), '1', 'moves after the one shown kept');
  assert.equal(await page.textContent('#moves-text'), '1');
  assert.equal(await page.isVisible('#from-here'), false);
  // And the game goes on from there with another move.
  const st = await engineState(spec, ['1']);
  await page.click(`[data-testid="pit-${st.to_move}-3"]`);
  await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '2', 'a move after Play from here');
  assert.equal(await page.textContent('#moves-text'), '1 4');
  // A move list pasted (as the list shows it) is played at New game, and
  // the game downloads as a line of games.jsonl.
  await page.fill('#g-moves', '1. P0 1 2. P1 2 3. P0 3');
  await page.click('#new-game');
  await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '3', 'the pasted moves');
  await checkBoard(page, '', await engineState(spec, moves), 'after the pasted moves');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const line = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(download.suggestedFilename(), 'mancala-game.jsonl');
  assert.equal(line.moves, '1 2 3');
  assert.equal(line.game, (await engineState(spec, [])).game);
  assert.equal(line.position, (await engineState(spec, moves)).position);
  assert.deepEqual(line.agents, ['human', 'human']);
  assert.equal(line.plies, 3);
  assert.equal(line.winner, null, 'a game going on has no winner');
  // The address holds the game as it goes: a reload shows it again, at
  // the move reviewed.
  await page.click('#move-list button[data-ply="2"]');
  assert.match(await page.evaluate(() => location.hash), /^#play\?game=[^&]+&moves=1,2,3&two=1&at=2$/);
  await page.reload();
  await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '3', 'the game after a reload');
  await waitIdle(page);
  assert.equal(await page.getAttribute('#view-play', 'data-cursor'), '2', 'the move reviewed lost in a reload');
  await checkBoard(page, '', second, 'reviewing move 2 after a reload');
  // And in a fresh page, as a shared address is opened.
  const shared = await watch(await page.context().newPage(), 'shared');
  await shared.goto(page.url());
  await until(async () => (await shared.getAttribute('#view-play', 'data-plies')) === '3', 'the shared game in a fresh page');
  assert.equal(await shared.getAttribute('#view-play', 'data-cursor'), '2', 'the move reviewed lost in a fresh page');
  await checkBoard(shared, '', second, 'the shared address in a fresh page');
  await shared.close();
  await page.keyboard.press('End');
  assert.match(await page.evaluate(() => location.hash), /&moves=1,2,3&two=1$/);
  // An illegal move in the list is refused, naming it.
  allowHttpError = 422;
  expectErrorShown = true;
  await page.fill('#g-moves', '1 9');
  await page.click('#new-game');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /9/);
  await page.waitForTimeout(200);
  allowHttpError = null;
  expectErrorShown = false;
  await page.fill('#g-moves', '');
  await page.click('#new-game');
  await waitIdle(page);
  assert.equal(await page.isHidden('#error'), true);
  await page.uncheck('#two-humans');
  log('c2c: review in Play: move list, arrows, Home/End and play from here; pasted moves, download');
}

// ------------------------------------------------------------ c2e: analyse a game

// "Analyse game" judges every move as `mancala annotate` does: each move's
// loss against the best, blunders (an exact loss that changes the result)
// marked in the move list, and player 0's value after each move on the
// graph, whose points review the game.
async function testJudge(page) {
  step = 'c2e: analyse a game in Play';
  const spec = 'kalah:pits=4,seeds=3';
  // A line of the worst moves: it throws results away, so it has blunders.
  const moves = [], want = [];
  for (let k = 0; k < 8; k++) {
    const st = await engineState(spec, moves);
    if (st.to_move === null) break;
    const r = await api('/api/analyse', { game: spec, position: st.position, ms: 300, nodes: 20000 });
    assert.ok(r.exact, `Kalah(4,3) is solved at once: ${st.position}`);
    const worst = r.moves.reduce((a, b) => (b.value < a.value ? b : a));
    want.push({
      player: st.to_move, loss: r.value - worst.value,
      blunder: Math.sign(worst.value) < Math.sign(r.value), p0: st.to_move === 0 ? worst.value : -worst.value,
      start: st.to_move === 0 ? r.value : -r.value,
    });
    moves.push(worst.move);
  }
  assert.ok(want.some((w) => w.blunder), `no blunder on the line ${moves.join(' ')}`);
  assert.ok(want.some((w) => !w.blunder), `only blunders on the line ${moves.join(' ')}`);
  await newPlay(page, { spec, two: true, moves: moves.join(' ') });
  await page.click('#new-game');
  await until(async () => Number(await page.getAttribute('#view-play', 'data-plies')) === moves.length, 'the line');
  await waitIdle(page);
  assert.equal(await page.isHidden('#judge-graph'), true, 'a graph before any analysis');
  await page.click('#judge');
  await until(async () => /^Analysed: /.test(await page.textContent('#judge-out')), 'the analysis of the game');
  await waitIdle(page);
  const items = await page.$$eval('#move-list li', (lis) => lis.map((li) => ({
    loss: li.dataset.loss, blunder: li.dataset.blunder, text: li.textContent, cls: li.className,
  })));
  assert.equal(items.length, moves.length);
  for (const [i, w] of want.entries()) {
    const it = items[i];
    assert.equal(Number(it.loss), w.loss, `move ${i + 1}: loss`);
    assert.equal(it.blunder, w.blunder ? '1' : '0', `move ${i + 1}: blunder mark`);
    assert.equal(it.text.endsWith('??'), w.blunder, `move ${i + 1}: "??" in ${it.text}`);
    assert.equal(Number(await page.getAttribute(`[data-testid="jg-${i + 1}"]`, 'data-value')), w.p0, `graph point ${i + 1}`);
  }
  assert.equal(Number(await page.getAttribute('[data-testid="jg-0"]', 'data-value')), want[0].start, 'graph: the start');
  assert.equal(await page.$$eval('#judge-graph .point.blunder', (p) => p.length), want.filter((w) => w.blunder).length);
  const summary = await page.textContent('#judge-out');
  assert.match(summary, new RegExp(`${moves.length} of ${moves.length} moves, ${moves.length} exact`), summary);
  // A point of the graph reviews the position after its move.
  await page.click('[data-testid="jg-2"]');
  assert.equal(await page.getAttribute('#view-play', 'data-cursor'), '2', 'the graph did not review move 2');
  await checkBoard(page, '', await engineState(spec, moves.slice(0, 2)), 'the graph\'s point 2');
  // The judgement belongs to the line: taking a move back drops it.
  await page.keyboard.press('End');
  await page.click('#undo');
  await waitIdle(page);
  assert.equal(await page.isHidden('#judge-graph'), true, 'the graph of another line kept');
  assert.equal(await page.$$eval('#move-list li[data-loss]', (l) => l.length), 0, 'losses of another line kept');
  await page.uncheck('#two-humans');
  log(`c2e: analyse a game in Play: ${moves.length} moves judged, blunders marked, the value graph reviews`);
}

// ------------------------------------------------------------ c2d: two agents

// "Neither" seat: two agents play each other; paused, nothing moves until
// Step plays one move; unpaused, they play to the end.
async function testWatch(page) {
  step = 'c2d: two agents';
  await newPlay(page, { spec: 'kalah:pits=4,seeds=3', agent: 'greedy', seat: 'both', agent2: 'minimax:depth=2' });
  assert.equal(await page.isVisible('#pause'), true, 'no Pause when watching');
  await page.click('#pause');
  await page.click('#new-game');
  await waitIdle(page);
  await page.waitForTimeout(300);
  assert.equal(await page.getAttribute('#view-play', 'data-plies'), '0', 'an agent moved while paused');
  assert.match(await page.textContent('#players'), /greedy \(player 0\)/);
  assert.match(await page.textContent('#players'), /minimax:depth=2 \(player 1\)/);
  await page.click('#step');
  await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '1', 'one move by Step');
  await waitIdle(page);
  await page.waitForTimeout(300);
  assert.equal(await page.getAttribute('#view-play', 'data-plies'), '1', 'Step played more than one move');
  await page.click('#pause');
  await until(async () => (await page.getAttribute('#view-play', 'data-over')) === '1', 'the agents\' game to its end', 30000);
  const moves = (await page.textContent('#moves-text')).split(' ');
  const end = await engineState('kalah:pits=4,seeds=3', moves);
  assert.equal(end.to_move, null, 'the moves shown do not end the game');
  assert.match(await page.textContent('#result'), /wins|draw/i);
  // Each agent played its own seat: every move is the one its agent picks
  // there with the page's seed (as the page asks: its seed plus the ply).
  const seed = Number(await page.getAttribute('#view-play', 'data-seed'));
  for (const k of [0, 1, 2]) {
    const agent = (await engineState('kalah:pits=4,seeds=3', moves.slice(0, k))).to_move === 0 ? 'greedy' : 'minimax:depth=2';
    const r = await api('/api/agent', { game: 'kalah:pits=4,seeds=3', moves: moves.slice(0, k), agent, seed: (seed + k) % 4294967296 });
    assert.equal(moves[k], r.move, `ply ${k + 1} is not ${agent}'s move`);
  }
  await page.selectOption('#seat', '0');
  log(`c2d: two agents: paused, one Step, then ${moves.length} plies to the end`);
}

// ------------------------------------------------------------ c3: the analysis

// The database is kept small and in memory: the positions asked about
// are near their end, and nothing is left in the user's cache.
function solve(game, position) {
  const args = ['solve', '--game', game, '--json', '--threads', '1', '--db-seeds', '8', '--no-db-cache', '--tt', '16'];
  if (position) args.push('--position', position);
  return JSON.parse(execFileSync(BIN, args, { encoding: 'utf8' }));
}

async function checkAnalysis(page, game, position, what) {
  const sol = solve(game, position).solution;
  await page.click('#x-go');
  await page.waitForSelector('#x-table:not([hidden])');
  await waitIdle(page, 'analyse', 30000);
  const rows = await page.$$eval('#x-table tbody tr', (trs) => trs.map((tr) => ({
    move: tr.dataset.testid.replace('x-row-', ''), value: +tr.dataset.value, exact: tr.dataset.exact, best: tr.dataset.best, kind: tr.cells[3].textContent,
  })));
  const want = Object.fromEntries(sol.moves.map((m) => [m.mv, m.value]));
  assert.equal(rows.length, sol.moves.length, `${what}: ${rows.length} rows, the solver has ${sol.moves.length} moves`);
  const top = Math.max(...sol.moves.map((m) => m.value));
  for (const r of rows) {
    assert.equal(r.value, want[r.move], `${what}: move ${r.move} shown as ${r.value}, solve says ${want[r.move]}`);
    assert.equal(r.exact, 'true', `${what}: move ${r.move} not exact`);
    assert.equal(r.kind, 'exact');
    assert.equal(r.best, String(want[r.move] === top), `${what}: move ${r.move} best flag`);
    const pit = +r.move - 1;
    const mover = sol.mover;
    const label = await page.textContent(`[data-testid="x-value-${mover}-${pit}"]`);
    assert.equal(label.replace('\u2212', '-').replace('+', ''), String(want[r.move]), `${what}: the board's value for move ${r.move}`);
  }
  assert.equal(+(await page.getAttribute('#x-verdict', 'data-value')), sol.value, `${what}: the position's value`);
  const verdict = await page.textContent('#x-verdict');
  const words = sol.value === 0 ? 'A draw with perfect play' : `layer ${sol.value > 0 ? sol.mover : 1 - sol.mover} wins by ${Math.abs(sol.value)} with perfect play`;
  assert.ok(verdict.includes(words), `${what}: verdict "${verdict}" lacks "${words}"`);
  // The status line repeats the verdict's first sentence, whole.
  const first = verdict.slice(0, verdict.indexOf('. ') + 1);
  assert.equal(await textOf(page, 'status'), `Analysed: ${first}`, `${what}: the status line`);
  return sol;
}

async function testAnalysis(page) {
  step = 'c3: the analysis';
  await page.goto(`${base}/#analyse`);
  await waitIdle(page, 'analyse');
  // "From the Play game" takes the position the pie test left.
  await page.click('#x-from-play');
  const pie = await engineState('kalah:pits=4,seeds=3,pie=true', ['1', 'swap']);
  await until(async () => (await page.inputValue('#x-pos')) === pie.position, 'the Play game\'s position');
  assert.equal(await page.inputValue('#x-spec'), 'kalah:pits=4,seeds=3,pie=true');
  await checkBoard(page, 'x-', pie, 'the position from the Play game');
  await page.fill('#x-spec', GAME);
  // The most time the server allows: a slow (debug) build still solves it
  // exactly, and a solved position answers at once anyway.
  await page.fill('#x-ms', '10000');
  await page.click('#x-start');
  await until(async () => (await page.inputValue('#x-pos')) === '3,3,3,3/3,3,3,3/0,0/0', 'the start position');
  const sol = await checkAnalysis(page, GAME, null, 'the start');
  // The principal variation, stepped with the arrow keys, board by board.
  const pv = (await page.$$eval('#x-pv-line button', (els) => els.map((e) => e.textContent.trim())));
  assert.ok(pv.length > 0, 'no principal variation');
  assert.ok(sol.moves.some((m) => m.mv === pv[0] && m.value === sol.value), `the PV starts with ${pv[0]}, not a best move`);
  await page.focus('#x-go');
  for (let k = 1; k <= pv.length; k++) {
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#x-pv-at', 'data-at'), String(k));
    await checkBoard(page, 'pv-', await engineState(GAME, pv.slice(0, k)), `PV after ${k} moves`);
  }
  await page.keyboard.press('Home');
  assert.equal(await page.getAttribute('#x-pv-at', 'data-at'), '0');
  // A move of the line is a button to the position after it.
  const jump = Math.min(2, pv.length);
  await page.click(`[data-testid="x-pv-move-${jump}"]`);
  assert.equal(await page.getAttribute('#x-pv-at', 'data-at'), String(jump));
  await checkBoard(page, 'pv-', await engineState(GAME, pv.slice(0, jump)), `the PV's move ${jump} clicked`);
  // A pasted position, then one edited with the +/- buttons.
  await page.fill('#x-pos', '0,4,4,4/3,3,3,3/0,0/1');
  await page.click('#x-load');
  await until(async () => (await page.inputValue('[data-testid="x-edit-0-0"]')) === '0', 'the editor to take the pasted position');
  await checkAnalysis(page, GAME, '0,4,4,4/3,3,3,3/0,0/1', 'a pasted position');
  await page.click('[aria-label="player 1\'s pit 1: one fewer"]');
  await page.click('[aria-label="player 1\'s store: one more"]');
  await until(async () => (await page.inputValue('#x-pos')) === '0,4,4,4/2,3,3,3/0,1/1', 'the edited position text');
  await until(async () => (await page.getAttribute('[data-testid="x-store-1"]', 'data-count')) === '1', 'the edited board');
  await checkAnalysis(page, GAME, '0,4,4,4/2,3,3,3/0,1/1', 'an edited position');
  // A rule set whose solver is not built yet, with a budget too short for
  // the build: estimates first, then, asked again by the app itself, the
  // solver's values.
  const late = '1,0,0,0,0,1/0,0,1,0,0,1/20,24/0';
  await page.fill('#x-spec', 'kalah:pits=6,seeds=4');
  await page.fill('#x-pos', late);
  await page.click('#x-load');
  await page.fill('#x-ms', '5');
  await page.click('#x-go');
  await until(async () => {
    const kinds = await page.$$eval('#x-table tbody tr', (trs) => trs.map((tr) => tr.dataset.exact));
    return kinds.length > 0 && kinds.every((k) => k === 'true');
  }, 'exact values once the solver is built', 120000);
  await waitIdle(page, 'analyse', 30000);
  const built = solve('kalah:pits=6,seeds=4', late).solution;
  const shown = await page.$$eval('#x-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.testid.replace('x-row-', ''), +tr.dataset.value]));
  assert.deepEqual(Object.fromEntries(shown), Object.fromEntries(built.moves.map((m) => [m.mv, m.value])), 'values after the solver was built');
  // How much worse than the best each move is; a row's move plays it and
  // analyses the position it leads to; Back returns.
  const best = Math.max(...shown.map(([, v]) => v));
  for (const [mv, v] of shown) {
    const worse = await page.textContent(`[data-testid="x-worse-${mv}"]`);
    assert.equal(worse, v === best ? '\u2014' : String(best - v), `move ${mv}: worse by ${worse}`);
  }
  const here = await page.inputValue('#x-pos'), xspec = await page.inputValue('#x-spec');
  const [mv] = shown[0];
  await page.click(`[data-testid="x-row-${mv}"] button`);
  const child = await engineState(xspec, [mv], here);
  await until(async () => (await page.inputValue('#x-pos')) === child.position, 'the position after a row\'s move');
  await waitIdle(page, 'analyse', 30000);
  await page.click('#x-back');
  await until(async () => (await page.inputValue('#x-pos')) === here, 'Back to the position before');
  await waitIdle(page, 'analyse', 30000);
  assert.equal(await page.isVisible('#x-back'), false, 'Back offered at the start of the way');
  // The address holds the position analysed: a reload shows it again.
  const pos = await page.inputValue('#x-pos');
  assert.ok((await page.evaluate(() => decodeURIComponent(location.hash))).endsWith(`&position=${pos}`), 'the position is not in the address');
  await page.reload();
  await until(async () => (await page.inputValue('#x-pos')) === pos, 'the position after a reload');
  // The moves explored form a tree: a second move from the same position
  // is a side line, each move a button to its position; the address keeps
  // the line explored, and a reload returns to where it leads.
  await page.fill('#x-ms', '5');
  await page.click('#x-go');
  await waitIdle(page, 'analyse', 30000);
  const [mv1] = shown[1];
  const child1 = await engineState(xspec, [mv1], here);
  await page.click(`[data-testid="x-row-${mv}"] button`);
  await until(async () => (await page.inputValue('#x-pos')) === child.position, 'the main line\'s move');
  await waitIdle(page, 'analyse', 30000);
  await page.click('#x-back');
  await until(async () => (await page.inputValue('#x-pos')) === here, 'Back');
  await waitIdle(page, 'analyse', 30000);
  await page.click(`[data-testid="x-row-${mv1}"] button`);
  await until(async () => (await page.inputValue('#x-pos')) === child1.position, 'the side line\'s move');
  await waitIdle(page, 'analyse', 30000);
  assert.deepEqual(await page.$$eval('#x-tree button', (bs) => bs.map((b) => b.dataset.testid)), [`x-node-${mv}`, `x-node-${mv1}`], 'the tree');
  assert.equal(await page.$$eval('#x-tree .side button', (bs) => bs.length), 1, 'no side line');
  assert.equal(await page.getAttribute(`[data-testid="x-node-${mv1}"]`, 'aria-current'), 'step');
  assert.ok((await page.evaluate(() => decodeURIComponent(location.hash))).endsWith(`&position=${here}&line=${mv1}`), 'the line is not in the address');
  await page.click(`[data-testid="x-node-${mv}"]`);
  await until(async () => (await page.inputValue('#x-pos')) === child.position, 'the tree\'s button to the main line');
  await waitIdle(page, 'analyse', 30000);
  await page.reload();
  await until(async () => (await page.inputValue('#x-pos')) === child.position, 'the line\'s position after a reload');
  await until(async () => (await page.isVisible(`[data-testid="x-node-${mv}"]`)), 'the line in the tree after a reload');
  log('c3: analysis values match `mancala solve`, also once a solver is built after an estimate; explored moves make a tree with side lines; its address reloads');
}

// ------------------------------------------------------------ c4: results

// A folder that appears while Results is shown is listed, and a game that
// a run appends to an open folder's log is listed, both without a reload.
async function testLive(page) {
  step = 'c4b: live results';
  await page.goto(`${base}/#results`);
  await page.waitForSelector('[data-testid="folder-tiny"]');
  const live = join(root, 'live');
  cpSync(join(root, 'tiny'), live, { recursive: true });
  await until(async () => (await page.$('[data-testid="folder-live"]')) !== null, 'the new folder listed without a reload', 10000);
  await page.click('[data-testid="folder-live"]');
  const count = async () => { const m = /of (\d+) games/.exec(await page.textContent('#r-count')); return m ? Number(m[1]) : null; };
  await until(async () => (await count()) !== null, 'the games listed');
  const before = await count();
  const lines = readFileSync(join(live, 'games.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const next = Math.max(...lines.map((g) => g.id)) + 1;
  appendFileSync(join(live, 'games.jsonl'), `${JSON.stringify({ ...lines[lines.length - 1], id: next })}\n`);
  await until(async () => (await count()) === before + 1, 'the new game listed without a reload', 10000);
  assert.ok(await page.$(`[data-testid="game-${next}"]`), 'the new game has no button');
  // The standings count it too: each agent's games from the log itself.
  const all = readFileSync(join(live, 'games.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const shown = await page.$$eval('#r-standings tbody tr', (rows) => rows.map((r) => [r.dataset.agent, [...r.cells].slice(1, 5).map((c) => Number(c.textContent))]));
  assert.ok(shown.length >= 2, 'no standings');
  for (const [agent, [games, won, drawn, lost]] of shown) {
    const mine = all.filter((g) => g.players.includes(agent));
    assert.equal(games, mine.length, `${agent}: games`);
    assert.equal(won, mine.filter((g) => g.winner !== null && g.players[g.winner] === agent).length, `${agent}: won`);
    assert.equal(drawn, mine.filter((g) => g.winner === null).length, `${agent}: drawn`);
    assert.equal(won + drawn + lost, games, `${agent}: lost`);
  }
  // A game in progress (the runner's live file): listed in the folder,
  // followed in the viewer as the run writes it, and once it has ended
  // (its file gone, its record in the log) shown from the log.
  const rec = lines[0], recMoves = rec.moves.split(' ');
  const liveDir = join(live, 'live');
  mkdirSync(liveDir, { recursive: true });
  const writeLive = (k) => writeFileSync(join(liveDir, '0.json'), JSON.stringify({
    id: 900, game: rec.game, players: rec.players, agents: rec.agents, start: rec.start ?? null, moves: recMoves.slice(0, k).join(' '), plies: k,
  }));
  writeLive(3);
  await page.waitForSelector('[data-testid="live-900"]', { timeout: 10000 });
  await page.click('[data-testid="live-900"]');
  await until(async () => (await page.getAttribute('#v-at', 'data-plies')) === '3', 'the game in progress in the viewer');
  assert.match(await page.textContent('#v-title'), /in progress/);
  writeLive(6);
  await until(async () => (await page.getAttribute('#v-at', 'data-plies')) === '6' && (await page.getAttribute('#v-at', 'data-at')) === '6', 'the viewer following the game', 10000);
  await checkBoard(page, 'v-', await engineState(rec.game, recMoves.slice(0, 6), rec.start ?? undefined), 'the game in progress after 6 moves');
  rmSync(join(liveDir, '0.json'));
  appendFileSync(join(live, 'games.jsonl'), `${JSON.stringify({ ...rec, id: 900 })}\n`);
  await until(async () => (await page.getAttribute('#viewer', 'data-live')) === '0' && (await page.getAttribute('#v-at', 'data-plies')) === String(recMoves.length), 'the ended game from the log', 10000);
  assert.equal(await page.isHidden('#r-live-box'), true, 'an ended game still listed in progress');
  rmSync(live, { recursive: true, force: true });
  await until(async () => (await page.$('[data-testid="folder-live"]')) === null, 'the removed folder gone from the list', 10000);
  log(`c4b: a new folder and a new game (${before} -> ${before + 1}) listed without a reload; a game in progress followed to its end`);
}

// A tournament started now, during the test: its folder appears, a game
// it is playing is followed move by move, and its finished games are
// listed, all without a reload.
async function testRunningTournament(page) {
  step = 'c4c: a tournament started during the test';
  await page.goto(`${base}/#results`);
  await page.waitForSelector('[data-testid="folder-tiny"]');
  const config = join(tmp, 'running.toml');
  writeFileSync(config, [
    'name = "running"', 'game = "kalah"', 'format = "round_robin"', 'games_per_pair = 20', 'seed = 5', '',
    '[[agents]]', 'name = "mm-a"', 'spec = "minimax:time=40ms"', '',
    '[[agents]]', 'name = "mm-b"', 'spec = "minimax:time=40ms,eval=store"', '',
  ].join('\n'));
  const run = spawn(BIN, ['tournament', config, '--output', join(root, 'running'), '--threads', '1', '--quiet'], { stdio: 'ignore' });
  let followed = 0;
  try {
    await until(async () => (await page.$('[data-testid="folder-running"]')) !== null, 'the running tournament listed', 15000);
    // A run still playing has no report yet: the frame shows why (a 422).
    allowHttpError = 422;
    await page.click('[data-testid="folder-running"]');
    await page.waitForSelector('[data-testid^="live-"]', { timeout: 15000 });
    await page.click('[data-testid^="live-"]');
    await until(async () => /in progress/.test(await page.textContent('#v-title')), 'the game in progress in the viewer', 10000);
    const first = Number(await page.getAttribute('#v-at', 'data-plies'));
    await until(async () => Number(await page.getAttribute('#v-at', 'data-plies')) > first, 'the game in progress growing', 15000);
    followed = Number(await page.getAttribute('#v-at', 'data-plies'));
    await until(async () => /^[1-9]\d* of \d+ games/.test(await page.textContent('#r-count')), 'a finished game listed', 30000);
  } finally {
    if (run.exitCode === null) {
      const exited = new Promise((r) => run.on('exit', r));
      run.kill('SIGINT');
      await exited;
    }
  }
  await page.goto(`${base}/#results`);
  allowHttpError = null;
  rmSync(join(root, 'running'), { recursive: true, force: true });
  await until(async () => (await page.$('[data-testid="folder-running"]')) === null, 'the removed folder gone from the list', 10000);
  log(`c4c: a tournament started during the test: listed, a game followed to ${followed} plies, finished games listed`);
}

async function testResults(page) {
  step = 'c4: results';
  await page.goto(`${base}/#results`);
  // "yes" only for a folder whose every game was judged.
  await page.waitForSelector('[data-testid="annotated-half"]');
  assert.equal(await textOf(page, 'annotated-tiny'), 'yes');
  const games = (await api('/api/results')).folders.find((f) => f.path === 'half').games;
  assert.equal(await textOf(page, 'annotated-half'), `${Math.floor(games / 2)} of ${games} games`);
  await page.click('[data-testid="folder-tiny"]');
  // The report loads in its sandboxed frame.
  const frameEl = await page.waitForSelector('#r-report');
  assert.equal(await frameEl.getAttribute('sandbox'), '', 'the report frame is not sandboxed');
  await until(async () => {
    const f = await frameEl.contentFrame();
    return f && (await f.$('h1')) && (await f.textContent('h1')).includes('tiny');
  }, 'the report in its frame');
  // The theme button reaches the report: its frame shows the page's theme.
  for (let k = 0; k < 2; k++) {
    await page.click('#theme');
    const theme = await page.getAttribute('html', 'data-theme');
    await until(async () => {
      const f = await frameEl.contentFrame();
      if (!f || !(await f.$('h1'))) return false;
      const bg = await f.$eval('body', (b) => getComputedStyle(b).backgroundColor);
      const sum = /rgba?\((\d+), (\d+), (\d+)/.exec(bg).slice(1).reduce((a, b) => a + +b, 0);
      return (sum < 300) === (theme === 'dark');
    }, `the report frame in the ${theme} theme`);
  }
  await page.evaluate(() => { localStorage.removeItem('mancala.theme'); delete document.documentElement.dataset.theme; });
  // The games list, and the filters against the API.
  await page.waitForSelector('[data-testid="game-0"]');
  const all = await api('/api/results/games?path=tiny&limit=500');
  assert.equal(await page.$$eval('#r-games tbody tr', (t) => t.length), all.games.length);
  await page.selectOption('#r-agent', 'random');
  await page.selectOption('#r-result', 'loss');
  const filtered = await api('/api/results/games?path=tiny&agent=random&result=loss&limit=500');
  await until(async () => (await page.$$eval('#r-games tbody tr', (t) => t.length)) === filtered.games.length, 'the filtered games list');
  assert.ok((await textOf(page, 'r-count')).startsWith(`${filtered.matched} of ${filtered.total}`));
  await page.selectOption('#r-agent', '');
  await page.selectOption('#r-result', '');
  await until(async () => (await page.$$eval('#r-games tbody tr', (t) => t.length)) === all.games.length, 'the unfiltered list');

  // The game with the most blunders, from the annotations file itself.
  const notes = readFileSync(join(root, 'tiny', 'annotations.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const records = readFileSync(join(root, 'tiny', 'games.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const blunders = (a) => a.moves.filter((m) => m.blunder).map((m) => m.ply);
  const pick = notes.slice().sort((a, b) => blunders(b).length - blunders(a).length || b.moves.length - a.moves.length)[0];
  const rec = records.find((r) => r.id === pick.id);
  const moves = rec.moves.split(' ').filter(Boolean);
  await page.click(`[data-testid="game-${pick.id}"]`);
  await page.waitForSelector('#viewer:not([hidden])');
  await waitIdle(page, 'results');
  // Opened by itself: in view, and the keys step it at once.
  await until(async () => page.$eval('#viewer', (v) => {
    const top = v.getBoundingClientRect().top;
    return top >= 0 && top < window.innerHeight / 2;
  }), 'the viewer scrolled into view');
  assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.dataset.vstep), 'next',
    'the Next button has the focus');
  assert.equal(await page.getAttribute('#v-at', 'data-plies'), String(moves.length));
  // Blunder marks where the annotations say, and nowhere else.
  const marked = await page.$$eval('[data-testid^="tl-"][data-blunder="1"]', (els) => els.map((e) => +e.dataset.ply));
  assert.deepEqual(marked, blunders(pick), `blunder marks at ${marked}, annotations say ${blunders(pick)}`);
  assert.equal(await page.$$eval('[data-testid^="tl-"]', (els) => els.length), moves.length, 'not one timeline mark per ply');
  const lossy = pick.moves.filter((m) => m.loss > 0).map((m) => m.ply);
  const bars = await page.$$eval('[data-testid^="bar-"]', (els) => els.map((e) => +e.dataset.testid.slice(4)));
  assert.deepEqual(bars, lossy, 'seeds-lost bars not where the annotations have a loss');
  // Every ply with the keyboard; boards checked at a few of them.
  const checkAt = new Set([0, 1, Math.floor(moves.length / 2), moves.length, ...blunders(pick)]);
  let unvalued = 0;
  await checkBoard(page, 'v-', await engineState(rec.game, []), 'the viewer at the start');
  await checkFlip(page, 'v-', '#v-flip');
  for (let k = 1; k <= moves.length; k++) {
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#v-at', 'data-at'), String(k), `ArrowRight did not reach ply ${k}`);
    assert.equal((await textOf(page, 'info-move')).split(/[ ,]/)[0], moves[k - 1], `ply ${k}: wrong move shown`);
    if (checkAt.has(k)) await checkBoard(page, 'v-', await engineState(rec.game, moves.slice(0, k)), `the viewer at ply ${k}`);
    const note = pick.moves.find((m) => m.ply === k);
    if (note && note.value === null) {
      // Annotated but not valued: said so, with no "?" standing for values.
      const text = await textOf(page, 'info-note');
      assert.ok(text.startsWith('not judged') && !text.includes('?'), `ply ${k}: an unvalued move shown as "${text}"`);
      unvalued++;
    } else if (note) {
      const dd = await page.$('[data-testid="info-note"]');
      assert.equal(await dd.getAttribute('data-blunder'), note.blunder ? '1' : '0', `ply ${k}: the annotation's blunder flag`);
      assert.ok((await dd.textContent()).includes(`given away ${note.loss}`), `ply ${k}: seeds given away not shown`);
    }
  }
  assert.equal(unvalued, 1, 'the move annotated without values was not reached');
  await page.keyboard.press('ArrowRight'); // stays on the last ply
  assert.equal(await page.getAttribute('#v-at', 'data-at'), String(moves.length));
  assert.ok((await textOf(page, 'info-result')).includes(`${rec.scores[0]}\u2013${rec.scores[1]}`), 'the final result');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.getAttribute('#v-at', 'data-at'), String(moves.length - 1));
  await page.keyboard.press('Home');
  assert.equal(await page.getAttribute('#v-at', 'data-at'), '0');
  // Autoplay steps a move at a time on its own, and stops when pressed.
  await page.click('#v-auto');
  await until(async () => Number(await page.getAttribute('#v-at', 'data-at')) >= 2, 'two moves by autoplay', 5000);
  await page.click('#v-auto');
  assert.equal(await page.getAttribute('#v-auto', 'aria-pressed'), 'false');
  const stopped = await page.getAttribute('#v-at', 'data-at');
  await page.waitForTimeout(1000);
  assert.equal(await page.getAttribute('#v-at', 'data-at'), stopped, 'autoplay went on after it was stopped');
  // A click on the timeline goes to that ply.
  const target = blunders(pick)[0] || 2;
  await page.click(`[data-testid="tl-${target}"]`);
  assert.equal(await page.getAttribute('#v-at', 'data-at'), String(target));
  // The address holds the folder, the game and the ply: a reload returns
  // there, and back closes the game, then the folder.
  assert.equal(await page.evaluate(() => location.hash), `#results?path=tiny&id=${pick.id}&at=${target}`);
  await page.reload();
  await page.waitForSelector('#viewer:not([hidden])');
  await until(async () => (await page.getAttribute('#v-at', 'data-at')) === String(target), 'the same ply after a reload');
  await page.goBack();
  await until(async () => page.isHidden('#viewer'), 'back closes the game');
  assert.equal(await page.evaluate(() => location.hash), '#results?path=tiny');
  assert.equal(await page.isVisible('#r-folder'), true, 'back closed the folder too');
  await page.goForward();
  await page.waitForSelector('#viewer:not([hidden])');
  await page.click(`[data-testid="tl-${target}"]`);
  // The position shown goes to Analyse, or to Play to play on from it
  // (its moves replayed, the human to move).
  const there = await engineState(GAME, moves.slice(0, target));
  await page.click('#v-to-analyse');
  await until(async () => (await page.inputValue('#x-pos')) === there.position, 'the viewer\'s position in Analyse');
  await page.goBack();
  await page.waitForSelector('#viewer:not([hidden])');
  await until(async () => (await page.getAttribute('#v-at', 'data-at')) === String(target), 'the viewer again after back');
  await page.click('#v-to-play');
  await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === String(target), 'the viewer\'s game in Play');
  await waitIdle(page);
  await checkBoard(page, '', there, 'Play on from the viewer');
  assert.match(await page.textContent(`[data-testid="player-${there.to_move}"]`), /You/, 'the human is not to move');
  await page.goBack();
  await page.waitForSelector('#viewer:not([hidden])');
  log(`c4: game ${pick.id} stepped (${moves.length} plies, blunders at ${blunders(pick).join(',') || 'none'})`);
  return pick.id;
}

// ------------------------------------------------------------ c5: screenshots, themes, phone width

// No two of the elements `selector` finds overlap (their boxes, as drawn).
async function noOverlap(page, selector, what) {
  const boxes = await page.$$eval(selector, (els) => els.map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, e.textContent]; }));
  assert.ok(boxes.length > 0, `${what}: nothing found`);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      const apart = a[2] <= b[0] + 0.5 || b[2] <= a[0] + 0.5 || a[3] <= b[1] + 0.5 || b[3] <= a[1] + 0.5;
      assert.ok(apart, `${what}: "${a[4]}" and "${b[4]}" overlap`);
    }
  }
}

async function testScreens(context, gameId) {
  step = 'c5: screenshots';
  mkdirSync(SHOTS, { recursive: true });
  const page = await watch(await context.newPage(), 'screens');
  // The theme toggle sets data-theme and is kept.
  await page.goto(`${base}/#play`);
  await waitIdle(page);
  await page.click('#theme');
  const chosen = await page.getAttribute('html', 'data-theme');
  await page.reload();
  await waitIdle(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), chosen, 'the theme choice was not kept');
  await page.click('#theme');
  assert.notEqual(await page.getAttribute('html', 'data-theme'), chosen, 'the toggle did not switch back');
  // Back to following the system's preference, which emulateMedia sets below.
  await page.evaluate(() => localStorage.removeItem('mancala.theme'));
  await page.reload();
  await waitIdle(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), null);

  const mid = '#play?game=kalah&moves=3,1,6,2,5,4,1,3,6,2&agent=random&seat=0';
  const files = [];
  for (const [w, hgt] of [[1280, 800], [390, 844]]) {
    for (const scheme of ['light', 'dark']) {
      await page.setViewportSize({ width: w, height: hgt });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('about:blank'); // a fresh load at this width, not a hash change
      await page.goto(`${base}/${mid}`);
      await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '10', 'the mid-game position');
      await waitIdle(page);
      await page.click('#hint');
      await waitIdle(page);
      const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      const dark = /rgb\((\d+), (\d+), (\d+)\)/.exec(bg).slice(1).reduce((a, b) => a + +b, 0) < 300;
      assert.equal(dark, scheme === 'dark', `the ${scheme} theme has background ${bg}`);
      // Nothing wider than the phone.
      const sw = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(sw <= w, `the page is ${sw} px wide at ${w} px`);
      // The move values under the pits do not run into each other.
      const boxes = await page.evaluate(() => [...document.querySelectorAll('#play-board [data-testid^="value-"]')]
        .map((t) => { const r = t.getBoundingClientRect(); return [r.left, r.right, t.textContent]; })
        .sort((a, b) => a[0] - b[0]));
      assert.ok(boxes.length >= 2, `only ${boxes.length} move values shown at ${w} px`);
      for (let k = 1; k < boxes.length; k++) {
        assert.ok(boxes[k - 1][1] <= boxes[k][0] + 0.5, `at ${w} px the values ${boxes[k - 1][2]} and ${boxes[k][2]} overlap: ${JSON.stringify(boxes)}`);
      }
      let f = join(SHOTS, `play-${w}-${scheme}.png`);
      await page.screenshot({ path: f, fullPage: w < 500 });
      files.push(f);
      await page.goto(`${base}/#results?path=tiny&id=${gameId}`);
      await page.waitForSelector('#viewer:not([hidden])');
      await waitIdle(page, 'results');
      const n = +(await page.getAttribute('#v-at', 'data-plies'));
      for (let k = 0; k < Math.floor(n / 2); k++) await page.keyboard.press('ArrowRight');
      await page.evaluate(() => document.getElementById('viewer').scrollIntoView());
      const sw2 = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(sw2 <= w, `the results view is ${sw2} px wide at ${w} px`);
      f = join(SHOTS, `viewer-${w}-${scheme}.png`);
      await page.locator('#viewer').screenshot({ path: f });
      files.push(f);
      // A reviewed game with its value graph (a small board: judged at once).
      await page.goto(`${base}/#play?game=${GAME}&moves=1,2,3,1,4,2&two=1`);
      await until(async () => (await page.getAttribute('#view-play', 'data-plies')) === '6', 'the game to review');
      await waitIdle(page);
      await page.click('#judge');
      await until(async () => /^Analysed: /.test(await page.textContent('#judge-out')), 'the game judged');
      await waitIdle(page);
      await page.click('[data-testid="jg-3"]');
      await noOverlap(page, '#move-list li', `the move list at ${w} px`);
      const gw = await page.evaluate(() => document.getElementById('judge-graph').getBoundingClientRect().right);
      assert.ok(gw <= w, `the value graph reaches ${gw} px at ${w} px`);
      f = join(SHOTS, `review-${w}-${scheme}.png`);
      await page.screenshot({ path: f, fullPage: true });
      files.push(f);
      // The analysis board with a side line in its tree.
      await page.goto(`${base}/#analyse?game=${GAME}&position=3,3,3,3/3,3,3,3/0,0/0&line=1`);
      await until(async () => (await page.locator('[data-testid="x-node-1"]').count()) === 1, 'the line in the tree');
      await page.fill('#x-ms', '200');
      await page.click('#x-back');
      await waitIdle(page, 'analyse');
      await until(async () => (await page.locator('[data-testid="x-row-2"]').count()) === 1, 'the analysis of the start');
      await page.click('[data-testid="x-row-2"] button');
      await until(async () => (await page.locator('[data-testid="x-node-2"]').count()) === 1, 'the side line');
      await waitIdle(page, 'analyse');
      await noOverlap(page, '#x-tree button', `the tree at ${w} px`);
      f = join(SHOTS, `analyse-${w}-${scheme}.png`);
      await page.screenshot({ path: f, fullPage: w < 500 });
      files.push(f);
      // A folder being written: a game in progress, the standings, the games.
      const liveDir = join(root, 'tiny', 'live');
      mkdirSync(liveDir, { recursive: true });
      writeFileSync(join(liveDir, '0.json'), JSON.stringify({ id: 99, game: GAME, players: ['random', 'greedy'], agents: ['random', 'greedy'], start: null, moves: '1 2 3', plies: 3 }));
      await page.goto(`${base}/#results?path=tiny`);
      await page.waitForSelector('[data-testid="live-99"]', { timeout: 10000 });
      const sw3 = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(sw3 <= w, `the folder view is ${sw3} px wide at ${w} px`);
      f = join(SHOTS, `live-${w}-${scheme}.png`);
      await page.locator('#r-games-box').screenshot({ path: f });
      files.push(f);
      rmSync(liveDir, { recursive: true, force: true });
      // The position editor: every pit of a six-pit row in view, or a note
      // that the rows scroll (a 12-pit board on a phone).
      for (const pits of [6, 12]) {
        await page.goto(`${base}/#analyse`);
        await waitIdle(page, 'analyse');
        await page.fill('#x-spec', `kalah:pits=${pits}`);
        await page.click('#x-start');
        await until(async () => (await page.locator('[data-testid="x-edit-0-0"]').count()) === 1
          && (await page.locator(`[data-testid="x-edit-0-${pits - 1}"]`).count()) === 1, `the ${pits}-pit editor`);
        const fits = await page.evaluate(() => { const b = document.getElementById('x-editor'); return b.scrollWidth <= b.clientWidth + 1; });
        const hint = await page.isVisible('#x-editor-hint');
        assert.equal(hint, !fits, `at ${w} px the ${pits}-pit editor ${fits ? 'fits' : 'scrolls'} and its note is ${hint ? 'shown' : 'hidden'}`);
        if (pits === 6) assert.ok(fits, `at ${w} px the six-pit editor does not fit`);
        if (pits === 12 && w < 500) assert.ok(hint, 'the 12-pit editor fits a phone?');
      }
    }
  }
  await page.close();
  log('c5: screenshots', files.join(' '));
}

// ------------------------------------------------------------ errors shown

async function testErrorShown(page) {
  step = 'errors shown';
  await page.goto(`${base}/#play`);
  await waitIdle(page);
  const inPlay = await page.inputValue('#g-spec');
  const pitsInPlay = (/pits=(\d+)/.exec(inPlay) || [null, '6'])[1];
  allowHttpError = 400;
  expectErrorShown = true;
  await page.fill('#g-spec', 'kalah:pits=99');
  await page.click('#new-game');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await textOf(page, 'error'), /pits/, 'the error does not name the key');
  // The game in play goes on, and the controls show its rules again.
  assert.ok((await textOf(page, 'error')).endsWith(`. The game in play (${inPlay}) goes on.`), await textOf(page, 'error'));
  assert.equal(await page.inputValue('#g-spec'), inPlay);
  assert.equal(await page.inputValue('#g-pits'), pitsInPlay, 'the controls show rules the board does not have');
  await page.waitForTimeout(200);
  allowHttpError = null;
  expectErrorShown = false;
  // A spec typed in sets the controls.
  await page.fill('#g-spec', 'kalah:pits=15,seeds=2');
  await page.dispatchEvent('#g-spec', 'change');
  assert.equal(await page.inputValue('#g-pits'), '15', 'a typed spec did not reach the Pits control');
  assert.equal(await page.inputValue('#g-seeds'), '2');
  await page.fill('#g-spec', 'kalah');
  await page.click('#new-game');
  await waitIdle(page);
  assert.equal(await page.isHidden('#error'), true, 'the error stays after a good request');
  // An agent that cannot move says so; once its spec is mended and it
  // moves, the old error goes.
  await page.selectOption('#seat', '0'); // so that choosing seat 1 below is a change
  await waitIdle(page);
  allowHttpError = 400;
  expectErrorShown = true;
  await page.fill('#a-spec', 'minimax:depth=0');
  await page.dispatchEvent('#a-spec', 'change');
  await page.selectOption('#seat', '1');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await textOf(page, 'error'), /depth/, 'the agent\'s refusal does not name the key');
  await page.waitForTimeout(200);
  allowHttpError = null;
  expectErrorShown = false;
  await page.fill('#a-spec', 'random');
  await page.dispatchEvent('#a-spec', 'change');
  await until(async () => +(await page.getAttribute('#view-play', 'data-plies')) >= 1, 'the mended agent\'s move');
  await waitIdle(page);
  assert.equal(await page.isHidden('#error'), true, 'the agent\'s old error stays after it moved');
  await page.selectOption('#seat', '0');
  log('errors: a bad spec is shown in the error area, and goes once mended');
}

// ------------------------------------------------------------ main

async function main() {
  makeResults();
  await startServer();
  step = 'browser';
  browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await watch(await context.newPage(), 'main');
  await testWholeGame(page);
  await testPieSwap(page);
  await testAnalysis(page); // takes the pie game from Play
  await testAnimationLabels(page);
  await testReview(page);
  await testJudge(page);
  await testWatch(page);
  const id = await testResults(page);
  await testLive(page);
  await testRunningTournament(page);
  await testErrorShown(page);
  await testScreens(context, id);
  step = 'end';
  await context.close();
  if (problems.length) throw new Error(`console errors or warnings:\n  ${problems.join('\n  ')}`);
}

let failed = false;
try {
  await main();
  log(`all browser tests passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
} catch (e) {
  failed = true;
  console.error(`\nFAILED in step "${step}": ${e.stack || e}`);
  if (problems.length) console.error(`console problems so far:\n  ${problems.join('\n  ')}`);
} finally {
  if (browser) await browser.close().catch(() => {});
  cleanup();
}
process.exit(failed ? 1 : 0);

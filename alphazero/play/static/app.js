// Play in the browser: draws the board of every game as SVG, sends the person's clicks to the
// server (alphazero/play/web_server.py) and shows what the model thought. Plain JavaScript, no
// build.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const SESSION_KEY = "alphazero-play-session"; // sessionStorage: one session per tab
const NAMES = {
  connect4: { 1: "Red", "-1": "Yellow" },
  gomoku: { 1: "Black", "-1": "White" },
  tictactoe: { 1: "X", "-1": "O" },
  dots_and_boxes: { 1: "Red", "-1": "Blue" },
};

let current = null; // the last state the server sent
let options = null;
let showThinking = true;
let busyRequest = false; // a click is on its way: ignore more until it is answered
let noticeTimer = null;

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------------------ server
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data;
  try {
    data = await response.json();
  } catch {
    data = { error: `the server answered ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data.error || `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Waits for the server's next version of the session (long polling) and draws it.
async function poll() {
  for (;;) {
    const seen = current;
    if (!seen) {
      await sleep(300);
      continue;
    }
    try {
      const next = await api("GET", `/api/sessions/${seen.session}?since=${seen.version}`);
      if (current && next.session === current.session && next.version > current.version) {
        render(next);
      }
    } catch (error) {
      if (error.status === 404 && current && current.session === seen.session) {
        notice("the server forgot this game (restarted?): a new one starts");
        await startSession(formSettings());
      } else if (error.status !== 404) {
        notice("no answer from the server: trying again…");
        await sleep(2000);
      }
    }
  }
}

async function startSession(settings) {
  const state = await api("POST", "/api/sessions", settings);
  sessionStorage.setItem(SESSION_KEY, state.session);
  render(state, true);
}

async function act(path, body) {
  if (busyRequest || !current) return;
  setRequestPending(true);
  try {
    const state = await api("POST", `/api/sessions/${current.session}/${path}`, body);
    if (notOlder(state)) render(state);
  } catch (error) {
    notice(error.message);
    if (error.status === 404) await startSession(formSettings());
  } finally {
    setRequestPending(false);
  }
}

// Answers can cross: the long poll may already have drawn a later version of the session than
// a click's own answer (a new game's "loading" answer arriving after the model has loaded).
function notOlder(state) {
  return !current || state.session !== current.session || state.version >= current.version;
}

// While a click is on its way the controls are disabled, not silently deaf: the long poll can
// draw the new position (your turn again) before the click's own answer arrives.
function setRequestPending(pending) {
  busyRequest = pending;
  document.body.dataset.request = pending ? "pending" : "idle";
  if (current) drawControls(current);
}

function drawControls(state) {
  const open = canAct(state);
  $("hint").disabled = !open;
  $("undo").disabled = busyRequest || !state.can_undo;
  $("board").classList.toggle("active", open);
}

function notice(text) {
  const box = $("notice");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    box.hidden = true;
  }, 6000);
}

// ------------------------------------------------------------------------------ setup
function formSettings() {
  const settings = { game: $("game").value, first: $("first").value };
  const sims = Number($("sims").value);
  if (Number.isInteger(sims)) settings.sims = sims;
  return settings;
}

function fillSetup(state) {
  const select = $("game");
  if (![...select.options].some((o) => o.value === state.spec)) {
    select.add(new Option(state.title, state.spec));
  }
  select.value = state.spec;
  $("first").value = state.first;
  $("sims").value = state.sims;
}

async function init() {
  $("setup").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!current) return;
    await act("new", formSettings());
    if (current) fillSetup(current);
  });
  $("hint").addEventListener("click", () => act("hint", {}));
  $("undo").addEventListener("click", () => act("undo", {}));
  $("show-thinking").addEventListener("change", (event) => {
    showThinking = event.target.checked;
    if (current) render(current);
  });
  try {
    options = await api("GET", "/api/options");
  } catch (error) {
    $("status").textContent = `cannot reach the server: ${error.message}`;
    document.body.dataset.state = "error";
    return;
  }
  for (const game of options.games) {
    const label = game.model ? game.title : `${game.title} (no model)`;
    $("game").add(new Option(label, game.spec));
  }
  $("sims").min = options.sims_range[0];
  $("sims").max = options.sims_range[1];
  showThinking = options.defaults.show_thinking;
  $("show-thinking").checked = showThinking;
  const saved = sessionStorage.getItem(SESSION_KEY);
  let state = null;
  if (saved) {
    try {
      state = await api("GET", `/api/sessions/${saved}`);
    } catch (error) {
      if (error.status !== 404) notice(error.message);
    }
  }
  if (state) render(state, true);
  else await startSession({});
  poll();
}

// ------------------------------------------------------------------------------ text
function playerName(state, player) {
  return NAMES[state.position.name][String(player)];
}

function who(state, player) {
  return player === state.human ? "you" : "the model";
}

function percent(share) {
  if (share > 0 && share < 0.005) return "<1%";
  return `${Math.round(share * 100)}%`;
}

function signed(value) {
  // Rounded first: -0.001 is "+0.00", not "−0.00" (Number("-0.00") is -0, and -0 >= 0).
  const rounded = Number(value.toFixed(2));
  return (rounded >= 0 ? "+" : "−") + Math.abs(rounded).toFixed(2);
}

function boxesText(state) {
  const [first, second] = state.position.boxes;
  return `boxes: ${playerName(state, 1)} ${first}, ${playerName(state, -1)} ${second}`;
}

function statusText(state) {
  const position = state.position;
  const you = playerName(state, state.human);
  if (state.error) return `Something went wrong: ${state.error}`;
  if (position.score !== null) {
    let text;
    if (position.score === 0) text = "Draw.";
    else if (position.score === state.human) text = "You win! Well played.";
    else text = "The model wins.";
    if (position.layout === "dots") text += ` (${boxesText(state)})`;
    return text;
  }
  if (state.busy === "loading") return "Loading the model…";
  if (state.busy === "thinking") return `The model is thinking… (${state.sims} simulations a move)`;
  if (state.busy === "hint") return `Searching for a hint… (${state.sims} simulations)`;
  return `Your move: you are ${you}.`;
}

// What the last turn did that is easy to miss: boxes taken and an extra turn.
function bannerText(state) {
  const position = state.position;
  if (position.layout !== "dots" || !state.moves.length) return "";
  const last = state.moves[state.moves.length - 1];
  const taken = state.completed.length;
  if (!taken) return "";
  const boxes = taken === 1 ? "a box" : `${taken} boxes`;
  const whom = last.player === state.human ? "You" : "The model";
  if (position.score !== null) return `${whom} took ${boxes}.`; // the score is in the status
  if (last.again) {
    const mover = last.player === state.human ? "move again" : "moves again";
    return `${whom} took ${boxes}, so ${whom === "You" ? "you" : "it"} ${mover}!`;
  }
  return `${whom} took ${boxes} (${boxesText(state)}).`;
}

// ------------------------------------------------------------------------------ drawing
function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  if (parent) parent.appendChild(node);
  return node;
}

function playerClass(value) {
  return value > 0 ? "p1" : "p2";
}

// The search to show on the board: a hint for this very position, else the model's last.
function shownThought(state) {
  if (state.hint && state.hint.ply === state.ply) return state.hint;
  if (showThinking && state.thought && state.thought.kind === "model") return state.thought;
  return null;
}

// The moves the board paints: every searched move on a board of a few, else the leading ones
// (at least a fifth of the top share, at most HEAT_MOVES), and always the move chosen. Painting
// two dozen edges at 4-6% each tells nothing; the list beside the board has the numbers.
const HEAT_ALL = 9;
const HEAT_MOVES = 6;
function heatMoves(thought) {
  const moves = [...thought.moves].sort((a, b) => b.share - a.share);
  if (moves.length <= HEAT_ALL) return moves;
  const top = moves.length ? moves[0].share : 0;
  return moves.filter(
    (m, i) => (i < HEAT_MOVES && m.share >= top / 5) || m.action === thought.chosen,
  );
}

// Opacity of a move's paint: by its share of the top move's, squared, so that the leading
// move stands out and a move with a small share stays faint.
function heatLevel(thought, share) {
  const top = Math.max(...thought.moves.map((m) => m.share), 1e-9);
  return 0.12 + 0.68 * (share / top) ** 2;
}

function clickable(group, state, action) {
  const legal = state.position.legal.includes(action);
  const yours = isYourTurn(state);
  group.setAttribute("class", `move${legal ? " legal" : ""}${legal && yours ? " active" : ""}`);
  group.dataset.action = action;
  el("title", { text: state.position.labels[action] }, group);
  if (legal) {
    group.addEventListener("click", () => {
      if (canAct(current) && current.ply === state.ply) {
        act("move", { action, ply: state.ply });
      }
    });
  }
}

// The person may click now: their turn, and no click of theirs still unanswered.
function canAct(state) {
  return !busyRequest && isYourTurn(state);
}

function isYourTurn(state) {
  return (
    state &&
    !state.busy &&
    !state.error &&
    state.position.score === null &&
    state.position.player === state.human
  );
}

function heatLabel(svg, x, y, share, size) {
  el("text", { x, y, class: "heat-label", "font-size": size, text: percent(share) }, svg);
}

// A share on a stone already played: a badge with its own background, clear of the stone's
// rim and of the last-move mark at its centre.
function heatBadge(svg, x, y, share, size) {
  const text = percent(share);
  const width = size * (0.7 * text.length + 0.8);
  const height = size * 1.35;
  const group = el("g", { class: "heat-badge" }, svg);
  el("rect", { x: x - width / 2, y: y - height / 2, width, height, rx: height / 2 }, group);
  el("text", { x, y: y + size * 0.36, class: "heat-label", "font-size": size, text }, group);
}

function winLine(svg, cells, center) {
  if (cells.length < 2) return;
  const [x1, y1] = center(cells[0]);
  const [x2, y2] = center(cells[cells.length - 1]);
  el("line", { x1, y1, x2, y2, class: "win-line" }, svg);
}

// Connect Four: a column per move, the disc drops to the lowest free cell.
function drawColumns(svg, state, thought) {
  const board = state.position.board;
  const rows = board.length;
  const cols = board[0].length;
  const cell = 64;
  const top = 30; // the row of visit shares above the board
  const width = cols * cell;
  const height = top + rows * cell + 26;
  svg.setAttribute("viewBox", `-6 0 ${width + 12} ${height}`);
  el("rect", { x: 0, y: top, width, height: rows * cell, rx: 14, class: "c4-board" }, svg);
  const center = ([r, c]) => [c * cell + cell / 2, top + r * cell + cell / 2];
  const lastRow = state.position.last_move === null
    ? -1
    : board.findIndex((row) => row[state.position.last_move] !== 0);
  const winning = new Set(state.position.winning_line.map(([r, c]) => `${r},${c}`));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [x, y] = center([r, c]);
      const value = board[r][c];
      let cls = value ? `disc ${playerClass(value)}` : "hole";
      if (winning.has(`${r},${c}`)) cls += " win";
      el("circle", { cx: x, cy: y, r: cell * 0.4, class: cls }, svg);
      if (value && r === lastRow && c === state.position.last_move) {
        el("circle", { cx: x, cy: y, r: cell * 0.2, class: "last" }, svg);
      }
    }
  }
  winLine(svg, state.position.winning_line, center);
  if (thought) {
    for (const move of heatMoves(thought)) {
      const x = move.action * cell;
      const level = heatLevel(thought, move.share);
      const group = el("g", { class: "heat", "data-action": move.action }, svg);
      group.dataset.share = move.share;
      el("rect", { x: x + 3, y: 2, width: cell - 6, height: top - 5, rx: 6, class: "heat-cell", "fill-opacity": level }, group);
      heatLabel(group, x + cell / 2, top - 9, move.share, 15);
      // Where the disc would land: the searched position's free cell, which the model's own
      // move has filled since (its column keeps the label above and the last-move ring).
      const free = board.map((row) => row[move.action]).lastIndexOf(0);
      const played = thought.kind === "model" && move.action === state.position.last_move;
      if (free >= 0 && !played) {
        const [cx, cy] = center([free, move.action]);
        el("circle", { cx, cy, r: cell * 0.4, class: "heat-cell", "fill-opacity": level }, group);
        heatLabel(group, cx, cy + 5, move.share, 15);
      }
      if (move.action === thought.chosen) {
        el("rect", { x: x + 3, y: 2, width: cell - 6, height: top - 5, rx: 6, class: "chosen" }, group);
      }
    }
  }
  for (let c = 0; c < cols; c++) {
    el("text", { x: c * cell + cell / 2, y: height - 6, class: "coord", text: state.position.labels[c] }, svg);
    const group = el("g", {}, svg);
    clickable(group, state, c);
    el("rect", { x: c * cell, y: top, width: cell, height: rows * cell, class: "hit" }, group);
    const free = board.map((row) => row[c]).lastIndexOf(0);
    if (free >= 0) {
      const [x, y] = center([free, c]);
      el("circle", { cx: x, cy: y, r: cell * 0.4, class: `ghost ${playerClass(state.human)}` }, group);
    }
  }
}

// Gomoku: stones on the points where the lines cross; tic-tac-toe: marks in the cells.
function drawGrid(svg, state, thought) {
  const board = state.position.board;
  const size = board.length;
  const ttt = state.position.layout === "cells"; // marks in the cells, not stones on the points
  const cell = ttt ? 110 : Math.max(30, Math.min(60, Math.floor(600 / size)));
  const margin = ttt ? 30 : 34;
  const span = size * cell;
  svg.setAttribute("viewBox", `0 0 ${span + 2 * margin} ${span + 2 * margin}`);
  const center = ([r, c]) => [margin + c * cell + cell / 2, margin + r * cell + cell / 2];
  el("rect", { x: margin, y: margin, width: span, height: span, rx: ttt ? 10 : 4, class: ttt ? "ttt-board" : "go-board" }, svg);
  for (let i = 0; i < size; i++) {
    const letter = state.position.labels[(size - 1) * size + i].replace(/[0-9]+$/, "");
    const [x] = center([0, i]);
    const [, y] = center([i, 0]);
    el("text", { x, y: margin + span + 22, class: "coord", text: letter }, svg);
    el("text", { x: margin - 16, y: y + 5, class: "coord", text: String(size - i) }, svg);
  }
  if (ttt) {
    for (let i = 1; i < size; i++) {
      const at = margin + i * cell;
      el("line", { x1: at, y1: margin + 8, x2: at, y2: margin + span - 8, class: "ttt-line" }, svg);
      el("line", { x1: margin + 8, y1: at, x2: margin + span - 8, y2: at, class: "ttt-line" }, svg);
    }
  } else {
    for (let i = 0; i < size; i++) {
      const [a] = center([0, 0]);
      const [b] = center([0, size - 1]);
      const [at] = center([0, i]);
      el("line", { x1: at, y1: a, x2: at, y2: b, class: "go-line" }, svg);
      el("line", { x1: a, y1: at, x2: b, y2: at, class: "go-line" }, svg);
    }
  }
  const last = state.position.last_move;
  const winning = new Set(state.position.winning_line.map(([r, c]) => `${r},${c}`));
  const heat = new Map((thought ? heatMoves(thought) : []).map((m) => [m.action, m]));
  const badges = [];
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const action = r * size + c;
      const [x, y] = center([r, c]);
      const value = board[r][c];
      const won = winning.has(`${r},${c}`);
      if (ttt && action === last) {
        el("rect", { x: x - cell / 2 + 6, y: y - cell / 2 + 6, width: cell - 12, height: cell - 12, rx: 8, class: "last-cell last" }, svg);
      }
      const move = heat.get(action);
      if (move) {
        const level = heatLevel(thought, move.share);
        const group = el("g", { class: "heat", "data-action": action }, svg);
        group.dataset.share = move.share;
        if (ttt) {
          el("rect", { x: x - cell / 2 + 4, y: y - cell / 2 + 4, width: cell - 8, height: cell - 8, rx: 8, class: "heat-cell", "fill-opacity": level }, group);
        } else {
          el("circle", { cx: x, cy: y, r: cell * 0.46, class: "heat-cell", "fill-opacity": level }, group);
        }
      }
      if (value && ttt) {
        const cls = `mark ${playerClass(value)}${won ? " win" : ""}`;
        const k = cell * 0.26;
        if (value > 0) {
          const group = el("g", { class: cls }, svg);
          el("line", { x1: x - k, y1: y - k, x2: x + k, y2: y + k }, group);
          el("line", { x1: x - k, y1: y + k, x2: x + k, y2: y - k }, group);
        } else {
          el("circle", { cx: x, cy: y, r: k * 1.1, class: cls }, svg);
        }
      } else if (value) {
        el("circle", { cx: x, cy: y, r: cell * 0.44, class: `stone ${playerClass(value)}${won ? " win" : ""}` }, svg);
        if (action === last) el("circle", { cx: x, cy: y, r: cell * 0.12, class: "last" }, svg);
      }
      if (move) {
        if (action === thought.chosen && ttt) {
          el("rect", { x: x - cell / 2 + 8, y: y - cell / 2 + 8, width: cell - 16, height: cell - 16, rx: 8, class: "chosen" }, svg);
        } else if (action === thought.chosen) {
          el("circle", { cx: x, cy: y, r: cell * 0.5, class: "chosen" }, svg);
        }
        if (ttt) {
          // bottom centre: clear of an X's arms and an O's ring
          heatLabel(svg, x, y + cell / 2 - 14, move.share, 16);
        } else if (value) {
          // the model's own move, its stone there now: the share on a badge at its shoulder,
          // drawn last, over the ring and the neighbouring points it reaches into
          badges.push([x + cell * 0.42, y - cell * 0.42, move.share]);
        } else {
          heatLabel(svg, x, y + cell * 0.12, move.share, Math.max(13, cell * 0.3));
        }
      }
    }
  }
  winLine(svg, state.position.winning_line, center);
  for (const [bx, by, share] of badges) heatBadge(svg, bx, by, share, Math.max(12, cell * 0.24));
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const action = r * size + c;
      if (board[r][c]) continue;
      const [x, y] = center([r, c]);
      const group = el("g", {}, svg);
      clickable(group, state, action);
      el("rect", { x: x - cell / 2, y: y - cell / 2, width: cell, height: cell, class: "hit" }, group);
      if (ttt) {
        el("circle", { cx: x, cy: y, r: cell * 0.28, class: `ghost ${playerClass(state.human)}` }, group);
      } else {
        el("circle", { cx: x, cy: y, r: cell * 0.44, class: `ghost stone ${playerClass(state.human)}` }, group);
      }
    }
  }
}

// Dots and Boxes: the lattice of state (dots at even-even cells, edges between them, boxes
// at odd-odd cells); a move is an edge.
function drawDots(svg, state, thought) {
  const position = state.position;
  const lattice = position.board;
  const rows = position.rows;
  const cols = position.cols;
  const gap = Math.max(60, Math.min(110, Math.floor(560 / Math.max(rows, cols))));
  const margin = 40;
  svg.setAttribute("viewBox", `0 0 ${cols * gap + 2 * margin} ${rows * gap + 2 * margin}`);
  const point = (i, j) => [margin + (j / 2) * gap, margin + (i / 2) * gap];
  const completed = new Set(state.completed.map(([i, j]) => `${i},${j}`));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const owner = lattice[2 * r + 1][2 * c + 1];
      if (!owner) continue;
      const [x, y] = point(2 * r, 2 * c);
      const fresh = completed.has(`${2 * r + 1},${2 * c + 1}`);
      el("rect", { x: x + 4, y: y + 4, width: gap - 8, height: gap - 8, rx: 6, class: `box ${playerClass(owner)}${fresh ? " fresh" : ""}` }, svg);
      el("text", { x: x + gap / 2, y: y + gap / 2 + 9, class: `box-mark ${playerClass(owner)}`, text: playerName(state, owner)[0] }, svg);
    }
  }
  const lastTurn = new Set(state.last_turn);
  const mover = state.moves.length ? state.moves[state.moves.length - 1].player : 1;
  position.edges.forEach(([i, j], action) => {
    if (!lattice[i][j]) return;
    const horizontal = i % 2 === 0;
    const [x1, y1] = horizontal ? point(i, j - 1) : point(i - 1, j);
    const [x2, y2] = horizontal ? point(i, j + 1) : point(i + 1, j);
    let cls = "edge";
    if (lastTurn.has(action)) cls += ` recent ${playerClass(mover)}`;
    if (action === position.last_move) cls += " last";
    el("line", { x1, y1, x2, y2, class: cls }, svg);
  });
  if (thought) {
    for (const move of heatMoves(thought)) {
      const [i, j] = position.edges[move.action];
      const horizontal = i % 2 === 0;
      const [x1, y1] = horizontal ? point(i, j - 1) : point(i - 1, j);
      const [x2, y2] = horizontal ? point(i, j + 1) : point(i + 1, j);
      const group = el("g", { class: "heat", "data-action": move.action }, svg);
      group.dataset.share = move.share;
      el("line", { x1, y1, x2, y2, class: "heat-edge", "stroke-opacity": heatLevel(thought, move.share) }, group);
      if (move.action === thought.chosen) el("line", { x1, y1, x2, y2, class: "chosen" }, group);
      const [mx, my] = [(x1 + x2) / 2, (y1 + y2) / 2];
      heatLabel(svg, horizontal ? mx : mx + 22, horizontal ? my - 10 : my + 5, move.share, 14);
    }
  }
  for (let i = 0; i <= 2 * rows; i += 2) {
    for (let j = 0; j <= 2 * cols; j += 2) {
      const [x, y] = point(i, j);
      el("circle", { cx: x, cy: y, r: 7, class: "dot" }, svg);
    }
  }
  for (let j = 0; j <= 2 * cols; j += 2) {
    const [x] = point(0, j);
    el("text", { x, y: margin - 18, class: "coord", text: "abcdefghijklmnopqrstuvwxyz"[j / 2] }, svg);
  }
  for (let i = 0; i <= 2 * rows; i += 2) {
    const [, y] = point(i, 0);
    el("text", { x: margin - 24, y: y + 5, class: "coord", text: String(i / 2 + 1) }, svg);
  }
  position.edges.forEach(([i, j], action) => {
    if (lattice[i][j]) return;
    const horizontal = i % 2 === 0;
    const [x1, y1] = horizontal ? point(i, j - 1) : point(i - 1, j);
    const [x2, y2] = horizontal ? point(i, j + 1) : point(i + 1, j);
    const group = el("g", {}, svg);
    clickable(group, state, action);
    const thick = 26;
    const inset = 12;
    if (horizontal) {
      el("rect", { x: x1 + inset, y: y1 - thick / 2, width: x2 - x1 - 2 * inset, height: thick, class: "hit" }, group);
    } else {
      el("rect", { x: x1 - thick / 2, y: y1 + inset, width: thick, height: y2 - y1 - 2 * inset, class: "hit" }, group);
    }
    el("line", { x1, y1, x2, y2, class: `ghost edge ${playerClass(state.human)}` }, group);
  });
}

function drawBoard(state) {
  const holder = $("board");
  const svg = el("svg", { role: "img", "aria-label": state.title });
  const thought = shownThought(state);
  const layout = state.position.layout;
  if (layout === "columns") drawColumns(svg, state, thought);
  else if (layout === "dots") drawDots(svg, state, thought);
  else drawGrid(svg, state, thought);
  holder.replaceChildren(svg);
  holder.dataset.key = state.position.key;
  holder.dataset.ply = state.ply;
  holder.dataset.version = state.version;
}

// ------------------------------------------------------------------------------ panel
function drawThinking(state) {
  const thought = shownThought(state);
  const box = $("thinking");
  box.hidden = !thought;
  if (!thought) return;
  const mover = thought.player;
  const hint = thought.kind === "hint";
  $("thinking-title").textContent = hint
    ? `Hint: ${thought.chosen_move} (${thought.simulations} visits)`
    : `The model played ${thought.chosen_move} (${thought.simulations} visits)`;
  // The bar reads from the person's side: you win / draw / the model wins. It is the
  // network's guess before searching: once the search has proved the result, the proof
  // alone is shown (beside it the guess only reads as a contradiction).
  const wdl = thought.proven === null ? thought.wdl : null;
  $("wdl").hidden = !wdl;
  if (wdl) {
    const forYou = mover === state.human ? wdl : [wdl[2], wdl[1], wdl[0]];
    const [win, draw, loss] = forYou;
    const bar = $("wdl");
    bar.className = `wdl you-${playerClass(state.human)}`;
    bar.children[0].style.width = `${win * 100}%`;
    bar.children[1].style.width = `${draw * 100}%`;
    bar.children[2].style.width = `${loss * 100}%`;
    $("wdl-legend").textContent = `the network alone, before searching: you win ${percent(win)}, draw ${percent(draw)}, the model wins ${percent(loss)}`;
  } else {
    $("wdl-legend").textContent = "";
  }
  const proven = { 1: "a proven win", 0: "a proven draw", "-1": "a proven loss" };
  let value = `search value ${signed(thought.value)} for ${who(state, mover)} (${playerName(state, mover)}), from −1 a loss to +1 a win`;
  if (thought.proven !== null) value += `: ${proven[String(thought.proven)]}`;
  $("value").textContent = value;
  const list = $("top-moves");
  list.replaceChildren();
  for (const move of thought.moves.slice(0, 5)) {
    const item = document.createElement("li");
    item.textContent = `${move.move}: ${percent(move.share)} of the visits, value ${signed(move.value)}`;
    list.appendChild(item);
  }
}

function drawMoves(state) {
  const list = $("moves");
  list.replaceChildren();
  for (const move of state.moves) {
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = `swatch ${playerClass(move.player)}`;
    item.appendChild(swatch);
    const mover = move.player === state.human ? "you" : "model";
    item.append(`${move.move} (${mover})${move.again ? ", moves again" : ""}`);
    list.appendChild(item);
  }
  list.scrollTop = list.scrollHeight;
}

function render(state, fresh) {
  current = state;
  document.body.dataset.game = state.position.name;
  let mode = "your-turn";
  if (state.error) mode = "error";
  else if (state.position.score !== null) mode = "over";
  else if (state.busy === "loading") mode = "loading";
  else if (state.busy) mode = "thinking";
  else if (state.position.player !== state.human) mode = "thinking";
  document.body.dataset.state = mode;
  $("title").textContent = state.title;
  $("status").textContent = statusText(state);
  const banner = bannerText(state);
  $("banner").textContent = banner;
  $("banner").hidden = !banner;
  drawBoard(state);
  drawThinking(state);
  drawMoves(state);
  drawControls(state);
  const model = state.model ? `model: ${state.model}, ${state.sims} simulations a move` : "";
  $("model").textContent = model;
  if (fresh) fillSetup(state);
}

document.addEventListener("DOMContentLoaded", init);

// A game against bots: choose the game, its parameters, the bots and your seat; then click one of
// your legal moves (only those are offered, and the server checks them again) while the bots answer.
import {
  api, drawPosition, el, endReason, finalScores, gameName, moveNamer, moveText, roundSummary, rulesPanel, showError,
} from "/static/common.js";

const $ = (id) => document.getElementById(id);
const PAUSE = 1500;   // ms a completed trick stays on the table before the bots play on
let games = {};
let session = null;
let started = null;   // the body of the request that started this game (for "play again")
let name = (text) => text;

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function paramInput(param, value, choices) {
  if (typeof value === "boolean") return el("input", { type: "checkbox", name: param, checked: value });
  if (choices) return el("select", { name: param }, choices.map((c) => el("option", { value: c, selected: c === value }, String(c).replaceAll("_", " "))));
  const list = Array.isArray(value);
  return el("input", {
    type: "text", name: param, value: list ? value.join(",") : String(value),
    placeholder: list ? "the game's own (e.g. 3 or 10,9)" : null,
  });
}

// A parameter's hint: a list takes one number or several ("hands: e.g. 3 or 10,9").
function paramHint(value, choices) {
  if (Array.isArray(value)) return "one number, or one per round: e.g. 3 or 10,9; empty: the usual rounds";
  if (choices) return `one of ${choices.length}`;
  return typeof value === "boolean" ? "on or off" : `default ${value === "" ? "none" : value}`;
}

function showGameForm() {
  const g = games[$("game").value];
  const players = g.min_players === g.max_players ? `${g.min_players} players` : `${g.min_players} to ${g.max_players} players`;
  $("description").textContent = `${g.description}; ${players}`;
  $("agents").value = Array(g.default_players - 1).fill("random").join(", ");
  $("params").replaceChildren(...Object.entries(g.params).map(([param, value]) =>
    el("label", { class: "param" }, el("span", { class: "param-name" }, param.replaceAll("_", " ")),
      paramInput(param, value, g.choices[param]), el("small", { class: "muted" }, paramHint(value, g.choices[param])))));
}

function formParams() {
  const params = {};
  for (const input of $("params").querySelectorAll("input, select")) {
    params[input.name] = input.type === "checkbox" ? input.checked : input.value;
  }
  return params;
}

async function show(state) {
  session = state;
  window.sessionId = state.session;   // for the browser tests, which look at the server's game
  const view = state.view;
  await drawPosition($("board"), view);
  $("moves").replaceChildren(...state.moves.map((m) => el("li", {}, moveText(m, name))));
  $("moves").lastElementChild?.scrollIntoView({ block: "nearest" });
  $("legal").replaceChildren(...state.legal.map((m) =>
    el("button", { class: "move", "data-action": m.action, onclick: () => move(m.action) }, name(m.text))));
  // the moves the drawing offers itself (Insert's squares) need no second row of buttons
  $("legal").hidden = clickableDrawing(state.legal) === state.legal.length && state.legal.length > 0;
  $("result").replaceChildren();
  const status = $("status");
  if (state.failure) {
    status.replaceChildren(el("span", { class: "error" }, state.failure));
  } else if (view.terminal) {
    status.textContent = `game over; the deal was seed ${state.seed}`;
    $("result").append(finalScores(view, state.seat, await endReason(view)));
    $("again").hidden = false;
    $("same").hidden = false;
    $("save").hidden = false;
  } else if (state.legal.length) {
    status.replaceChildren(el("b", {}, "Your move"), ` as ${view.names[state.seat]}`);
  } else {
    status.replaceChildren(el("span", { class: "thinking" }, `${view.names[view.to_move]} is thinking`));
  }
  const rounds = roundSummary(view);
  if (rounds) $("result").append(rounds);
  if (state.saved) {
    $("saved").replaceChildren("saved as ", el("a", { href: `/runs/${state.saved}/matches/0` }, `run ${state.saved}, match 0`));
    $("save").hidden = true;
  }
}

// The squares and cards of the drawing that name one of your legal moves can be clicked too;
// returns how many of the legal moves the drawing offers.
function clickableDrawing(legal) {
  const byText = new Map(legal.map((m) => [m.text, m.action]));
  const offered = new Set();
  for (const node of $("board").querySelectorAll("[data-square], [data-card]")) {
    const action = byText.get(node.dataset.square ?? node.dataset.card);
    if (action === undefined) continue;
    offered.add(action);
    node.classList.add("playable");
    node.addEventListener("click", () => move(action), { once: true });
  }
  return offered.size;
}

async function botsPlay() {
  while (session.bot_to_move) {
    if (session.view.exchange) await sleep(PAUSE);   // let the trick just completed be seen
    try {
      await show(await api(`/api/play/${session.session}/bot`, { body: {} }));
    } catch (error) {
      if (error.status !== 429) throw error;
      // the bots of other games are thinking, as many as the server runs at once: wait for a turn
      $("status").replaceChildren(el("span", { class: "thinking" }, error.message));
      await sleep(1000 * (error.retryAfter || 1));
    }
  }
}

let moving = false;
async function move(action) {
  if (moving) return;
  moving = true;
  $("legal").querySelectorAll("button").forEach((b) => { b.disabled = true; });
  $("board").querySelectorAll(".playable").forEach((n) => n.classList.remove("playable"));
  try {
    await show(await api(`/api/play/${session.session}/move`, { body: { action } }));
    moving = false;
    await botsPlay();
  } catch (error) {
    $("status").replaceChildren(el("span", { class: "error" }, error.message));
  } finally {
    moving = false;
  }
}

async function begin(body) {
  const state = await api("/api/play", { body });
  started = body;
  name = await moveNamer(body.game_id);
  endSession();
  $("setup").hidden = true;
  $("game-area").hidden = false;
  for (const id of ["again", "same", "save"]) $(id).hidden = true;
  $("saved").replaceChildren();
  $("title").textContent = `${gameName(body.game_id)} against ${body.agents}`;
  $("rules").replaceChildren(await rulesPanel(body.game_id, state.seat, state.view.names, true));
  await show(state);
  await botsPlay();
}

async function start(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const seed = $("seed").value.trim();
  const body = { game_id: $("game").value, agents: $("agents").value, seat: Number($("seat").value), params: formParams() };
  if (seed) body.seed = seed;
  $("start").disabled = true;
  try {
    await begin(body);
  } catch (error) {
    $("setup-error").textContent = error.message;
  } finally {
    $("start").disabled = false;
  }
}

async function again(sameDeal) {
  const body = { ...started };
  if (sameDeal) body.seed = session.seed;
  else delete body.seed;
  try {
    await begin(body);
  } catch (error) {
    $("status").replaceChildren(el("span", { class: "error" }, error.message));
  }
}

$("again").onclick = () => again(false);
$("same").onclick = () => again(true);
$("save").onclick = async () => {
  try {
    await show(await api(`/api/play/${session.session}/save`, { body: {} }));
  } catch (error) {
    $("saved").replaceChildren(el("span", { class: "error" }, error.message));
  }
};

// Ends the game on the server (its bots are closed); keepalive: the request outlives the page.
function endSession() {
  if (session) {
    fetch(`/api/play/${session.session}/end`, { method: "POST", keepalive: true, headers: { "content-type": "application/json" }, body: "{}" });
  }
  session = null;
}
window.addEventListener("pagehide", endSession);

async function init() {
  try {
    const data = await api("/api/games");
    games = Object.fromEntries(data.games.map((g) => [g.game_id, g]));
    $("game").replaceChildren(...data.games.map((g) => el("option", { value: g.game_id }, gameName(g.game_id))));
    // The only bots a game may have: the built-in agents and the bots this server offers.
    $("offered").textContent = `built-in: ${data.agents.join(", ")}` +
      (data.bots.length ? `; this server's bots: ${data.bots.join(", ")}` : "");
    const wanted = new URLSearchParams(location.search).get("game");
    $("game").value = wanted in games ? wanted : "insert" in games ? "insert" : data.games[0].game_id;
    $("game").onchange = showGameForm;
    showGameForm();
    $("setup").onsubmit = start;
  } catch (error) {
    showError($("setup"), error);
  }
}

init();

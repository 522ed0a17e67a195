// A game against bots: choose the game, its parameters, the bots and your seat; then click one of
// your legal moves (only those are offered, and the server checks them again) while the bots answer.
import { api, drawPosition, el, finalScores, moveText, showError } from "/static/common.js";

const $ = (id) => document.getElementById(id);
let games = {};
let session = null;

function paramInput(name, value, choices) {
  if (typeof value === "boolean") return el("input", { type: "checkbox", name, checked: value });
  if (choices) return el("select", { name }, choices.map((c) => el("option", { value: c, selected: c === value }, c)));
  return el("input", { type: "text", name, value: Array.isArray(value) ? value.join(",") : String(value) });
}

function showGameForm() {
  const g = games[$("game").value];
  $("description").textContent = `${g.description} (${g.min_players}-${g.max_players} players)`;
  $("agents").value = Array(g.default_players - 1).fill("random").join(", ");
  $("params").replaceChildren(...Object.entries(g.params).map(([name, value]) =>
    el("label", { class: "param" }, `${name} `, paramInput(name, value, g.choices[name]), " ")));
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
  $("moves").replaceChildren(...state.moves.map((m) => el("li", {}, moveText(m))));
  $("moves").lastElementChild?.scrollIntoView({ block: "nearest" });
  $("legal").replaceChildren(...state.legal.map((m) =>
    el("button", { class: "move", "data-action": m.action, onclick: () => move(m.action) }, m.text)));
  clickableDrawing(state.legal);
  $("result").replaceChildren();
  const status = $("status");
  if (state.failure) {
    status.replaceChildren(el("span", { class: "error" }, state.failure));
  } else if (view.terminal) {
    status.textContent = `game over; the deal was seed ${state.seed}`;
    $("result").append(finalScores(view));
    $("save").hidden = false;
  } else if (state.legal.length) {
    status.replaceChildren(el("b", {}, "your move"), ` (${view.names[state.seat]})`);
  } else {
    status.replaceChildren(el("span", { class: "thinking" }, `${view.names[view.to_move]} is thinking`));
  }
  if (state.saved) {
    $("saved").replaceChildren("saved as ", el("a", { href: `/runs/${state.saved}/matches/0` }, `run ${state.saved}, match 0`));
    $("save").hidden = true;
  }
}

// The squares and cards of the drawing that name one of your legal moves can be clicked too.
function clickableDrawing(legal) {
  const byText = new Map(legal.map((m) => [m.text, m.action]));
  for (const node of $("board").querySelectorAll("[data-square], [data-card]")) {
    const action = byText.get(node.dataset.square ?? node.dataset.card);
    if (action === undefined) continue;
    node.classList.add("playable");
    node.addEventListener("click", () => move(action), { once: true });
  }
}

async function botsPlay() {
  while (session.bot_to_move) {
    await show(await api(`/api/play/${session.session}/bot`, { body: {} }));
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

async function start(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const seed = $("seed").value.trim();
  const body = { game_id: $("game").value, agents: $("agents").value, seat: Number($("seat").value), params: formParams() };
  if (seed) body.seed = seed;
  $("start").disabled = true;
  try {
    const state = await api("/api/play", { body });
    $("setup").hidden = true;
    $("game-area").hidden = false;
    await show(state);
    await botsPlay();
  } catch (error) {
    $("setup-error").textContent = error.message;
  } finally {
    $("start").disabled = false;
  }
}

$("save").onclick = async () => {
  try {
    await show(await api(`/api/play/${session.session}/save`, { body: {} }));
  } catch (error) {
    $("saved").replaceChildren(el("span", { class: "error" }, error.message));
  }
};

window.addEventListener("pagehide", () => {
  if (session) navigator.sendBeacon?.(`/api/play/${session.session}/end`);   // its bots are closed
});

async function init() {
  try {
    const data = await api("/api/games");
    games = Object.fromEntries(data.games.map((g) => [g.game_id, g]));
    $("game").replaceChildren(...data.games.map((g) => el("option", { value: g.game_id }, g.game_id)));
    // The only bots a game may have: the built-in agents and the bots this server offers.
    $("offered").textContent = `built-in: ${data.agents.join(", ")}` +
      (data.bots.length ? `; this server's bots: ${data.bots.join(", ")}` : "");
    const wanted = new URLSearchParams(location.search).get("game");
    if (wanted in games) $("game").value = wanted;
    $("game").onchange = showGameForm;
    showGameForm();
    $("setup").onsubmit = start;
  } catch (error) {
    showError($("setup"), error);
  }
}

init();

// What every page shares: JSON requests with one-line errors, small DOM helpers, and the drawing of
// a position by its game's module (games/<game_id>.js), or as a key: value list when there is none.

export async function api(path, options = {}) {
  const init = { ...options };
  if (options.body !== undefined) {
    init.method = options.method || "POST";
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(path, init);
  let data;
  try {
    data = await response.json();
  } catch {
    throw new Error(`${response.status} ${response.statusText}`);
  }
  if (!response.ok) {
    const error = new Error(data.error || `${response.status} ${response.statusText}`);
    error.status = response.status;
    error.retryAfter = Number(response.headers.get("retry-after")) || 0;
    throw error;
  }
  return data;
}

// el("td", {class: "num"}, "text", child...): an element; strings become text (never HTML); the
// attribute `text` sets its text, `onclick` (any `on...`) adds a listener.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    // true: a boolean attribute (disabled), but data-x="true" (what the drawings' selectors match)
    else node.setAttribute(k, v === true && !k.startsWith("data-") ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

export function showError(where, error) {
  where.replaceChildren(el("p", { class: "error" }, error.message || String(error)));
}

export function table(head, rows, cls = "") {
  return el("table", { class: cls },
    el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", { class: /^[-+]?[0-9.]/.test(String(c)) ? "num" : null }, c))))));
}

// A game module's stylesheet, added to the page once.
export function addStyle(id, css) {
  if (document.getElementById(id)) return;
  const style = document.createElement("style");
  style.id = id;
  style.textContent = css;
  document.head.append(style);
}

const modules = {};

function gameModule(gameId) {
  if (!(gameId in modules)) modules[gameId] = import(`/static/games/${gameId}.js`).catch(() => ({}));
  return modules[gameId];
}

// The game module's `moveName` (a move's text in the words its cards use: "3 giants" for "3g"),
// or the engine's text as it is.
export async function moveNamer(gameId) {
  return (await gameModule(gameId)).moveName || ((text) => text);
}

// What one completed exchange of the game is called ("trick", "row"), when it has them.
export async function exchangeName(gameId) {
  return (await gameModule(gameId)).exchangeName || "trick";
}

// Why the game ended as it did, when its module says (Insert: five in a row or the largest group).
export async function endReason(view) {
  const why = (await gameModule(view.game_id)).why;
  return why && view.terminal ? why(view) : null;
}

// The rules and legend panel of a game: its module's RULES (a short paragraph, a link to the
// whole rules, served at /rules from docs/RULES.md, what the colours and marks mean, and with
// `playing`, how a person moves on the board) and which side the reader is (`seat`: a seat's view,
// or the person's seat in a game they play; null: everything).
export async function rulesPanel(gameId, seat, names, playing = false) {
  const game = (await gameModule(gameId)).RULES;
  const side = seat === null || seat === undefined ? "You see everything: every hand is face up." : `You are ${names[seat]}.`;
  if (!game) return el("details", { class: "rules" }, el("summary", {}, `${gameName(gameId)}: rules`), el("p", {}, side));
  return el("details", { class: "rules", open: window.innerWidth > 700 },   // folded on a phone
    el("summary", {}, `${gameName(gameId)}: rules and legend`),
    // an HTML replay (window.arenaReplay) has no server to serve the rules page
    el("p", {}, game.rules, " ", window.arenaReplay ? null : el("a", { href: `/rules#${game.anchor}`, target: "_blank" }, "The whole rules.")),
    el("ul", { class: "legend" }, [...game.legend, ...(playing ? game.playing ?? [] : [])].map((line) => el("li", {}, line))),
    el("p", { class: "side" }, side));
}

// Draws `view` (the server's position view) into `container` with its game's module.
export async function drawPosition(container, view) {
  const draw = (await gameModule(view.game_id)).draw;
  if (draw) {
    try {
      draw(container, view);
      return;
    } catch (error) {
      console.error(error);
    }
  }
  drawAsText(container, view);
}

function valueText(v) {
  return typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
}

function observationList(observation) {
  return el("dl", { class: "observation" },
    Object.entries(observation).map(([k, v]) => [el("dt", {}, k), el("dd", {}, valueText(v))]));
}

export function drawAsText(container, view) {
  const parts = [];
  if (view.observations) {
    view.observations.forEach((o, p) => parts.push(el("h4", {}, view.names[p]), observationList(o)));
  } else {
    parts.push(observationList(view.observation));
  }
  container.replaceChildren(el("div", { class: "fallback" }, parts));
}

// "seat 1, ismcts: 3 giants" lines for the moves so far (`name`: a moveNamer).
export function moveText(move, name = (text) => text) {
  return `${move.name}: ${move.text === "?" ? "?" : name(move.text)}`;
}

// "belle_of_the_ball" -> "Belle of the Ball"
export function gameName(gameId) {
  return gameId.split("_").map((w, i) => (i && ["of", "the"].includes(w) ? w : w[0].toUpperCase() + w.slice(1))).join(" ");
}

// A mean with its interval as every view writes it (arena.text.interval_text): "0.90 [0.81-0.97]".
export function interval(iv, digits = 2) {
  return iv ? `${iv.mean.toFixed(digits)} [${iv.low.toFixed(digits)}-${iv.high.toFixed(digits)}]` : "";
}

export function plural(n, word, words = `${word}s`) {
  return `${n} ${n === 1 ? word : words}`;
}

// "seat 1, greedy won by 40 points (70 to 30)": who won, by how much; `seat` is the person's seat
// in a game they played ("you won" / "you lost"), else null.
export function resultText(view, seat = null) {
  const seats = [...view.names.keys()];
  const first = seats.filter((p) => view.placements[p] === 1);
  const rest = seats.filter((p) => view.placements[p] !== 1).map((p) => view.returns[p]);
  const best = view.returns[first[0]];
  const margin = rest.length ? best - Math.max(...rest) : 0;
  // a win worth a fixed +1/-1 has no "how much"
  const scored = seats.some((p) => Math.abs(view.returns[p]) > 1);
  const by = scored && margin > 0 ? ` by ${plural(Math.round(margin * 100) / 100, "point")} (${best} to ${Math.max(...rest)})` : "";
  const names = first.map((p) => view.names[p]).join(" and ");
  const who = first.length > 1 ? `${names} tied for first` : `${names} won${by}`;
  if (seat === null) return who;
  if (first.includes(seat)) return first.length > 1 ? `A tie: ${who}` : `You won${by}`;
  return `You lost: ${who}`;
}

// The end banner: the result and why (`reason`: endReason), then every seat's score and place.
export function finalScores(view, seat = null, reason = null) {
  if (!view.terminal) return null;
  const order = [...view.names.keys()].sort((a, b) => view.placements[a] - view.placements[b]);
  return el("div", { class: "final", role: "status" },
    el("p", { class: "banner" }, resultText(view, seat), reason ? el("span", { class: "reason" }, `: ${reason}`) : null),
    el("p", { class: "scores" }, el("b", {}, "final scores: "),
      order.map((p, i) => el("span", { class: "score", "data-seat": p },
        `${i ? " · " : ""}${view.names[p]}: ${view.returns[p]}, place ${view.placements[p]}`))));
}

// Each round that ended: bids, tricks taken, points and running totals (what the game keeps).
export function roundSummary(view) {
  if (!view.rounds || !view.rounds.length) return null;
  const seats = [...view.names.keys()];
  const cell = (r, p) => [
    r.bids ? `bid ${r.bids[p] ?? "-"}` : null,
    r.tricks ? `took ${r.tricks[p]}` : null,
    r.points ? `${r.points[p] > 0 ? "+" : ""}${r.points[p]}` : null,
    r.totals ? `total ${r.totals[p]}` : null].filter((x) => x !== null).join(" · ");
  return el("details", { class: "rounds", open: true }, el("summary", {}, "Rounds so far"),
    table(["round", ...seats.map((p) => view.names[p])],
      view.rounds.map((r) => [String(r.round), ...seats.map((p) => cell(r, p))]), "round-table"));
}

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
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
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

const drawings = {};

function drawing(gameId) {
  if (!(gameId in drawings)) {
    drawings[gameId] = import(`/static/games/${gameId}.js`).then((m) => m.draw, () => null);
  }
  return drawings[gameId];
}

// Draws `view` (the server's position view) into `container` with its game's module.
export async function drawPosition(container, view) {
  const draw = await drawing(view.game_id);
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

// "seat 1 (ismcts): 12h" lines for the moves so far.
export function moveText(move) {
  return `${move.name}: ${move.text}`;
}

export function finalScores(view) {
  if (!view.terminal) return null;
  const order = [...view.names.keys()].sort((a, b) => view.placements[a] - view.placements[b]);
  return el("div", { class: "final" }, el("b", {}, "final scores: "),
    order.map((p, i) => el("span", { class: "score", "data-seat": p },
      `${i ? ", " : ""}${view.names[p]} ${view.returns[p]} (place ${view.placements[p]})`)));
}

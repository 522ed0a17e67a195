// A run, live: progress with ETA, and per game the leaderboard, head-to-head matrix and matchup
// graph. The small progress endpoint is polled; the full summary is fetched when it changed.
import { api, el, gameName, interval, plural, showError, table } from "/static/common.js";

const runId = decodeURIComponent(location.pathname.split("/")[2]);
const base = `/api/runs/${encodeURIComponent(runId)}`;
const samples = [];   // [seconds, finished], to estimate the rate of the last minute
let shown = null;     // the "finished status" of the summary on the page
let page = 0;
const PAGE = 100;

document.getElementById("title").textContent = `run ${runId}`;
document.title = `arena serve: ${runId}`;

function duration(seconds) {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function showProgress(p) {
  const status = document.getElementById("status");
  status.textContent = p.status;
  status.className = `status-${p.status}`;
  document.getElementById("count").textContent = `${p.finished} of ${plural(p.total, "match", "matches")}`;
  document.getElementById("bar").style.width = `${p.total ? (100 * p.finished) / p.total : 0}%`;
  const now = Date.now() / 1000;
  samples.push([now, p.finished]);
  while (samples.length > 2 && now - samples[0][0] > 60) samples.shift();
  const [t0, f0] = samples[0];
  const eta = document.getElementById("eta");
  if (p.status !== "running") eta.textContent = "";
  else if (p.finished > f0 && now > t0) {
    const rate = (p.finished - f0) / (now - t0);
    eta.textContent = `${rate.toFixed(1)} matches/s, about ${duration((p.total - p.finished) / rate)} left`;
  } else eta.textContent = "time left: waiting for the next matches";
}

function matrix(order, h2h) {
  const rows = order.map((a) => [el("b", {}, a), ...order.map((b) => {
    const iv = a === b ? null : (h2h[a] || {})[b];
    return iv ? el("span", { class: iv.low > 0.5 ? "good" : iv.high < 0.5 ? "bad" : null }, interval(iv)) : "";
  })]);
  const t = table(["agent \\ opponent", ...order], rows, "matrix");
  t.querySelectorAll("td > span.good, td > span.bad").forEach((s) => s.parentElement.classList.add(s.className));
  return t;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Who beats whom: agents on a circle (side by side when two); a -> b solid when a beats b with 95%
// confidence, dashed grey when not yet, red on a cycle of confident wins (as `arena graph` draws it).
// Each agent is a box as wide as its whole label, and the drawing is as large as what it holds.
function graph(g) {
  const boxH = 30;
  const boxW = (label) => Math.max(60, 7.2 * label.length + 20);
  const n = g.nodes.length;
  const widest = Math.max(...g.nodes.map((node) => boxW(node.label)));
  const r = n <= 1 ? 0 : n === 2 ? widest / 2 + 110 : Math.max(120, (widest + 40) / (2 * Math.sin(Math.PI / n)));
  const pos = {};
  g.nodes.forEach((node, i) => {
    const a = n === 2 ? Math.PI * (i + 1) : (2 * Math.PI * i) / n - Math.PI / 2;
    pos[node.label] = [r * Math.cos(a), r * Math.sin(a)];
  });
  const xs = g.nodes.flatMap((node) => [pos[node.label][0] - boxW(node.label) / 2, pos[node.label][0] + boxW(node.label) / 2]);
  const ys = g.nodes.flatMap((node) => [pos[node.label][1] - boxH / 2, pos[node.label][1] + boxH / 2]);
  const pad = 24;
  const [x0, y0] = [Math.min(...xs) - pad, Math.min(...ys) - pad];
  const [w, h] = [Math.max(...xs) + pad - x0, Math.max(...ys) + pad - y0];
  const root = svg("svg", { viewBox: `${x0} ${y0} ${w} ${h}`, width: Math.round(w), height: Math.round(h), class: "matchup" });
  const defs = svg("defs", {});
  for (const [id, colour] of [["solid", "#333"], ["weak", "#b0b0b0"], ["cycle", "#d62728"]]) {
    const m = svg("marker", { id: `arrow-${id}`, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
    m.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }));
    defs.append(m);
  }
  root.append(defs);
  // how far from a box's centre a line in direction (ux, uy) leaves the box
  const edge = (label, ux, uy) => Math.min(Math.abs(ux) > 1e-6 ? boxW(label) / 2 / Math.abs(ux) : Infinity,
    Math.abs(uy) > 1e-6 ? boxH / 2 / Math.abs(uy) : Infinity) + 3;
  for (const e of g.edges) {
    const [x1, y1] = pos[e.winner], [x2, y2] = pos[e.loser];
    const d = Math.hypot(x2 - x1, y2 - y1) || 1, ux = (x2 - x1) / d, uy = (y2 - y1) / d;
    const kind = e.in_cycle ? "cycle" : e.confident ? "solid" : "weak";
    const colour = { cycle: "#d62728", solid: "#333", weak: "#b0b0b0" }[kind];
    const from = edge(e.winner, ux, uy), to = edge(e.loser, ux, uy);
    root.append(svg("line", {
      x1: x1 + ux * from, y1: y1 + uy * from, x2: x2 - ux * to, y2: y2 - uy * to,
      stroke: colour, "stroke-width": kind === "cycle" ? 3 : kind === "solid" ? 1.8 : 1,
      "stroke-dasharray": kind === "weak" ? "5 4" : "none", "marker-end": `url(#arrow-${kind})`,
    }));
    const lx = x1 + (x2 - x1) * 0.5, ly = y1 + (y2 - y1) * 0.5 - 6;
    root.append(svg("text", { x: lx, y: ly, "font-size": 11, "text-anchor": "middle", fill: "#222", "paint-order": "stroke", stroke: "white", "stroke-width": 3 },
      interval({ mean: e.win_rate, low: e.low, high: e.high })));
  }
  for (const node of g.nodes) {
    const [x, y] = pos[node.label], bw = boxW(node.label);
    root.append(svg("rect", { x: x - bw / 2, y: y - boxH / 2, width: bw, height: boxH, rx: 14, fill: "#dbe9f6",
      stroke: node.in_cycle ? "#d62728" : "#4a6fa5", "stroke-width": node.in_cycle ? 3 : 1.2 }));
    root.append(svg("text", { x, y: y + 4, "font-size": 12, "text-anchor": "middle" }, node.label));
  }
  return el("div", { class: "graph" }, root,
    el("p", { class: "muted" }, "a -> b: a scores above 0.50 against b [95% interval]; solid: a beats b with 95% confidence; dashed: not yet; red: a cycle of confident wins"));
}

function section(s, kind) {
  return el("section", { class: "game", "data-game": s.game_id },
    el("h2", {}, s.title),
    el("p", {}, `${plural(s.matches, "match", "matches")}.`),
    el("h3", {}, "Leaderboard"),
    table(s.columns.head, s.columns.cells, "leaderboard"),
    s.cycles.length ? el("p", { class: "cycle" }, "Cycles: " + s.cycles.map((c) => [...c, c[0]].join(" > ")).join("; ")) : null,
    s.verdict ? el("p", { class: "verdict" }, `verdict: ${s.verdict}`) : null,
    s.identical_play ? el("p", { class: "identical" }, s.identical_play) : null,
    kind === "play" ? el("p", { class: "muted" }, "A game played in the browser: one deal, so no verdict; the matches below name the winner.") : null,
    el("h3", {}, "Head to head"),
    el("p", { class: "muted" }, "score of the row agent against the column agent (1 for placing above it, 1/2 for a tie), mean per deal [95% interval]"),
    matrix(s.order, s.head_to_head),
    el("h3", {}, "Matchup graph"),
    graph(s.graph));
}

async function showSummary() {
  const where = document.getElementById("sections");
  try {
    const data = await api(base);
    where.replaceChildren(...(data.sections.length ? data.sections.map((sec) => section(sec, data.kind)) : [el("p", { class: "muted" }, "No finished matches yet.")]));
    if (data.faults.length) where.append(el("p", { class: "error" }, `${plural(data.faults.length, "fault")}: arena report lists them.`));
    return `${data.finished} ${data.status}`;
  } catch (error) {
    showError(where, error);
    return null;
  }
}

// The seat placed first ("seat 2, greedy"), or those tied for it. By the fault rule a seat whose
// agent faulted lost, wherever its stand-in finished the played-out game, and nobody takes its place.
function winner(m) {
  const lost = m.lost_by_fault || [];
  const first = m.placements.flatMap((place, p) => (place === 1 && !lost.includes(p) ? [`seat ${p}, ${m.seats[p]}`] : []));
  const won = first.length > 1 ? `tie: ${first.join("; ")}` : first[0] ?? (lost.length ? "nobody" : "");
  const faulted = lost.map((p) => `seat ${p}, ${m.seats[p]} lost by its fault`).join("; ");
  return el("span", { class: "winner" }, faulted ? `${won}; ${faulted}` : won);
}

async function showMatches() {
  const where = document.getElementById("matches");
  try {
    const data = await api(`${base}/matches?offset=${page * PAGE}&limit=${PAGE}`);
    const rows = data.matches.map((m) => [
      el("a", { href: `/runs/${encodeURIComponent(runId)}/matches/${m.match_id}` }, `match ${m.match_id}`),
      gameName(m.game_id), winner(m), m.seats.map((label, p) => `${label} ${m.returns[p]}`).join(", "), m.moves, m.faults || ""]);
    const pages = Math.max(1, Math.ceil(data.count / PAGE));
    const nav = el("div", { class: "controls" },
      el("button", { disabled: page === 0, onclick: () => { page -= 1; showMatches(); } }, "previous"),
      `page ${page + 1} of ${pages}, ${plural(data.count, "match", "matches")}`,
      el("button", { disabled: page + 1 >= pages, onclick: () => { page += 1; showMatches(); } }, "next"));
    where.replaceChildren(nav, table(["replay", "game", "winner", "seats and scores", "moves", "faults"], rows, "matches"));
  } catch (error) {
    showError(where, error);
  }
}

let busy = false;
async function poll() {
  if (busy) return;
  busy = true;
  try {
    const p = await api(`${base}/progress`);
    showProgress(p);
    if (`${p.finished} ${p.status}` !== shown) {
      shown = await showSummary();
      if (page === Math.floor(Math.max(0, p.finished - 1) / PAGE) || shown === null) showMatches();
    }
  } catch (error) {
    showError(document.getElementById("sections"), error);
  } finally {
    busy = false;
  }
}

poll();
setInterval(poll, 1500);

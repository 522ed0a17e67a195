// One entry of a ladder: its standing, its rating after each deal it played (mu with its 95% band,
// drawn as SVG here from the history's JSON) and its results against each opponent.
import { api, el, interval, showError, table } from "/static/common.js";

const [, , name, , label] = location.pathname.split("/").map(decodeURIComponent);
document.getElementById("title").textContent = `${label} in ladder ${name}`;
document.title = `arena serve: ${label} (${name})`;
const ladderLink = document.getElementById("ladder-link");
ladderLink.href = `/ladders/${encodeURIComponent(name)}`;
ladderLink.textContent = `ladder ${name}`;

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// The history as an SVG: x the entry's deals played, y its rating; the band is mu +- 1.96 sigma.
function plot(history) {
  const W = 640, H = 260, pad = 40;
  const xs = history.map((p) => p.deals);
  const lows = history.map((p) => p.mu - 1.96 * p.sigma), highs = history.map((p) => p.mu + 1.96 * p.sigma);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs, 1)];
  const [y0, y1] = [Math.min(...lows), Math.max(...highs)];
  const X = (x) => pad + ((x - x0) / (x1 - x0 || 1)) * (W - 2 * pad);
  const Y = (y) => H - pad - ((y - y0) / (y1 - y0 || 1)) * (H - 2 * pad);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img" });
  const band = history.map((p, i) => `${X(xs[i])},${Y(highs[i])}`)
    .concat(history.map((p, i) => `${X(xs[i])},${Y(lows[i])}`).reverse());
  root.append(svg("polygon", { points: band.join(" "), fill: "#4a8fe7", "fill-opacity": 0.2, class: "band" }));
  root.append(svg("polyline", { points: history.map((p, i) => `${X(xs[i])},${Y(p.mu)}`).join(" "),
    fill: "none", stroke: "#2a5db0", "stroke-width": 2, class: "mu" }));
  for (const [y, anchor] of [[y0, "end"], [y1, "end"]]) {
    const t = svg("text", { x: pad - 4, y: Y(y) + 4, "text-anchor": anchor, "font-size": 11 });
    t.textContent = y.toFixed(1);
    root.append(t);
  }
  const t = svg("text", { x: W - pad, y: H - pad + 16, "text-anchor": "end", "font-size": 11 });
  t.textContent = `${x1} deals`;
  root.append(t, svg("line", { x1: pad, y1: H - pad, x2: W - pad, y2: H - pad, stroke: "#999" }));
  return root;
}

async function show() {
  try {
    const data = await api(`/api/ladders/${encodeURIComponent(name)}/entries/${encodeURIComponent(label)}`);
    const e = data.entry;
    document.getElementById("about").textContent =
      `${e.status}${e.entrant ? `, entered by ${e.entrant}` : ""}; rating (95%) ` +
      `${interval({ mean: e.mu, low: e.low, high: e.high }, 1)}; ${e.games} games: ${e.wins} won, ${e.draws} drawn, ` +
      `${e.losses} lost, ${e.faults} faults`;
    document.getElementById("plot").replaceChildren(data.history.length > 1 ? plot(data.history)
      : el("p", { class: "muted" }, "No deals played yet."));
    const rows = data.head_to_head.map((r) => [
      el("a", { href: `/ladders/${encodeURIComponent(name)}/entries/${encodeURIComponent(r.opponent)}` }, r.opponent),
      r.games, r.wins, r.draws, r.losses]);
    document.getElementById("h2h").replaceChildren(rows.length
      ? table(["opponent", "games", "won", "drawn", "lost"], rows, "head-to-head")
      : el("p", { class: "muted" }, "No matches yet."));
  } catch (error) {
    showError(document.getElementById("about"), error);
  }
}

show();

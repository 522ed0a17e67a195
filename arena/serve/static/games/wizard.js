// Wizard: the table as one seat sees it. Its own hand face up (every hand when the view shows
// everything), the other hands as card backs with their counts, the turn-up and trump, each
// seat's bid, tricks won and score, and the trick on the table in the order it was played.
import { addStyle, el, plural } from "/static/common.js";

const SUITS = { d: "dwarves", e: "elves", g: "giants", h: "humans" };

const STYLE = `
.wizard-table { font-family: system-ui, sans-serif; display: grid; gap: 0.6em; }
.wizard-head { display: flex; gap: 1.2em; align-items: center; flex-wrap: wrap; }
.wizard-head > span { display: inline-flex; gap: 0.4em; align-items: center; }
.wizard-seats { display: grid; grid-template-columns: repeat(auto-fill, minmax(15em, 1fr)); gap: 0.6em; }
.wizard-seat { border: 1px solid #ccc; border-radius: 8px; padding: 0.45em 0.6em; background: #fafafa; }
.wizard-seat.wizard-to-move { border: 2px solid #2a5db0; background: #eef4ff; }
.wizard-seat.wizard-viewer { background: #fffbe6; }
.wizard-seat h4 { margin: 0 0 0.3em; font-size: 0.95em; }
.wizard-stats { font-size: 0.85em; color: #333; margin-bottom: 0.3em; }
.wizard-cards { display: flex; flex-wrap: wrap; gap: 3px; min-height: 3.1em; }
.wizard-card { width: 2.9em; height: 3.2em; box-sizing: border-box; overflow: hidden; border-radius: 5px; border: 1px solid #555; display: flex; flex-direction: column;
  align-items: center; justify-content: center; font-weight: 700; font-size: 0.95em; background: white; line-height: 1.05; }
.wizard-card small { font-size: 0.55em; font-weight: 400; letter-spacing: -0.02em; }
.wizard-suit-d { color: #1f5fbf; border-color: #1f5fbf; } .wizard-suit-e { color: #23813a; border-color: #23813a; }
.wizard-suit-g { color: #c0392b; border-color: #c0392b; } .wizard-suit-h { color: #b7791f; border-color: #b7791f; }
.wizard-W { background: #5b2a86; color: white; } .wizard-J { background: #ddd; color: #333; }
.wizard-back { background: repeating-linear-gradient(45deg, #27466e, #27466e 4px, #35598a 4px, #35598a 8px); border-color: #1b2f4a; }
.wizard-count { font-size: 0.85em; color: #555; align-self: center; margin-left: 0.3em; }
.wizard-trick { display: flex; gap: 0.8em; align-items: flex-end; min-height: 4.4em; padding: 0.4em 0.6em; background: #2f6b3a; border-radius: 8px; color: white; }
.wizard-trick figure { margin: 0; text-align: center; font-size: 0.75em; max-width: 9em; }
.wizard-trick figure.wizard-winner .wizard-card { box-shadow: 0 0 0 3px #ffd84a; }
.wizard-trick .wizard-won { align-self: center; font-weight: 700; color: #ffe98a; }
.wizard-scores { display: flex; flex-wrap: wrap; gap: 0.3em 1em; font-size: 0.95em; }
.wizard-scores b { font-variant-numeric: tabular-nums; }
.wizard-trick .wizard-card { margin: 0 auto 0.2em; font-size: 1.1em; }
`;

// A card as the engine writes it: "13h", "1d", "W" or "J".
export function card(text) {
  if (text === "W" || text === "J") {
    const c = el("div", { class: `wizard-card wizard-${text}` }, text, el("small", {}, text === "W" ? "wizard" : "jester"));
    c.dataset.card = text;
    return c;
  }
  const suit = text.slice(-1);
  const c = el("div", { class: `wizard-card wizard-suit-${suit}` }, text.slice(0, -1), el("small", {}, SUITS[suit] || suit));
  c.dataset.card = text;
  return c;
}

// What the replay's "◀ trick / trick ▶" step through.
export const exchangeName = "trick";

// A move in the words of the cards: "3g" -> "3 giants", "W" -> "wizard", "trump g" -> "trump giants".
export function moveName(text) {
  return text.split(" ").map((word) => {
    if (word === "W") return "wizard";
    if (word === "J") return "jester";
    const m = /^(\d*)([degh])$/.exec(word);
    return m ? `${m[1]}${m[1] ? " " : ""}${SUITS[m[2]]}` : word;
  }).join(" ");
}

function back() {
  return el("div", { class: "wizard-card wizard-back" });
}

// The rules panel's paragraph, the anchor of the game in the rules page, and the legend.
export const RULES = {
  anchor: "1-wizard-ken-fisher-1984-amigo-edition-1996-trick-taking-with-exact-bidding",
  rules: "Each round deals a hand to every seat; the turned-up card names the trump suit. Everyone bids how many "
    + "tricks they will take, then plays the tricks: follow the suit led if you can. A wizard wins the trick (the "
    + "first one played), a jester loses it; otherwise the highest trump wins, else the highest card of the suit led. "
    + "Taking exactly your bid scores 20 + 10 per trick; missing it costs 10 per trick off.",
  legend: ["suits: dwarves blue, elves green, giants red, humans gold; W wizard (purple), J jester (grey)",
    "striped backs: cards you cannot see; the blue frame: the seat to move; gold: the trick's winner"],
};

export function draw(container, view) {
  addStyle("wizard-style", STYLE);
  const o = view.observation;
  const n = view.players;
  const hands = view.observations ? view.observations.map((x) => x.hand) : null;
  const trump = o.trump ? `${SUITS[o.trump] || o.trump} (${o.trump})` : o.phase === "trump" ? "the dealer chooses" : "none";
  const head = el("div", { class: "wizard-head" },
    el("span", {}, o.phase === "over" ? `game over after ${plural(o.rounds, "round")}` : `round ${o.round + 1} of ${o.rounds}, ${plural(o.cards, "card")}, ${o.phase}`),
    el("span", {}, "turn-up ", o.turn_up ? card(o.turn_up) : "none"),
    el("span", { class: "wizard-trump" }, `trump: ${trump}`),
    o.forbidden_bid !== null && o.forbidden_bid !== undefined ? el("span", {}, `you may not bid ${o.forbidden_bid}`) : null);
  const seats = el("div", { class: "wizard-seats" });
  for (let p = 0; p < n; p++) {
    const visible = hands ? hands[p] : p === view.viewer ? o.hand : null;
    const cards = el("div", { class: "wizard-cards" });
    if (visible) cards.append(...visible.map(card));
    else {
      cards.append(...Array.from({ length: o.hand_sizes[p] }, back));
      cards.append(el("span", { class: "wizard-count" }, plural(o.hand_sizes[p], "card")));
    }
    const bid = o.bids[p] === null ? "-" : o.bids[p];
    const seat = el("div", { class: "wizard-seat" + (p === view.to_move ? " wizard-to-move" : "") + (p === view.viewer ? " wizard-viewer" : "") },
      el("h4", {}, view.names[p], p === o.dealer ? " · dealer" : ""),
      el("div", { class: "wizard-stats" }, `bid ${bid} · tricks ${o.tricks[p]} · score ${o.scores[p]}`),
      cards);
    seat.dataset.seat = p;
    seats.append(seat);
  }
  // A trick just completed stays on the table, with its winner, until the next move.
  const done = view.exchange;
  const shown = done ? done.cards : o.trick;
  const trick = el("div", { class: "wizard-trick", "data-trick": done ? "complete" : "open" },
    shown.length ? shown.map(([p, c]) => el("figure", { class: done && p === done.winner ? "wizard-winner" : null }, card(c), view.names[p]))
      : el("span", {}, o.phase === "play" ? "no card on the table yet" : ""),
    done && done.winner !== null ? el("span", { class: "wizard-won", "data-winner": done.winner }, `${view.names[done.winner]} takes the trick`) : null);
  const scores = el("div", { class: "wizard-scores" }, "scores: ",
    Array.from({ length: n }, (_, p) => el("span", { "data-score": p }, `${view.names[p]} `, el("b", {}, String(o.scores[p])))));
  container.replaceChildren(el("div", { class: "wizard-table" }, head, scores,
    el("div", {}, done ? "the trick just played:" : "on the table:"), trick, seats));
}

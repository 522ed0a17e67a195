// Shared pieces of the card-game drawings (belladone_bluff.js, royal_ball.js, belle_of_the_ball.js):
// the status line (whose turn, the last move, the result), the seat panels and the card back; `el`
// and `addStyle` (one <style> per module) are the app's own, passed on. Classes of this module are
// prefixed `cards-`.
import { addStyle, el, plural } from "/static/common.js";

export { addStyle, el, plural };

const SHARED_CSS = `
.cards-table { font: 13px/1.3 "DejaVu Sans", "Liberation Sans", sans-serif; color: #1d2430;
  background: #e9eef2; padding: 10px; border-radius: 8px; display: flex; flex-direction: column; gap: 8px; }
/* the page's own table styles (borders, shading, margins) stay out of the drawings */
:where(.cards-table) :is(table, th, td) { border: 0; background: none; margin: 0; padding: 0; font-size: inherit; }
.cards-status { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: baseline; }
.cards-status b { font-weight: 600; }
.cards-last { background: #fff6cc; border: 1px solid #e0c75a; border-radius: 4px; padding: 1px 6px; }
.cards-result { background: #dff3e0; border: 1px solid #7cbf80; border-radius: 4px; padding: 1px 6px; }
.cards-area { background: #fff; border: 1px solid #c9d3dc; border-radius: 6px; padding: 6px 8px; }
.cards-area > h3 { margin: 0 0 4px; font-size: 11px; text-transform: uppercase; letter-spacing: .06em;
  color: #5b6775; font-weight: 600; }
.cards-seats { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 8px; }
.cards-seat { background: #fff; border: 2px solid #c9d3dc; border-radius: 6px; padding: 6px 8px; }
.cards-seat[data-to-move="true"] { border-color: #e08a00; box-shadow: 0 0 0 2px #ffd48a; }
.cards-seat-head { display: flex; justify-content: space-between; gap: 8px; margin-bottom: 4px; }
.cards-seat-name { font-weight: 600; }
.cards-turn { color: #b05f00; font-weight: 600; }
.cards-row { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.cards-back { display: inline-flex; align-items: center; justify-content: center; box-sizing: border-box;
  border-radius: 4px; border: 2px solid #fff; outline: 1px solid #8a96a3; color: #fff; font-size: 10px;
  background-image: repeating-linear-gradient(45deg, rgba(255,255,255,.28) 0 3px, transparent 3px 7px); }
.cards-note { color: #5b6775; font-size: 12px; }
`;

/** Replaces the container's content with one table (the shared style included) and returns it. */
export function startDrawing(container, gameId) {
  addStyle("cards-style", SHARED_CSS);
  const table = el("div", { class: `cards-table ${gameId}`, "data-game": gameId });
  container.replaceChildren(table);
  return table;
}

/** The observation holding `seat`'s private cards, or null when this view may not show them. */
export function privateObservation(view, seat) {
  if (view.observations) return view.observations[seat];
  return seat === view.viewer ? view.observation : null;
}

/** Seats in table order. */
export function seats(view) {
  return Array.from({ length: view.players }, (_, seat) => seat);
}

/** "+3 points", "-1 point". */
export function points(x) {
  return `${signed(x)} ${Math.abs(x) === 1 ? "point" : "points"}`;
}

/** "+3", "-2", "0". */
export function signed(x) {
  return x > 0 ? `+${x}` : String(x);
}

/** The status line: whose view, whose turn, the last move and, at the end, the result. `extra` are
 * more (label, value) pairs for this game. */
export function statusLine(view, extra = []) {
  const line = el("div", { class: "cards-status" });
  const who = view.viewer === null ? "everything (all hands shown)" : view.names[view.viewer];
  line.append(el("span", {}, "View: ", el("b", { text: who })));
  if (!view.terminal && view.to_move >= 0) {
    line.append(el("span", { "data-status": "to-move" }, "To move: ",
      el("b", { class: "cards-turn", text: view.names[view.to_move] })));
  }
  for (const [label, value] of extra) line.append(el("span", {}, `${label}: `, el("b", { text: value })));
  if (view.last_move) {
    line.append(el("span", { class: "cards-last", "data-last-move": view.last_move.seat },
      `Last move: ${view.names[view.last_move.seat] ?? view.last_move.name}: `, el("b", { text: view.last_move.text })));
  }
  if (view.terminal && view.returns) {
    const order = seats(view).map((seat) => {
      const place = view.placements ? ` (${ordinal(view.placements[seat])})` : "";
      return `${view.names[seat]} ${view.returns[seat]}${place}`;
    });
    line.append(el("span", { class: "cards-result", "data-status": "result" }, "Game over: ", el("b", { text: order.join(", ") })));
  }
  return line;
}

function ordinal(place) {
  const n = Number(place);
  return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : `${n}th`;
}

/** A titled area. */
export function area(title, props = {}, ...children) {
  const cls = props.class ? `cards-area ${props.class}` : "cards-area";
  return el("section", { ...props, class: cls }, el("h3", { text: title }), ...children);
}

/** A seat's panel: its name, the turn marker and `score` (text or an element) in the heading, then
 * `children`. */
export function seatPanel(view, seat, score, ...children) {
  const toMove = !view.terminal && view.to_move === seat;
  return el("div", { class: "cards-seat", "data-seat": seat, "data-to-move": toMove },
    el("div", { class: "cards-seat-head" },
      el("span", {}, el("span", { class: "cards-seat-name", text: view.names[seat] }),
        toMove ? el("span", { class: "cards-turn", text: "  ◀ to move" }) : null),
      el("span", { "data-score": seat }, score)),
    ...children);
}

/** A face-down card: `colour` fills it (a CSS colour), `label` is printed on it (or nothing);
 * `data-back` carries what the back shows. */
export function cardBack(colour, backLabel, width, height, label = "") {
  return el("span", { class: "cards-back", "data-back": backLabel, title: `face down (${backLabel})`,
    style: `background-color:${colour};width:${width}px;height:${height}px` }, label);
}

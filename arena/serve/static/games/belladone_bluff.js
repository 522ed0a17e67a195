// Belladone Bluff (RULES.md section 3): the three preparations (rows of 7, odd positions face up, even
// face down; a face-down card shows its colour, and its value only where this view knows it), the
// Target row, the deck (size and top colour), the discards, and each seat's score and hand (the
// viewer's cards face up; other hands as backs in their colours, or face up where they are known).
import {
  el, startDrawing, addStyle, statusLine, area, seatPanel, cardBack, privateObservation, seats, plural, points,
} from "./cards.js";

const COLOURS = { R: "#c62f3a", B: "#2a62c2", G: "#23894a", Y: "#d9a400", P: "#7d43a8" };
const COLOUR_NAMES = { R: "red", B: "blue", G: "green", Y: "yellow", P: "purple" };
const SPECIALS = { rev: ["⇄", "Reverse"], target: ["◎", "Target"], jar: ["⚗", "Jar"], eye: ["◉", "Eye"] };
const ROW_NAMES = ["I", "II", "III"];
const CARD_W = 46;
const CARD_H = 64;

const CSS = `
.bb-layout { display: grid; grid-template-columns: 1fr 250px; gap: 8px; }
.bb-rows { display: flex; flex-direction: column; gap: 6px; }
.bb-prep { display: flex; align-items: center; gap: 6px; padding: 3px 4px; border-radius: 5px; }
.bb-prep[data-target="true"] { background: #ffe9e9; outline: 2px solid #d94848; }
.bb-prep[data-turn-row="true"] { background: #fff6cc; }
.bb-prep-name { width: 30px; font-weight: 700; font-size: 16px; text-align: center; }
.bb-prep-note { font-size: 11px; color: #5b6775; width: 96px; }
.bb-card { display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
  box-sizing: border-box; width: ${CARD_W}px; height: ${CARD_H}px; border-radius: 4px; color: #fff;
  font-weight: 700; font-size: 17px; border: 2px solid rgba(0,0,0,.15); text-align: center; }
.bb-card-special { font-size: 9px; line-height: 1.15; letter-spacing: -0.02em; }
.bb-glyph { font-size: 20px; line-height: 1; }
.bb-small .bb-glyph { font-size: 15px; }
.bb-rows .cards-back { font-size: 18px; font-weight: 700; }
.bb-card[data-colour="Y"] { color: #1d2430; }
.bb-small .bb-card { width: 34px; height: 46px; font-size: 13px; }
.bb-small .bb-card-special { font-size: 7px; }
.bb-slot { box-sizing: border-box; width: ${CARD_W}px; height: ${CARD_H}px; border-radius: 4px;
  border: 1px dashed #a9b4bf; color: #a9b4bf; font-size: 11px; display: inline-flex;
  align-items: center; justify-content: center; }
.bb-known { background: #fff; color: #1d2430; border-radius: 3px; padding: 0 3px; font-weight: 700; font-size: 12px; }
.bb-known-mark { outline: 2px solid #e08a00 !important; }
.bb-discards { display: flex; flex-direction: column; gap: 3px; font-size: 12px; }
.bb-discard-colour { display: flex; gap: 3px; flex-wrap: wrap; align-items: center; }
.bb-chip { border-radius: 3px; padding: 0 3px; color: #fff; font-size: 11px; font-weight: 600; }
.bb-chip[data-colour="Y"] { color: #1d2430; }
@media (max-width: 700px) {
  .bb-layout { grid-template-columns: minmax(0, 1fr); }
  .bb-prep { flex-wrap: wrap; gap: 4px; }
  .bb-prep-note { width: 100%; order: 3; }
  .bb-rows .bb-card, .bb-rows .bb-slot, .bb-rows .cards-back { width: 38px !important; height: 54px !important; }
}
`;

/** {colour: "R", kind: "-3" | "+5" | "rev" | ... } of a card name such as "R-3", "G-eye" or "P?". */
function parseCard(name) {
  const colour = name[0];
  const rest = name.slice(1);
  if (rest === "?") return { colour, kind: null };
  return { colour, kind: rest.startsWith("-") && isNaN(Number(rest)) ? rest.slice(1) : rest };
}

/** A card face up: its value, or its special's name. */
function cardFace(name) {
  const { colour, kind } = parseCard(name);
  const special = SPECIALS[kind];
  return el("span", {
    class: special ? "bb-card bb-card-special" : "bb-card", "data-card": name, "data-colour": colour,
    title: `${COLOUR_NAMES[colour]} ${special ? special[1] : kind}`, style: `background:${COLOURS[colour]}`,
  }, ...(special ? [el("span", { class: "bb-glyph", text: special[0] }), special[1]] : [kind.replace("-", "−")]));
}

/** A card face down in `colour`; `known` is its name when this view knows the value. */
function faceDown(colour, known, seenBy, view) {
  const who = seenBy?.length ? `; its value is known to ${seenBy.map((q) => view.names[q]).join(", ")}` : "";
  if (!known) return cardBack(COLOURS[colour], colour, CARD_W, CARD_H, "?");
  const back = cardBack(COLOURS[colour], colour, CARD_W, CARD_H,
    el("span", { class: "bb-known", text: displayValue(known) }));
  back.removeAttribute("data-back");
  back.setAttribute("data-card", known);
  back.setAttribute("data-face-down", "true");
  back.setAttribute("title", `face down: ${known}${who}`);
  return back;
}

function displayValue(name) {
  const { kind } = parseCard(name);
  return SPECIALS[kind] ? SPECIALS[kind][1] : kind.replace("-", "−");
}

/** A face-down row card as this view shows it: the viewer's observation, or with viewer null the
 * first observation that knows it (every face-down card is known to the seat that placed it). */
function rowFaceDown(view, row, pos) {
  const entries = view.observations
    ? view.observations.map((obs) => obs.preparations[row][pos])
    : [view.observation.preparations[row][pos]];
  const known = entries.find((entry) => !entry.card.endsWith("?"));
  return faceDown(entries[0].card[0], known?.card, entries[0].seen_by, view);
}

function preparation(view, row) {
  const obs = view.observation;
  const cards = obs.preparations[row];
  const slots = [];
  for (let pos = 0; pos < 7; pos++) {
    if (pos < cards.length) slots.push(pos % 2 === 0 ? cardFace(cards[pos]) : rowFaceDown(view, row, pos));
    else slots.push(el("span", { class: "bb-slot", text: pos % 2 === 0 ? `${pos + 1} up` : `${pos + 1} down` }));
  }
  const isTarget = obs.target === ROW_NAMES[row];
  const isTurnRow = obs.turn.row === ROW_NAMES[row] && !view.terminal;
  const notes = [];
  if (isTarget) notes.push("◎ Target: every play goes here");
  if (isTurnRow) notes.push(`this turn: ${obs.turn.placed} placed`);
  return el("div", { class: "bb-prep", "data-row": ROW_NAMES[row], "data-target": isTarget, "data-turn-row": isTurnRow },
    el("span", { class: "bb-prep-name", text: ROW_NAMES[row] }), ...slots,
    el("span", { class: "bb-prep-note", text: notes.join("; ") }));
}

function deckArea(obs) {
  const top = obs.deck_top_colour;
  const back = obs.deck_size === 0
    ? el("span", { class: "bb-slot", text: "empty" })
    : cardBack(top ? COLOURS[top] : "#5b6775", top ?? "unknown", CARD_W, CARD_H, String(obs.deck_size));
  return area("Deck", { "data-deck": obs.deck_size },
    el("div", { class: "cards-row" }, back,
      el("span", { class: "cards-note" }, plural(obs.deck_size, "card"), el("br"),
        top ? `top: ${COLOUR_NAMES[top]}` : obs.deck_size ? "top colour hidden" : "")));
}

function discardArea(obs) {
  const byColour = Object.keys(COLOURS).map((colour) => {
    const cards = obs.discards.filter((name) => name[0] === colour);
    if (!cards.length) return null;
    return el("div", { class: "bb-discard-colour" }, ...cards.map((name) =>
      el("span", { class: "bb-chip", "data-card": name, "data-colour": colour,
        style: `background:${COLOURS[colour]}`, text: displayValue(name) })));
  });
  return area(`Discards (${obs.discards.length}, face up)`, { "data-discards": obs.discards.length },
    el("div", { class: "bb-discards" }, ...byColour, obs.discards.length ? null : el("span", { class: "cards-note", text: "none" })));
}

/** A seat's hand: face up when this view holds it, else backs by colour with the known cards face up. */
function hand(view, seat) {
  const own = privateObservation(view, seat);
  if (own) return own.hand.map(cardFace);
  const { colours, known } = view.observation.hands[seat];
  const unknown = [...colours];
  for (const name of known) unknown.splice(unknown.indexOf(name[0]), 1);
  return [
    ...known.map((name) => {
      const face = cardFace(name);
      face.classList.add("bb-known-mark");
      face.title += " (you know this card)";
      return face;
    }),
    ...unknown.map((colour) => cardBack(COLOURS[colour], colour, 34, 46)),
  ];
}

function seatArea(view, seat) {
  const obs = view.observation;
  const team = obs.teams ? ` · team ${seat % 2 === 0 ? "A" : "B"}` : "";
  const cards = hand(view, seat);
  return seatPanel(view, seat, `${points(obs.scores[seat])}${team}`,
    el("div", { class: "cards-row bb-small", "data-hand": seat }, cards.length ? cards : el("span", { class: "cards-note", text: "no cards" })));
}

function statusExtras(obs) {
  const extras = [["Phase", obs.phase]];
  if (obs.turn.colour && obs.phase !== "over") extras.push(["Turn", `${COLOUR_NAMES[obs.turn.colour]} on ${obs.turn.row}, ${obs.turn.placed} placed`]);
  if (obs.turn.eye_pending) extras.push(["Eye", "look and swap pending"]);
  if (obs.jar_score !== null) extras.push(["Jar row", `${points(obs.jar_score)} to give`]);
  if (obs.turn.discarded) extras.push(["Discarded this turn", String(obs.turn.discarded)]);
  return extras;
}

// What the replay's "◀ row / row ▶" step through: the moves that complete a row.
export const exchangeName = "row";

// A row just completed (the position already holds its new starting card): who scored what.
function rowWon(view) {
  const done = view.exchange;
  if (!done || done.row === undefined) return null;
  const scored = done.points.flatMap((x, seat) => (x ? [`${view.names[seat]} ${points(x)}`] : []));
  return el("div", { class: "cards-last", "data-row-won": ROW_NAMES[done.row] },
    `Row ${ROW_NAMES[done.row]} was just completed and scored: `, el("b", {}, scored.join(", ") || "no points"));
}

// The rules panel's paragraph, the anchor of the game in the rules page, and the legend.
export const RULES = {
  anchor: "3-belladone-bluff-24-players-bluffing-card-game",
  rules: "On your turn play cards of one colour onto one of three rows (odd places face up, even places face down). "
    + "Whoever fills a row's 7th place wins the row's total. Face-up specials: Reverse flips the sign, Target forces "
    + "everyone into its row, Jar makes the winner give the row away, Eye lets you look at the row and swap a card. "
    + "The highest score when the deck runs out wins.",
  legend: ["card colours are the five suits; a back shows its colour, and its value where you know it",
    "orange outline: a face-down card you know"],
};

export function draw(container, view) {
  addStyle("bb-style", CSS);
  const obs = view.observation;
  const table = startDrawing(container, "bb");
  table.append(
    statusLine(view, statusExtras(obs)),
    rowWon(view) ?? "",
    el("div", { class: "bb-layout" },
      area("Preparations", { class: "bb-rows" }, ...ROW_NAMES.map((_, row) => preparation(view, row))),
      el("div", { class: "bb-rows" }, deckArea(obs), discardArea(obs))),
    el("div", { class: "cards-seats" }, ...seats(view).map((seat) => seatArea(view, seat))),
  );
}

// Belle of the Ball (RULES.md section 4): the Guest line and the Belle line (positions 1..5 and the
// deck's face-up top, the Regrets beside each card, the cards below), and each seat's party: three
// groups of up to four cards (each guest's interests, those matching another guest of the group
// highlighted; Belles placed there; full groups marked), the Belles in hand, the Regrets (face down:
// nobody sees them) and the score. Guest interests and Belle texts come from the engine's card data
// (belle_of_the_ball.cards.json, written by `python -m arena.serve.screenshots`).
import { el, startDrawing, addStyle, statusLine, area, seatPanel, cardBack, seats, plural } from "./cards.js";
import cards from "./belle_of_the_ball.cards.json" with { type: "json" };

const MODES = { mirth: "#2f8f5b", mischief: "#c0392b", mayhem: "#8e44ad" };
const MODE_NOTES = { mirth: "Mirth: your group", mischief: "Mischief: an opponent's group", mayhem: "Mayhem: instant" };
const HONORIFICS = { Lord: "#2a62c2", Lady: "#7d43a8" };
const ICON_COLOURS = ["#b5473a", "#2d6fa3", "#3b7d3a", "#8a6d1f"];
const REGRET_BACK = "#6b5a8e";

const CSS = `
.bob-line { display: grid; grid-template-columns: 52px repeat(6, minmax(0, 1fr)) 44px; gap: 5px; margin: 3px 0; }
.bob-deck { grid-column: -2; }
.bob-line-name { font-weight: 600; font-size: 12px; align-self: center; }
.bob-slot { display: flex; flex-direction: column; gap: 2px; min-width: 0; }
.bob-pos { font-size: 10px; color: #5b6775; display: flex; justify-content: space-between; }
.bob-regrets { color: ${REGRET_BACK}; font-weight: 700; }
.bob-guest, .bob-belle { box-sizing: border-box; border-radius: 4px; padding: 2px 4px; background: #fffdf6;
  border: 1px solid #cdbf9c; font-size: 10.5px; line-height: 1.25; }
.bob-guest[data-honorific="Lord"] { border: 2px solid ${HONORIFICS.Lord}; }
.bob-guest[data-honorific="Lady"] { border: 2px solid ${HONORIFICS.Lady}; }
.bob-name { font-weight: 600; display: block; overflow-wrap: anywhere; }
.bob-icons { display: flex; flex-wrap: wrap; gap: 2px; margin-top: 1px; }
.bob-icon { border: 1px solid currentColor; border-radius: 8px; padding: 0 4px; font-size: 9.5px; }
.bob-icon[data-matched="true"] { color: #fff !important; background: var(--icon); border-color: var(--icon); font-weight: 700; }
.bob-belle { color: #fff; border: none; }
.bob-belle small { display: block; font-size: 9.5px; opacity: .92; }
.bob-party { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 4px; margin-top: 4px; }
.bob-group { border: 1px dashed #b9c3cc; border-radius: 5px; padding: 3px; min-height: 60px;
  display: flex; flex-direction: column; gap: 3px; }
.bob-group[data-full="true"] { border: 2px solid #d9822b; background: #fff3e6; }
.bob-group-head { font-size: 10px; color: #5b6775; display: flex; justify-content: space-between; }
.bob-hand { display: flex; flex-wrap: wrap; gap: 3px; align-items: center; margin-top: 3px; font-size: 11px; }
.bob-hand .bob-belle { width: 118px; }
.bob-seats { grid-template-columns: repeat(auto-fit, minmax(310px, 1fr)); }
.bob-discards { font-size: 11px; color: #5b6775; }
/* on a phone the lines scroll sideways rather than squeeze six cards into 34 px each */
@media (max-width: 700px) {
  .bob-lines { overflow-x: auto; }
  .bob-line { grid-template-columns: 52px repeat(6, 92px) 44px; width: max-content; }
  .bob-seats { grid-template-columns: minmax(0, 1fr); }
}
`;

function guestCard(name, matched = new Set()) {
  const guest = cards.guests[name];
  return el("div", { class: "bob-guest", "data-card": name, "data-honorific": guest.honorific || null },
    el("span", { class: "bob-name", text: name }),
    el("span", { class: "bob-icons" }, ...guest.interests.map((icon, tier) =>
      el("span", { class: "bob-icon", "data-matched": matched.has(icon),
        style: `color:${ICON_COLOURS[tier]};--icon:${ICON_COLOURS[tier]}`, text: icon }))));
}

function belleCard(name) {
  const belle = cards.belles[name];
  return el("div", { class: "bob-belle", "data-card": name, title: MODE_NOTES[belle.mode],
    style: `background:${MODES[belle.mode]}` },
    el("span", { class: "bob-name", text: name }), el("small", { text: `${belle.mode}: ${belle.effect}` }));
}

/** The interests shown on at least two guests of a group (Belles have none). */
function matchedInterests(group) {
  const seen = new Map();
  for (const name of group) for (const icon of cards.guests[name]?.interests ?? []) seen.set(icon, (seen.get(icon) ?? 0) + 1);
  return new Set([...seen].filter(([, count]) => count >= 2).map(([icon]) => icon));
}

/** A line: its visible cards (position 6 is the deck's face-up top), their Regrets, the cards below. */
function line(title, entries, below, drawCard, deckName) {
  const slots = entries.map(([name, regrets], k) =>
    el("div", { class: "bob-slot", "data-position": k + 1 },
      el("span", { class: "bob-pos" }, k === 5 ? "6 · deck top" : String(k + 1),
        regrets ? el("span", { class: "bob-regrets", "data-regrets": regrets, text: `${regrets} Regret${regrets > 1 ? "s" : ""}` }) : null),
      drawCard(name)));
  const deck = below
    ? el("div", { class: "bob-slot bob-deck" }, el("span", { class: "bob-pos", text: "below" }),
      cardBack(REGRET_BACK, deckName, 40, 40, String(below)))
    : el("span", { class: "cards-note bob-deck", text: "deck empty" });
  return el("div", { class: "bob-line", "data-line": deckName },
    el("span", { class: "bob-line-name", text: title }), ...slots,
    entries.length ? null : el("span", { class: "cards-note", text: "no cards" }), deck);
}

function group(obs, seat, index) {
  const cardsInGroup = obs.parties[seat][index];
  const matched = matchedInterests(cardsInGroup);
  const full = obs.full[seat][index];
  return el("div", { class: "bob-group", "data-group": index + 1, "data-full": full },
    el("span", { class: "bob-group-head" }, el("span", { text: `group ${index + 1}` }),
      full ? el("b", { text: "full" }) : el("span", { text: `${cardsInGroup.length}/4` })),
    ...cardsInGroup.map((name) => (cards.guests[name] ? guestCard(name, matched) : belleCard(name))));
}

function seatArea(view, seat) {
  const obs = view.observation;
  const regrets = Array.from({ length: obs.regrets[seat] }, () => cardBack(REGRET_BACK, "regret", 12, 16));
  const hand = obs.hands[seat];
  // At the end the returns hold the half points (the observation's scores are rounded down).
  const score = view.terminal && view.returns ? view.returns[seat] : obs.scores[seat];
  return seatPanel(view, seat, plural(score, "point"),
    el("div", { class: "bob-hand" }, `Regrets (${obs.regrets[seat]}):`, ...regrets),
    el("div", { class: "bob-hand", "data-hand": seat }, `Belles in hand (${hand.length}):`,
      ...(hand.length ? hand.map(belleCard) : [el("span", { class: "cards-note", text: "none" })])),
    el("div", { class: "bob-party" }, ...[0, 1, 2].map((index) => group(obs, seat, index))));
}

// The rules panel's paragraph, the anchor of the game in the rules page, and the legend.
export const RULES = {
  anchor: "4-belle-of-the-ball-daniel-solis-dice-hate-me-games-kickstarter-2013-retail-2014",
  rules: "Each turn you may play one Belle (an instant effect, a bonus in your own group or a penalty in another's), "
    + "then take a guest or a Belle from the lines. Guests sharing interests score together in a group of up to four. "
    + "Your face-down Regrets count against you at the end; the highest score wins.",
  legend: ["each seat's three groups of guests; Lords blue, Ladies purple", "the two lines: guests and Belles you may take"],
};

export function draw(container, view) {
  addStyle("bob-style", CSS);
  const obs = view.observation;
  const extras = [["Phase", obs.phase]];
  if (obs.pending_belle) extras.push(["Belle being played", obs.pending_belle]);
  if (obs.pending_guest && !view.terminal) extras.push(["Guest to place", obs.pending_guest]);
  const [guestsBelow, bellesBelow] = obs.deck_sizes;
  const table = startDrawing(container, "bob");
  table.append(
    statusLine(view, extras),
    area("The lines (take position 1 free; each skipped card gets one of your Regrets)", { class: "bob-lines" },
      line("Guests", obs.guest_line, guestsBelow, guestCard, "guest deck"),
      line("Belles", obs.belle_line, bellesBelow, belleCard, "belle deck"),
      el("div", { class: "bob-discards" },
        `Discarded: ${plural(obs.discarded_guests.length, "guest")}, ${plural(obs.discarded_belles.length, "Belle")}`,
        obs.discarded_belles.length ? ` (${obs.discarded_belles.join(", ")})` : ""),
      el("div", { class: "bob-discards", text: "Border: blue Lord, purple Lady. A filled interest matches another guest of its group." })),
    el("div", { class: "cards-seats bob-seats" }, ...seats(view).map((seat) => seatArea(view, seat))),
  );
}

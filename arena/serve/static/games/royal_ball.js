// Royal Ball (RULES.md section 5): the round, the marker and the deck; the table's face-up cards and
// its face-down card; the King's pile in the order it was laid (face-down draft cards and other
// seats' gifts as backs) with the counts of what is visible; and each seat's favours, face-up takes
// (public), face-down takes and gifts (counts), and its whole hand where this view holds it.
import {
  el, startDrawing, addStyle, statusLine, area, seatPanel, cardBack, privateObservation, seats, signed, plural,
} from "./cards.js";

const TYPES = {
  Cake: "#d9669b", Carrot: "#e27319", Apple: "#c9313b", Salami: "#8e2635",
  Chicken: "#b0844a", Dog: "#6e4a2b", Horse: "#4f6275",
};
const BACK = "#3d4f7a";

const CSS = `
.rb-layout { display: grid; grid-template-columns: auto 1fr; gap: 8px; }
.rb-card { display: inline-flex; align-items: center; gap: 3px; border-radius: 4px; color: #fff;
  font-weight: 600; font-size: 12px; padding: 3px 6px; border: 1px solid rgba(0,0,0,.2); }
.rb-card b { background: rgba(255,255,255,.9); color: #1d2430; border-radius: 3px; padding: 0 3px; font-size: 11px; }
.rb-tall { height: 44px; min-width: 50px; box-sizing: border-box; justify-content: center; font-size: 13px; }
.rb-pile { display: flex; flex-wrap: wrap; gap: 3px; align-items: center; }
.rb-pile .rb-card { height: 30px; box-sizing: border-box; }
[data-table] .cards-back { font-size: 16px; font-weight: 700; }
.rb-gift { outline: 2px dashed #e08a00; outline-offset: 1px; }
.rb-line { display: grid; grid-template-columns: 74px 1fr; gap: 6px; align-items: start; margin: 4px 0; }
.rb-line > div { display: flex; gap: 3px; flex-wrap: wrap; align-items: center; }
.rb-label { color: #5b6775; font-size: 11px; padding-top: 3px; }
.rb-favours { color: #c58b00; font-size: 15px; letter-spacing: 1px; }
.cards-seats.rb-seats { grid-template-columns: repeat(auto-fit, minmax(min(460px, 100%), 1fr)); }
.rb-seats .cards-seat { overflow-x: auto; }
.rb-seat-table { border-collapse: collapse; margin-top: 3px; }
.rb-seat-table th { font-weight: normal; color: #5b6775; font-size: 11px; text-align: left; padding: 1px 6px 1px 0; white-space: nowrap; }
.rb-seat-table td { text-align: center; font-weight: 600; min-width: 30px; padding: 1px 2px; border-top: 1px solid #eef1f4; }
.rb-seat-table td.rb-zero { color: #c2c9d1; font-weight: normal; }
.rb-seat-table td.rb-summary { text-align: left; }
.rb-head { font-size: 10px; padding: 1px 4px; }
`;

/** A card (or `count` cards) of one type, face up. */
function card(type, count = 1, tall = false) {
  return el("span", {
    class: tall ? "rb-card rb-tall" : "rb-card", "data-card": type, "data-count": count,
    style: `background:${TYPES[type]}`,
  }, type, count > 1 ? el("b", { text: `×${count}` }) : null);
}

/** A labelled line of cards or counts. */
function labelled(label, ...content) {
  return el("div", { class: "rb-line" }, el("span", { class: "rb-label", text: label }), el("div", {}, ...content));
}

function counts(cardsByType, tall = false) {
  const present = Object.keys(TYPES).filter((type) => cardsByType[type]);
  return present.length ? present.map((type) => card(type, cardsByType[type], tall)) : [el("span", { class: "cards-note", text: "none" })];
}

/** The King's pile, oldest first. A gift is face up only in the view of the seat that gave it. */
function kingPile(view) {
  const pile = view.observation.king;
  return pile.map((entry, i) => {
    const mine = view.observations
      ? view.observations.map((obs) => obs.king[i]).find((e) => e.endsWith("(your gift)"))
      : entry.endsWith("(your gift)") && entry;
    if (mine) {
      const gift = card(mine.replace(" (your gift)", ""));
      gift.classList.add("rb-gift");
      gift.title = "a gift, face down on the pile";
      return gift;
    }
    if (entry === "face-down") return cardBack(BACK, "face-down", 26, 30, "?");
    if (entry.startsWith("gift by ")) {
      const seat = Number(entry.slice(8));
      return cardBack(BACK, `gift by ${seat}`, 34, 30, `gift ${seat}`);
    }
    return card(entry);
  });
}

function kingArea(view) {
  const obs = view.observation;
  const visible = {};
  for (const entry of obs.king) if (TYPES[entry]) visible[entry] = (visible[entry] ?? 0) + 1;
  const hidden = obs.king.length - Object.values(visible).reduce((a, b) => a + b, 0);
  const lastRound = obs.round > 0
    ? labelled("Last round's counts", ...counts(obs.last_king_counts), el("span", { class: "cards-note", text: "(what the King's animals left)" }))
    : null;
  return area(`The King's pile: ${plural(obs.king.length, "card")}, oldest first`, { "data-king": obs.king.length },
    ...(obs.king.length ? [
      el("div", { class: "rb-pile" }, ...kingPile(view)),
      labelled("Face up", ...counts(visible), el("span", { class: "cards-note", text: `+ ${hidden} face down` })),
      el("div", { class: "cards-note", text: "? = a face-down card from the draft (nobody knows it); dashed outline = a gift, face down, seen by its giver" }),
    ] : [el("div", { class: "cards-note", text: "empty" })]),
    lastRound);
}

function tableArea(obs) {
  const cards = obs.table.face_up.map((type) => card(type, 1, true));
  if (obs.table.face_down) cards.push(cardBack(BACK, "face-down", 52, 44, "?"));
  return area("Table", { "data-table": obs.table.face_up.length },
    el("div", { class: "cards-row" }, ...(cards.length ? cards : [el("span", { class: "cards-note", text: "no cards on the table" })])),
    el("div", { class: "cards-note", text: `deck: ${plural(obs.deck_left, "card")} left` }));
}

/** One row of a seat's table: a count per card type (`cardsByType`), or `summary` across the row. */
function countRow(label, rowName, cardsByType, summary = null) {
  const cells = summary
    ? [el("td", { colspan: Object.keys(TYPES).length, class: "rb-summary" }, summary)]
    : Object.keys(TYPES).map((type) => el("td", { "data-card": type, "data-count": cardsByType[type] ?? 0,
      class: cardsByType[type] ? null : "rb-zero", text: cardsByType[type] ?? "·" }));
  return el("tr", { "data-row": rowName }, el("th", { text: label }), ...cells);
}

function seatArea(view, seat) {
  const obs = view.observation;
  const pub = obs.players[seat];
  const own = privateObservation(view, seat);
  const favours = obs.favours[seat];
  const score = el("span", {},
    el("span", { class: "rb-favours", title: plural(favours, "favour"), text: "★".repeat(favours) + "☆".repeat(Math.max(0, 3 - favours)) }),
    ` ${plural(favours, "favour")}`, obs.round > 0 ? `, last round ${signed(obs.last_round_scores[seat])}` : "");
  const downBacks = Array.from({ length: pub.took_face_down }, () => cardBack(BACK, "face-down", 12, 16));
  const header = el("tr", {}, el("th", {}), ...Object.keys(TYPES).map((type) =>
    el("th", {}, el("span", { class: "rb-card rb-head", style: `background:${TYPES[type]}`, text: type }))));
  return seatPanel(view, seat, score,
    el("div", { class: "cards-note" }, `${plural(pub.hand_size, "card")} in hand · gave ${pub.gifts} to the King`,
      obs.active === seat ? " · ● holds the marker" : ""),
    el("table", { class: "rb-seat-table" }, header,
      own ? countRow(`Hand (${pub.hand_size})`, "hand", own.hand) : null,
      countRow("Took face up", "face-up", pub.took_face_up),
      own ? countRow(`Took face down`, "face-down", own.my_face_down_takes)
        : countRow("Took face down", "face-down", {}, downBacks.length ? downBacks : "none")));
}

// The rules panel's paragraph, the anchor of the game in the rules page, and the legend.
export const RULES = {
  anchor: "5-royal-ball-designers-post-2020-unpublished-24-players",
  rules: "Each round the active seat turns up all but one of the drawn cards; the others each take one, the active seat "
    + "keeps one and gives the last to the King's pile. At the end everyone may give the King up to two more cards. The "
    + "King's dogs eat meat and his horses eat fruit and vegetables; the seats with the most of what is left win the favours.",
  legend: ["each card type has its colour; backs: face-down cards", "dashed outline: a gift to the King"],
};

export function draw(container, view) {
  addStyle("rb-style", CSS);
  const obs = view.observation;
  const extras = [["Round", String(obs.round + 1)], ["Phase", obs.phase], ["Marker", view.names[obs.active]]];
  if (obs.removed_animal) extras.push(["Removed", obs.removed_animal]);
  const table = startDrawing(container, "rb");
  table.append(
    statusLine(view, extras),
    el("div", { class: "rb-layout" }, tableArea(obs), kingArea(view)),
    el("div", { class: "cards-seats rb-seats" }, ...seats(view).map((seat) => seatArea(view, seat))),
  );
}

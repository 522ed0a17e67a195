// Insert (DONUTS): the 6x6 board with each square's tile line, the rings (red R for seat 0, white W
// for seat 1), the last ring and the line through it on which the next ring goes, and the legal squares.
import { addStyle } from "/static/common.js";

const FILES = "abcdef";
const CELL = 64;
const PAD = 26;
// The line through a square, as (file, rank) steps: H -, V |, / rising, \ falling.
const STEP = { H: [1, 0], V: [0, 1], "/": [1, 1], "\\": [1, -1] };
const SVG = "http://www.w3.org/2000/svg";

const STYLE = `
.insert-board { font-family: system-ui, sans-serif; user-select: none; }
.insert-board .insert-square { fill: #f4ead5; stroke: #b9a77f; stroke-width: 1; }
.insert-board .insert-online { fill: #fde7a6; }
.insert-board .insert-tile { stroke: #8a7550; stroke-width: 5; stroke-linecap: round; opacity: 0.55; }
.insert-board .insert-lastline { stroke: #e0a100; stroke-width: 10; stroke-linecap: round; opacity: 0.4; pointer-events: none; }
.insert-board .insert-ring-R { fill: none; stroke: #c62828; stroke-width: 9; }
.insert-board .insert-ring-W { fill: none; stroke: #fafafa; stroke-width: 9; filter: drop-shadow(0 0 1.5px #333); }
.insert-board .insert-last { stroke: #222; stroke-width: 2.5; fill: none; stroke-dasharray: 5 3; }
.insert-board .insert-legal { fill: #2a5db0; opacity: 0.55; }
.insert-board .insert-coord { font-size: 13px; fill: #666; text-anchor: middle; }
.insert-info { margin: 0.4em 0; }
`;

function node(tag, attrs = {}, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  if (text !== undefined) n.textContent = text;
  return n;
}

// Square name ("c3") -> [file 0-5, rank 0-5]; the observation's rows run from rank 6 down to rank 1.
function at(name) {
  return [FILES.indexOf(name[0]), Number(name.slice(1)) - 1];
}
function centre(file, rank) {
  return [PAD + file * CELL + CELL / 2, PAD + (5 - rank) * CELL + CELL / 2];
}

// The squares on the line of the last ring's tile, and the line's two ends.
function lineThrough(view) {
  const o = view.observation;
  const squares = [];
  squares.ends = [];
  if (!o.last) return squares;
  const [f0, r0] = at(o.last);
  const [df, dr] = STEP[o.lines[5 - r0][f0]];
  for (const sign of [-1, 1]) {
    let f = f0, r = r0;
    for (; f >= 0 && f < 6 && r >= 0 && r < 6; f += sign * df, r += sign * dr) squares.push([f, r]);
    squares.ends.push([f - sign * df, r - sign * dr]);
  }
  return squares;
}

// Why the game ended as it did (the end banner says it): five in a row, or the largest group.
export function why(view) {
  const rows = view.observation.board;
  const at = (f, r) => (f >= 0 && f < 6 && r >= 0 && r < 6 ? rows[r][f] : null);
  const colour = { R: "red", W: "white" };
  for (const ring of "RW") {
    for (let r = 0; r < 6; r++) {
      for (let f = 0; f < 6; f++) {
        for (const [df, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
          if ([0, 1, 2, 3, 4].every((i) => at(f + i * df, r + i * dr) === ring)) return `five ${colour[ring]} rings in a row`;
        }
      }
    }
  }
  const largest = (ring) => {   // the largest group of side-by-side rings of one colour
    const seen = new Set();
    let best = 0;
    for (let r = 0; r < 6; r++) {
      for (let f = 0; f < 6; f++) {
        if (at(f, r) !== ring || seen.has(`${f},${r}`)) continue;
        let size = 0;
        const todo = [[f, r]];
        seen.add(`${f},${r}`);
        while (todo.length) {
          const [x, y] = todo.pop();
          size += 1;
          for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
            if (at(x + dx, y + dy) === ring && !seen.has(`${x + dx},${y + dy}`)) { seen.add(`${x + dx},${y + dy}`); todo.push([x + dx, y + dy]); }
          }
        }
        best = Math.max(best, size);
      }
    }
    return best;
  };
  return `largest group: red ${largest("R")}, white ${largest("W")}`;
}

// The rules panel's paragraph, the anchor of the game in the rules page, and the legend.
export const RULES = {
  anchor: "2-insert-bga-published-as-donuts-bruno-cathala-funforge-2023",
  rules: "Place one ring per turn on an empty square of the line drawn through the last ring's square (horizontal, "
    + "vertical or diagonal, any distance); when that line is full, anywhere. Closing a run of your rings between "
    + "two opposing rings flips those two to your colour. Five in a row wins at once; otherwise, after 30 rings, the "
    + "largest connected group wins.",
  legend: ["red rings: seat 0; white rings: seat 1", "dashed square: the last ring; yellow band: the line the next ring goes on",
    "blue dots: the squares the seat to move may play"],
  playing: ["click a blue dot to play there"],   // the play page's own line: a replay's board takes no move
};

export function draw(container, view) {
  addStyle("insert-style", STYLE);
  const o = view.observation;
  const size = PAD * 2 + CELL * 6;
  const svg = node("svg", { viewBox: `0 0 ${size} ${size}`, width: size, height: size, class: "insert-board" });
  const line = lineThrough(view);
  const onLine = new Set(line.map(([f, r]) => `${f},${r}`));
  const legal = new Set(view.terminal ? [] : o.legal);
  for (let rank = 5; rank >= 0; rank--) {
    for (let file = 0; file < 6; file++) {
      const name = FILES[file] + (rank + 1);
      const [x, y] = centre(file, rank);
      const ring = o.board[5 - rank][file];
      const g = node("g", { class: "insert-cell", "data-square": name, "data-ring": ring === "." ? "" : ring });
      g.append(node("rect", { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
        class: "insert-square" + (onLine.has(`${file},${rank}`) ? " insert-online" : "") }));
      const [df, dr] = STEP[o.lines[5 - rank][file]];
      const half = CELL * 0.36;
      g.append(node("line", { x1: x - df * half, y1: y + dr * half, x2: x + df * half, y2: y - dr * half, class: "insert-tile" }));
      if (ring !== ".") g.append(node("circle", { cx: x, cy: y, r: CELL * 0.3, class: `insert-ring-${ring}` }));
      if (name === o.last) g.append(node("rect", { x: x - CELL / 2 + 3, y: y - CELL / 2 + 3, width: CELL - 6, height: CELL - 6, class: "insert-last" }));
      if (legal.has(name)) g.append(node("circle", { cx: x, cy: y, r: 6, class: "insert-legal" }));
      g.append(node("title", {}, name));
      svg.append(g);
    }
  }
  if (line.length > 1) {
    const [x1, y1] = centre(...line.ends[0]), [x2, y2] = centre(...line.ends[1]);
    svg.append(node("line", { x1, y1, x2, y2, class: "insert-lastline" }));
  }
  for (let i = 0; i < 6; i++) {
    svg.append(node("text", { x: PAD + i * CELL + CELL / 2, y: size - 7, class: "insert-coord" }, FILES[i]));
    svg.append(node("text", { x: 12, y: PAD + (5 - i) * CELL + CELL / 2 + 4, class: "insert-coord" }, String(i + 1)));
  }
  const rings = o.board.join("");
  const info = document.createElement("p");
  info.className = "insert-info";
  const mover = view.to_move >= 0 ? `${view.to_move ? "white" : "red"} to move: ${view.names[view.to_move]}` : "game over";
  info.textContent = `${mover}; rings placed ${o.rings_placed} of 30: red ${[...rings].filter((c) => c === "R").length}, white ${[...rings].filter((c) => c === "W").length}`;
  container.replaceChildren(svg, info);
}

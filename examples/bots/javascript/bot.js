// A Tabletop Bot Protocol v1 bot (docs/protocol.md): on Insert it completes or blocks a line,
// in every other game it plays a random legal move.
// Reads one JSON message a line on stdin, writes one a line on stdout; logs go to stderr.
"use strict";
const readline = require("readline");

// mulberry32: a small seeded generator (Math.random cannot be seeded)
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DIRECTIONS = [[0, 1], [1, 0], [1, 1], [1, -1]]; // a row, a column, both diagonals

// The longest line of `colour` through (row, col) along any direction, counting that cell.
function runThrough(board, row, col, colour) {
  const size = board.length;
  let longest = 0;
  for (const [dr, dc] of DIRECTIONS) {
    let length = 1;
    for (const sign of [1, -1]) {
      let r = row + sign * dr, c = col + sign * dc;
      while (r >= 0 && r < size && c >= 0 && c < size && board[r][c] === colour) {
        length++;
        r += sign * dr;
        c += sign * dc;
      }
    }
    longest = Math.max(longest, length);
  }
  return longest;
}

// A cell a1..f6 (a1 is the bottom left: the board's last string): five of mine wins, five of
// theirs must be blocked, else the longer lines of mine and of theirs the better.
function insertScore(board, text, me, them) {
  const row = board.length - parseInt(text.slice(1), 10), col = text.charCodeAt(0) - 97;
  const mine = runThrough(board, row, col, me), theirs = runThrough(board, row, col, them);
  return 1000 * (mine >= 5) + 100 * (theirs >= 5) + 3 * mine + 2 * theirs;
}

function choose(game, message, random) {
  let legal = message.legal;
  if (game === "insert") { // seat 0 plays R, seat 1 plays W
    const { board, to_move: seat } = message.observation;
    const me = seat === 0 ? "R" : "W", them = seat === 0 ? "W" : "R";
    const scores = legal.map((a) => insertScore(board, a.text, me, them));
    const best = Math.max(...scores);
    legal = legal.filter((_, i) => scores[i] === best);
  }
  return legal[Math.floor(random() * legal.length)].id;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let random = generator(0), game = null;
const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    random = generator(message.seed % 4294967296);
    game = message.game;
    process.stderr.write(`playing ${game} in seat ${message.seat}\n`);
    send({ type: "hello", name: "javascript-kit", protocol: 1 });
  } else if (message.type === "request") {
    send({ type: "action", id: choose(game, message, random) });
  } else if (message.type === "end") {
    process.exit(0);
  }
});

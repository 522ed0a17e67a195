// A Tabletop Bot Protocol v1 bot (docs/protocol.md): plays a random legal move.
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

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let random = generator(0);
const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    random = generator(message.seed % 4294967296);
    process.stderr.write(`playing ${message.game} in seat ${message.seat}\n`);
    send({ type: "hello", name: "javascript-starter", protocol: 1 });
  } else if (message.type === "request") {
    const choice = message.legal[Math.floor(random() * message.legal.length)];
    send({ type: "action", id: choice.id });
  } else if (message.type === "end") {
    process.exit(0);
  }
});

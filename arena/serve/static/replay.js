// Replay of a stored match: step through its positions (buttons, slider, arrow keys; by trick and
// by round in the games that have them) as one seat saw them or, the match being over, everything,
// from its end.
// The server rebuilds each position from the seed; a seat's view is sent only the moves up to the
// step shown. An HTML replay (`arena replay --html`, arena/serve/replay_html.py) holds its match in
// the page: `window.arenaReplay` then answers the same requests, for the views it holds.
import {
  api, drawPosition, el, endReason, exchangeName, finalScores, gameName, moveNamer, moveText, roundSummary, rulesPanel, showError,
} from "/static/common.js";

const embedded = window.arenaReplay;
const [, , runId, , matchId] = embedded ? ["", "", embedded.runId, "", embedded.matchId] : location.pathname.split("/");
const base = `/api/runs/${runId}/matches/${matchId}`;
const load = embedded ? embedded.load : api;
const query = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const board = $("board");
const slider = $("slider");
const viewerSelect = $("viewer");
let match = null;
let name = (text) => text;
let step = 0;
let viewer = query.get("viewer") || (embedded ? embedded.viewers[0] : "all");
let request = 0;

$("runlink").href = `/runs/${runId}`;
$("runlink").textContent = `run ${decodeURIComponent(runId)}`;

async function loadMatch() {
  match = await load(`${base}?viewer=${viewer}`);
  name = await moveNamer(match.game_id);
  // round marks on the slider (a datalist's options are drawn as ticks)
  $("round-marks").replaceChildren(...match.marks.rounds.map((k) => el("option", { value: k })));
  for (const [kind, marks] of Object.entries(match.marks)) {
    document.querySelectorAll(`[data-jump="${kind}"]`).forEach((b) => { b.hidden = !marks.length; });
  }
  const unit = await exchangeName(match.game_id);
  document.querySelectorAll('[data-jump="tricks"]').forEach((b) => {
    b.textContent = b.dataset.back === "true" ? `◀ ${unit}` : `${unit} ▶`;
  });
}

function showMoves(moves) {
  const list = $("moves");
  list.replaceChildren(...moves.map((m, k) => el("li", {
    "data-step": k + 1, class: match.marks.rounds.includes(k + 1) ? "round-end" : null, onclick: () => go(k + 1),
  }, moveText(m, name))));
  const current = list.querySelector(`li[data-step="${step}"]`);
  if (current) { current.classList.add("current"); current.scrollIntoView({ block: "nearest" }); }
}

async function go(k) {
  step = Math.max(0, Math.min(match.steps, k));
  slider.value = step;
  $("step").textContent = `move ${step} of ${match.steps}`;
  const mine = ++request;
  try {
    const view = await load(`${base}/steps/${step}?viewer=${viewer}`);
    if (mine !== request) return;   // a later step was asked for meanwhile
    await drawPosition(board, view);
    if ($("rules").dataset.viewer !== viewer) {   // once per view (a closed panel stays closed)
      $("rules").dataset.viewer = viewer;
      $("rules").replaceChildren(await rulesPanel(match.game_id, view.viewer, match.names));
    }
    board.dataset.step = step;
    $("lastmove").textContent = view.last_move ? `move ${step}: ${moveText(view.last_move, name)}` : "the start";
    const result = $("result");
    result.replaceChildren();
    if (view.terminal) result.append(finalScores(view, null, await endReason(view)));
    if (view.terminal && match.lost_by_fault?.length) {
      // the fault rule: the faulter lost; the scores above are the played-out game's, a stand-in in its seats
      result.append(el("p", { class: "error" }, `${match.lost_by_fault.map((p) => match.names[p]).join(" and ")} lost by a fault; ` +
        "the scores above are the played-out game's, a stand-in playing from the fault on"));
    } else if (step === match.steps && match.faults.length) {
      result.append(el("p", { class: "error" }, match.faults.map((f) => `ended by a fault: ${match.names[f.seat]} ${f.kind}: ${f.message}`).join("; ")));
    }
    const rounds = roundSummary(view);
    if (rounds) result.append(rounds);
    showMoves(match.moves || view.moves);
  } catch (error) {
    showError(board, error);
  }
}

// The next (or, `back`, the previous) step that ends a trick or a round.
function jump(kind, back) {
  const marks = match.marks[kind];
  const to = back ? [...marks].reverse().find((k) => k < step) ?? 0 : marks.find((k) => k > step) ?? match.steps;
  go(to);
}

async function start() {
  try {
    await loadMatch();
  } catch (error) {
    showError(board, error);
    return;
  }
  $("title").textContent = `${gameName(match.game_id)}, match ${match.match_id}`;
  viewerSelect.replaceChildren(...[el("option", { value: "all" }, "everything"),
    ...match.names.map((n, p) => el("option", { value: String(p) }, n))].filter((o) => !embedded || embedded.viewers.includes(o.value)));
  viewerSelect.value = viewer;
  slider.max = match.steps;
  $("first").onclick = () => go(0);
  $("back").onclick = () => go(step - 1);
  $("forward").onclick = () => go(step + 1);
  $("last").onclick = () => go(match.steps);
  for (const button of document.querySelectorAll("[data-jump]")) {
    button.onclick = () => jump(button.dataset.jump, button.dataset.back === "true");
  }
  slider.oninput = () => go(Number(slider.value));
  viewerSelect.onchange = async () => {
    viewer = viewerSelect.value;
    await loadMatch();
    go(step);
  };
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    const to = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: match.steps }[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
  // It opens on the end, the final position and the result (the start is an empty table); ?step=N
  // opens on move N.
  go(query.has("step") ? Number(query.get("step")) : match.steps);
}

start();

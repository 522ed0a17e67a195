// Replay of a stored match: step through its positions (buttons, slider, arrow keys) as one seat
// saw them or, the match being over, everything. The server rebuilds each position from the seed.
import { api, drawPosition, el, finalScores, moveText, showError } from "/static/common.js";

const [, , runId, , matchId] = location.pathname.split("/");
const base = `/api/runs/${runId}/matches/${matchId}`;
const query = new URLSearchParams(location.search);
const board = document.getElementById("board");
const slider = document.getElementById("slider");
const viewerSelect = document.getElementById("viewer");
let match = null;
let step = 0;
let viewer = query.get("viewer") || "all";
let request = 0;

document.getElementById("runlink").href = `/runs/${runId}`;
document.getElementById("runlink").textContent = `run ${decodeURIComponent(runId)}`;

async function loadMoves() {
  match = await api(`${base}?viewer=${viewer}`);
  const list = document.getElementById("moves");
  list.replaceChildren(...match.moves.map((m, k) => el("li", { "data-step": k + 1, onclick: () => go(k + 1) }, moveText(m))));
}

async function go(k) {
  step = Math.max(0, Math.min(match.steps, k));
  slider.value = step;
  document.getElementById("step").textContent = `move ${step} of ${match.steps}`;
  const mine = ++request;
  try {
    const view = await api(`${base}/steps/${step}?viewer=${viewer}`);
    if (mine !== request) return;   // a later step was asked for meanwhile
    await drawPosition(board, view);
    board.dataset.step = step;
    document.getElementById("lastmove").textContent = view.last_move ? `move ${step}: ${moveText(view.last_move)}` : "the start";
    const result = document.getElementById("result");
    result.replaceChildren();
    if (view.terminal) result.append(finalScores(view));
    else if (step === match.steps && match.faults.length) {
      result.append(el("p", { class: "error" }, match.faults.map((f) => `ended by a fault: ${match.names[f.seat]} ${f.kind}: ${f.message}`).join("; ")));
    }
    const list = document.getElementById("moves");
    list.querySelectorAll("li.current").forEach((li) => li.classList.remove("current"));
    const current = list.querySelector(`li[data-step="${step}"]`);
    if (current) { current.classList.add("current"); current.scrollIntoView({ block: "nearest" }); }
  } catch (error) {
    showError(board, error);
  }
}

async function start() {
  try {
    await loadMoves();
  } catch (error) {
    showError(board, error);
    return;
  }
  document.getElementById("title").textContent = `${match.game_id}, match ${match.match_id}`;
  viewerSelect.replaceChildren(el("option", { value: "all" }, "everything"),
    ...match.names.map((n, p) => el("option", { value: String(p) }, n)));
  viewerSelect.value = viewer;
  slider.max = match.steps;
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("back").onclick = () => go(step - 1);
  document.getElementById("forward").onclick = () => go(step + 1);
  document.getElementById("last").onclick = () => go(match.steps);
  slider.oninput = () => go(Number(slider.value));
  viewerSelect.onchange = async () => {
    viewer = viewerSelect.value;
    await loadMoves();
    go(step);
  };
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    const to = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: match.steps }[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
  go(Number(query.get("step") || 0));
}

start();

// The runs page: every run of the store with its status and progress, refreshed every few seconds;
// a ladder's run is listed once, with its ladder (ladder-list.js).
import { api, el, showError, table } from "/static/common.js";

const where = document.getElementById("runs");

async function refresh() {
  try {
    const data = await api("/api/runs");
    document.getElementById("store").textContent = `store ${data.store}`;
    const runs = data.runs.filter((r) => r.kind !== "ladder");
    if (!runs.length) {
      where.replaceChildren(el("p", {}, "No runs yet: start one with arena run, or play a game and save it."));
      return;
    }
    const rows = [...runs].reverse().map((r) => [
      el("a", { href: `/runs/${encodeURIComponent(r.run_id)}` }, r.run_id),
      r.kind, r.games.join(", "),
      el("span", { class: `status-${r.status}` }, r.status),
      `${r.finished}/${r.total}`,
      new Date(r.created * 1000).toLocaleString(),
    ]);
    where.replaceChildren(table(["run", "kind", "games", "status", "finished/total", "started"], rows, "runs"));
  } catch (error) {
    showError(where, error);
  }
}

refresh();
setInterval(refresh, 3000);

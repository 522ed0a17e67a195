// The index page's ladders: each linked to its page, its matches (its run) and its upload form
// (nothing when there is none). The runs above leave the ladders out: each is listed once, here.
import { api, el, showError, table } from "/static/common.js";

const where = document.getElementById("ladders");

async function refresh() {
  try {
    const data = await api("/api/ladders");
    if (!data.ladders.length) return where.replaceChildren();
    const rows = data.ladders.map((l) => {
      const page = `/ladders/${encodeURIComponent(l.name)}`;
      return [el("a", { href: page }, l.name), l.game_id, el("span", { class: `status-${l.status}` }, l.status),
        l.active, el("a", { href: `/runs/${encodeURIComponent(l.run_id)}` }, String(l.matches)),
        el("a", { href: `${page}/upload` }, "upload a bot")];
    });
    where.replaceChildren(el("h2", {}, "Ladders"),
      table(["ladder", "game", "status", "active entries", "matches", ""], rows, "ladders"));
  } catch (error) {
    showError(where, error);
  }
}

refresh();
setInterval(refresh, 5000);

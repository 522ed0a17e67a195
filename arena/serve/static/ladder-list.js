// The index page's ladders: each linked to its page and its upload form (nothing when there is none).
import { api, el, showError, table } from "/static/common.js";

const where = document.getElementById("ladders");

async function refresh() {
  try {
    const data = await api("/api/ladders");
    if (!data.ladders.length) return where.replaceChildren();
    const rows = data.ladders.map((l) => {
      const page = `/ladders/${encodeURIComponent(l.name)}`;
      return [el("a", { href: page }, l.name), l.game_id, l.active, l.matches,
        el("a", { href: `${page}/upload` }, "upload a bot")];
    });
    where.replaceChildren(el("h2", {}, "Ladders"), table(["ladder", "game", "active entries", "matches", ""], rows, "ladders"));
  } catch (error) {
    showError(where, error);
  }
}

refresh();
setInterval(refresh, 5000);

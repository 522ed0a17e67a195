// A ladder, live: its standings (each entry linked to its page) and its latest matches (each linked
// to its replay), refreshed every few seconds.
import { api, el, interval, showError, table } from "/static/common.js";

const name = decodeURIComponent(location.pathname.split("/")[2]);
const base = `/ladders/${encodeURIComponent(name)}`;
document.getElementById("title").textContent = `ladder ${name}`;
document.title = `arena serve: ladder ${name}`;
document.getElementById("upload-link").href = `${base}/upload`;

function entryLink(entryName) {
  return el("a", { href: `${base}/entries/${encodeURIComponent(entryName)}` }, entryName);
}

async function refresh() {
  const where = document.getElementById("standings");
  try {
    const data = await api(`/api/ladders/${encodeURIComponent(name)}`);
    document.getElementById("about").textContent =
      `${data.game_id}, ${data.params.players} players; ${data.matches} matches (run ${data.run_id})` +
      (data.book ? `; the deals of deal book ${data.book.name} (sha256 ${data.book.digest.slice(0, 16)})` : "");
    const rows = data.standings.map((r) => [
      r.rank ?? "-", entryLink(r.name), r.entrant ?? "", r.status,
      interval({ mean: r.mu, low: r.low, high: r.high }, 1), r.deals, r.games, `${r.wins}/${r.draws}/${r.losses}`,
      r.faults, r.form,
    ]);
    where.replaceChildren(rows.length ? table(["#", "entry", "entrant", "status", "rating (95%)",
      "deals", "games", "W/D/L", "faults", "form"], rows, "standings")
      : el("p", {}, "No entries yet: add one with arena ladder add, or upload one."));
    const recent = data.recent.map((m) => [
      el("a", { href: m.replay }, `match ${m.match_id}`),
      m.seats.map((s, i) => `${s} (${m.placements[i]})`).join(", "), m.faults,
    ]);
    document.getElementById("recent").replaceChildren(recent.length
      ? table(["replay", "seats (place)", "faults"], recent, "recent")
      : el("p", { class: "muted" }, "No matches yet: arena ladder run plays them."));
  } catch (error) {
    showError(where, error);
  }
}

refresh();
setInterval(refresh, 3000);

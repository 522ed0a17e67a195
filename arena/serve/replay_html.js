// The match of an HTML replay (`arena replay --html`, arena/serve/replay_html.py), read from the page
// itself: `window.arenaReplay` answers the requests static/replay.js would send the server, for the
// views the file holds. The views are gzipped JSON in base64 (#replay-data), unpacked by the browser
// (DecompressionStream): nothing is fetched.
const head = JSON.parse(document.getElementById("replay-head").textContent);

const data = (async () => {
  const packed = document.getElementById("replay-data").textContent.trim();
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  return JSON.parse(text);
})();

window.arenaReplay = {
  runId: encodeURIComponent(head.run_id),   // as in the server's address, which replay.js decodes
  matchId: head.match_id,
  viewers: head.viewers,
  // `${base}?viewer=V` (the match) or `${base}/steps/K?viewer=V` (a position), as the server answers them.
  async load(path) {
    const url = new URL(path, "http://replay.invalid");
    const viewer = url.searchParams.get("viewer");
    const views = (await data).views;
    if (!(viewer in views)) {
      throw new Error(`this file holds only ${head.viewers.map((v) => (v === "all" ? "everything" : `seat ${v}'s view`)).join(", ")}`);
    }
    const step = url.pathname.match(/\/steps\/(\d+)$/);
    if (!step) return views[viewer].match;
    if (Number(step[1]) >= views[viewer].steps.length) throw new Error(`no step ${step[1]} in this match`);
    return views[viewer].steps[Number(step[1])];
  },
};

// After replay.js has set the run link (to the server's run page): to the run's index, or none.
export function linkRun() {
  const link = document.getElementById("runlink");
  if (!link) return;
  if (head.run_href) link.href = head.run_href;
  else link.remove();
}

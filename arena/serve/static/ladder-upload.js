// The upload form: the token goes in the Authorization header of one request (no cookie, nothing
// kept), the file and the label as multipart/form-data.
import { el } from "/static/common.js";

const name = decodeURIComponent(location.pathname.split("/")[2]);
document.getElementById("title").textContent = `upload a bot to ladder ${name}`;
const ladderLink = document.getElementById("ladder-link");
ladderLink.href = `/ladders/${encodeURIComponent(name)}`;
ladderLink.textContent = `ladder ${name}`;

const form = document.getElementById("upload");
const result = document.getElementById("result");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = new FormData();
  body.append("file", document.getElementById("file").files[0]);
  for (const field of ["label", "class"]) body.append(field, document.getElementById(field).value.trim());
  const send = document.getElementById("send");
  send.disabled = true;
  result.replaceChildren(el("span", { class: "thinking" }, "checking the bot in its sandbox"));
  try {
    const response = await fetch(`/api/ladders/${encodeURIComponent(name)}/bots`, {
      method: "POST", body,
      headers: { authorization: `Bearer ${document.getElementById("token").value.trim()}` },
    });
    const data = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
    if (!response.ok) throw new Error(`${response.status}: ${data.error}`);
    result.replaceChildren("Entered as ", el("a", { href: data.page, id: "entered" }, data.name),
      ` (version ${data.version}); it plays from the ladder's next batch.`);
  } catch (error) {
    result.replaceChildren(el("span", { class: "error" }, error.message));
  } finally {
    send.disabled = false;
  }
});

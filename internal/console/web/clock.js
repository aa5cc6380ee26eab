// The console's Sandbox clock section: the sandbox's test clock
// (docs/sandbox.md) — read it, freeze it, resume it, advance it by a
// duration — through the sandbox's GraphQL, the same code as REST
// /v1/sandbox/clock. It reuses app.js's $, show, text and fmt, and
// documents.js's docGQL-style call to the sandbox, and loads when the
// profile card appears. Without a sandbox on this origin it stays hidden.
"use strict";

const CLOCK_FIELDS = "now frozen aheadSeconds";

async function clockGQL(query, variables) {
  const res = await fetch(body.dataset.sandboxGraphql, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "Accept": "application/graphql-response+json", "X-CSRF-Token": cookie("lsk_csrf") },
    body: JSON.stringify({ query, variables }),
  });
  if (res.status === 401) throw new AuthError("signed out");
  const out = await res.json();
  if (out.errors && out.errors.length) throw new Error(out.errors.map((e) => e.message).join("; "));
  return out.data;
}

function showClock(c) {
  text($("clock-now"), fmt(c.now));
  const h = Math.round(c.aheadSeconds / 36) / 100;
  text($("clock-state"), (c.frozen ? "frozen" : "running") + (h > 0 ? ", " + h + " h ahead of real time" : ""));
  $("clock-freeze").hidden = c.frozen;
  $("clock-resume").hidden = !c.frozen;
}

async function clockCall(query, variables, field) {
  show("clock-error", false);
  try {
    const data = await clockGQL(query, variables);
    showClock(data[field]);
  } catch (e) {
    if (e instanceof AuthError) return showLogin();
    const err = $("clock-error"); text(err, e.message); err.hidden = false;
  }
}

const loadClock = () => clockCall("{ sandboxClock { " + CLOCK_FIELDS + " } }", {}, "sandboxClock");

$("clock-freeze").addEventListener("click", () => clockCall("mutation { freezeSandboxClock { " + CLOCK_FIELDS + " } }", {}, "freezeSandboxClock"));
$("clock-resume").addEventListener("click", () => clockCall("mutation { resumeSandboxClock { " + CLOCK_FIELDS + " } }", {}, "resumeSandboxClock"));
$("clock-advance-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  clockCall("mutation($by: String!) { advanceSandboxClock(by: $by) { " + CLOCK_FIELDS + " } }", { by: $("clock-by").value.trim() }, "advanceSandboxClock");
});
if (body.dataset.sandboxGraphql) {
  $("sandbox-clock").hidden = false;
  new MutationObserver(() => { if (!$("profile").hidden) loadClock(); })
    .observe($("profile"), { attributes: true, attributeFilter: ["hidden"] });
  if (!$("profile").hidden) loadClock();
}

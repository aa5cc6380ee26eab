// The console's "Reset the sandbox" section: the same resetSandbox mutation
// as GraphQL and POST /v1/sandbox/reset (internal/sandboxreset), sent to the
// sandbox's GraphQL endpoint, behind the typed confirmation ("sandbox") that
// the server checks too. It reuses app.js's $, show, text and cookie.
"use strict";

async function sandboxGQL(query, variables) {
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

$("reset-open").addEventListener("click", () => {
  $("reset-confirm").value = "";
  $("reset-submit").disabled = true;
  show("reset-error", false);
  show("reset-form", true);
});
$("reset-cancel").addEventListener("click", () => show("reset-form", false));
$("reset-confirm").addEventListener("input", () => {
  $("reset-submit").disabled = $("reset-confirm").value !== "sandbox";
});
$("reset-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  show("reset-error", false);
  $("reset-submit").disabled = true;
  const input = { confirm: $("reset-confirm").value, scale: Number($("reset-scale").value), seed: Number($("reset-seed").value) };
  try {
    const data = await sandboxGQL("mutation($input: ResetSandboxInput!) { resetSandbox(input: $input) { scale seed tookMs erased { hubs orders } loaded { hubs parts items orders } } }", { input });
    const r = data.resetSandbox;
    show("reset-form", false);
    text($("reset-done"), "Reset at scale " + r.scale + ", seed " + r.seed + " in " + r.tookMs + " ms: erased " + r.erased.hubs + " hubs and " + r.erased.orders +
      " orders; loaded " + r.loaded.hubs + " hubs, " + r.loaded.parts + " parts, " + r.loaded.items + " items and " + r.loaded.orders + " orders.");
    show("reset-done", true);
  } catch (e) {
    if (e instanceof AuthError) return showLogin();
    const err = $("reset-error"); text(err, e.message); err.hidden = false;
    $("reset-submit").disabled = $("reset-confirm").value !== "sandbox";
  }
});

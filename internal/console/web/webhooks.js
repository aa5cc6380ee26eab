// The console's Webhooks section: endpoints of the chosen environment, their
// signing secret shown once, recent deliveries, resend and test events (of
// the type chosen in #test-event-type: any of the catalog). It
// reuses app.js's gql, $, show, text and fmt, and loads when the profile
// card appears (no change to app.js needed).
"use strict";

const WEBHOOK_FIELDS = "id url description eventTypes enabled disabledReason createdAt";
const DELIVERY_FIELDS = "id eventId eventType status attempts lastStatusCode lastLatencyMs lastResponse lastError lastAttemptAt nextAttemptAt createdAt";
let webhookOpen = null; // the endpoint whose deliveries are shown

// whGQL sends a query to the GraphQL endpoint of the chosen environment.
async function whGQL(query, variables) {
  const env = $("webhook-env").value;
  const url = env === "sandbox" ? body.dataset.sandboxGraphql : GRAPHQL;
  if (url === GRAPHQL) return gql(query, variables);
  const res = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "Accept": "application/graphql-response+json", "X-CSRF-Token": cookie("lsk_csrf") },
    body: JSON.stringify({ query, variables }),
  });
  if (res.status === 401) throw new AuthError("signed out");
  const out = await res.json();
  if (out.errors && out.errors.length) throw new Error(out.errors.map((e) => e.message).join("; "));
  return out.data;
}

function webhookFail(e) {
  if (e instanceof AuthError) return showLogin();
  const err = $("webhooks-error"); text(err, e.message); err.hidden = false;
}

async function loadWebhooks() {
  show("webhooks-error", false);
  let data;
  try { data = await whGQL("{ webhookEndpoints { " + WEBHOOK_FIELDS + " } }"); } catch (e) { return webhookFail(e); }
  const tbody = $("webhooks-table").querySelector("tbody");
  tbody.replaceChildren();
  for (const w of data.webhookEndpoints) {
    const tr = document.createElement("tr");
    tr.dataset.id = w.id;
    const cell = () => tr.appendChild(document.createElement("td"));
    const u = cell(); u.className = "webhook-url";
    const code = document.createElement("code"); u.append(text(code, w.url));
    if (w.description) { const d = document.createElement("div"); d.className = "hint"; u.append(text(d, w.description)); }
    const types = cell();
    for (const t of w.eventTypes.length ? w.eventTypes : ["all events"]) {
      const sp = document.createElement("span"); sp.className = "tag"; types.append(text(sp, t));
    }
    const st = cell();
    const tag = document.createElement("span");
    tag.className = "tag webhook-status status-" + (w.enabled ? "enabled" : "disabled");
    st.append(text(tag, w.enabled ? "enabled" : "disabled"));
    if (!w.enabled && w.disabledReason) { const r = document.createElement("div"); r.className = "hint"; st.append(text(r, w.disabledReason)); }
    text(cell(), fmt(w.createdAt));
    const acts = document.createElement("div"); acts.className = "actions";
    const button = (label, cls, fn) => {
      const b = document.createElement("button"); b.type = "button"; b.className = "secondary small " + cls;
      text(b, label); b.addEventListener("click", fn); acts.append(b);
    };
    button("Deliveries", "show-deliveries", () => openDeliveries(w));
    if (w.enabled) button("Send test event", "send-test", () => sendTest(w));
    button(w.enabled ? "Disable" : "Enable", "toggle", () => setEnabled(w, !w.enabled));
    button("Rotate secret", "rotate", () => rotateSecret(w));
    button("Delete", "delete-webhook", () => deleteWebhook(w));
    cell().append(acts);
    tbody.append(tr);
  }
  show("no-webhooks", data.webhookEndpoints.length === 0);
  if (webhookOpen) loadDeliveries();
}

function showWebhookSecret(secret) {
  text($("webhook-secret-value"), secret);
  show("webhook-secret", true);
}

async function sendTest(w) {
  try {
    const type = $("test-event-type").value || "webhook.test";
    await whGQL("mutation($id: ID!, $type: String) { sendWebhookTestEvent(endpointId: $id, type: $type) { id } }", { id: w.id, type });
    openDeliveries(w);
  } catch (e) { webhookFail(e); }
}

async function setEnabled(w, enabled) {
  try {
    await whGQL("mutation($id: ID!, $on: Boolean!) { updateWebhookEndpoint(id: $id, input: {enabled: $on}) { id } }", { id: w.id, on: enabled });
    await loadWebhooks();
  } catch (e) { webhookFail(e); }
}

async function rotateSecret(w) {
  if (!confirm("Give " + w.url + " a new signing secret? The old one keeps signing for a grace period.")) return;
  try {
    const data = await whGQL("mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }", { id: w.id });
    showWebhookSecret(data.rotateWebhookSecret.secret);
  } catch (e) { webhookFail(e); }
}

async function deleteWebhook(w) {
  if (!confirm("Delete the webhook endpoint " + w.url + " and its deliveries?")) return;
  try {
    await whGQL("mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }", { id: w.id });
    if (webhookOpen && webhookOpen.id === w.id) { webhookOpen = null; show("webhook-deliveries", false); }
    await loadWebhooks();
  } catch (e) { webhookFail(e); }
}

function openDeliveries(w) {
  webhookOpen = w;
  text($("deliveries-url"), w.url);
  show("webhook-deliveries", true);
  loadDeliveries();
}

async function loadDeliveries() {
  if (!webhookOpen) return;
  let data;
  try {
    data = await whGQL("query($id: ID!) { webhookEndpoint(id: $id) { deliveries(first: 50) { " + DELIVERY_FIELDS + " } } }", { id: webhookOpen.id });
  } catch (e) { return webhookFail(e); }
  const list = data.webhookEndpoint ? data.webhookEndpoint.deliveries : [];
  const tbody = $("deliveries-table").querySelector("tbody");
  tbody.replaceChildren();
  for (const d of list) {
    const tr = document.createElement("tr");
    tr.dataset.id = d.id;
    tr.className = "delivery";
    const cell = () => tr.appendChild(document.createElement("td"));
    const ev = cell(); ev.className = "event-type";
    text(ev, d.eventType);
    if (d.eventId) { const c = document.createElement("div"); c.className = "hint"; ev.append(text(c, d.eventId)); }
    const st = cell(); const tag = document.createElement("span");
    tag.className = "tag delivery-status status-" + d.status; st.append(text(tag, d.status));
    if (d.status === "pending" && d.nextAttemptAt) { const n = document.createElement("div"); n.className = "hint"; st.append(text(n, "next " + fmt(d.nextAttemptAt))); }
    text(cell(), String(d.attempts));
    text(cell(), d.lastStatusCode ? String(d.lastStatusCode) : "—").className = "status-code";
    text(cell(), d.attempts ? d.lastLatencyMs + " ms" : "—").className = "latency";
    const resp = cell(); resp.className = "response";
    const code = document.createElement("code"); resp.append(text(code, d.lastError || d.lastResponse.slice(0, 200)));
    text(cell(), fmt(d.lastAttemptAt));
    const b = document.createElement("button"); b.type = "button"; b.className = "secondary small resend";
    text(b, "Resend"); b.addEventListener("click", () => resend(d));
    cell().append(b);
    tbody.append(tr);
  }
  show("no-deliveries", list.length === 0);
}

async function resend(d) {
  try {
    await whGQL("mutation($ep: ID!, $d: ID!) { resendWebhookEvent(endpointId: $ep, deliveryId: $d) { id } }", { ep: webhookOpen.id, d: d.id });
    await loadDeliveries();
  } catch (e) { webhookFail(e); }
}

$("new-webhook").addEventListener("click", () => {
  $("webhook-form").reset(); show("webhook-error", false); show("webhook-form", true); $("webhook-url").focus();
});
$("webhook-cancel").addEventListener("click", () => show("webhook-form", false));
$("webhook-secret-done").addEventListener("click", () => { show("webhook-secret", false); text($("webhook-secret-value"), ""); });
$("deliveries-refresh").addEventListener("click", () => loadDeliveries());
$("deliveries-close").addEventListener("click", () => { webhookOpen = null; show("webhook-deliveries", false); });
$("webhook-env").addEventListener("change", () => {
  webhookOpen = null; show("webhook-deliveries", false); show("webhook-secret", false); text($("webhook-secret-value"), "");
  loadWebhooks();
});
if (!body.dataset.sandboxGraphql) $("webhook-env").querySelector("option[value=sandbox]").disabled = true;

$("webhook-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const types = $("webhook-types").value.split(",").map((s) => s.trim()).filter((s) => s);
  const input = { url: $("webhook-url").value, description: $("webhook-description").value, eventTypes: types };
  try {
    const data = await whGQL("mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id } } }", { input });
    show("webhook-form", false);
    showWebhookSecret(data.createWebhookEndpoint.secret);
    await loadWebhooks();
  } catch (e) {
    if (e instanceof AuthError) return showLogin();
    const err = $("webhook-error"); text(err, e.message); err.hidden = false;
  }
});

// Load when the signed-in view appears (or now, if it already has).
new MutationObserver(() => { if (!$("profile").hidden) loadWebhooks(); })
  .observe($("profile"), { attributes: true, attributeFilter: ["hidden"] });
if (!$("profile").hidden) loadWebhooks();

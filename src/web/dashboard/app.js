// The web dashboard: plain DOM, no framework. The session is an HttpOnly cookie the page never sees;
// nothing is kept in localStorage. Every call goes to the same API the scripts use.

const $ = (id) => document.getElementById(id);
let me = null;
let auditBefore = null;

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const json = await res.json().catch(() => ({ message: `HTTP ${res.status}`, error: "internal_error" }));
  // The session ended elsewhere (signed out, password changed, member removed): back to the sign-in form.
  if (res.status === 401 && json.error === "invalid_token" && me) signedOut();
  if (!res.ok) throw new ApiError(res.status, json.error, json.message);
  return json.data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== undefined && v !== null) node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) node.append(c);
  return node;
}

function toast(message) {
  const t = $("toast");
  t.textContent = message;
  t.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => t.classList.remove("shown"), 4000);
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");

function showError(form, err) {
  form.querySelector("[data-error]").textContent = err ? err.message : "";
}

/** Shows what the signed-in role may use, and removes what it may not (the API refuses it anyway). */
function applyRole() {
  for (const node of document.querySelectorAll("[data-roles]")) {
    const allowed = node.dataset.roles.split(" ").includes(me.user.role);
    if (node.tagName === "OPTION") node.disabled = !allowed;
    node.hidden = !allowed;
    if (node.tagName === "A") node.parentElement.hidden = !allowed;
  }
}

function allowedViews() {
  return [...document.querySelectorAll("#nav a")].filter((a) => !a.parentElement.hidden).map((a) => a.dataset.view);
}

const LOADERS = {
  start: loadStart,
  keys: loadKeys,
  members: loadMembers,
  upload: () => undefined,
  analytics: loadAnalytics,
  identity: loadIdentity,
  retention: loadRetention,
  audit: () => loadAudit(true),
};

async function route() {
  if (!me) return;
  const wanted = location.hash.slice(1);
  const view = allowedViews().includes(wanted) ? wanted : "start";
  for (const section of document.querySelectorAll("section[data-view]")) section.hidden = section.dataset.view !== view;
  for (const a of document.querySelectorAll("#nav a")) {
    if (a.dataset.view === view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  try {
    await LOADERS[view]();
  } catch (err) {
    toast(err.message);
  }
}

function signedIn(data) {
  me = data;
  $("loading").hidden = true;
  $("signin").hidden = true;
  $("app").hidden = false;
  $("who").hidden = false;
  $("who-text").textContent = `${me.user.email} · ${me.user.role} · ${me.organisation.name}`;
  applyRole();
  route();
}

function signedOut() {
  me = null;
  $("loading").hidden = true;
  $("app").hidden = true;
  $("who").hidden = true;
  $("signin").hidden = false;
}

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function onSubmit(form, handler) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    showError(form, null);
    try {
      await handler(formValues(form));
    } catch (err) {
      showError(form, err);
    } finally {
      button.disabled = false;
    }
  });
}

// --- Quick start ------------------------------------------------------------------------------------------

async function loadStart() {
  let pk;
  if (me.user.role !== "MEMBER") {
    const { key_pairs } = await api("GET", "/v1/keys");
    const active = key_pairs.find((p) => p.status === "active");
    pk = active ? active.publishable_key : "(generate a key pair first)";
  } else {
    pk = "(ask an OWNER or ADMIN for the publishable key)";
  }
  $("start-pk").textContent = pk;
  const base = location.origin;
  const event = { user_id: "user-1", event_family: "engagement", event_name: "view", item_id: "item-1" };
  const ask = { user_id: "user-1", strategy: "personalized", limit: 10 };
  $("start-curl-event").textContent =
    `curl -X POST ${base}/v1/events/ingest \\\n  -H 'content-type: application/json' \\\n  -H 'X-API-KEY: ${pk}' \\\n  -d '${JSON.stringify(event)}'`;
  $("start-curl-recommend").textContent =
    `curl -X POST ${base}/v1/recommend \\\n  -H 'content-type: application/json' \\\n  -H 'X-API-KEY: ${pk}' \\\n  -d '${JSON.stringify(ask)}'`;
  $("start-sdk-browser").textContent = [
    `<script type="module">`,
    `  import { RecommendationClient } from "${base}/sdk/recommendations.js";`,
    `  const recs = new RecommendationClient({`,
    `    baseUrl: "${base}",`,
    `    publishableKey: "${pk}",`,
    `  });`,
    `  recs.track({ event_name: "view", item_id: "item-1" }); // queued and batched`,
    `  // After sign-in: the visitor's anonymous history becomes the user's.`,
    `  recs.identify("user-1");`,
    `  const { results } = await recs.recommend({ strategy: "personalized", limit: 10 });`,
    `  // A click on a result carries its recommendation_id by itself.`,
    `  recs.track({ event_name: "click", item_id: results[0]?.item_id });`,
    `</script>`,
  ].join("\n");
  $("start-sdk-node").textContent = [
    `import { RecommendationClient } from "recommendation-service/client";`,
    ``,
    `const recs = new RecommendationClient({`,
    `  baseUrl: "${base}",`,
    `  publishableKey: "${pk}",`,
    `  secretKey: process.env.RECS_SECRET_KEY, // server side only`,
    `});`,
    `await recs.upsertItems([{ item_id: "item-1", item_type: "product", status: "active" }]);`,
    `recs.track({ user_id: "user-1", event_name: "purchase", item_id: "item-1" });`,
    `await recs.close(); // sends what is queued before the process exits`,
  ].join("\n");
}

// --- Keys -------------------------------------------------------------------------------------------------

async function loadKeys() {
  const { key_pairs } = await api("GET", "/v1/keys");
  const canManage = me.user.role === "OWNER" || me.user.role === "ADMIN";
  $("keys-rows").replaceChildren(
    ...key_pairs.map((p) =>
      el(
        "tr",
        {},
        el("td", { text: when(p.created_at) }),
        el("td", { text: p.status === "revoked" ? `revoked ${when(p.revoked_at)}` : "active" }),
        el("td", {}, el("code", { text: p.publishable_key })),
        el("td", {}, el("code", { text: p.secret_key })),
        el(
          "td",
          {},
          canManage && p.status === "active"
            ? el("button", {
                type: "button",
                class: "danger",
                text: "Revoke",
                "aria-label": `Revoke the pair created ${when(p.created_at)}`,
                onclick: () => revoke(p),
              })
            : "",
        ),
      ),
    ),
  );
  if (key_pairs.length === 0) $("keys-rows").append(el("tr", {}, el("td", { colspan: 5, class: "muted", text: "No key pairs yet." })));
}

function confirmAction(text, action) {
  const dialog = $("confirm");
  $("confirm-text").textContent = text;
  $("confirm-ok").textContent = action;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true }));
}

async function revoke(pair) {
  const ok = await confirmAction(
    `Revoke the key pair created ${when(pair.created_at)}? Every request that uses its publishable or secret key will get 401 from now on.`,
    "Revoke key pair",
  );
  if (!ok) return;
  await api("POST", `/v1/keys/${pair.key_pair_id}/revoke`);
  toast("Key pair revoked.");
  await loadKeys();
}

async function generate() {
  try {
    const pair = await api("POST", "/v1/keys");
    $("new-pk").value = pair.publishable_key;
    $("new-sk").value = pair.secret_key;
    $("new-key").hidden = false;
    $("new-sk").focus();
    await loadKeys();
  } catch (err) {
    toast(err.message);
  }
}

function hideNewKey() {
  $("new-pk").value = "";
  $("new-sk").value = "";
  $("new-key").hidden = true;
  $("generate-key").focus();
}

async function copyField(id) {
  const input = $(id);
  try {
    await navigator.clipboard.writeText(input.value);
    toast("Copied.");
  } catch {
    input.select(); // no clipboard permission: leave it selected for Ctrl+C
    toast("Press Ctrl+C to copy.");
  }
}

// --- Identity verification --------------------------------------------------------------------------------

const IDENTITY = "/v1/settings/identity-verification";

function showIdentity(settings) {
  const since = settings.secret_rotated_at ? `; secret generated ${when(settings.secret_rotated_at)}` : "; no secret yet";
  $("identity-status").textContent = `Verification is ${settings.enabled ? "on" : "off"}${since}.`;
  $("identity-toggle").textContent = settings.enabled ? "Turn off" : "Turn on";
  $("identity-toggle").disabled = !settings.enabled && !settings.has_secret;
  $("identity-toggle").dataset.enabled = String(settings.enabled);
  $("identity-rotate").textContent = settings.has_secret ? "Rotate secret" : "Generate secret";
}

async function loadIdentity() {
  showIdentity(await api("GET", IDENTITY));
}

async function toggleIdentity() {
  try {
    const enabled = $("identity-toggle").dataset.enabled !== "true";
    showIdentity(await api("PATCH", IDENTITY, { enabled }));
    toast(`Identity verification ${enabled ? "on" : "off"}.`);
  } catch (err) {
    toast(err.message);
  }
}

async function rotateIdentity() {
  const had = $("identity-rotate").textContent === "Rotate secret";
  if (had && !(await confirmAction("Rotate the identity secret? Hashes made with the current one stop verifying at once.", "Rotate secret"))) return;
  try {
    const made = await api("POST", `${IDENTITY}/secret`);
    $("identity-secret").value = made.secret;
    $("identity-new").hidden = false;
    $("identity-secret").focus();
    await loadIdentity();
  } catch (err) {
    toast(err.message);
  }
}

function hideIdentitySecret() {
  $("identity-secret").value = "";
  $("identity-new").hidden = true;
  $("identity-rotate").focus();
}

// --- Data retention ---------------------------------------------------------------------------------------

const RETENTION = "/v1/settings/retention";

function showRetention(r) {
  const own = r.events_retention_days === null ? "the service's" : "your organisation's";
  $("retention-status").textContent = `Events are kept ${r.effective_days} days (${own}; the service keeps them ${r.service_retention_days}).`;
  $("retention-days").max = String(r.service_retention_days);
  $("retention-days").value = String(r.effective_days);
  $("retention-default").disabled = r.events_retention_days === null;
}

async function loadRetention() {
  showRetention(await api("GET", RETENTION));
}

async function setRetention(days) {
  showRetention(await api("PATCH", RETENTION, { events_retention_days: days }));
  toast(days === null ? "Retention set to the service's." : `Events are now kept ${days} days.`);
}

// --- Members ----------------------------------------------------------------------------------------------

const ROLES = ["OWNER", "ADMIN", "DEVELOPER", "MEMBER"];

async function loadMembers() {
  const { members } = await api("GET", "/v1/members");
  const canManage = me.user.role === "OWNER" || me.user.role === "ADMIN";
  $("members-rows").replaceChildren(
    ...members.map((m) => {
      let role = el("span", { text: m.role });
      const locked = m.role === "OWNER" && me.user.role !== "OWNER";
      if (canManage && !locked) {
        role = el(
          "select",
          { "aria-label": `Role of ${m.email}`, onchange: (e) => changeRole(m, e.target) },
          ...ROLES.filter((r) => r !== "OWNER" || me.user.role === "OWNER").map((r) => el("option", { value: r, selected: r === m.role, text: r })),
        );
      }
      const actions = el("td", { hidden: !canManage });
      if (canManage && !locked) {
        actions.append(
          el("button", { type: "button", class: "secondary", "aria-label": `Remove ${m.email}`, text: "Remove", onclick: () => removeMember(m) }),
        );
      }
      return el("tr", {}, el("td", { text: m.email }), el("td", {}, role), el("td", { text: when(m.created_at) }), actions);
    }),
  );
}

async function changeRole(member, select) {
  try {
    await api("PATCH", `/v1/members/${member.user_id}`, { role: select.value });
    toast(`${member.email} is now ${select.value}.`);
  } catch (err) {
    toast(err.message);
  }
  await loadMembers();
}

async function removeMember(member) {
  if (!confirm(`Remove ${member.email}? Their sessions end at once.`)) return;
  try {
    await api("DELETE", `/v1/members/${member.user_id}`);
    toast(`${member.email} removed.`);
  } catch (err) {
    toast(err.message);
  }
  if (member.user_id === me?.user.id) signedOut();
  else await loadMembers();
}

// --- Upload -----------------------------------------------------------------------------------------------

const UPLOAD_TYPES = { csv: "text/csv", ndjson: "application/x-ndjson", jsonl: "application/x-ndjson", json: "application/json" };

function uploadType(file) {
  const ext = file.name.split(".").pop().toLowerCase();
  return UPLOAD_TYPES[ext] ?? (file.type || "text/csv");
}

/** XMLHttpRequest rather than fetch: it reports upload progress, for the progress bar. */
function sendFile(kind, body, type, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/v1/upload/${kind}`);
    xhr.setRequestHeader("content-type", type);
    xhr.upload.addEventListener("progress", (e) => e.lengthComputable && onProgress(e.loaded));
    xhr.addEventListener("load", () => {
      let json;
      try {
        json = JSON.parse(xhr.responseText);
      } catch {
        return reject(new ApiError(xhr.status, "internal_error", `HTTP ${xhr.status}`));
      }
      if (xhr.status >= 400) reject(new ApiError(xhr.status, json.error, json.message));
      else resolve(json.data);
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, "network", "the upload was interrupted")));
    xhr.send(body);
  });
}

/**
 * The server's HTTP layer refuses a Content-Length of 10^9 bytes or more, and a browser always sends one. So a
 * larger CSV or NDJSON file goes up in parts cut at line ends, each CSV part headed by the file's header row.
 * (A quoted CSV cell holding a line break exactly at a cut would be reported as a bad row.)
 */
const PART_BYTES = 512 * 1024 * 1024;
const partBytes = () => Number(document.documentElement.dataset.uploadPartBytes) || PART_BYTES;
const NEWLINE = 10;
const SCAN_BYTES = 16 * 1024 * 1024;

/** Where each part starts (bytes) and the file line it starts on. */
async function cutAtLines(file, size) {
  const parts = [{ start: 0, line: 1 }];
  let lines = 1;
  let from = 0;
  while (file.size - parts[parts.length - 1].start > size) {
    const target = parts[parts.length - 1].start + size;
    let cut = -1;
    // Count the lines up to the cut as we go: each later part's errors are reported by the file's line numbers.
    for (let at = from; cut === -1 && at < file.size; at += SCAN_BYTES) {
      const bytes = new Uint8Array(await file.slice(at, Math.min(file.size, at + SCAN_BYTES)).arrayBuffer());
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] !== NEWLINE) continue;
        lines++;
        if (at + i + 1 >= target) {
          cut = at + i + 1;
          break;
        }
      }
    }
    if (cut === -1 || cut >= file.size) break;
    parts.push({ start: cut, line: lines });
    from = cut;
  }
  return parts.map((p, k) => ({ ...p, end: k + 1 < parts.length ? parts[k + 1].start : file.size }));
}

async function headerLine(file) {
  const bytes = new Uint8Array(await file.slice(0, 1024 * 1024).arrayBuffer());
  const end = bytes.indexOf(NEWLINE);
  return file.slice(0, end === -1 ? bytes.length : end + 1);
}

async function upload({ kind }) {
  const file = $("upload-file").files[0];
  if (!file) throw new ApiError(400, "validation_error", "choose a file first");
  const type = uploadType(file);
  const size = partBytes();
  if (file.size > size && type === "application/json") {
    throw new ApiError(400, "validation_error", "a JSON array this large cannot be sent from a browser in one piece: save it as NDJSON or CSV");
  }
  const bar = $("upload-progress");
  $("upload-progress-wrap").hidden = false;
  $("upload-result").hidden = true;
  const progress = (sent) => {
    const share = Math.min(1, sent / file.size);
    bar.value = Math.round(share * 100);
    $("upload-progress-text").textContent = share < 1 ? `${bar.value}%` : "100%, storing…";
  };
  progress(0);
  const parts = file.size > size ? await cutAtLines(file, size) : [{ start: 0, end: file.size, line: 1 }];
  const header = type === "text/csv" && parts.length > 1 ? await headerLine(file) : null;
  const total = { accepted: 0, rejected: 0, errors: [] };
  for (const [k, part] of parts.entries()) {
    const headed = header !== null && k > 0;
    const body = headed ? new Blob([header, file.slice(part.start, part.end)]) : file.slice(part.start, part.end);
    const result = await sendFile(kind, body, type, (sent) => progress(part.start + Math.max(0, sent - (headed ? header.size : 0))));
    // A part's line 1 is the file's line part.line, or its copied header row.
    const shift = part.line - 1 - (headed ? 1 : 0);
    total.accepted += result.accepted;
    total.rejected += result.rejected;
    for (const e of result.errors) if (total.errors.length < 100) total.errors.push({ line: e.line + shift, message: e.message });
  }
  $("upload-progress-text").textContent = "Done.";
  bar.value = 100;
  $("upload-summary").textContent =
    `${total.accepted} ${kind} stored, ${total.rejected} rows refused` +
    (total.rejected > total.errors.length ? ` (the first ${total.errors.length} are listed)` : "") +
    ".";
  $("upload-errors").replaceChildren(...total.errors.map((e) => el("tr", {}, el("td", { text: String(e.line) }), el("td", { text: e.message }))));
  $("upload-result").hidden = false;
}

// --- Analytics --------------------------------------------------------------------------------------------

const pct = (x) => `${(x * 100).toFixed(1)}%`;

async function loadAnalytics() {
  const { strategies } = await api("GET", "/v1/analytics/strategies");
  const chart = $("analytics-chart");
  if (strategies.length === 0) {
    chart.replaceChildren(el("p", { class: "muted", text: "No recommendations served in the last 30 days." }));
    return;
  }
  const most = Math.max(...strategies.map((s) => s.served));
  chart.replaceChildren(
    el(
      "table",
      { class: "bars" },
      el("caption", { class: "sr-only", text: "Served, click-through and conversion per strategy" }),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col", text: "Strategy" }),
          el("th", { scope: "col", text: "Served" }),
          el("th", { scope: "col", text: "Click-through" }),
          el("th", { scope: "col", text: "Conversion" }),
        ),
      ),
      el(
        "tbody",
        {},
        ...strategies.map((s) =>
          el(
            "tr",
            {},
            el("th", { scope: "row", text: s.strategy }),
            el("td", {}, bar(s.served / most, String(s.served), "served")),
            el("td", {}, bar(s.click_through_rate, pct(s.click_through_rate), "ctr")),
            el("td", {}, bar(s.conversion_rate, pct(s.conversion_rate), "cvr")),
          ),
        ),
      ),
    ),
  );
}

function bar(share, label, kind) {
  const fill = el("span", { class: `fill ${kind}` });
  fill.style.width = `${Math.max(0, Math.min(1, share)) * 100}%`;
  return el("span", { class: "bar" }, el("span", { class: "track", "aria-hidden": "true" }, fill), el("span", { class: "value", text: label }));
}

// --- Audit log --------------------------------------------------------------------------------------------

async function loadAudit(fromStart) {
  if (fromStart) {
    auditBefore = null;
    $("audit-rows").replaceChildren();
  }
  const query = auditBefore ? `?limit=50&before=${auditBefore}` : "?limit=50";
  const { entries, next_before } = await api("GET", `/v1/audit-log${query}`);
  $("audit-rows").append(
    ...entries.map((e) =>
      el(
        "tr",
        {},
        el("td", { text: when(e.at) }),
        el("td", { text: e.actor.email ?? "—" }),
        el("td", {}, el("code", { class: "action", text: e.action })),
        el("td", { text: e.target ?? "" }),
        el("td", { text: e.ip ?? "" }),
      ),
    ),
  );
  auditBefore = next_before;
  $("audit-more").hidden = next_before === null;
}

// --- Start ------------------------------------------------------------------------------------------------

onSubmit($("login-form"), async (values) => signedIn(await api("POST", "/auth/login", values)));
onSubmit($("register-form"), async (values) => signedIn(await api("POST", "/auth/register", values)));
onSubmit($("member-form"), async (values) => {
  await api("POST", "/v1/members", values);
  $("member-form").reset();
  toast(`${values.email} invited as ${values.role}; they join when they accept.`);
});
onSubmit($("password-form"), async (values) => {
  await api("POST", "/v1/me/password", values);
  $("password-form").reset();
  toast("Password changed; your other sessions have ended.");
});
onSubmit($("upload-form"), upload);
onSubmit($("retention-form"), (values) => setRetention(Number(values.days)));
$("retention-default").addEventListener("click", () => setRetention(null).catch((err) => toast(err.message)));
$("logout").addEventListener("click", async () => {
  await api("POST", "/auth/logout").catch(() => undefined);
  signedOut();
});
$("generate-key").addEventListener("click", generate);
$("new-key-done").addEventListener("click", hideNewKey);
$("identity-toggle").addEventListener("click", toggleIdentity);
$("identity-rotate").addEventListener("click", rotateIdentity);
$("identity-done").addEventListener("click", hideIdentitySecret);
for (const b of document.querySelectorAll("[data-copy]")) b.addEventListener("click", () => copyField(b.dataset.copy));
$("audit-more").addEventListener("click", () => loadAudit(false).catch((err) => toast(err.message)));
window.addEventListener("hashchange", route);

api("GET", "/v1/me").then(signedIn, signedOut);

// The web dashboard: plain DOM, no framework. The session is an HttpOnly cookie the page never sees;
// nothing is kept in localStorage. Every call goes to the same API the scripts use.

import { intervalChart, lineChart } from "/dashboard/charts.js";
import { MEASURES, verdicts } from "/dashboard/verdict.js";

const $ = (id) => document.getElementById(id);
let me = null;
let auditBefore = null;
/** The rule the Rules form edits (null: a new one). */
let editingRule = null;

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

/**
 * What to tell a person about a field the API refused, in place of the validator's wording ("organisation: Too
 * small: expected string to have >=1 characters"): keyed by the API's field name, the first word of its message.
 */
const FIELD_HELP = {
  organisation: "Enter your organisation's name (up to 200 characters).",
  email: "Enter your email address, like name@example.com.",
  password: "Enter a password of 10 characters or more.",
  old_password: "Enter your current password.",
  new_password: "Enter a new password of 10 characters or more.",
  rate_limit_max: "Enter a whole number of requests from 1 to 1,000,000.",
  rate_limit_window_s: "Enter a whole number of seconds from 60 (a minute) to 86,400 (a day).",
  events_retention_days: () => `Enter a whole number of days from 1 to ${retentionMax.toLocaleString("en")} (the service's retention).`,
  from: "Enter the first day, at most 400 days before the last.",
  to: "Enter the last day: not before the first, nor in the future.",
  granularity: "One point per hour needs a range under 3 days: choose one per day, or a shorter range.",
};
const help = (field) => (typeof FIELD_HELP[field] === "function" ? FIELD_HELP[field]() : FIELD_HELP[field]);

/** The fields a validation_error message names (`field: problem; other: problem`). */
function refusedFields(err) {
  if (!err || err.code !== "validation_error" || typeof err.message !== "string") return [];
  return err.message
    .split(/;\s*/)
    .map((part) => /^([a-z_]+)(?:\.|:)/.exec(part.trim())?.[1])
    .filter((f) => f !== undefined);
}

function setFieldError(form, field, message) {
  const node = form.querySelector(`[data-field-error="${field}"]`);
  if (!node) return false;
  node.textContent = message;
  const input = form.querySelector(`[aria-describedby~="${node.id}"]`);
  if (input) input.setAttribute("aria-invalid", message ? "true" : "false");
  return true;
}

function clearFieldErrors(form) {
  for (const node of form.querySelectorAll("[data-field-error]")) setFieldError(form, node.dataset.fieldError, "");
}

/** A refusal naming fields the form shows errors for is told field by field, in plain words; anything else in the form's alert. */
function showError(form, err) {
  clearFieldErrors(form);
  const alert = form.querySelector("[data-error]");
  if (!err) {
    alert.textContent = "";
    return;
  }
  const shown = refusedFields(err).filter((f) => FIELD_HELP[f] && setFieldError(form, f, help(f)));
  alert.textContent = shown.length > 0 ? "Please correct the fields marked above." : err.message;
}

/** The form's own checks, before anything is sent: the same plain words as for the API's refusals. */
function checkFields(form, checks) {
  const failed = Object.entries(checks)
    .filter(([, ok]) => !ok)
    .map(([field]) => field);
  if (failed.length > 0) throw new ApiError(400, "validation_error", failed.map((f) => `${f}: ${help(f)}`).join("; "));
}

const looksLikeEmail = (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test((v ?? "").trim());

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
  experiments: loadExperiments,
  try: () => undefined,
  rules: async () => {
    await loadRules();
    await refreshRulePreview();
  },
  identity: loadIdentity,
  settings: async () => {
    await loadLimits();
    await loadRetention();
  },
  audit: () => loadAudit(true),
};

/** Sections that moved, so that a bookmark still opens them. */
const OLD_SECTIONS = { retention: "settings", limits: "settings" };

async function route() {
  if (!me) return;
  const wanted = OLD_SECTIONS[location.hash.slice(1)] ?? location.hash.slice(1);
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

/**
 * Puts every page back as a fresh load shows it: nothing one session saw or typed (a chosen file, an upload's
 * progress or refusal, a new secret, form errors, lists) is left for the next sign-in in the same tab. At a
 * logout the section in the address goes too, so the next account starts at Quick start; a reload keeps it.
 */
function resetPage({ leaveSection }) {
  currentUpload?.abort();
  currentUpload = null;
  for (const form of document.querySelectorAll("form")) {
    form.reset();
    const alert = form.querySelector("[data-error]");
    if (alert) alert.textContent = "";
    clearFieldErrors(form);
  }
  $("upload-progress-wrap").hidden = true;
  $("upload-progress").value = 0;
  $("upload-progress-text").textContent = "";
  $("upload-result").hidden = true;
  $("upload-summary").textContent = "";
  $("upload-errors").replaceChildren();
  for (const id of ["new-pk", "new-sk", "identity-secret"]) $(id).value = "";
  $("new-key").hidden = true;
  $("identity-new").hidden = true;
  for (const id of [
    "keys-rows",
    "members-rows",
    "audit-rows",
    "analytics-tiles",
    "analytics-chart",
    "analytics-table",
    "experiments-rows",
    "experiment-verdict",
    "experiment-charts",
    "experiment-table",
    "experiment-variants",
    "rules-rows",
    "try-result",
    "rule-preview-result",
  ]) {
    $(id).replaceChildren();
  }
  Object.assign(analytics, { from: null, to: null, granularity: "day", split: "strategies", data: null });
  clearTimeout(experiment.timer);
  Object.assign(experiment, { id: null, results: null, timer: null });
  $("experiment-results").hidden = true;
  editingRule = null;
  showRuleForm();
  auditBefore = null;
  $("start-pk").textContent = "…";
  for (const id of ["identity-status", "retention-status", "limits-status"]) $(id).textContent = "…";
  $("toast").classList.remove("shown");
  if (leaveSection && location.hash) history.replaceState(null, "", location.pathname + location.search);
}

function signedIn(data) {
  resetPage({ leaveSection: false });
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
  const ended = me !== null;
  me = null;
  resetPage({ leaveSection: ended });
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

const canManageKeys = () => me.user.role === "OWNER" || me.user.role === "ADMIN";

async function loadStart() {
  let pk;
  let active;
  if (me.user.role !== "MEMBER") {
    const { key_pairs } = await api("GET", "/v1/keys");
    active = key_pairs.find((p) => p.status === "active");
    pk = active ? active.publishable_key : "(generate a key pair first)";
  } else {
    pk = "(ask an OWNER or ADMIN for the publishable key)";
  }
  $("start-pk").textContent = pk;
  $("start-pk-copy").hidden = !active;
  $("start-no-key").hidden = active !== undefined || me.user.role === "MEMBER";
  $("start-no-key-text").textContent = canManageKeys()
    ? "No key pair yet: generate one to use the snippets below (its secret key is shown once)."
    : "No key pair yet: ask an OWNER or ADMIN to generate one.";
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

/** Each pair as a card: its keys on lines of their own, never cut mid-token, and Revoke always in view. */
async function loadKeys() {
  const { key_pairs } = await api("GET", "/v1/keys");
  $("keys-rows").replaceChildren(
    ...key_pairs.map((p) => {
      const created = when(p.created_at);
      return el(
        "li",
        { class: `key-pair ${p.status}` },
        el(
          "div",
          { class: "key-head" },
          el("span", { text: `Created ${created}` }),
          el("span", { class: "key-status", text: p.status === "revoked" ? `revoked ${when(p.revoked_at)}` : "active" }),
          canManageKeys() && p.status === "active"
            ? el("button", {
                type: "button",
                class: "danger",
                text: "Revoke",
                "aria-label": `Revoke the pair created ${created}`,
                onclick: () => revoke(p),
              })
            : "",
        ),
        el(
          "dl",
          { class: "key-values" },
          el("dt", { text: "Publishable key" }),
          el(
            "dd",
            {},
            el("code", { class: "key", text: p.publishable_key }),
            el("button", {
              type: "button",
              class: "secondary small",
              text: "Copy",
              "aria-label": `Copy the publishable key of the pair created ${created}`,
              onclick: () => copyText(p.publishable_key),
            }),
          ),
          el("dt", { text: "Secret key" }),
          el("dd", {}, el("code", { class: "key", text: p.secret_key }), el("span", { class: "muted", text: "shown only when generated" })),
        ),
      );
    }),
  );
  if (key_pairs.length === 0) $("keys-rows").append(el("li", { class: "muted", text: "No key pairs yet." }));
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

/** Copies text; without clipboard permission, selects `node`'s text (when given) for Ctrl+C. */
async function copyText(text, node) {
  try {
    await navigator.clipboard.writeText(text);
    toast("Copied.");
  } catch {
    if (node) getSelection().selectAllChildren(node);
    toast(node ? "Press Ctrl+C to copy." : "Copying is not allowed here: select the key and press Ctrl+C.");
  }
}

/** From the Quick start: the new pair is shown on the API keys page, where its secret key is shown once. */
async function generateFromStart() {
  location.hash = "keys";
  await generate();
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
/** The most days the service keeps events (the organisation may keep them for fewer). */
let retentionMax = 400;

function showRetention(r) {
  const own = r.events_retention_days === null ? "the service's" : "your organisation's";
  $("retention-status").textContent = `Events are kept ${r.effective_days} days (${own}; the service keeps them ${r.service_retention_days}).`;
  retentionMax = r.service_retention_days;
  $("retention-days").max = String(r.service_retention_days);
  $("retention-days").value = String(r.effective_days);
  $("retention-default").disabled = r.events_retention_days === null;
}

async function loadRetention() {
  showRetention(await api("GET", RETENTION));
}

async function setRetention(days) {
  if (days !== null) checkFields($("retention-form"), { events_retention_days: Number.isInteger(days) && days >= 1 && days <= retentionMax });
  showRetention(await api("PATCH", RETENTION, { events_retention_days: days }));
  toast(days === null ? "Retention set to the service's." : `Events are now kept ${days} days.`);
}

// --- Rate limit -------------------------------------------------------------------------------------------

const LIMITS = "/v1/settings/rate-limit";

function showLimits(r) {
  const own = r.rate_limit_max === null && r.rate_limit_window_s === null ? "the service's" : "your organisation's";
  $("limits-status").textContent =
    `Your API keys may make ${r.effective_max.toLocaleString("en")} requests per ${r.effective_window_s.toLocaleString("en")} seconds ` +
    `(${own}; the service's is ${r.service_max.toLocaleString("en")} per ${r.service_window_s.toLocaleString("en")}).`;
  $("limits-max").value = String(r.effective_max);
  $("limits-window").value = String(r.effective_window_s);
  $("limits-default").disabled = r.rate_limit_max === null && r.rate_limit_window_s === null;
}

async function loadLimits() {
  showLimits(await api("GET", LIMITS));
}

async function setLimits(values) {
  const max = Number(values.max);
  const windowS = Number(values.window);
  checkFields($("limits-form"), {
    rate_limit_max: values.max !== "" && Number.isInteger(max) && max >= 1 && max <= 1_000_000,
    rate_limit_window_s: values.window !== "" && Number.isInteger(windowS) && windowS >= 60 && windowS <= 86_400,
  });
  showLimits(await api("PATCH", LIMITS, { rate_limit_max: max, rate_limit_window_s: windowS }));
  toast(`Rate limit: ${max.toLocaleString("en")} requests per ${windowS.toLocaleString("en")} seconds.`);
}

async function useServiceLimits() {
  showLimits(await api("PATCH", LIMITS, { rate_limit_max: null, rate_limit_window_s: null }));
  toast("Rate limit set to the service's.");
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

/** The upload under way, so that signing out stops it. */
let currentUpload = null;

/** XMLHttpRequest rather than fetch: it reports upload progress, for the progress bar. */
function sendFile(kind, body, type, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    currentUpload = xhr;
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
    xhr.addEventListener("abort", () => reject(new ApiError(0, "aborted", "the upload was stopped")));
    xhr.addEventListener("loadend", () => {
      if (currentUpload === xhr) currentUpload = null;
    });
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

/** Runs an upload; a refusal replaces the progress text ("100%, storing…" would otherwise stay) and is shown in the form. */
async function upload(values) {
  try {
    await uploadFile(values);
  } catch (err) {
    if (err.code === "aborted") return; // signed out meanwhile: the page is reset already
    if (!$("upload-progress-wrap").hidden) {
      $("upload-progress-text").textContent = `Refused: ${err.message}`;
      $("upload-progress").value = 0;
    }
    throw err;
  }
}

async function uploadFile({ kind }) {
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
    `${total.accepted} ${kind === "events" ? "events" : kind} stored, ${total.rejected} rows refused` +
    (total.rejected > total.errors.length ? ` (the first ${total.errors.length} are listed)` : "") +
    ".";
  $("upload-errors").replaceChildren(...total.errors.map((e) => el("tr", {}, el("td", { text: String(e.line) }), el("td", { text: e.message }))));
  $("upload-result").hidden = false;
}

// --- Analytics --------------------------------------------------------------------------------------------

const DAY_MS = 86_400_000;
/** The API's bounds: hourly points for ranges under 3 days, daily ones for at most 400 days. */
const HOURLY_MAX_MS = 3 * DAY_MS;
const DAILY_MAX_DAYS = 400;

/** The range shown (ISO instants), its points, its split, and the last answer (drawn again when the width changes). */
const analytics = { from: null, to: null, granularity: "day", split: "strategies", data: null };

const pct = (x) => (x === null ? "—" : `${(x * 100).toFixed(x !== 0 && x < 0.1 ? 2 : 1)}%`);
const num = (n) => Math.round(n).toLocaleString("en");
const rateOf = (part, whole) => (whole === 0 ? null : part / whole);
const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);
/** An instant as the page's dates are given: in UTC. */
const utc = (iso) => new Date(iso).toLocaleString("en", { timeZone: "UTC", dateStyle: "medium", timeStyle: "short" });

/** A preset: the last 24 hours by the hour, or the last `days` UTC days (today included) by the day. */
function presetRange(days) {
  const now = Date.now();
  if (days === 1) return { from: new Date(now - DAY_MS).toISOString(), to: new Date(now).toISOString(), granularity: "hour" };
  const today = Date.parse(isoDay(now));
  return { from: new Date(today - (days - 1) * DAY_MS).toISOString(), to: new Date(now).toISOString(), granularity: "day" };
}

function showRangeInputs() {
  $("analytics-from").value = analytics.from.slice(0, 10);
  $("analytics-to").value = isoDay(Date.parse(analytics.to) - 1);
  $("analytics-granularity").value = analytics.granularity;
  $("analytics-split").value = analytics.split;
}

async function loadAnalytics() {
  if (analytics.from === null) Object.assign(analytics, presetRange(30));
  showRangeInputs();
  await fetchAnalytics();
}

async function fetchAnalytics() {
  const q = new URLSearchParams({ from: analytics.from, to: analytics.to, granularity: analytics.granularity });
  analytics.data = await api("GET", `/v1/analytics/strategies?${q}`);
  renderAnalytics();
}

/** The date inputs (UTC days, both included; the range ends now at the latest) with the form's own checks. */
function rangeFromForm(v) {
  const from = Date.parse(`${v.from}T00:00:00Z`);
  const toDay = Date.parse(`${v.to}T00:00:00Z`);
  const checks = { from: Number.isFinite(from), to: Number.isFinite(toDay) };
  if (checks.from && checks.to) {
    checks.to = toDay >= from;
    checks.from = toDay - from < DAILY_MAX_DAYS * DAY_MS;
  }
  const to = Math.min(Date.now(), toDay + DAY_MS);
  checks.to = checks.to && to > from;
  if (checks.from && checks.to) checks.granularity = v.granularity !== "hour" || to - from < HOURLY_MAX_MS;
  checkFields($("analytics-form"), checks);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), granularity: v.granularity };
}

const BUCKET_LABEL = {
  day: (iso) => new Date(iso).toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" }),
  hour: (iso) => {
    const d = new Date(iso);
    return d.getUTCHours() === 0
      ? d.toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" })
      : `${String(d.getUTCHours()).padStart(2, "0")}:00`;
  },
};

/** The width each chart gets: the container's, cut in two columns (`columns`: 2) where two fit, as drawn. */
function chartWidth(container, columns = 1) {
  const width = container.clientWidth || 640;
  const cols = columns === 2 && width >= 720 ? 2 : 1;
  container.classList.toggle("two-columns", cols === 2);
  return Math.floor((width - (cols - 1) * 16) / cols);
}

/** The lines of the chosen split: each strategy, or each scenario (the API's top 20) and the rest together. */
function splitLines(data, split) {
  const lines =
    split === "strategies"
      ? data.series.strategies.map((s) => ({ name: s.strategy, ...s }))
      : data.series.scenarios.map((s) => ({ name: s.scenario, ...s }));
  if (split === "scenarios" && data.series.other_scenarios) lines.push({ name: "other scenarios", ...data.series.other_scenarios });
  return lines;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

function renderAnalytics() {
  const data = analytics.data;
  if (!data) return;
  const t = data.totals;
  const inRange = t.events_total;
  const tile = (label, value, detail) =>
    el(
      "div",
      { class: "tile" },
      el("span", { class: "tile-label", text: label }),
      el("strong", { text: value }),
      el("span", { class: "muted", text: detail }),
    );
  $("analytics-tiles").replaceChildren(
    tile("Items", num(t.items_active), `active, of ${num(t.items)}`),
    tile("Users", num(t.users), "stored"),
    tile(
      "Events in range",
      num(inRange),
      t.events
        .map((e) => [e.family, sum(e.counts)])
        .filter(([, n]) => n > 0)
        .map(([family, n]) => `${family} ${num(n)}`)
        .join(" · ") || "none",
    ),
    tile(
      "Ingestion",
      `${t.ingestion.last_minute_per_s.toLocaleString("en", { maximumFractionDigits: 1 })}/s`,
      `last minute; ${t.ingestion.last_hour_per_s.toLocaleString("en", { maximumFractionDigits: 1 })}/s last hour`,
    ),
  );
  const lines = splitLines(data, analytics.split);
  const labels = data.buckets.map(BUCKET_LABEL[data.granularity] ?? BUCKET_LABEL.day);
  const charts = $("analytics-chart");
  const width = chartWidth(charts, 2);
  const per = analytics.split === "strategies" ? "strategy" : "scenario";
  const range = `${utc(data.from)} to ${utc(data.to)} UTC, one point per ${data.granularity}`;
  const drawn = [];
  if (lines.length === 0) drawn.push(el("p", { class: "muted", text: "No recommendations served in this range." }));
  else {
    drawn.push(
      lineChart({
        title: `Served recommendations per ${per}`,
        description: `Recommendations served per ${data.granularity}, one line per ${per}, ${range}.`,
        labels,
        series: lines.map((l) => ({ name: l.name, values: l.served })),
        format: num,
        width,
      }),
      lineChart({
        title: `Click-through per ${per}`,
        description: `Share of served recommendations followed by a click, per ${data.granularity}, ${range}. Gaps: nothing served.`,
        labels,
        series: lines.map((l) => ({ name: l.name, values: l.served.map((n, i) => rateOf(l.clicks[i], n)) })),
        format: pct,
        width,
        ratio: true,
      }),
      lineChart({
        title: `Conversion per ${per}`,
        description: `Share of served recommendations followed by a conversion, per ${data.granularity}, ${range}. Gaps: nothing served.`,
        labels,
        series: lines.map((l) => ({ name: l.name, values: l.served.map((n, i) => rateOf(l.conversions[i], n)) })),
        format: pct,
        width,
        ratio: true,
      }),
    );
  }
  if (inRange > 0) {
    drawn.push(
      lineChart({
        title: "Events per family",
        description: `Events received per ${data.granularity}, one line per event family, ${range}.`,
        labels,
        series: t.events.map((e) => ({ name: e.family, values: e.counts })),
        format: num,
        width,
      }),
    );
  }
  charts.replaceChildren(...drawn);
  const rows = lines.map((l) => {
    const served = sum(l.served);
    const clicks = sum(l.clicks);
    const conversions = sum(l.conversions);
    return el(
      "tr",
      {},
      el("th", { scope: "row", text: l.name }),
      el("td", { class: "num", text: num(served) }),
      el("td", { class: "num", text: num(clicks) }),
      el("td", { class: "num", text: pct(rateOf(clicks, served)) }),
      el("td", { class: "num", text: num(conversions) }),
      el("td", { class: "num", text: pct(rateOf(conversions, served)) }),
    );
  });
  $("analytics-table").replaceChildren(
    el(
      "table",
      { class: "figures" },
      el("caption", { text: `Totals per ${per}, ${range}` }),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ...[per[0].toUpperCase() + per.slice(1), "Served", "Clicks", "Click-through", "Conversions", "Conversion"].map((h) =>
            el("th", { scope: "col", text: h }),
          ),
        ),
      ),
      el("tbody", {}, ...(rows.length > 0 ? rows : [el("tr", {}, el("td", { colspan: 6, class: "muted", text: "Nothing served in this range." }))])),
    ),
  );
}

// --- Experiments ------------------------------------------------------------------------------------------

const canExperiment = () => ["OWNER", "ADMIN", "DEVELOPER"].includes(me.user.role);
/** The experiment whose results are shown, its last results, and the timer that refreshes a running one. */
const experiment = { id: null, results: null, timer: null };
const EXPERIMENT_REFRESH_MS = 20_000;

async function loadExperiments() {
  $("experiments-readonly").hidden = canExperiment();
  if ($("experiment-variants").children.length === 0) resetVariants();
  const { experiments } = await api("GET", "/v1/experiments");
  $("experiments-rows").replaceChildren(
    ...(experiments.length === 0
      ? [el("tr", {}, el("td", { colspan: 4, class: "muted", text: "No experiments yet." }))]
      : experiments.map((e) =>
          el(
            "tr",
            { "data-experiment": e.experiment_id, "aria-current": e.experiment_id === experiment.id ? "true" : false },
            el(
              "th",
              { scope: "row" },
              el("button", {
                type: "button",
                class: "link",
                text: e.name,
                "aria-label": `Results of ${e.name}`,
                onclick: () => showExperiment(e.experiment_id).catch((err) => toast(err.message)),
              }),
            ),
            el("td", {}, el("code", { text: e.scenario })),
            el("td", {}, el("span", { class: `status ${e.status}`, text: e.status === "running" ? "running" : `stopped ${when(e.stopped_at)}` })),
            el("td", { text: when(e.created_at) }),
          ),
        )),
  );
  if (experiment.id === null && experiments.length > 0) await showExperiment(experiments[0].experiment_id, { focus: false });
  else if (experiment.id !== null) await showExperiment(experiment.id, { focus: false });
}

async function showExperiment(id, { focus = true } = {}) {
  experiment.id = id;
  experiment.results = await api("GET", `/v1/analytics/experiments/${id}`);
  for (const row of $("experiments-rows").querySelectorAll("tr")) {
    if (row.dataset.experiment === id) row.setAttribute("aria-current", "true");
    else row.removeAttribute("aria-current");
  }
  renderExperiment();
  clearTimeout(experiment.timer);
  if (experiment.results.status === "running") experiment.timer = setTimeout(refreshExperiment, EXPERIMENT_REFRESH_MS);
  if (focus) $("experiment-results-title").scrollIntoView({ block: "start" });
}

/** While its page is open, a running experiment's results are fetched again every 20 s. */
function refreshExperiment() {
  if (!me || $("view-experiments").hidden || experiment.id === null) return;
  showExperiment(experiment.id, { focus: false }).catch((err) => toast(err.message));
}

function renderExperiment() {
  const r = experiment.results;
  if (!r) return;
  const measure = $("experiment-measure").value;
  const m = MEASURES[measure];
  $("experiment-results").hidden = false;
  $("experiment-results-title").textContent = `Results: ${r.name}`;
  $("experiment-stop").hidden = !canExperiment() || r.status !== "running";
  const users = sum(r.variants.map((v) => v.users));
  $("experiment-summary").textContent =
    `On scenario ${r.scenario}, ${r.status === "running" ? `running since ${when(r.created_at)}` : `${when(r.created_at)} to ${when(r.stopped_at)}`}; ` +
    `${num(users)} users, ${num(sum(r.variants.map((v) => v.served)))} recommendations served.` +
    (r.status === "running" ? " Refreshed every 20 seconds while this page is open." : "");
  $("experiment-verdict").replaceChildren(...verdicts(r, measure).map((v) => el("li", { class: `verdict-${v.kind}`, text: v.text })));
  const charts = $("experiment-charts");
  const width = chartWidth(charts);
  const days = [...new Set(r.daily.map((d) => d.day))];
  const names = r.variants.map((v) => v.variant);
  const rateKey = measure.includes("conversion") ? "conversion_rate" : "click_through_rate";
  const daily = names.map((name) => ({
    name,
    values: days.map((day) => {
      const d = r.daily.find((x) => x.day === day && x.variant === name);
      return d && d.served > 0 ? d[rateKey] : null;
    }),
  }));
  charts.replaceChildren(
    intervalChart({
      title: `${m.label}, with 95 % intervals`,
      description: `Per variant: the rate, and the interval that holds the true rate with 95 % confidence. Shaded: the control's interval.`,
      rows: r.variants.map((v) => ({ label: v.variant, control: v.control, ...v[measure] })),
      format: pct,
      width,
    }),
    ...(days.length > 0
      ? [
          lineChart({
            title: `${rateKey === "conversion_rate" ? "Conversion" : "Click-through"} per recommendation, per day`,
            description: "Per UTC day and variant: the share of the day's served recommendations followed by one. Gaps: nothing served that day.",
            labels: days.map((d) => BUCKET_LABEL.day(`${d}T00:00:00Z`)),
            series: daily,
            format: pct,
            width,
            ratio: true,
            height: 200,
          }),
        ]
      : []),
  );
  const diff = (v) => {
    if (!v.against_control) return "control";
    const d = v.against_control[measure];
    const sign = (x) => `${x > 0 ? "+" : ""}${(x * 100).toFixed(2)}`;
    return `${sign(d.difference)} points (${sign(d.low)} to ${sign(d.high)}); p ${d.p_value < 0.001 ? "< 0.001" : `= ${d.p_value.toFixed(3)}`}`;
  };
  $("experiment-table").replaceChildren(
    el(
      "table",
      { class: "figures" },
      el("caption", { text: `Per variant: ${m.label.toLowerCase()} with its 95 % interval, and the difference against the control` }),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ...["Variant", "Users", "Served", "Clicks", "Conversions", m.label, "Against the control"].map((h) => el("th", { scope: "col", text: h })),
        ),
      ),
      el(
        "tbody",
        {},
        ...r.variants.map((v) =>
          el(
            "tr",
            {},
            el("th", { scope: "row", text: v.variant }),
            el("td", { class: "num", text: num(v.users) }),
            el("td", { class: "num", text: num(v.served) }),
            el("td", { class: "num", text: num(v.clicks) }),
            el("td", { class: "num", text: num(v.conversions) }),
            el("td", { class: "num", text: `${pct(v[measure].rate)} (${pct(v[measure].low)}–${pct(v[measure].high)})` }),
            el("td", { text: diff(v) }),
          ),
        ),
      ),
    ),
  );
  $("experiment-test").textContent = `How it is computed: ${r.test}.`;
}

async function stopExperiment() {
  const r = experiment.results;
  if (!r) return;
  const ok = await confirmAction(
    `Stop the experiment ${r.name}? Every user of scenario ${r.scenario} gets the request as sent from now on; the results so far stay.`,
    "Stop experiment",
  );
  if (!ok) return;
  await api("POST", `/v1/experiments/${r.experiment_id}/stop`);
  toast(`Experiment ${r.name} stopped.`);
  await loadExperiments();
}

/** The strategies a variant may use: the ones the Try it page offers. */
const strategyNames = () => [...$("try-strategy").options].map((o) => o.value);

function variantRow(k, values = {}) {
  const id = (field) => `variant-${k}-${field}`;
  const path = (field) => `variants[${k}].${field}`;
  const control = k === 0;
  const field = (name, label, input) =>
    el(
      "div",
      {},
      el("label", { for: id(name), text: label }),
      input,
      el("p", { id: `${id(name)}-error`, class: "field-error", "data-field-error": path(name) }),
    );
  const input = (name, attrs) => el("input", { id: id(name), name: `${name}-${k}`, "aria-describedby": `${id(name)}-error`, ...attrs });
  const overrides = control
    ? [el("p", { class: "muted control-note", text: "The control: recommendations as requested, nothing overridden." })]
    : [
        field(
          "strategy",
          "Strategy",
          el(
            "select",
            { id: id("strategy"), name: `strategy-${k}`, "aria-describedby": `${id("strategy")}-error` },
            el("option", { value: "", text: "as requested" }),
            ...strategyNames().map((s) => el("option", { value: s, text: s, selected: values.strategy === s })),
          ),
        ),
        field("diversity", "Diversity (0 to 1)", input("diversity", { type: "number", min: 0, max: 1, step: "0.1", value: values.diversity ?? "" })),
        field("max_per", "Max per (JSON)", input("max_per", { placeholder: '{"brand": 2}', autocomplete: "off", value: values.max_per ?? "" })),
      ];
  return el(
    "li",
    { class: "variant", "data-variant": k },
    el(
      "div",
      { class: "variant-head" },
      el("strong", { text: control ? "Control" : `Variant ${k + 1}` }),
      control
        ? ""
        : el("button", {
            type: "button",
            class: "secondary small",
            text: "Remove",
            "aria-label": `Remove variant ${k + 1}`,
            onclick: () => removeVariant(k),
          }),
    ),
    el(
      "div",
      { class: "fields" },
      field("name", "Name", input("name", { maxlength: 32, required: true, value: values.name ?? "", autocomplete: "off" })),
      field("share", "Share (%)", input("share", { type: "number", min: 0, max: 100, step: "any", required: true, value: values.share ?? "" })),
      ...overrides,
    ),
  );
}

/** The variant rows' current values, so that adding or removing one keeps what was typed. */
function variantValues() {
  return [...$("experiment-variants").children].map((li, k) => {
    const get = (f) => li.querySelector(`#variant-${k}-${f}`)?.value ?? "";
    return { name: get("name"), share: get("share"), strategy: get("strategy"), diversity: get("diversity"), max_per: get("max_per") };
  });
}

function showVariants(values) {
  $("experiment-variants").replaceChildren(...values.map((v, k) => variantRow(k, v)));
  $("experiment-add-variant").disabled = values.length >= 5;
}

function resetVariants() {
  showVariants([
    { name: "A", share: "50" },
    { name: "B", share: "50", strategy: "trending" },
  ]);
}

function addVariant() {
  const values = variantValues();
  if (values.length >= 5) return;
  values.push({ name: String.fromCharCode(65 + values.length), share: "" });
  showVariants(values);
  $(`variant-${values.length - 1}-name`).focus();
}

function removeVariant(k) {
  const values = variantValues();
  if (values.length <= 2) {
    toast("An experiment needs at least 2 variants.");
    return;
  }
  values.splice(k, 1);
  showVariants(values);
}

function splitEvenly() {
  const values = variantValues();
  const each = Math.floor(10000 / values.length) / 100;
  values.forEach((v, k) => (v.share = String(k === 0 ? Math.round((100 - each * (values.length - 1)) * 100) / 100 : each)));
  showVariants(values);
}

/** The experiment form as POST /v1/experiments takes it, after the checks a person can fix before sending. */
function experimentFromForm(v) {
  const variants = variantValues();
  const problems = [];
  if (!v.name.trim()) problems.push("name: Enter a name for the experiment.");
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(v.scenario.trim())) {
    problems.push("scenario: Enter the scenario as your pages send it: lowercase letters, digits, '-' or '_'.");
  }
  const holdout = v.holdout === "" ? 0 : Number(v.holdout);
  if (!(holdout >= 0 && holdout <= 50)) problems.push("holdout: Enter a share from 0 to 50 %.");
  const shares = variants.map((x) => Number(x.share));
  variants.forEach((x, k) => {
    if (!x.name.trim()) problems.push(`variants[${k}].name: Name the variant.`);
    if (!(shares[k] > 0 && shares[k] <= 100)) problems.push(`variants[${k}].share: Enter a share above 0 and at most 100 %.`);
  });
  if (shares.every((s) => s > 0) && Math.abs(sum(shares) - 100) > 0.01) {
    problems.push(`variants: The shares must add up to 100 % (they add up to ${Math.round(sum(shares) * 100) / 100} %).`);
  }
  const body = {
    name: v.name.trim(),
    scenario: v.scenario.trim(),
    holdout: holdout / 100,
    variants: variants.map((x, k) => {
      const variant = { name: x.name.trim(), share: shares[k] / 100 };
      if (k === 0) return variant;
      if (x.strategy) variant.strategy = x.strategy;
      if (x.diversity !== "") variant.diversity = Number(x.diversity);
      try {
        const maxPer = jsonField(`variants[${k}].max_per`, x.max_per);
        if (maxPer !== undefined) variant.max_per = maxPer;
      } catch {
        problems.push(`variants[${k}].max_per: Enter JSON like {"brand": 2}, or leave it empty.`);
      }
      return variant;
    }),
  };
  if (problems.length > 0) throw new ApiError(400, "validation_error", problems.join("; "));
  return body;
}

/**
 * Refusals of the experiment form, each under its field (variants[1].share …): the form's own words, or the
 * API's problem (its messages are written for people, "must be 1 to 32 letters, …"); the rest in the alert.
 */
function showExperimentError(form, err) {
  clearFieldErrors(form);
  const alert = form.querySelector("[data-error]");
  if (err.code === "conflict") {
    setFieldError(form, "scenario", err.message);
    alert.textContent = "Please correct the fields marked above.";
    return;
  }
  if (err.code !== "validation_error") {
    alert.textContent = err.message;
    return;
  }
  const rest = [];
  let shown = 0;
  for (const part of err.message.split(/;\s*/)) {
    const match = /^([\w.[\]]+): (.*)$/.exec(part.trim());
    const field = match?.[1];
    let words = match?.[2] ?? part;
    words = words.charAt(0).toUpperCase() + words.slice(1);
    if (field && setFieldError(form, field, words)) shown++;
    else rest.push(part);
  }
  alert.textContent = rest.length > 0 ? rest.join("; ") : shown > 0 ? "Please correct the fields marked above." : err.message;
}

async function createExperiment(v) {
  const form = $("experiment-form");
  try {
    const made = await api("POST", "/v1/experiments", experimentFromForm(v));
    form.reset();
    resetVariants();
    toast(`Experiment ${made.name} running on scenario ${made.scenario}.`);
    experiment.id = made.experiment_id;
    await loadExperiments();
  } catch (err) {
    showExperimentError(form, err);
  }
}

// --- Try it and Rules: previews ---------------------------------------------------------------------------

/** Ids typed comma-separated, or undefined when none. */
function idList(text) {
  const ids = (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return ids.length > 0 ? ids : undefined;
}

/** A JSON field of a form, or undefined when empty; a 400 naming the field when it is not JSON. */
function jsonField(field, text) {
  if (!text || text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", `${field}: is not valid JSON`);
  }
}

/** The recommend body the preview forms describe (the API validates it as /v1/recommend does). */
function previewBody(v) {
  const body = { strategy: v.strategy };
  if (v.scenario?.trim()) body.scenario = v.scenario.trim();
  if (v.user_id?.trim()) body.user_id = v.user_id.trim();
  const items = idList(v.items);
  if (items?.length === 1) body.context_item_id = items[0];
  else if (items) body.context_item_ids = items;
  const candidates = idList(v.candidates);
  if (candidates) body.candidates = candidates;
  if (v.limit) body.limit = Number(v.limit);
  if (v.diversity !== undefined && v.diversity !== "") body.diversity = Number(v.diversity);
  const maxPer = jsonField("max_per", v.max_per);
  if (maxPer !== undefined) body.max_per = maxPer;
  const filters = jsonField("filters", v.filters);
  if (filters !== undefined) body.filters = filters;
  return body;
}

const FALLBACK_WHY = {
  no_user: "no user was named",
  unknown_user: "the user is unknown",
  hidden_user: "the user is hidden",
  unknown_context_item: "the context items are unknown",
  no_signal: "the strategy had no signal for this request",
  page_short: "the strategy ranked fewer items than the page needs",
};

const rulesText = (rules) => rules.map((r) => `${r.action} "${r.name}"`).join(", ");

/** A picture attribute worth showing: an https (or same-site) address. */
function imageOf(metadata) {
  for (const key of ["image", "image_url", "thumbnail", "picture"]) {
    const v = metadata?.[key];
    if (typeof v === "string" && /^(https:\/\/|\/)/.test(v)) return v;
  }
  return undefined;
}

function renderPreview(container, data) {
  const x = data.explanation;
  const summary = [
    `Mode ${data.mode}; model: ${x.model}.`,
    `${x.eligible_items} of ${x.catalog_items} items may be returned; ${x.candidates_considered} were considered.`,
  ];
  for (const r of x.removed) summary.push(`${r.reason} removed ${r.count}${r.note ? ` (${r.note})` : ""}.`);
  if (x.emptied_by) summary.push(`No item was left after ${x.emptied_by}: it removed everything.`);
  if (x.fallback.reason) {
    const by = x.fallback.filled_by.length > 0 ? `, filled by ${x.fallback.filled_by.join(" then ")}` : "";
    summary.push(`Fallback: ${FALLBACK_WHY[x.fallback.reason] ?? x.fallback.reason}${by}.`);
  }
  summary.push(x.rules.length > 0 ? `Rules that apply: ${rulesText(x.rules)}.` : "No rule applies.");
  const list =
    data.results.length === 0
      ? el("p", { class: "muted", text: "No results." })
      : el(
          "ol",
          { class: "preview-results", "aria-label": "Results" },
          ...data.results.map((r, k) => {
            const why = x.results[k];
            const title = r.metadata?.title ?? r.metadata?.name ?? r.item_id;
            const image = imageOf(r.metadata);
            const facts = [
              `score ${r.score} · ${r.reason}`,
              `from ${why.source}${why.score === null ? "" : ` (score ${why.score})`}`,
              why.position_before_rules === null ? "not in the ranking before rules" : `position before rules ${why.position_before_rules}`,
            ];
            if (why.rules.length > 0) facts.push(`rules: ${rulesText(why.rules)}`);
            return el(
              "li",
              {},
              el("span", { class: "rank", text: String((data.pagination.page - 1) * data.pagination.limit + k + 1) }),
              ...(image ? [el("img", { src: image, alt: "", loading: "lazy" })] : []),
              el(
                "div",
                { class: "item" },
                el("strong", { text: String(title) }),
                title === r.item_id ? "" : el("span", { class: "muted", text: ` ${r.item_id}` }),
                el("p", { class: "why", text: facts.join(" · ") }),
              ),
            );
          }),
        );
  container.replaceChildren(
    el("h2", { text: "Explanation" }),
    el("ul", { class: "preview-summary" }, ...summary.map((t) => el("li", { text: t }))),
    list,
  );
}

async function preview(values, container) {
  const data = await api("POST", "/v1/recommend/preview", previewBody(values));
  renderPreview(container, data);
}

const canEditRules = () => ["OWNER", "ADMIN", "DEVELOPER"].includes(me.user.role);

async function loadRules() {
  $("rules-readonly").hidden = canEditRules();
  const { rules } = await api("GET", "/v1/rules");
  $("rules-rows").replaceChildren(
    ...(rules.length === 0
      ? [el("tr", {}, el("td", { colspan: 5, class: "muted", text: "No rules yet." }))]
      : rules.map((r) => {
          const detail = r.action === "pin" ? ` at ${r.position}` : r.action === "promote" ? ` ${r.share}` : r.factor ? ` × ${r.factor}` : "";
          const row = el(
            "tr",
            {},
            el("th", { scope: "row", text: r.name }),
            el("td", { text: `${r.action}${detail}` }),
            el("td", {}, el("code", { text: JSON.stringify(r.items) })),
            el("td", { text: r.enabled ? "yes" : "no" }),
          );
          if (canEditRules()) {
            row.append(
              el(
                "td",
                { class: "row-actions" },
                el(
                  "button",
                  { type: "button", class: "secondary small", "aria-label": `Edit the rule ${r.name}`, onclick: () => editRule(r) },
                  "Edit",
                ),
                el(
                  "button",
                  {
                    type: "button",
                    class: "secondary small",
                    "aria-label": `${r.enabled ? "Disable" : "Enable"} the rule ${r.name}`,
                    onclick: () => saveRule(r.rule_id, { ...ruleBody(r), enabled: !r.enabled }).catch((err) => toast(err.message)),
                  },
                  r.enabled ? "Disable" : "Enable",
                ),
                el(
                  "button",
                  { type: "button", class: "danger small", "aria-label": `Delete the rule ${r.name}`, onclick: () => deleteRule(r) },
                  "Delete",
                ),
              ),
            );
          }
          return row;
        })),
  );
}

/** A stored rule as PUT takes it back (without its id and times). */
function ruleBody(r) {
  const body = { ...r };
  for (const stored of ["rule_id", "created_at", "updated_at"]) delete body[stored];
  return body;
}

/** Shows the fields of the chosen action only. */
function showRuleForm() {
  const action = $("rule-action").value;
  for (const node of document.querySelectorAll("[data-for-action]")) node.hidden = !node.dataset.forAction.split(" ").includes(action);
  $("rule-form-title").textContent = editingRule ? `Edit rule ${editingRule.name}` : "New rule";
  $("rule-save").textContent = editingRule ? "Save rule" : "Create rule";
}

function editRule(r) {
  editingRule = r;
  const form = $("rule-form");
  showError(form, null);
  $("rule-name").value = r.name;
  $("rule-action").value = r.action;
  $("rule-items").value = JSON.stringify(r.items);
  $("rule-factor").value = r.factor ?? "";
  $("rule-position").value = r.position ?? "";
  $("rule-share").value = r.share ?? "";
  $("rule-scenarios").value = (r.scenarios ?? []).join(", ");
  $("rule-strategies").value = (r.strategies ?? []).join(", ");
  $("rule-starts").value = r.starts_at ?? "";
  $("rule-ends").value = r.ends_at ?? "";
  $("rule-enabled").checked = r.enabled;
  showRuleForm();
  $("rule-name").focus();
}

function newRule() {
  editingRule = null;
  $("rule-form").reset();
  showError($("rule-form"), null);
  showRuleForm();
}

/** The rule form's values as the rules API takes them. */
function ruleFromForm(v) {
  const body = { name: v.name ?? "", enabled: $("rule-enabled").checked, action: v.action, items: jsonField("items", v.items) ?? {} };
  const number = (field) => (v[field] !== undefined && v[field] !== "" ? Number(v[field]) : undefined);
  if (["boost", "bury"].includes(v.action)) body.factor = number("factor");
  if (v.action === "pin") body.position = number("position");
  if (v.action === "promote") body.share = number("share");
  const scenarios = idList(v.scenarios);
  if (scenarios) body.scenarios = scenarios;
  const strategies = idList(v.strategies);
  if (strategies) body.strategies = strategies;
  if (v.starts_at?.trim()) body.starts_at = v.starts_at.trim();
  if (v.ends_at?.trim()) body.ends_at = v.ends_at.trim();
  return body;
}

/** Creates (no id) or replaces a rule, then shows the list and the preview with it. */
async function saveRule(id, body) {
  if (id) await api("PUT", `/v1/rules/${id}`, body);
  else await api("POST", "/v1/rules", body);
  toast(id ? `Rule ${body.name} saved.` : `Rule ${body.name} created.`);
  await loadRules();
  await refreshRulePreview();
}

async function deleteRule(r) {
  if (!(await confirmAction(`Delete the rule ${r.name}? Recommendations stop applying it within a second.`, "Delete rule"))) return;
  try {
    await api("DELETE", `/v1/rules/${r.rule_id}`);
    if (editingRule?.rule_id === r.rule_id) newRule();
    toast(`Rule ${r.name} deleted.`);
    await loadRules();
    await refreshRulePreview();
  } catch (err) {
    toast(err.message);
  }
}

/** The preview beside the rule form, run again with its current request. */
async function refreshRulePreview() {
  const form = $("rule-preview-form");
  showError(form, null);
  try {
    await preview(formValues(form), $("rule-preview-result"));
  } catch (err) {
    showError(form, err);
  }
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

onSubmit($("login-form"), async (values) => {
  checkFields($("login-form"), { email: looksLikeEmail(values.email), password: values.password !== "" });
  signedIn(await api("POST", "/auth/login", values));
});
onSubmit($("register-form"), async (values) => {
  const name = values.organisation.trim();
  checkFields($("register-form"), {
    organisation: name.length > 0 && name.length <= 200,
    email: looksLikeEmail(values.email),
    password: values.password.length >= 10,
  });
  signedIn(await api("POST", "/auth/register", values));
});
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
onSubmit($("retention-form"), (values) => setRetention(values.days === "" ? NaN : Number(values.days)));
$("retention-default").addEventListener("click", () => setRetention(null).catch((err) => showError($("retention-form"), err)));
onSubmit($("limits-form"), setLimits);
$("limits-default").addEventListener("click", () => useServiceLimits().catch((err) => showError($("limits-form"), err)));
$("start-generate").addEventListener("click", () => generateFromStart().catch((err) => toast(err.message)));
for (const b of document.querySelectorAll("[data-copy-text]")) {
  b.addEventListener("click", () => copyText($(b.dataset.copyText).textContent, $(b.dataset.copyText)));
}
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
onSubmit($("try-form"), (v) => preview(v, $("try-result")));
onSubmit($("rule-preview-form"), (v) => preview(v, $("rule-preview-result")));
onSubmit($("rule-form"), async (v) => {
  await saveRule(editingRule?.rule_id, ruleFromForm(v));
  newRule();
});
$("rule-action").addEventListener("change", showRuleForm);
$("rule-new").addEventListener("click", newRule);
$("audit-more").addEventListener("click", () => loadAudit(false).catch((err) => toast(err.message)));
onSubmit($("analytics-form"), async (v) => {
  Object.assign(analytics, rangeFromForm(v), { split: v.split });
  await fetchAnalytics();
});
$("analytics-split").addEventListener("change", () => {
  analytics.split = $("analytics-split").value;
  renderAnalytics();
});
for (const b of document.querySelectorAll("[data-preset]")) {
  b.addEventListener("click", () => {
    showError($("analytics-form"), null);
    Object.assign(analytics, presetRange(Number(b.dataset.preset)));
    showRangeInputs();
    fetchAnalytics().catch((err) => showError($("analytics-form"), err));
  });
}
onSubmit($("experiment-form"), createExperiment);
$("experiment-add-variant").addEventListener("click", addVariant);
$("experiment-even").addEventListener("click", splitEvenly);
$("experiment-measure").addEventListener("change", renderExperiment);
$("experiment-refresh").addEventListener("click", () => showExperiment(experiment.id, { focus: false }).catch((err) => toast(err.message)));
$("experiment-stop").addEventListener("click", () => stopExperiment().catch((err) => toast(err.message)));
// Charts are drawn for the width they get: again when it changes (a phone turned, a window resized).
let resizing = null;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    if (!me) return;
    if (!$("view-analytics").hidden) renderAnalytics();
    if (!$("view-experiments").hidden) renderExperiment();
  }, 100);
});
window.addEventListener("hashchange", route);

api("GET", "/v1/me").then(signedIn, signedOut);

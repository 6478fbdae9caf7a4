// The web dashboard: plain DOM, no framework. The session is an HttpOnly cookie the page never sees;
// nothing is kept in localStorage. Every call goes to the same API the scripts use.

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
};

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
  const shown = refusedFields(err).filter((f) => FIELD_HELP[f] && setFieldError(form, f, FIELD_HELP[f]));
  alert.textContent = shown.length > 0 ? "Please correct the fields marked above." : err.message;
}

/** The form's own checks, before anything is sent: the same plain words as for the API's refusals. */
function checkFields(form, checks) {
  const failed = Object.entries(checks)
    .filter(([, ok]) => !ok)
    .map(([field]) => field);
  if (failed.length > 0) throw new ApiError(400, "validation_error", failed.map((f) => `${f}: ${FIELD_HELP[f]}`).join("; "));
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
  try: () => undefined,
  rules: async () => {
    await loadRules();
    await refreshRulePreview();
  },
  identity: loadIdentity,
  retention: loadRetention,
  limits: loadLimits,
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
  for (const id of ["keys-rows", "members-rows", "audit-rows", "analytics-chart", "rules-rows", "try-result", "rule-preview-result"]) {
    $(id).replaceChildren();
  }
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
onSubmit($("retention-form"), (values) => setRetention(Number(values.days)));
$("retention-default").addEventListener("click", () => setRetention(null).catch((err) => toast(err.message)));
onSubmit($("limits-form"), setLimits);
$("limits-default").addEventListener("click", () => useServiceLimits().catch((err) => toast(err.message)));
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
window.addEventListener("hashchange", route);

api("GET", "/v1/me").then(signedIn, signedOut);

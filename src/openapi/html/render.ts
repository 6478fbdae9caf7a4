import { HTTP_METHODS, type OpenApiDocument } from "../document.js";
import type { JsonSchema } from "../jsonSchema.js";
import { escapeHtml, prose } from "./escape.js";
import { fieldsOf, recordOf, resolve, type Field } from "./fields.js";

type Obj = Record<string, unknown>;
interface Context {
  schemas: Record<string, JsonSchema>;
  schemes: Record<string, Obj>;
}
interface Listed {
  method: string;
  path: string;
  op: Obj;
}

/** The API reference as one HTML page, rendered from the OpenAPI document itself; every text in it is escaped. */
export function renderReference(doc: OpenApiDocument, stylesheet: string, documentUrl: string): string {
  const info = doc.info as { title: string; version: string; description: string };
  const ctx: Context = {
    schemas: doc.components.schemas as Record<string, JsonSchema>,
    schemes: doc.components.securitySchemes as Record<string, Obj>,
  };
  const ops = operationsOf(doc);
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(info.title)}</title><link rel="stylesheet" href="${escapeHtml(stylesheet)}"></head><body>`,
    `<header><h1>${escapeHtml(info.title)}</h1>`,
    `<p>Version ${escapeHtml(info.version)}. The machine-readable description: <a href="${escapeHtml(documentUrl)}">${escapeHtml(documentUrl)}</a> (OpenAPI ${escapeHtml(String(doc.openapi))}).</p>`,
    ...info.description.split("\n\n").map((p) => `<p>${prose(p)}</p>`),
    "</header>",
    `<nav><h2>Operations</h2><ul>${ops.map(navEntry).join("")}</ul></nav>`,
    `<main>${ops.map((o) => operationSection(o, ctx)).join("")}</main>`,
    "</body></html>",
  ].join("\n");
}

export function operationsOf(doc: OpenApiDocument): Listed[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] as Obj })),
  );
}

const methodBadge = (method: string) => `<span class="method method-${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span>`;

function navEntry({ method, path, op }: Listed): string {
  return `<li><a href="#${escapeHtml(String(op.operationId))}">${methodBadge(method)}<code>${escapeHtml(path)}</code></a> ${escapeHtml(String(op.summary))}</li>`;
}

function operationSection(listed: Listed, ctx: Context): string {
  const { method, path, op } = listed;
  return [
    `<section class="operation" id="${escapeHtml(String(op.operationId))}">`,
    `<h2>${methodBadge(method)}<code>${escapeHtml(path)}</code> ${escapeHtml(String(op.summary))}</h2>`,
    `<p>${prose(String(op.description))}</p>`,
    `<p class="credential">${credential(op, ctx)}</p>`,
    parametersPart(op),
    bodyPart(op, ctx),
    responsesPart(op, ctx),
    "</section>",
  ].join("\n");
}

function credential(op: Obj, ctx: Context): string {
  const names = (op.security as Obj[]).flatMap((s) => Object.keys(s));
  if (names.length === 0) return "Credential: none.";
  return names.map((n) => `Credential: <strong>${escapeHtml(n)}</strong>: ${prose(String(ctx.schemes[n]?.description ?? ""))}`).join(" ");
}

function fieldTable(fields: Field[]): string {
  if (fields.length === 0) return "";
  const rows = fields.map(
    (f) =>
      `<tr><td><code>${escapeHtml(f.name)}</code></td><td>${escapeHtml(f.type)}</td><td>${f.required ? "yes" : "no"}</td><td>${prose(f.notes)}</td></tr>`,
  );
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function parametersPart(op: Obj): string {
  const params = (op.parameters as Obj[] | undefined) ?? [];
  if (params.length === 0) return "";
  const fields = params.map((p) => ({
    name: `${String(p.name)} (${String(p.in)})`,
    type: String((p.schema as Obj).type ?? "string"),
    required: p.required === true,
    notes: String(p.description ?? ""),
  }));
  return `<h3>Parameters</h3>${fieldTable(fields)}`;
}

const example = (value: unknown) => `<pre>${escapeHtml(typeof value === "string" ? value : JSON.stringify(value, null, 2))}</pre>`;

function bodyPart(op: Obj, ctx: Context): string {
  const body = op.requestBody as Obj | undefined;
  if (!body) return "";
  const content = body.content as Record<string, Obj>;
  const parts = Object.entries(content).map(([type, media]) => {
    const shown = media.example ?? Object.values((media.examples as Record<string, Obj> | undefined) ?? {})[0]?.value;
    return `<h4>${escapeHtml(type)}</h4>${example(shown)}`;
  });
  const record = recordOf(Object.values(content).at(-1)!.schema as JsonSchema, ctx.schemas);
  return `<h3>Request body</h3>${body.description ? `<p>${prose(String(body.description))}</p>` : ""}${fieldTable(fieldsOf(record, ctx.schemas))}${parts.join("")}`;
}

function responsesPart(op: Obj, ctx: Context): string {
  const parts = Object.entries(op.responses as Record<string, Obj>).map(([status, r]) => responsePart(status, r, ctx));
  return `<h3>Responses</h3>${parts.join("")}`;
}

function responsePart(status: string, r: Obj, ctx: Context): string {
  const headers = Object.keys((r.headers as Obj | undefined) ?? {});
  const [type, media] = Object.entries((r.content as Record<string, Obj> | undefined) ?? {})[0] ?? [];
  const out = [`<h4>${escapeHtml(status)}: ${prose(String(r.description))}</h4>`];
  if (headers.length > 0) out.push(`<p>Headers: ${headers.map((h) => `<code>${escapeHtml(h)}</code>`).join(", ")}</p>`);
  if (!media) return out.join("");
  const data = (resolve(media.schema as JsonSchema, ctx.schemas).properties as Record<string, JsonSchema> | undefined)?.data;
  if (data && status.startsWith("2")) out.push(fieldTable(fieldsOf(data, ctx.schemas, "data.")));
  if (media.example !== undefined) out.push(example(media.example));
  else if (media.examples) out.push(...Object.values(media.examples as Record<string, Obj>).map((e) => example(e.value)));
  else out.push(`<p>Body: <code>${escapeHtml(type!)}</code></p>`);
  return out.join("");
}

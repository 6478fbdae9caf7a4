import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";
import type { ApiResponse } from "./api.js";

/** Both are CommonJS modules whose exports also carry themselves as `default`, the name their types give. */
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON, walked by the checks below
type Doc = any;

/** The OpenAPI document's own fields: not JSON Schema keywords, but ajv reads schemas inside the document by pointer. */
const OPENAPI_FIELDS = ["openapi", "info", "tags", "paths", "components", "servers", "security", "externalDocs", "jsonSchemaDialect", "webhooks"];
const DOC_ID = "openapi.json";

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/**
 * Checks real answers against the document: the status must be documented for the operation, the body's media
 * type listed, the body valid against that response's schema (ajv, JSON Schema 2020-12, strict) and every
 * header the response marks required present. Returns the problems; none means the answer matches.
 */
export class AnswerChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: Doc) {
    addFormats(this.ajv);
    this.ajv.addVocabulary(OPENAPI_FIELDS);
    this.ajv.addSchema(doc, DOC_ID);
  }

  /** An answer of the operation `method path` (the documented path, `{id}` and all). */
  check(method: string, path: string, answer: ApiResponse): string[] {
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    if (!op) return [`${method} ${path} is not in the document`];
    const response = op.responses[String(answer.status)];
    if (!response) return [`${method} ${path}: status ${answer.status} is not documented`];
    return this.against(response, `#/${pointer("paths", path, method.toLowerCase(), "responses", String(answer.status))}`, answer);
  }

  /** An answer given for a path rather than an operation (`NotFound`, `MethodNotAllowed`). */
  checkShared(name: string, answer: ApiResponse): string[] {
    return this.against(this.doc.components.responses[name], `#/${pointer("components", "responses", name)}`, answer);
  }

  private against(response: Doc, at: string, answer: ApiResponse): string[] {
    const problems = Object.entries(response.headers ?? {})
      .filter(([name, h]) => (h as { required?: boolean }).required && !answer.headers.has(name))
      .map(([name]) => `${at}: header ${name} is required but absent`);
    const type = (answer.headers.get("content-type") ?? "").split(";")[0]!.trim();
    const mediaType = Object.keys(response.content ?? {}).find((t) => t.split(";")[0]!.trim() === type);
    if (!mediaType) return [...problems, `${at}: content type ${type} is not documented`];
    const validate = this.validator(`${DOC_ID}${at}/${pointer("content", mediaType, "schema")}`);
    if (!validate(answer.body))
      problems.push(...(validate.errors ?? []).map((e) => `${at}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
    return problems;
  }

  private validator(ref: string): ValidateFunction {
    const known = this.compiled.get(ref);
    if (known) return known;
    const compiled = this.ajv.compile({ $ref: ref });
    this.compiled.set(ref, compiled);
    return compiled;
  }

  /** Validates a value against a schema of the document given by its pointer (examples against their schemas). */
  validates(at: string, value: unknown): string[] {
    const validate = this.validator(`${DOC_ID}${at}`);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${at}: ${e.instancePath} ${e.message}`);
  }
}

export { pointer };

/**
 * The rule for what the API description holds: every route the router knows, except the files a browser
 * loads: the server's root (a redirect to the dashboard), the web dashboard's page and files, the SDK's browser
 * build, and the reference page rendered from the description with its stylesheet. A route is such a file when
 * its path is one of these prefixes or lies under one; any other route, JSON or not, must be in the description.
 */
const BROWSER_FILE_PREFIXES = ["/dashboard", "/docs", "/sdk"] as const;

export function isBrowserFile(pattern: string): boolean {
  return pattern === "/" || BROWSER_FILE_PREFIXES.some((p) => pattern === p || pattern.startsWith(`${p}/`));
}

/** A router pattern (`/v1/keys/:id/revoke`) as a document path (`/v1/keys/{id}/revoke`). */
export function documentPath(pattern: string): string {
  return pattern.replace(/:([a-z_]+)/g, "{$1}");
}

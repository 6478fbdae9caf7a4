/** Calls of the dashboard API with an organisation's token (key management, uploads), outside the paced traffic. */
export interface Called {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's JSON answer (or its text), whose fields the soak's steps read where they need them
  body: any;
}

export async function dashboardCall(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: string,
  contentType = "application/json",
): Promise<Called> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": contentType } : {}) },
    body,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed };
}

/** A call with an API key, for checking what a key is still allowed to do. */
export async function keyCall(url: string, key: string, path: string, body: string): Promise<Called> {
  const res = await fetch(`${url}${path}`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

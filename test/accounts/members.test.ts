import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg, type Org } from "../helpers/api.js";
import { tokenMailedTo } from "../helpers/mail.js";
import { addMember, INVITATION_SUBJECT, loginToken, MEMBER_PASSWORD, memberToken } from "../helpers/members.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { INVITATIONS_PENDING_MAX: "5" } });
});
afterAll(async () => {
  await server?.cleanup();
});

const newEmail = () => `m-${randomUUID()}@example.com`;
const add = (token: string, role: string, email = newEmail()) => call(server.url, "POST", "/v1/members", { token, json: { email, role } });
const patch = (token: string, userId: string, role: string) => call(server.url, "PATCH", `/v1/members/${userId}`, { token, json: { role } });
const ownerId = async (org: Org) => (await call(server.url, "GET", "/v1/me", { token: org.token })).body.data.user.id as string;
const acceptAs = (token: string, password = MEMBER_PASSWORD) =>
  call(server.url, "POST", "/auth/invitations/accept", { json: { token, password }, headers: { "x-forwarded-for": freshIp() } });
const accountsWith = async (email: string) =>
  (await server.db().query("SELECT count(*)::int AS n FROM accounts WHERE email = $1", [email])).rows[0].n as number;

describe("adding members (invitations)", () => {
  it("lets an OWNER invite a member with each role, who joins with the mailed token, signed in with that role", async () => {
    const org = await newOrg(server.url);
    for (const role of ["OWNER", "ADMIN", "DEVELOPER", "MEMBER"]) {
      const email = newEmail();
      const r = await add(org.token, role, email);
      expect(r.status).toBe(201);
      expect(r.body.data).toEqual({ email, role, expires_at: expect.any(String) });
      expect(await accountsWith(email)).toBe(0);
      const joined = await acceptAs(await tokenMailedTo(server, email, INVITATION_SUBJECT));
      expect(joined.status).toBe(201);
      expect(joined.body.data).toMatchObject({ user: { email, role }, organisation: { id: org.orgId } });
      const me = await call(server.url, "GET", "/v1/me", { token: await loginToken(server, email) });
      expect(me.body.data.user.role).toBe(role);
      expect(me.body.data.organisation.id).toBe(org.orgId);
    }
  });

  it("lets an ADMIN invite ADMIN, DEVELOPER and MEMBER but answers 403 forbidden_role for OWNER", async () => {
    const org = await newOrg(server.url);
    const admin = await memberToken(server, org, "ADMIN");
    for (const role of ["ADMIN", "DEVELOPER", "MEMBER"]) expect((await add(admin, role)).status).toBe(201);
    const owner = await add(admin, "OWNER");
    expect(owner.status).toBe(403);
    expect(owner.body.error).toBe("forbidden_role");
  });

  it("answers 403 forbidden_role when a DEVELOPER or a MEMBER invites a member", async () => {
    const org = await newOrg(server.url);
    for (const role of ["DEVELOPER", "MEMBER"] as const) {
      const r = await add(await memberToken(server, org, role), "MEMBER");
      expect(r.status).toBe(403);
      expect(r.body.error).toBe("forbidden_role");
    }
  });

  it("answers an email with an account in another organisation exactly as a new one, and takes nothing from its owner", async () => {
    const org = await newOrg(server.url);
    const other = await newOrg(server.url);
    const taken = await add(org.token, "MEMBER", other.email);
    const fresh = await add(org.token, "MEMBER", "fresh-" + other.email);
    expect(taken.status).toBe(fresh.status);
    expect({ ...taken.body, data: { ...taken.body.data, email: "", expires_at: "" } }).toEqual({
      ...fresh.body,
      data: { ...fresh.body.data, email: "", expires_at: "" },
    });
    expect(await accountsWith(other.email)).toBe(1);
    expect((await call(server.url, "GET", "/v1/me", { token: other.token })).body.data.organisation.id).toBe(other.orgId);
    // The invitee joins with a second account, in the inviting organisation; the first one is untouched.
    const accepted = await acceptAs(await tokenMailedTo(server, other.email, INVITATION_SUBJECT));
    expect(accepted.status).toBe(201);
    expect(accepted.body.data.organisation.id).toBe(org.orgId);
    expect(await accountsWith(other.email)).toBe(2);
    expect((await call(server.url, "GET", "/v1/me", { token: other.token })).body.data.organisation.id).toBe(other.orgId);
  });

  it("answers 409 conflict for an email already a member of this organisation", async () => {
    const org = await newOrg(server.url);
    const r = await add(org.token, "MEMBER", org.email);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("conflict");
  });

  it("answers 400 validation_error for an unknown role, a lower-case role or a password (the invitee sets it)", async () => {
    const org = await newOrg(server.url);
    for (const role of ["SUPERUSER", "member"]) {
      const r = await add(org.token, role);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_error");
    }
    const withPassword = await call(server.url, "POST", "/v1/members", {
      token: org.token,
      json: { email: newEmail(), password: MEMBER_PASSWORD, role: "MEMBER" },
    });
    expect(withPassword.status).toBe(400);
  });

  it("takes an invitation once, not after it expired, and only the latest of one email's invitations", async () => {
    const org = await newOrg(server.url);
    const email = newEmail();
    await add(org.token, "MEMBER", email);
    const first = await tokenMailedTo(server, email, INVITATION_SUBJECT);
    await add(org.token, "DEVELOPER", email);
    const second = await tokenMailedTo(server, email, INVITATION_SUBJECT);
    expect(second).not.toBe(first);
    expect((await acceptAs(first)).status).toBe(401);
    expect((await acceptAs(second)).body.data.user.role).toBe("DEVELOPER");
    const again = await acceptAs(second);
    expect(again.status).toBe(401);
    expect(again.body.error).toBe("invalid_token");

    const late = newEmail();
    await add(org.token, "MEMBER", late);
    const stale = await tokenMailedTo(server, late, INVITATION_SUBJECT);
    await server.db().query("UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE email = $1", [late]);
    expect((await acceptAs(stale)).status).toBe(401);
    expect(await accountsWith(late)).toBe(0);
  });

  it("answers 409 conflict past INVITATIONS_PENDING_MAX invitations waiting in one organisation, and not in another", async () => {
    const org = await newOrg(server.url);
    for (let i = 0; i < 5; i++) expect((await add(org.token, "MEMBER")).status).toBe(201);
    const over = await add(org.token, "MEMBER");
    expect(over.status).toBe(409);
    expect(over.body.message).toContain("5 invitations waiting");
    expect((await add((await newOrg(server.url)).token, "MEMBER")).status).toBe(201);
  });

  it("records member.invited by the inviter and member.joined by the new member", async () => {
    const org = await newOrg(server.url);
    const member = await addMember(server, org, "MEMBER");
    const log = await call(server.url, "GET", "/v1/audit-log?limit=2", { token: org.token });
    expect(log.body.data.entries).toEqual([
      expect.objectContaining({
        actor: { user_id: member.userId, email: member.email },
        action: "member.joined",
        target: `${member.email} as MEMBER`,
      }),
      expect.objectContaining({
        actor: { user_id: await ownerId(org), email: org.email },
        action: "member.invited",
        target: `${member.email} as MEMBER`,
      }),
    ]);
  });
});

describe("listing members", () => {
  it("lists the organisation's members, and only them, to every role", async () => {
    const org = await newOrg(server.url);
    await newOrg(server.url);
    const dev = await addMember(server, org, "DEVELOPER");
    const memberToken_ = await memberToken(server, org, "MEMBER");
    const r = await call(server.url, "GET", "/v1/members", { token: memberToken_ });
    expect(r.status).toBe(200);
    const emails = r.body.data.members.map((m: { email: string }) => m.email);
    expect(emails).toHaveLength(3);
    expect(emails).toContain(org.email);
    expect(emails).toContain(dev.email);
    expect(r.body.data.members.find((m: { email: string }) => m.email === dev.email)).toEqual({
      user_id: dev.userId,
      email: dev.email,
      role: "DEVELOPER",
      created_at: expect.any(String),
    });
  });
});

describe("changing roles", () => {
  it("lets an ADMIN change a DEVELOPER to MEMBER, and the change applies to the member's existing token at once", async () => {
    const org = await newOrg(server.url);
    const admin = await memberToken(server, org, "ADMIN");
    const dev = await addMember(server, org, "DEVELOPER");
    const devToken = await loginToken(server, dev.email);
    expect((await call(server.url, "GET", "/v1/keys", { token: devToken })).status).toBe(200);
    const r = await patch(admin, dev.userId, "MEMBER");
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ user_id: dev.userId, role: "MEMBER" });
    const keys = await call(server.url, "GET", "/v1/keys", { token: devToken });
    expect(keys.status).toBe(403);
    expect(keys.body.error).toBe("forbidden_role");
  });

  it("answers 403 forbidden_role when an ADMIN grants OWNER or demotes an OWNER", async () => {
    const org = await newOrg(server.url);
    const admin = await memberToken(server, org, "ADMIN");
    const dev = await addMember(server, org, "DEVELOPER");
    for (const [userId, role] of [
      [dev.userId, "OWNER"],
      [await ownerId(org), "ADMIN"],
    ] as const) {
      const r = await patch(admin, userId, role);
      expect(r.status).toBe(403);
      expect(r.body.error).toBe("forbidden_role");
    }
    expect((await call(server.url, "GET", "/v1/me", { token: org.token })).body.data.user.role).toBe("OWNER");
  });

  it("answers 409 conflict when the last OWNER would be demoted, and allows it once another OWNER exists", async () => {
    const org = await newOrg(server.url);
    const me = await ownerId(org);
    const last = await patch(org.token, me, "ADMIN");
    expect(last.status).toBe(409);
    expect(last.body.error).toBe("conflict");
    const second = await addMember(server, org, "ADMIN");
    expect((await patch(org.token, second.userId, "OWNER")).status).toBe(200);
    expect((await patch(org.token, me, "ADMIN")).status).toBe(200);
    const members = (await call(server.url, "GET", "/v1/members", { token: org.token })).body.data.members;
    expect(members.filter((m: { role: string }) => m.role === "OWNER").map((m: { user_id: string }) => m.user_id)).toEqual([second.userId]);
  });

  it("keeps one OWNER when two OWNERs demote each other at the same time", async () => {
    const org = await newOrg(server.url);
    const second = await addMember(server, org, "OWNER");
    const secondToken = await loginToken(server, second.email);
    const [a, b] = await Promise.all([patch(org.token, second.userId, "ADMIN"), patch(secondToken, await ownerId(org), "ADMIN")]);
    // The loser is refused either as no longer an OWNER (403) or as the last OWNER (409).
    expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
    expect([403, 409]).toContain(a.status === 200 ? b.status : a.status);
    const { rows } = await server.db().query("SELECT count(*)::int AS n FROM accounts WHERE org_id = $1 AND role = 'OWNER'", [org.orgId]);
    expect(rows[0].n).toBe(1);
  });

  it("answers 404 not_found for a member of another organisation or an id that is not a uuid", async () => {
    const org = await newOrg(server.url);
    const other = await newOrg(server.url);
    const stranger = await addMember(server, other, "MEMBER");
    for (const id of [stranger.userId, "not-a-uuid"]) {
      const r = await patch(org.token, id, "ADMIN");
      expect(r.status).toBe(404);
      expect(r.body.error).toBe("not_found");
    }
    const { rows } = await server.db().query("SELECT role FROM accounts WHERE id = $1", [stranger.userId]);
    expect(rows[0].role).toBe("MEMBER");
  });

  it("answers 403 forbidden_role when a DEVELOPER or a MEMBER changes a role", async () => {
    const org = await newOrg(server.url);
    const target = await addMember(server, org, "MEMBER");
    for (const role of ["DEVELOPER", "MEMBER"] as const) {
      const r = await patch(await memberToken(server, org, role), target.userId, "ADMIN");
      expect(r.status).toBe(403);
      expect(r.body.error).toBe("forbidden_role");
    }
  });
});

const remove = (token: string, userId: string) => call(server.url, "DELETE", `/v1/members/${userId}`, { token });

describe("removing members", () => {
  it("lets an OWNER remove a member: the member's existing token stops at once and the account cannot sign in", async () => {
    const org = await newOrg(server.url);
    const dev = await addMember(server, org, "DEVELOPER");
    const devToken = await loginToken(server, dev.email);
    expect((await call(server.url, "GET", "/v1/me", { token: devToken })).status).toBe(200);
    const r = await remove(org.token, dev.userId);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ user_id: dev.userId, email: dev.email, role: "DEVELOPER", created_at: expect.any(String) });
    const after = await call(server.url, "GET", "/v1/keys", { token: devToken });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("invalid_token");
    const login = await call(server.url, "POST", "/auth/login", { json: { email: dev.email, password: MEMBER_PASSWORD } });
    expect(login.status).toBe(401);
    const emails = (await call(server.url, "GET", "/v1/members", { token: org.token })).body.data.members.map((m: { email: string }) => m.email);
    expect(emails).toEqual([org.email]);
  });

  it("lets an ADMIN remove an ADMIN, a DEVELOPER or a MEMBER, but answers 403 forbidden_role for an OWNER", async () => {
    const org = await newOrg(server.url);
    const admin = await memberToken(server, org, "ADMIN");
    for (const role of ["ADMIN", "DEVELOPER", "MEMBER"] as const)
      expect((await remove(admin, (await addMember(server, org, role)).userId)).status).toBe(200);
    const owner = await remove(admin, await ownerId(org));
    expect(owner.status).toBe(403);
    expect(owner.body.error).toBe("forbidden_role");
    expect((await call(server.url, "GET", "/v1/me", { token: org.token })).status).toBe(200);
  });

  it("answers 403 forbidden_role when a DEVELOPER or a MEMBER removes a member", async () => {
    const org = await newOrg(server.url);
    const target = await addMember(server, org, "MEMBER");
    for (const role of ["DEVELOPER", "MEMBER"] as const) {
      const r = await remove(await memberToken(server, org, role), target.userId);
      expect(r.status).toBe(403);
      expect(r.body.error).toBe("forbidden_role");
    }
    const { rows } = await server.db().query("SELECT count(*)::int AS n FROM accounts WHERE id = $1", [target.userId]);
    expect(rows[0].n).toBe(1);
  });

  it("answers 409 conflict when the last OWNER would be removed, and removes an OWNER while another stays", async () => {
    const org = await newOrg(server.url);
    const last = await remove(org.token, await ownerId(org));
    expect(last.status).toBe(409);
    expect(last.body.error).toBe("conflict");
    const second = await addMember(server, org, "OWNER");
    expect((await remove(org.token, second.userId)).status).toBe(200);
    const secondAgain = await addMember(server, org, "OWNER");
    // An OWNER may leave when another OWNER stays; its own token ends with it.
    expect((await remove(org.token, await ownerId(org))).status).toBe(200);
    expect((await call(server.url, "GET", "/v1/me", { token: org.token })).status).toBe(401);
    expect((await call(server.url, "GET", "/v1/me", { token: await loginToken(server, secondAgain.email) })).body.data.user.role).toBe("OWNER");
  });

  it("keeps one OWNER when two OWNERs remove each other at the same time", async () => {
    const org = await newOrg(server.url);
    const second = await addMember(server, org, "OWNER");
    const secondToken = await loginToken(server, second.email);
    const [a, b] = await Promise.all([remove(org.token, second.userId), remove(secondToken, await ownerId(org))]);
    expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
    // The loser is refused as removed already (401), or as the last OWNER (409).
    expect([401, 409]).toContain(a.status === 200 ? b.status : a.status);
    const { rows } = await server.db().query("SELECT count(*)::int AS n FROM accounts WHERE org_id = $1 AND role = 'OWNER'", [org.orgId]);
    expect(rows[0].n).toBe(1);
  });

  it("answers 404 not_found for a member of another organisation or an id that is not a uuid, and removes nothing", async () => {
    const org = await newOrg(server.url);
    const stranger = await addMember(server, await newOrg(server.url), "MEMBER");
    for (const id of [stranger.userId, "not-a-uuid"]) {
      const r = await remove(org.token, id);
      expect(r.status).toBe(404);
      expect(r.body.error).toBe("not_found");
    }
    const { rows } = await server.db().query("SELECT count(*)::int AS n FROM accounts WHERE id = $1", [stranger.userId]);
    expect(rows[0].n).toBe(1);
  });

  it("records member.removed with the actor, the removed email and role, and the IP", async () => {
    const org = await newOrg(server.url);
    const member = await addMember(server, org, "MEMBER");
    await call(server.url, "DELETE", `/v1/members/${member.userId}`, { token: org.token, headers: { "x-forwarded-for": "203.0.113.7" } });
    const log = await call(server.url, "GET", "/v1/audit-log?limit=1", { token: org.token });
    expect(log.body.data.entries[0]).toMatchObject({
      actor: { user_id: await ownerId(org), email: org.email },
      action: "member.removed",
      target: `${member.email} (MEMBER)`,
      ip: "203.0.113.7",
    });
  });
});

describe("members in the audit log", () => {
  it("records member.joined and member.role_changed with the actor, the target and the IP, newest first", async () => {
    const org = await newOrg(server.url);
    const member = await addMember(server, org, "MEMBER");
    expect(
      (
        await call(server.url, "PATCH", `/v1/members/${member.userId}`, {
          token: org.token,
          json: { role: "DEVELOPER" },
          headers: { "x-forwarded-for": "203.0.113.9" },
        })
      ).status,
    ).toBe(200);
    const log = await call(server.url, "GET", "/v1/audit-log?limit=2", { token: org.token });
    expect(log.body.data.entries).toEqual([
      {
        id: expect.any(Number),
        at: expect.any(String),
        actor: { user_id: await ownerId(org), email: org.email },
        action: "member.role_changed",
        target: `${member.email}: MEMBER → DEVELOPER`,
        ip: "203.0.113.9",
      },
      expect.objectContaining({ action: "member.joined", target: `${member.email} as MEMBER` }),
    ]);
  });
});

import { verifyUser } from "../../auth/identityVerification.js";
import { enrol } from "../../experiments/enrolment.js";
import type { Arm } from "../../experiments/running.js";
import type { KeyEntry } from "../../auth/keyCache.js";
import { ByteWriter } from "../../wire/byteWriter.js";
import { recommendationId } from "../../recommend/recommendationId.js";
import { toRankRequest } from "../../recommend/schema.js";
import type { RankRequest, RankResult } from "../../wire/rank.js";
import { validateRecommend } from "../../recommend/validate.js";
import type { Services } from "../../services.js";
import { jsonBody } from "../body.js";
import type { RequestContext } from "../context.js";
import { sendError, sendJson } from "../respond.js";
import { ANSWERS_LATER, type Outcome, type Route } from "../router.js";

/** Answers are assembled here and sent at once (uWS copies what it is given), so one buffer serves them all. */
const out = new ByteWriter();

/**
 * The success envelope (spec 2.4) around the shard's rendered `results` bytes: the front thread, which
 * limits the request rate, never rebuilds, re-serialises or re-encodes the results. Written piece by piece:
 * the pieces are constants, held strings or the shard's bytes, so no text is built. `arm`: the experiment's
 * variant the request was served under, whose `experiment` member closes the data.
 */
function answerBytes(id: string, tenant: string, req: RankRequest, r: RankResult, latencyMs: number, arm: Arm | undefined): Buffer {
  return writeEnd(writeAfterId(writeUpToId(out.reset(), r).text(id), tenant, req, r).text(String(latencyMs)), arm);
}

/** After the latency: the experiment member, if any, and the ends of `data` and of the envelope. */
function writeEnd(w: ByteWriter, arm: Arm | undefined): Buffer {
  if (arm) w.text(arm.answerMember);
  return w.text("}}").view();
}

/** Everything before the recommendation id's text. */
function writeUpToId(w: ByteWriter, r: RankResult): ByteWriter {
  return w.text('{"success":true,"message":"').int(r.count).text(' recommendations","data":{"recommendation_id":"');
}

/** Everything between the recommendation id's text and the latency's. */
function writeAfterId(w: ByteWriter, tenant: string, req: RankRequest, r: RankResult): ByteWriter {
  return w
    .text('","tenant_id":')
    .jsonString(tenant)
    .text(',"domain":')
    .jsonString(req.itemType ?? "all")
    .text(',"strategy":"')
    .text(req.strategy)
    .text('","mode":"')
    .text(r.mode)
    .text('","results":')
    .bytes(r.results)
    .text(',"recommended_items":')
    .bytes(r.items)
    .text(',"pagination":{"page":')
    .int(req.page)
    .text(',"limit":')
    .int(req.limit)
    .text(',"has_next":')
    .text(r.hasNext ? "true" : "false")
    .text('},"latency_ms":');
}

/**
 * A shared answer's envelope around its id and latency, written once: every request that shares the answer
 * (same organisation, strategy, page, limit and fields: see sharedAnswerKey) has the same one.
 */
const sharedEnvelopes = new WeakMap<RankResult, { upToId: Uint8Array; afterId: Uint8Array }>();

function sharedAnswerBytes(id: string, tenant: string, req: RankRequest, r: RankResult, latencyMs: number, arm: Arm | undefined): Buffer {
  let envelope = sharedEnvelopes.get(r);
  if (!envelope) {
    envelope = { upToId: writeUpToId(out.reset(), r).copy(), afterId: writeAfterId(out.reset(), tenant, req, r).copy() };
    sharedEnvelopes.set(r, envelope);
  }
  return writeEnd(out.reset().bytes(envelope.upToId).text(id).bytes(envelope.afterId).text(String(latencyMs)), arm);
}

/**
 * request → publishable key → validate → verify the user (identity verification) → the scenario's experiment
 * (the user's variant's fields) → shard (msgpackr) → rendered page → response
 */
export function recommendRoutes(s: Services): Route[] {
  const answer = (
    ctx: RequestContext,
    tenant: string,
    req: RankRequest,
    scenario: string,
    ranked: RankResult,
    arm: Arm | undefined,
    shared = false,
  ): Outcome => {
    const id = recommendationId();
    s.attribution.record(id, req, scenario, ranked.mode, ranked.items, arm?.enrolment);
    const latencyMs = Math.round((performance.now() - ctx.startedAt) * 1000) / 1000;
    sendJson(ctx, 200, (shared ? sharedAnswerBytes : answerBytes)(id, tenant, req, ranked, latencyMs, arm));
    return ANSWERS_LATER;
  };
  /** A shared answer (see sharedAnswerKey) is written at once, with no thread hop. */
  const respond = (ctx: RequestContext, key: KeyEntry): Outcome => {
    const sent = validateRecommend(jsonBody(ctx));
    // Any strategy: with a user_id, exclude_seen (and every user strategy) reveals something of the user's history.
    if (sent.user_id !== undefined) verifyUser(key.identitySecret, sent.user_id, sent.user_hash);
    const enrolled = enrol(s.experiments.running(key.orgSeq, sent.scenario), sent);
    const body = enrolled?.body ?? sent;
    const arm = enrolled?.arm;
    const req = toRankRequest(key.orgSeq, body);
    const shared = s.recommender.sharedAnswer(req);
    if (shared) return answer(ctx, key.orgId, req, body.scenario, shared, arm, true);
    s.recommender.rank(req, (err, ranked) => {
      try {
        if (err) sendError(ctx, err);
        else answer(ctx, key.orgId, req, body.scenario, ranked!, arm);
      } catch (e) {
        sendError(ctx, e);
      }
    });
    return ANSWERS_LATER;
  };
  return [
    {
      method: "POST",
      pattern: "/v1/recommend",
      body: "json",
      handler: (ctx) => {
        const key = s.apiKeys.authenticateKnown(ctx, "publishable");
        return key ? respond(ctx, key) : s.apiKeys.authenticate(ctx, "publishable").then((k) => respond(ctx, k));
      },
    },
  ];
}

import { describe, expect, it } from "vitest";
import { assignVariant } from "../../src/experiments/assignment.js";
import { enrol } from "../../src/experiments/enrolment.js";
import { RunningExperiment } from "../../src/experiments/running.js";
import { OVERRIDE_FIELDS, VariantSchema, type Variant } from "../../src/experiments/schemas.js";
import { validateRecommend } from "../../src/recommend/validate.js";

const ID = "0195a3c4-5d6e-4f70-8a9b-0c1d2e3f4a5b";
const variants: Variant[] = [
  { name: "A", share: 0.4 },
  { name: "B", share: 0.3, strategy: "trending" },
  { name: "C", share: 0.3, strategy: "similar", exclude_seen: true },
];
const experiment = new RunningExperiment(ID, "home", 0.2, variants);

/** A user id the hash puts in `variant`. */
function userIn(variant: string): string {
  for (let i = 0; ; i++) if (assignVariant({ id: ID, holdout: 0.2, variants }, `u-${i}`) === variant) return `u-${i}`;
}

describe("enrol", () => {
  it("leaves the control's request as sent, and tags it with the experiment and the variant", () => {
    const body = validateRecommend({ strategy: "personalized", user_id: userIn("A"), scenario: "home", limit: 5 });
    const e = enrol(experiment, body)!;
    expect(e.body).toBe(body);
    expect(e.arm.enrolment).toEqual({ experimentId: ID, variant: "A" });
    expect(JSON.parse(`{${e.arm.answerMember.slice(1)}}`)).toEqual({ experiment: { id: ID, variant: "A" } });
  });

  it("replaces the request's fields by the variant's, keeping the rest of the request", () => {
    const body = validateRecommend({ strategy: "personalized", user_id: userIn("B"), scenario: "home", limit: 5, filters: { brand: "Acme" } });
    const e = enrol(experiment, body)!;
    expect(e.body).toMatchObject({ strategy: "trending", user_id: body.user_id, scenario: "home", limit: 5, filters: { brand: "Acme" } });
    expect(e.arm.enrolment.variant).toBe("B");
  });

  it("gives the holdout the non-personalized popular", () => {
    const e = enrol(experiment, validateRecommend({ user_id: userIn("holdout"), scenario: "home" }))!;
    expect(e.body.strategy).toBe("popular");
    expect(e.arm.enrolment.variant).toBe("holdout");
  });

  it("serves a request as sent, out of the experiment, when the variant's fields would make it invalid", () => {
    // C asks for an item strategy; this request has no context item.
    expect(enrol(experiment, validateRecommend({ user_id: userIn("C"), scenario: "home" }))).toBeUndefined();
    const withContext = enrol(experiment, validateRecommend({ user_id: userIn("C"), scenario: "home", context_item_id: "sku-1" }))!;
    expect(withContext.body).toMatchObject({ strategy: "similar", exclude_seen: true, context_item_id: "sku-1" });
  });

  it("enrols nobody without a user_id (nothing to assign by) or without a running experiment", () => {
    expect(enrol(experiment, validateRecommend({ strategy: "popular", scenario: "home" }))).toBeUndefined();
    expect(enrol(undefined, validateRecommend({ user_id: "u-1" }))).toBeUndefined();
  });

  it("lets a variant override every ranking field of the recommend schema, and none that describes the request itself", () => {
    expect(OVERRIDE_FIELDS).toEqual(expect.arrayContaining(["strategy", "filters", "item_type", "exclude_seen"]));
    for (const field of ["user_id", "user_hash", "scenario", "limit", "page", "context_item_id", "candidates", "fields"]) {
      expect(OVERRIDE_FIELDS).not.toContain(field);
      const r = VariantSchema.safeParse({ name: "B", share: 0.5, [field]: "x" });
      expect(r.success, field).toBe(false);
    }
  });
});

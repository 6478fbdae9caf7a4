import { describe, expect, it } from "vitest";
import { compare, wilson } from "../../src/experiments/statistics.js";

/** The dashboard's own module (plain JS served as is): loaded by path, typed here. */
interface Verdict {
  variant: string;
  kind: "better" | "worse" | "unclear" | "waiting";
  text: string;
}
interface VerdictModule {
  verdicts(results: unknown, measure?: string): Verdict[];
  trialsNeeded(p1: number, p2: number): number;
}
const MODULE = "../../src/web/dashboard/verdict.js";
const { verdicts, trialsNeeded } = (await import(MODULE)) as VerdictModule;

/** A variant as GET /v1/analytics/experiments/{id} answers it, from its users and converted users (one served each). */
function variant(name: string, users: number, converted: number, control?: { users: number; converted: number }) {
  const measures = {
    click_through: wilson(0, users),
    conversion: wilson(converted, users),
    user_click_through: wilson(0, users),
    user_conversion: wilson(converted, users),
  };
  const against = control
    ? {
        click_through: compare(0, users, 0, control.users),
        conversion: compare(converted, users, control.converted, control.users),
        user_click_through: compare(0, users, 0, control.users),
        user_conversion: compare(converted, users, control.converted, control.users),
      }
    : null;
  return {
    variant: name,
    control: control === undefined,
    users,
    served: users,
    clicks: 0,
    conversions: converted,
    users_clicked: 0,
    users_converted: converted,
    ...measures,
    against_control: against,
  };
}

function results(a: [number, number], ...others: [string, number, number][]) {
  const control = { users: a[0], converted: a[1] };
  return { variants: [variant("A", a[0], a[1]), ...others.map(([n, u, c]) => variant(n, u, c, control))] };
}

describe("the Experiments page's verdict in plain words", () => {
  it("says by how much a variant converts more, and that it is 95 % sure, when the z-test says so", () => {
    const [b] = verdicts(results([1000, 100], ["B", 1000, 150]));
    expect(b).toEqual({
      variant: "B",
      kind: "better",
      text: expect.stringMatching(
        /^B converts 50 % more than A \(15\.0 % against 10\.0 % of users\): 95 % sure it is not chance \(p < 0\.001\); the true difference is likely between \+\d\.\d\d points and \+\d\.\d\d points\.$/,
      ),
    });
  });

  it("says a variant converts less when it significantly does", () => {
    const [b] = verdicts(results([1000, 150], ["B", 1000, 100]));
    expect(b!.kind).toBe("worse");
    expect(b!.text).toMatch(/^B converts 33 % less than A/);
  });

  it("claims no winner without significance, and says about how many more users would tell the difference seen", () => {
    const [b] = verdicts(results([200, 20], ["B", 200, 30]));
    expect(b!.kind).toBe("unclear");
    const needed = trialsNeeded(0.1, 0.15) - 200;
    expect(b!.text).toBe(
      `No difference between B and A can be told yet (15.0 % against 10.0 % of users, p = ${b!.text.match(/p = (0\.\d{3})/)![1]}): ` +
        `about ${needed.toLocaleString("en")} more users in each would tell a difference as large as the one seen so far, if it is real; ` +
        b!.text.slice(b!.text.indexOf("the true difference")),
    );
  });

  it("estimates the users needed per group as the usual formula does (10 % against 15 %: 686 at 95 % and 80 % power)", () => {
    expect(trialsNeeded(0.1, 0.15)).toBe(686);
    expect(trialsNeeded(0.2, 0.2)).toBe(Infinity);
  });

  it("waits for users and for conversions before comparing, and never calls equal rates a difference", () => {
    expect(verdicts(results([0, 0], ["B", 10, 1]))[0]).toMatchObject({ kind: "waiting", text: "Nothing to compare yet: no users in A so far." });
    expect(verdicts(results([50, 0], ["B", 40, 0]))[0]).toMatchObject({
      kind: "waiting",
      text: "Nothing to compare yet: neither A nor B has a conversion so far (90 users).",
    });
    const [same] = verdicts(results([500, 50], ["B", 500, 50]));
    expect(same!.kind).toBe("unclear");
    expect(same!.text).toContain("too close for any practical number of users to tell apart");
  });

  it("names the holdout for what it gets, and speaks of clicks for a click-through measure", () => {
    const [h] = verdicts(results([1000, 100], ["holdout", 1000, 40]));
    expect(h!.text).toMatch(/^The holdout \(popular, not personalized\) converts 60 % less than A/);
    const r = results([1000, 100], ["B", 1000, 100]);
    expect(verdicts(r, "click_through")[0]!.text).toBe("Nothing to compare yet: neither A nor B has a click so far (2,000 recommendations).");
  });
});

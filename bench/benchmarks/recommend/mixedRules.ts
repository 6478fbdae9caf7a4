/** The merchandising benchmarks' rule set: 20 rules over the synthetic catalog's attributes (50 brands, its topics), every action, none matching most items. */
import type { RuleWire } from "../../../src/wire/rules.js";
import { itemId, type SyntheticSpec } from "../../kit/synthetic.js";

/** As `POST /v1/rules` bodies. */
export function mixedRules(spec: SyntheticSpec): Array<Record<string, unknown>> {
  const rules: Array<Record<string, unknown>> = [];
  for (let k = 0; k < 4; k++) rules.push({ name: `block ${k}`, enabled: true, action: "block", items: { brand: `brand-${k}` } });
  for (let k = 0; k < 5; k++) rules.push({ name: `boost ${k}`, enabled: true, action: "boost", factor: 2, items: { topic: `topic-${k}` } });
  for (let k = 0; k < 5; k++) rules.push({ name: `bury ${k}`, enabled: true, action: "bury", factor: 0.5, items: { brand: `brand-${10 + k}` } });
  for (let k = 0; k < 3; k++) rules.push({ name: `promote ${k}`, enabled: true, action: "promote", share: 0.1, items: { topic: `topic-${20 + k}` } });
  for (let k = 0; k < 3; k++)
    rules.push({ name: `pin ${k}`, enabled: true, action: "pin", position: 2 + k, items: { item_id: [itemId(((k + 1) * 7919) % spec.items)] } });
  return rules;
}

/** The same rules as a recommender thread holds them (no scenario or strategy scope, no validity window). */
export function mixedRuleWires(spec: SyntheticSpec): RuleWire[] {
  return mixedRules(spec).map((r) => ({
    name: r.name as string,
    action: r.action as RuleWire["action"],
    items: r.items as RuleWire["items"],
    scenarios: null,
    strategies: null,
    factor: (r.factor as number | undefined) ?? null,
    position: (r.position as number | undefined) ?? null,
    share: (r.share as number | undefined) ?? null,
    startsS: null,
    endsS: null,
  }));
}

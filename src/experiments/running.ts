import type { ServedEnrolment } from "../wire/servedTuple.js";
import { assignIndex, type Split } from "./assignment.js";
import { HOLDOUT, overridesOf, type Overrides, type Variant } from "./schemas.js";

/** One arm of a running experiment: a variant or the holdout, with what recommend needs of it, prepared once. */
export interface Arm {
  /** What the arm changes of the request; undefined for the control. */
  overrides: Overrides | undefined;
  /** Stored with each served row. */
  enrolment: ServedEnrolment;
  /** The answer's `"experiment":{…}` member, with its leading comma, written as is. */
  answerMember: string;
}

/** The holdout gets the non-personalized list, whatever the request asked. */
const HOLDOUT_OVERRIDES: Overrides = { strategy: "popular" };

/** A running experiment as the recommend path reads it. */
export class RunningExperiment {
  private readonly arms: Arm[];
  private readonly holdoutArm: Arm;
  private readonly split: Split;

  constructor(
    readonly id: string,
    readonly scenario: string,
    holdout: number,
    variants: readonly Variant[],
  ) {
    this.split = { id, holdout, variants };
    const arm = (name: string, overrides: Overrides | undefined): Arm => ({
      overrides,
      enrolment: { experimentId: id, variant: name },
      answerMember: `,"experiment":${JSON.stringify({ id, variant: name })}`,
    });
    this.arms = variants.map((v, i) => {
      const overrides = overridesOf(v);
      return arm(v.name, i === 0 || Object.keys(overrides).length === 0 ? undefined : overrides);
    });
    this.holdoutArm = arm(HOLDOUT, HOLDOUT_OVERRIDES);
  }

  /** The user's arm: the same for the same (experiment, user) in every process (assignment.ts). */
  armOf(userId: string): Arm {
    const i = assignIndex(this.split, userId);
    return i < 0 ? this.holdoutArm : this.arms[i]!;
  }
}

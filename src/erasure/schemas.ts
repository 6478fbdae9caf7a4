import { z } from "zod";
import { Identifier } from "../ingest/schemas.js";

/** Users one erasure request names, at most: its first transaction deletes their rows and aliases at once. */
export const ERASE_USERS_MAX = 1000;

export const EraseRequestSchema = z
  .strictObject({
    user_ids: z
      .array(Identifier)
      .min(1, "must name at least one user")
      .max(ERASE_USERS_MAX, `must name at most ${ERASE_USERS_MAX} users`)
      .meta({ description: "The users to erase, as their `user_id` (or an anonymous id they were known by)." }),
  })
  .meta({ examples: [{ user_ids: ["u-77", "anon-5f2c"] }] });
export type EraseRequest = z.infer<typeof EraseRequestSchema>;

export const ErasureAcceptedSchema = z.strictObject({
  erasure_id: z.uuid().meta({ description: "Ask `GET /v1/users/erase/{erasure_id}` whether it is done." }),
});
export type ErasureAccepted = z.infer<typeof ErasureAcceptedSchema>;

export const ErasureSchema = z
  .strictObject({
    erasure_id: z.uuid(),
    status: z.enum(["pending", "done"]),
    requested_at: z.iso.datetime(),
    done_at: z.iso.datetime().nullable(),
    users: z.number().int().min(0).max(ERASE_USERS_MAX).meta({ description: "How many users the request named." }),
    deleted: z
      .strictObject({
        users: z.number().int().min(0).meta({ description: "User rows (upserted users) deleted." }),
        aliases: z.number().int().min(0).meta({ description: "Identity aliases deleted, from or to the users." }),
        events: z.number().int().min(0).meta({ description: "Events deleted so far." }),
        served_recommendations: z.number().int().min(0).meta({ description: "Served recommendation rows deleted so far." }),
      })
      .meta({ description: "What was deleted so far (all of it once `done`)." }),
  })
  .meta({ description: "An erasure request and what it has deleted." });
export type Erasure = z.infer<typeof ErasureSchema>;

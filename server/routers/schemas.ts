import { z } from 'zod';

/** Shapes shared by several routers' inputs and outputs. */
export const isoTimestamp = z.string().meta({ description: 'ISO 8601 UTC time', example: '2026-11-21T19:40:00.000Z' });
export const nullableTimestamp = isoTimestamp.nullable();

export const userSchema = z.object({ id: z.string(), email: z.string(), created_at: isoTimestamp });

export const successSchema = z.object({ success: z.literal(true) });

export const noInput = z.object({}).optional();

export const keyIdParam = z.coerce.number().int().positive().meta({ description: 'API key id' });

/**
 * A JSON boolean and nothing else. trpc-to-openapi switches `coerce` on for every z.boolean()/z.number() of an
 * input object (for query strings), which would turn the string "false" into true; literals are left alone.
 */
export const strictBoolean = z.union([z.literal(true), z.literal(false)]).meta({ description: 'true or false' });

/** A page of a list: `limit` (1–100, default 25) and `starting_after`, the id of the last item of the previous page. */
export function pageQuery(item: string) {
  return z
    .object({
      limit: z.coerce.number().int().min(1).max(100).default(25),
      starting_after: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .meta({ description: `Id of the last ${item} of the previous page` }),
    })
    .default({ limit: 25 });
}

import { addToCounters } from '../../../db/counters.js';
import type { Database } from '../../../db/schema.js';
import type { Kysely } from 'kysely';
import { isServerFault, toErrorResponse } from '../../errors.js';
import { log } from '../../observability/logger.js';
import { utcDay } from '../ads/money.js';

/** The engine's verdicts on a request; with every server fault (5xx), what the fleet report counts as a failure. */
const ENGINE_VERDICTS = new Set(['engine_rejected', 'structure_changed']);

/**
 * The code a failed image request is counted under, or null for the client's own mistakes (a damaged image, a
 * closed claim, too few credits), which say nothing about the engine.
 */
export function failureCodeOf(error: unknown): string | null {
  const response = toErrorResponse(error);
  return isServerFault(response) || ENGINE_VERDICTS.has(response.body.code) ? response.body.code : null;
}

/**
 * Counts one failed image request for the fleet report (per UTC day, engine and code), after its refund. A statistic:
 * if it cannot be written the request's own answer does not change, and the log says so.
 */
export async function countImageFailure(
  db: Kysely<Database>,
  input: { engine: string; error: unknown; now: number },
): Promise<void> {
  const code = failureCodeOf(input.error);
  if (code === null) return;
  try {
    await addToCounters(
      db,
      'image_failures_daily',
      ['day', 'engine', 'code'],
      { day: utcDay(input.now), engine: input.engine, code, failures: 1 },
      { failures: 1 },
    );
  } catch (error) {
    log.warn({ err: error, code }, 'could not count a failed image request for the fleet report');
  }
}

import type { Db } from '../../db/client.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { type InFlightElsewhere, acquireImageSlot } from './image-slots.js';
import type { WorkGate } from './work-gate.js';

/**
 * The two limits every piece of image work passes, in one place: a place in this process's work gate (memory:
 * bodies and decodes of megapixels) and one of the key's slots for operations in flight (across processes).
 */
export interface ImageAdmission {
  gate: WorkGate;
  db: Db;
  clock: Clock;
  /** RATE_LIMIT_CONCURRENT: operations in flight per key. */
  perKey: number;
  /** Work of the key that holds no slot yet counts too (its queued and running jobs). */
  inFlightElsewhere: InFlightElsewhere;
}

/** A place in the process's image work, or 503 with Retry-After when the gate is full. */
export function enterImageWork(gate: WorkGate): () => void {
  const leave = gate.tryEnter();
  if (!leave) {
    throw new AppError(
      'service_unavailable',
      `This server is working on ${gate.limit} image requests already. Retry in a few seconds.`,
      {},
      { 'Retry-After': '2' },
    );
  }
  return leave;
}

/** One of the key's slots for image operations in flight, or 429 with Retry-After when all are taken. */
export async function takeImageSlot(admission: ImageAdmission, keyId: number): Promise<() => Promise<void>> {
  const { db, clock, perKey, inFlightElsewhere } = admission;
  const release = await acquireImageSlot(db, { keyId, limit: perKey, now: clock.now(), inFlightElsewhere });
  if (!release) {
    throw new AppError(
      'rate_limited',
      `This API key may run ${perKey} image operations at once. Retry when one finishes.`,
      {},
      { 'Retry-After': '1' },
    );
  }
  return release;
}

/** Runs `work` admitted by both limits, for work that did not come through an image upload (the playground). */
export async function admitImageWork<T>(admission: ImageAdmission, keyId: number, work: () => Promise<T>): Promise<T> {
  const leave = enterImageWork(admission.gate);
  try {
    const release = await takeImageSlot(admission, keyId);
    try {
      return await work();
    } finally {
      await release();
    }
  } finally {
    leave();
  }
}

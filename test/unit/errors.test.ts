import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, ERROR_CATALOG, toErrorResponse } from '../../server/errors.js';

describe('the error mapper', () => {
  it('turns an AppError into its contract body with extras and headers', () => {
    const response = toErrorResponse(
      new AppError('insufficient_credits', 'Buy credits.', { credits_required: 2, credits_available: 1 }),
    );
    expect(response).toEqual({
      status: 402,
      body: {
        error: 'insufficient credits',
        code: 'insufficient_credits',
        message: 'Buy credits.',
        credits_required: 2,
        credits_available: 1,
      },
      headers: {},
    });
  });

  it('finds the AppError behind a TRPCError', () => {
    const wrapped = new TRPCError({
      code: 'NOT_FOUND',
      message: 'x',
      cause: new AppError('claim_expired', 'Too late.'),
    });
    expect(toErrorResponse(wrapped)).toMatchObject({
      status: 410,
      body: { code: 'claim_expired', error: 'claim expired' },
    });
  });

  it('lists every failing field of a validation error as details', () => {
    const parsed = z
      .object({ email: z.email(), nested: z.object({ n: z.number() }) })
      .safeParse({ email: 'x', nested: { n: 'y' } });
    const response = toErrorResponse(new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error }));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
    expect((response.body.details as { path: string }[]).map((d) => d.path)).toEqual(['email', 'nested.n']);
  });

  it('never leaks the text of an unexpected error', () => {
    const response = toErrorResponse(
      new Error("ER_PARSE_ERROR: You have an error in your SQL syntax near 'SELECT password_hash'"),
    );
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toMatch(/SQL|password_hash/);
    expect(response.body).toMatchObject({ error: 'internal error', code: 'internal_error' });
  });

  it('gives every code a status and a lowercase error text', () => {
    for (const [code, { status, error }] of Object.entries(ERROR_CATALOG)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(error).toBe(error.toLowerCase());
    }
  });
});

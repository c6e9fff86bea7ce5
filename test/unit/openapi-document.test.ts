import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../../server/errors.js';
import { buildOpenApiDocument } from '../../server/http/openapi.js';
import { type LintProblem, lintWithRedocly, lintWithSpectral } from '../helpers/openapi-lint.js';

type Schema = { allOf?: Array<{ $ref?: string; properties?: { code?: { enum?: string[] } } }> };
type Response = { $ref?: string; content?: { 'application/json'?: { schema?: Schema } } };
type Operation = { description?: string; responses: Record<string, Response> };

// A deployment's own address: Redocly rightly flags a document whose server is localhost or example.com.
const document = buildOpenApiDocument('https://api.roomstage.test');
const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    operation,
  })),
);

const sharedResponses = (document.components?.responses ?? {}) as Record<string, Response>;

/** The error responses are shared components: follows `#/components/responses/…`. */
function resolved(response: Response | undefined): Response | undefined {
  const name = response?.$ref?.replace('#/components/responses/', '');
  return name === undefined ? response : sharedResponses[name];
}

function errorCodesOf(operation: Operation): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(operation.responses)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => [
        status,
        resolved(response)?.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? [],
      ]),
  );
}

const report = (problems: LintProblem[]) =>
  problems.map((problem) => `${problem.severity} ${problem.rule} at ${problem.where}: ${problem.message}`);

describe('The OpenAPI document', () => {
  let spectral: LintProblem[];
  let redocly: LintProblem[];
  beforeAll(async () => {
    [spectral, redocly] = await Promise.all([lintWithSpectral(document), lintWithRedocly(document)]);
  });

  it('passes Spectral’s spectral:oas ruleset without an error or a warning', () => {
    expect(report(spectral)).toEqual([]);
  });

  it('passes Redocly’s recommended ruleset without an error or a warning', () => {
    expect(report(redocly)).toEqual([]);
  });

  it('describes every operation (a new procedure needs meta.openapi.description)', () => {
    const undescribed = operations.filter(({ operation }) => !operation.description?.trim()).map(({ name }) => name);
    expect(undescribed).toEqual([]);
  });

  it('answers every error with the error body, naming under each status only codes of that status', () => {
    for (const { name, operation } of operations) {
      for (const [status, codes] of Object.entries(errorCodesOf(operation))) {
        const schema = resolved(operation.responses[status])?.content?.['application/json']?.schema;
        expect(schema?.allOf?.[0]?.$ref, `${name} ${status}`).toBe('#/components/schemas/Error');
        expect(codes.length, `${name} ${status}`).toBeGreaterThan(0);
        for (const code of codes)
          expect(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG]?.status, `${name} ${code}`).toBe(Number(status));
      }
      expect(operation.responses.default, name).toBeUndefined();
    }
  });

  it('documents only the errors an operation can answer', () => {
    const byName = Object.fromEntries(operations.map(({ name, operation }) => [name, errorCodesOf(operation)]));
    // Public and read-only: no credential to refuse, no body to limit, no state to change.
    expect(Object.keys(byName['GET /api/v1/styles']!)).toEqual(['400', '500']);
    // Buying credits cannot fail for want of credits; reading the balance needs an API key, not a session.
    expect(byName['POST /api/v1/billing/checkout']!['402']).toBeUndefined();
    expect(byName['GET /api/v1/credits']!).toMatchObject({ '401': ['authentication_required'] });
    // A key's account may be suspended, and its scopes may not include reading the balance.
    expect(byName['GET /api/v1/credits']!['403']).toEqual(['account_suspended', 'insufficient_scope']);
    // Each procedure's own errors, and its builder's (stage is an image request: idempotency, claims, images).
    expect(byName['POST /api/v1/claim']!).toMatchObject({
      '404': ['not_found'],
      '409': ['claim_already_redeemed'],
      '410': ['claim_expired'],
    });
    expect(byName['POST /api/v1/stage']!).toMatchObject({
      '402': ['insufficient_credits', 'no_credits'],
      '409': ['conflict', 'claim_already_redeemed'],
      '422': ['invalid_image', 'unsupported_option', 'not_a_room', 'engine_rejected', 'structure_changed'],
      '503': ['service_unavailable', 'engine_unavailable'],
    });
    expect(byName['POST /api/v1/place-products']!['402']).toBeUndefined();
    // An account that requires two-factor sign-in refuses every Token operation but the user's own things.
    expect(byName['GET /api/v1/keys']!['403']).toContain('two_factor_required');
    expect(byName['PUT /api/v1/settings/security']!['409']).toEqual(['conflict']);
    for (const own of [
      'GET /api/v1/me',
      'POST /api/v1/me/2fa/setup',
      'POST /api/v1/me/2fa/enable',
      'GET /api/v1/accounts',
    ])
      expect(byName[own]!['403'] ?? [], own).not.toContain('two_factor_required');
    expect(byName['GET /api/v1/credits']!['403'], 'API keys are not affected').not.toContain('two_factor_required');
    // Operator endpoints answer any caller who is not an operator with the unknown-path 404, never 401, 403 or 429.
    const operatorOperations = Object.keys(byName).filter((name) => name.includes(' /api/v1/admin/'));
    expect(operatorOperations.length).toBeGreaterThan(10);
    for (const name of operatorOperations) {
      expect(byName[name]!['404'], name).toEqual(['not_found']);
      for (const status of ['401', '429']) expect(byName[name]![status], `${name} ${status}`).toBeUndefined();
      expect(byName[name]!['403'] ?? [], name).not.toContain('account_suspended');
    }
  });

  it('names the one credential of each operation, and none on public ones', () => {
    for (const { name, operation } of operations) {
      const { security } = operation as { security?: unknown[] };
      expect(security, name).toBeDefined();
      expect(security!.length, name).toBeLessThanOrEqual(1);
    }
  });

  it('bounds integers by what the API allows, not by JavaScript’s safe-integer range', () => {
    expect(JSON.stringify(document)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });
});

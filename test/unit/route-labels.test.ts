import { describe, expect, it } from 'vitest';
import { createRouteLabeler } from '../../server/observability/request-log.js';

describe('Route labels of the request log and metrics', () => {
  const routeOf = createRouteLabeler({
    apiPaths: ['/api/v1/credits', '/api/v1/jobs/{id}', '/api/v1/keys/{id}/webhook'],
    procedures: ['credits.balance'],
  });

  it('labels /api paths by their template, and the same path the same way every time', () => {
    for (let round = 0; round < 3; round++) {
      expect(routeOf('/api/v1/credits')).toBe('/api/v1/credits');
      expect(routeOf('/api/v1/jobs/job_123')).toBe('/api/v1/jobs/{id}');
      expect(routeOf('/api/v1/keys/7/webhook/')).toBe('/api/v1/keys/{id}/webhook');
      expect(routeOf('/api/v1/nothing')).toBe('/api/(unknown)');
    }
  });

  it('keeps labelling correctly after more distinct paths than it remembers', () => {
    for (let i = 0; i < 5_000; i++) expect(routeOf(`/api/v1/jobs/job_${i}`)).toBe('/api/v1/jobs/{id}');
    expect(routeOf('/api/v1/credits')).toBe('/api/v1/credits');
    expect(routeOf('/api/v1/jobs/job_1/extra')).toBe('/api/(unknown)');
  });

  it('labels the other paths as before', () => {
    expect(routeOf('/trpc/credits.balance')).toBe('/trpc/credits.balance');
    expect(routeOf('/trpc/a,b')).toBe('/trpc/(batch)');
    expect(routeOf('/images/abc.jpg')).toBe('/images/:name');
    expect(routeOf('/overview')).toBe('(dashboard)');
  });
});

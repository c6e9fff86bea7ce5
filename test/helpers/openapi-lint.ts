import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

export type LintProblem = {
  linter: 'spectral' | 'redocly';
  severity: 'error' | 'warning';
  rule: string;
  where: string;
  message: string;
};

/** Spectral's DiagnosticSeverity: 0 error, 1 warning, 2 information, 3 hint. */
const SPECTRAL_SEVERITIES: readonly ('error' | 'warning' | undefined)[] = ['error', 'warning'];

/** Spectral's `spectral:oas` ruleset (its recommended rules), run in-process: what `spectral lint` reports. */
export async function lintWithSpectral(document: object): Promise<LintProblem[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas] } as never);
  const results = await spectral.run(
    new Document(JSON.stringify(document, null, 2), spectralParsers.Json, 'openapi.json'),
  );
  return results.flatMap((result) => {
    const severity = SPECTRAL_SEVERITIES[result.severity];
    if (!severity) return [];
    return [
      {
        linter: 'spectral' as const,
        severity,
        rule: String(result.code),
        where: result.path.join('.'),
        message: result.message,
      },
    ];
  });
}

/** Redocly's `recommended` ruleset through @redocly/openapi-core's lint API: what `redocly lint` reports. */
export async function lintWithRedocly(document: object): Promise<LintProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: JSON.stringify(document, null, 2),
    absoluteRef: 'openapi.json',
    config,
  });
  return problems.flatMap((problem) => {
    if (problem.severity !== 'error' && problem.severity !== 'warn') return [];
    return [
      {
        linter: 'redocly' as const,
        severity: problem.severity === 'warn' ? ('warning' as const) : ('error' as const),
        rule: problem.ruleId,
        where: problem.location[0]?.pointer ?? '',
        message: problem.message,
      },
    ];
  });
}

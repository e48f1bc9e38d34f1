import { openApiDocument, specRoutes } from '../openapi/openapi-contract';
import type { CaseResult, RunContext } from './run-context';

export interface CoverageRow {
  operationId: string;
  documented: string[];
  seen: number[];
  passed: number;
  failed: number;
  skipped: number;
}

type Operation = { operationId?: string; responses?: Record<string, unknown> };

/** The operations of `paths`, then the deliveries of `webhooks` (those the receiver checks), in document order. */
function documentedOperations(): Array<{ operationId: string; documented: string[] }> {
  const document = openApiDocument();
  const rows: Array<{ operationId: string; documented: string[] }> = [];
  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const { method, path, operationId } of specRoutes()) {
    rows.push({ operationId, documented: Object.keys(paths[path][method.toLowerCase()]?.responses ?? {}) });
  }
  for (const item of Object.values((document.webhooks ?? {}) as Record<string, Record<string, Operation>>)) {
    const operation = item.post;
    if (operation?.operationId)
      rows.push({ operationId: operation.operationId, documented: Object.keys(operation.responses ?? {}) });
  }
  return rows;
}

export function coverage(run: RunContext): CoverageRow[] {
  return documentedOperations().map(({ operationId, documented }) => {
    const results = run.results.filter((result) => result.operationId === operationId);
    return {
      operationId,
      documented,
      seen: [...(run.seen.get(operationId) ?? [])].sort((a, b) => a - b),
      passed: results.filter((result) => result.outcome === 'passed').length,
      failed: results.filter((result) => result.outcome === 'failed').length,
      skipped: results.filter((result) => result.outcome === 'skipped').length,
    };
  });
}

/** The coverage table: per operationId, documented statuses against the statuses the run saw, and its cases. */
export function coverageTable(rows: CoverageRow[]): string {
  const header = ['operationId', 'documented', 'seen', 'cases ok/fail/skip'];
  const lines = rows.map((row) => [
    row.operationId,
    row.documented.join(' '),
    row.seen.length > 0 ? row.seen.join(' ') : '-',
    `${row.passed}/${row.failed}/${row.skipped}`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column].length)),
  );
  const format = (cells: string[]): string =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [
    format(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...lines.map(format),
  ].join('\n');
}

export function summary(run: RunContext, rows: CoverageRow[]): string {
  const count = (outcome: CaseResult['outcome']): number =>
    run.results.filter((result) => result.outcome === outcome).length;
  const failed = run.results.filter((result) => result.outcome === 'failed');
  const skipped = run.results.filter((result) => result.outcome === 'skipped');
  const untouched = rows.filter((row) => row.seen.length === 0).map((row) => row.operationId);
  const parts = [
    '',
    'Coverage (statuses documented in openapi.yaml vs seen in this run):',
    coverageTable(rows),
    '',
    skipped.length > 0 ? 'Skipped:' : '',
    ...skipped.map((result) => `  - ${result.operationId}: ${result.name} — ${result.skipReason}`),
    untouched.length > 0
      ? `Operations with no answer seen: ${untouched.join(', ')}`
      : 'Every operation was called.',
    '',
    failed.length > 0 ? 'Mismatches:' : '',
    ...failed.flatMap((result) => result.failures.map((failure) => `  - ${failure.split('\n')[0]}`)),
    `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped in ${((Date.now() - run.startedAt) / 1000).toFixed(1)} s (${(run.pacedMs / 1000).toFixed(1)} s of it waiting for rate-limit windows); seed ${run.options.seed} (replay: --seed ${run.options.seed}); mode ${run.options.mode}`,
    failed.length > 0 ? 'RESULT: FAIL' : 'RESULT: PASS',
  ];
  return parts.filter((part, index, all) => part !== '' || all[index - 1] !== '').join('\n');
}

/** Characters XML 1.0 allows (tab, line breaks, and from space on, minus surrogates and U+FFFE/U+FFFF). */
function xmlCharacter(character: string): boolean {
  const code = character.charCodeAt(0);
  return (
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd)
  );
}

function xml(text: string): string {
  return [...text]
    .filter((character) => character.length > 1 || xmlCharacter(character))
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** JUnit XML: one testsuite per operationId, one testcase per case (failure or skipped with the reason). */
export function junitXml(run: RunContext, rows: CoverageRow[]): string {
  const suites = rows
    .map((row) => ({ row, results: run.results.filter((result) => result.operationId === row.operationId) }))
    .concat(
      [...new Set(run.results.map((result) => result.operationId))]
        .filter((id) => !rows.some((row) => row.operationId === id))
        .map((id) => ({
          row: { operationId: id, documented: [], seen: [], passed: 0, failed: 0, skipped: 0 },
          results: run.results.filter((result) => result.operationId === id),
        })),
    )
    .filter(({ results }) => results.length > 0);
  const total = (key: 'failed' | 'skipped'): number =>
    run.results.filter((result) => result.outcome === key).length;
  const body = suites.map(({ row, results }) => {
    const cases = results.map((result) => {
      const open = `    <testcase classname="stt-contract.${xml(row.operationId)}" name="${xml(result.name)}" time="${(result.durationMs / 1000).toFixed(3)}"`;
      if (result.outcome === 'failed') {
        return `${open}>\n      <failure message="${xml(result.failures[0]?.split('\n')[0] ?? 'failed')}">${xml(result.failures.join('\n'))}</failure>\n    </testcase>`;
      }
      if (result.outcome === 'skipped')
        return `${open}>\n      <skipped message="${xml(result.skipReason ?? '')}"/>\n    </testcase>`;
      return `${open}/>`;
    });
    const failures = results.filter((result) => result.outcome === 'failed').length;
    const skipped = results.filter((result) => result.outcome === 'skipped').length;
    return `  <testsuite name="${xml(row.operationId)}" tests="${results.length}" failures="${failures}" skipped="${skipped}">\n    <properties>\n      <property name="documented" value="${xml(row.documented.join(' '))}"/>\n      <property name="seen" value="${row.seen.join(' ')}"/>\n    </properties>\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="stt-contract" tests="${run.results.length}" failures="${total('failed')}" skipped="${total('skipped')}">\n${body.join('\n')}\n</testsuites>\n`;
}

#!/usr/bin/env node
// `npm run lint:prometheus`: deploy/prometheus/rules.yml is valid (promtool check rules), every alert fires and
// stays quiet as deploy/prometheus/tests.yml says (promtool test rules), and every stt_* metric the rules read is
// one the service registers (src/metrics/metrics.service.ts), so a renamed metric cannot silence an alert.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rulesDir = join(root, 'deploy', 'prometheus');
const run = (args) => {
  try {
    return execFileSync('promtool', args, { cwd: rulesDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    if (error.code === 'ENOENT') {
      console.error('promtool not found: install Debian\'s prometheus package (scripts/install-system-deps.sh does)');
    } else {
      console.error(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
    process.exit(1);
  }
};
run(['check', 'rules', 'rules.yml']);
run(['test', 'rules', 'tests.yml']);

const rules = readFileSync(join(rulesDir, 'rules.yml'), 'utf8');
const registered = new Set(
  [...readFileSync(join(root, 'src', 'metrics', 'metrics.service.ts'), 'utf8').matchAll(/name: '(stt_[a-z_]+)'/g)].map(
    (match) => match[1],
  ),
);
const histogramSuffix = /_(bucket|sum|count)$/;
const used = new Set(
  [...rules.matchAll(/\b(stt_[a-z_]+)\b/g)].map((match) => match[1]).filter((name) => !name.startsWith('stt:')),
);
const unknown = [...used].filter((name) => !registered.has(name) && !registered.has(name.replace(histogramSuffix, '')));
if (unknown.length > 0) {
  console.error(`deploy/prometheus/rules.yml reads metrics the service does not register: ${unknown.join(', ')}`);
  process.exit(1);
}
console.log(`prometheus rules: valid, every alert tested firing and quiet, ${used.size} metrics all registered`);

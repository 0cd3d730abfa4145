/**
 * Writes the monitoring component's PrometheusRule from its plain rules file, so that
 * the rules have one source: `alerts.rules.yaml`, which `promtool check rules` reads as
 * it is (a PrometheusRule wraps the same groups in a Kubernetes object, which promtool
 * refuses).
 *
 *   node scripts/prometheus-rule.js           writes prometheusrule.yaml
 *   node scripts/prometheus-rule.js --check   exits 1 when prometheusrule.yaml does not
 *                                             hold exactly the rules file's groups
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

import { dump, load } from 'js-yaml';
import * as prettier from 'prettier';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const COMPONENT = join(REPO, 'deploy', 'kubernetes', 'components', 'monitoring');
const RULES = join(COMPONENT, 'alerts.rules.yaml');
const TARGET = join(COMPONENT, 'prometheusrule.yaml');

const HEADER = `# Generated from alerts.rules.yaml by \`node scripts/prometheus-rule.js\`: edit that file,
# then run the script. \`npm run lint:kubernetes\` fails while the two differ.
`;

const labels = {
  'app.kubernetes.io/name': 'plant-store',
  'app.kubernetes.io/instance': 'plant-store',
  'app.kubernetes.io/component': 'monitoring',
  'app.kubernetes.io/part-of': 'plant-store',
};

function rulesFile() {
  const rules = load(readFileSync(RULES, 'utf8'));
  if (!Array.isArray(rules?.groups)) {
    throw new Error(`${relative(REPO, RULES)}: no groups`);
  }
  return rules;
}

async function render() {
  const object = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'plant-store', labels },
    spec: { groups: rulesFile().groups },
  };
  const text = HEADER + dump(object, { lineWidth: -1, noRefs: true });
  return prettier.format(text, { ...(await prettier.resolveConfig(TARGET)), filepath: TARGET });
}

if (process.argv.includes('--check')) {
  const committed = existsSync(TARGET) ? load(readFileSync(TARGET, 'utf8')) : undefined;
  if (!isDeepStrictEqual(committed?.spec, { groups: rulesFile().groups })) {
    console.error(
      `${relative(REPO, TARGET)} does not hold the groups of ${relative(REPO, RULES)}: run node scripts/prometheus-rule.js`,
    );
    process.exit(1);
  }
  console.log(`${relative(REPO, TARGET)}: the groups of ${relative(REPO, RULES)}`);
} else {
  writeFileSync(TARGET, await render());
  console.log(`Wrote ${relative(REPO, TARGET)} from ${relative(REPO, RULES)}`);
}

/**
 * An offline check of the Kubernetes manifests in deploy/kubernetes (no cluster, no network):
 *
 * 1. Renders each entry point (deploy/kubernetes itself, each overlay): with
 *    `kubectl kustomize` when kubectl (kustomize v4 or later) is installed; without it,
 *    a kustomization that only lists `resources:` and `components:`, with at most a
 *    plain `configMapGenerator` (the base, the monitoring component), is read directly
 *    with js-yaml, and the others are skipped with a warning. With kubectl, what the
 *    built-in renderer can read must read the same. Rendering happens in a copy of
 *    the tree, where a generator's input file `F` is replaced by its committed example
 *    `F.example`: a real secret file never enters the check.
 * 2. Validates every object against its kind's OpenAPI schema (kubernetes-models, and
 *    its packages of custom resources: the Prometheus Operator's), and looks for fields
 *    the schema does not know, using the models' TypeScript types: a misspelt key passes
 *    the schema, and a cluster then refuses the object (strict field validation) or drops
 *    the field without a word.
 * 3. Applies the project's rules: probes on /health/*, preStop and a grace period that
 *    covers it, a locked-down security context, memory requests and limits, secrets only
 *    by reference (and only from git-ignored files), consistent selectors and ports; for
 *    monitoring, a ServiceMonitor on a Service's port, alerts with a severity, a summary
 *    and a runbook that is a section of docs/, dashboards that are JSON.
 * 4. Validates the YAML examples of docs/kubernetes.md whose kind has a schema.
 *
 *   node scripts/check-kubernetes.js               the check; exits 1 on any problem
 *   node scripts/check-kubernetes.js --self-test   breaks the rendered base in known ways
 *                                                  and checks that each break is reported
 *   --no-kubectl                                   renders without kubectl even if installed
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

import { loadAll, YAML11_SCHEMA } from 'js-yaml';
import ts from 'typescript';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(REPO, 'deploy', 'kubernetes');
const DOCS = join(REPO, 'docs', 'kubernetes.md');
/** Custom resources whose schemas a kubernetes-models package carries, by API group. */
const CUSTOM_RESOURCE_MODELS = { 'monitoring.coreos.com': '@kubernetes-models/prometheus-operator' };
const KUSTOMIZATION_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
/**
 * What the built-in renderer understands of a kustomization: plain lists of files and
 * directories, and ConfigMaps made of files under a fixed name (no hash suffix).
 */
const DIRECT_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'components', 'configMapGenerator']);
/** Kinds whose pods run until stopped: they serve traffic, so they get probes and a drain. */
const LONG_RUNNING = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);
/** Environment variables that carry credentials: never a literal value in a manifest. */
const SECRET_NAME = /(^|_)(SECRET|TOKENS?|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY)$|^(DATABASE|REDIS)_URL$/;
/** The service's defaults (src/core/config/app.config.ts). */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
const DEFAULT_GRACE_PERIOD_S = 30;
// YAML 1.1, as Kubernetes reads it: an unquoted `yes` or `on` is a boolean there too.
const YAML_OPTIONS = { schema: YAML11_SCHEMA };

const relativeToRepo = (path) => relative(REPO, path) || '.';
const describe = (object) => `${object?.kind ?? '(no kind)'}/${object?.metadata?.name ?? '(no name)'}`;
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

// ---------------------------------------------------------------------------------------
// Kustomizations: finding them, their generator files, rendering them

function kustomizationFile(dir) {
  return KUSTOMIZATION_NAMES.map((name) => join(dir, name)).find((file) => existsSync(file));
}

/** The documents of a YAML file (or text), with the file named in any parse error. */
function parseYaml(text, source) {
  try {
    return loadAll(text, YAML_OPTIONS).filter((document) => document !== null && document !== undefined);
  } catch (error) {
    throw new Error(`${source}: ${error.message}`, { cause: error });
  }
}

function readKustomization(dir) {
  const file = kustomizationFile(dir);
  const content = parseYaml(readFileSync(file, 'utf8'), relativeToRepo(file))[0] ?? {};
  if (!isObject(content)) {
    throw new Error(`${relativeToRepo(file)}: not a YAML mapping`);
  }
  return content;
}

/** Every directory under `dir` (itself included) that holds a kustomization. */
function findKustomizations(dir) {
  const found = kustomizationFile(dir) ? [dir] : [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith('.')) {
      found.push(...findKustomizations(join(dir, entry.name)));
    }
  }
  return found;
}

/** The kustomizations that no other one includes (components aside): what a user applies. */
function entryPoints(dirs) {
  const included = new Set();
  for (const dir of dirs) {
    const kustomization = readKustomization(dir);
    for (const entry of [...(kustomization.resources ?? []), ...(kustomization.components ?? [])]) {
      included.add(resolve(dir, String(entry)));
    }
  }
  return dirs.filter((dir) => !included.has(dir) && readKustomization(dir).kind !== 'Component');
}

/** The files a kustomization's generators read: `envs`, `env` and `files` (`key=path` or `path`). */
function generatorFiles(dir, field) {
  const generators = readKustomization(dir)[field] ?? [];
  return generators.flatMap((generator) =>
    [...(generator.envs ?? []), ...(generator.env ? [generator.env] : []), ...(generator.files ?? [])].map(
      (entry) => resolve(dir, String(entry).replace(/^[^=]*=/, '')),
    ),
  );
}

function generatedSecretNames(dirs) {
  return dirs.flatMap((dir) =>
    (readKustomization(dir).secretGenerator ?? []).map((generator) => generator.name),
  );
}

/** The kubectl to render with, if one with kustomize v4 or later is installed. */
function findKubectl(disabled) {
  if (disabled) {
    return { reason: '--no-kubectl' };
  }
  const result = spawnSync('kubectl', ['version', '--client', '--output=json'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    return { reason: 'kubectl is not installed' };
  }
  let kustomizeVersion;
  try {
    ({ kustomizeVersion } = JSON.parse(result.stdout));
  } catch {
    return { reason: 'kubectl did not report its version' };
  }
  const major = Number(/^v?(\d+)\./.exec(kustomizeVersion ?? '')?.[1]);
  if (!(major >= 4)) {
    return {
      reason: `kubectl's kustomize is ${kustomizeVersion ?? 'too old to say'} (v4 or later is needed)`,
    };
  }
  return { kustomizeVersion };
}

class Unrenderable extends Error {}

/**
 * The built-in renderer: a kustomization that lists files and directories (resources,
 * then components, as kustomize orders them), and makes ConfigMaps of files, and nothing
 * else.
 */
function renderDirectly(dir) {
  const kustomization = readKustomization(dir);
  const unsupported = Object.keys(kustomization).filter((field) => !DIRECT_FIELDS.has(field));
  if (unsupported.length > 0) {
    throw new Unrenderable(`${relativeToRepo(dir)} uses ${unsupported.join(', ')}`);
  }
  const entries = [...(kustomization.resources ?? []), ...(kustomization.components ?? [])];
  const objects = entries.flatMap((entry) => {
    const path = resolve(dir, String(entry));
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(String(entry))) {
      throw new Unrenderable(`${relativeToRepo(dir)}: resource ${entry} is remote`);
    }
    if (!existsSync(path)) {
      throw new Error(`${relativeToRepo(dir)}: resource ${entry} does not exist`);
    }
    if (statSync(path).isDirectory()) {
      return renderDirectly(path);
    }
    return parseYaml(readFileSync(path, 'utf8'), relativeToRepo(path));
  });
  return [
    ...objects,
    ...(kustomization.configMapGenerator ?? []).map((generator) => configMapOf(dir, generator)),
  ];
}

/** A configMapGenerator entry with `files` only, a fixed name and labels: the ConfigMap kustomize makes. */
function configMapOf(dir, generator) {
  const { name, files = [], options = {}, ...rest } = isObject(generator) ? generator : {};
  const { disableNameSuffixHash, labels, ...otherOptions } = options;
  const unsupported = [...Object.keys(rest), ...Object.keys(otherOptions)];
  if (unsupported.length > 0 || disableNameSuffixHash !== true || typeof name !== 'string') {
    throw new Unrenderable(
      `${relativeToRepo(dir)}: a configMapGenerator with ${unsupported.length > 0 ? unsupported.join(', ') : 'a hashed name'}`,
    );
  }
  const data = {};
  for (const entry of files.map(String)) {
    const [key, file] = entry.includes('=') ? entry.split(/=(.*)/s, 2) : [entry.split('/').pop(), entry];
    data[key] = readFileSync(resolve(dir, file), 'utf8');
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

function renderWithKubectl(dir) {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error || result.status !== 0) {
    throw new Error(`kubectl kustomize failed: ${(result.stderr || String(result.error)).trim()}`);
  }
  return parseYaml(result.stdout, `kubectl kustomize ${dir}`).map((object) => {
    // kustomize wraps long base64 values over several lines; the API server's decoder skips the line breaks.
    if (object?.kind === 'Secret' && isObject(object.data)) {
      for (const [key, value] of Object.entries(object.data)) {
        object.data[key] = typeof value === 'string' ? value.replace(/\r?\n/g, '') : value;
      }
    }
    return object;
  });
}

/**
 * A copy of deploy/kubernetes in which each generator input that has a committed
 * `.example` is that example: the real file (git-ignored) is not even copied.
 */
function workingCopy() {
  const copy = mkdtempSync(join(tmpdir(), 'plant-store-kubernetes-'));
  cpSync(ROOT, copy, { recursive: true, filter: (source) => !existsSync(`${source}.example`) });
  for (const dir of findKustomizations(copy)) {
    for (const file of [
      ...generatorFiles(dir, 'secretGenerator'),
      ...generatorFiles(dir, 'configMapGenerator'),
    ]) {
      if (existsSync(`${file}.example`)) {
        copyFileSync(`${file}.example`, file);
      }
    }
  }
  return copy;
}

// ---------------------------------------------------------------------------------------
// Schemas: kubernetes-models' validators, and its types for unknown fields

const SEGMENT = {
  group: /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/,
  version: /^v\d+([a-z]+\d+)?$/,
  kind: /^[A-Z]\w*$/,
};

/** `kubernetes-models/apps/v1/Deployment` for apps/v1 Deployment; undefined for a kind it does not know. */
function modelModule(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    return undefined;
  }
  const parts = apiVersion.split('/');
  const [group, version] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (
    parts.length > 2 ||
    (group !== undefined && !SEGMENT.group.test(group)) ||
    !SEGMENT.version.test(version) ||
    !SEGMENT.kind.test(kind)
  ) {
    return undefined;
  }
  const custom = CUSTOM_RESOURCE_MODELS[group];
  const module = custom
    ? [custom, group, version, kind].join('/')
    : ['kubernetes-models', group, version, kind].filter(Boolean).join('/');
  try {
    return existsSync(fileURLToPath(import.meta.resolve(module))) ? module : undefined;
  } catch {
    return undefined;
  }
}

const models = new Map();
async function loadModel(module) {
  if (!models.has(module)) {
    const exports = await import(module);
    models.set(module, exports[module.split('/').pop()]);
  }
  return models.get(module);
}

/** ajv's `/spec/template/spec/containers/0/ports` as `spec.template.spec.containers[0].ports`. */
function pointerToPath(pointer) {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, segment) =>
        /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
      '',
    );
}

async function schemaProblems(object) {
  const module = modelModule(object?.apiVersion, object?.kind);
  if (!module) {
    return [
      `no schema for apiVersion ${object?.apiVersion} kind ${object?.kind} (kubernetes-models has the built-in kinds; CUSTOM_RESOURCE_MODELS names the packages of custom ones)`,
    ];
  }
  const Model = await loadModel(module);
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    const errors = Array.isArray(error?.errors)
      ? error.errors
      : [{ instancePath: '', message: String(error) }];
    const messages = errors.map((entry) => {
      const allowed = entry.params?.allowedValues ? ` (${entry.params.allowedValues.join(', ')})` : '';
      return `${pointerToPath(entry.instancePath) || '(object)'}: ${entry.message}${allowed}`;
    });
    return [...new Set(messages)].map((message) => `schema: ${message}`);
  }
}

/**
 * Finds fields that the kind's schema does not have, by walking each object along
 * kubernetes-models' TypeScript interfaces (one program for all kinds, built once).
 */
function createFieldChecker(modules) {
  const fileName = join(REPO, '__kubernetes_models__.ts');
  const source = modules
    .map((module, index) => {
      const kind = module.split('/').pop();
      return `import type { I${kind} as T${index} } from '${module}';\nexport declare const v${index}: T${index};`;
    })
    .join('\n');
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, languageVersion, ...rest) =>
    name === fileName
      ? ts.createSourceFile(name, source, languageVersion)
      : getSourceFile.call(host, name, languageVersion, ...rest);
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  host.readFile = (name) => (name === fileName ? source : readFile.call(host, name));
  const program = ts.createProgram([fileName], options, host);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) {
    const text = ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n');
    throw new Error(`cannot read kubernetes-models' types: ${text}`);
  }
  const checker = program.getTypeChecker();
  const types = new Map();
  for (const statement of program.getSourceFile(fileName).statements) {
    if (ts.isVariableStatement(statement)) {
      const declaration = statement.declarationList.declarations[0];
      const index = Number(declaration.name.text.slice(1));
      types.set(modules[index], checker.getTypeAtLocation(declaration.name));
    }
  }

  const walk = (value, type, path, problems) => {
    if (value === null || typeof value !== 'object') {
      return;
    }
    let declared = checker.getNonNullableType(type);
    if (declared.isUnion()) {
      // number | string (IntOrString, Quantity) and the like: the schema judges those.
      const objects = declared.types.filter((member) => member.flags & ts.TypeFlags.Object);
      if (objects.length !== 1) {
        return;
      }
      declared = objects[0];
    }
    if (Array.isArray(value)) {
      if (checker.isArrayType(declared)) {
        const [element] = checker.getTypeArguments(declared);
        value.forEach((item, index) => walk(item, element, `${path}[${index}]`, problems));
      }
      return;
    }
    if (!(declared.flags & ts.TypeFlags.Object) || checker.isArrayType(declared)) {
      return;
    }
    const indexType = checker.getIndexTypeOfType(declared, ts.IndexKind.String);
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      const property = checker.getPropertyOfType(declared, key);
      if (property) {
        walk(child, checker.getTypeOfSymbol(property), childPath, problems);
      } else if (indexType) {
        walk(child, indexType, childPath, problems);
      } else {
        problems.push(`${childPath}: unknown field`);
      }
    }
  };

  return (object) => {
    const type = types.get(modelModule(object?.apiVersion, object?.kind));
    const problems = [];
    if (type) {
      walk(object, type, '', problems);
    }
    return problems;
  };
}

// ---------------------------------------------------------------------------------------
// The project's rules

/** The pod spec a workload runs, and where it sits. */
function podSpecOf(object) {
  switch (object?.kind) {
    case 'Pod':
      return { spec: object.spec, labels: object.metadata?.labels, path: 'spec' };
    case 'CronJob':
      return {
        spec: object.spec?.jobTemplate?.spec?.template?.spec,
        labels: object.spec?.jobTemplate?.spec?.template?.metadata?.labels,
        path: 'spec.jobTemplate.spec.template.spec',
      };
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
      return {
        spec: object.spec?.template?.spec,
        labels: object.spec?.template?.metadata?.labels,
        path: 'spec.template.spec',
      };
    default:
      return undefined;
  }
}

const UNITS = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  m: 1e-3,
  '': 1,
};
/** A Kubernetes quantity (`256Mi`, `250m`, `1e3`) as a number, or NaN. */
function parseQuantity(quantity) {
  const match = /^([0-9.]+(?:e[+-]?\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T|m)?$/.exec(String(quantity ?? ''));
  return match ? Number(match[1]) * UNITS[match[2] ?? ''] : NaN;
}

function matchesSelector(selector, labels) {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([key, value]) => labels?.[key] === value);
}

/** How long a preStop hook pauses, in seconds: the native sleep action or `sleep N`. */
function preStopSeconds(preStop) {
  if (preStop?.sleep) {
    return Number(preStop.sleep.seconds) || 0;
  }
  const command = (preStop?.exec?.command ?? []).join(' ');
  return Number(/(?:^|\s|\/)sleep\s+(\d+)/.exec(command)?.[1] ?? 0);
}

/**
 * The project's rules over one rendered entry point. `allowedSecrets` names the Secrets
 * that a secretGenerator makes (from git-ignored files); any other Secret is committed.
 */
function projectProblems(objects, { allowedSecrets = [] } = {}) {
  const problems = [];
  const report = (object, message) => problems.push(`${describe(object)}: ${message}`);
  const ofKind = (kind) => objects.filter((object) => object?.kind === kind);
  const workloads = objects.filter((object) => podSpecOf(object)?.spec);

  for (const object of objects) {
    const labels = object?.metadata?.labels ?? {};
    if (!labels['app.kubernetes.io/part-of']) {
      report(object, 'metadata.labels: app.kubernetes.io/part-of is missing');
    }
    if (object?.kind !== 'Namespace' && !labels['app.kubernetes.io/name']) {
      report(object, 'metadata.labels: app.kubernetes.io/name is missing');
    }
    if (object?.kind === 'Secret') {
      const generated = allowedSecrets.some((name) =>
        new RegExp(`(^|-)${name}(-[a-z0-9]{10})?$`).test(object.metadata?.name),
      );
      if (!generated) {
        report(
          object,
          'a Secret in the manifests commits its values: create it out of band, or with a secretGenerator reading a git-ignored file',
        );
      }
    }
    if (object?.kind === 'ConfigMap') {
      for (const key of Object.keys(object.data ?? {})) {
        if (SECRET_NAME.test(key)) {
          report(object, `data.${key}: a credential belongs in a Secret, referenced with secretKeyRef`);
        }
      }
    }
  }

  const serviceAccounts = new Map(
    ofKind('ServiceAccount').map((account) => [account.metadata?.name, account]),
  );
  for (const workload of workloads) {
    const { spec: pod, labels: podLabels, path } = podSpecOf(workload);
    const longRunning = LONG_RUNNING.has(workload.kind) || workload.kind === 'Pod';
    const at = (suffix) => `${path}.${suffix}`;

    if (workload.kind !== 'Pod' && workload.kind !== 'CronJob' && workload.spec?.selector) {
      if (!matchesSelector(workload.spec.selector.matchLabels, podLabels)) {
        report(workload, 'spec.selector.matchLabels does not match the pod template labels');
      }
    }
    for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) {
      if (pod[field] === true) {
        report(workload, `${at(field)} must not be true`);
      }
    }
    const accountName = pod.serviceAccountName ?? 'default';
    const account = serviceAccounts.get(accountName);
    if (!account) {
      report(workload, `${at('serviceAccountName')}: ServiceAccount ${accountName} is not in the manifests`);
    }
    if (
      pod.automountServiceAccountToken === true ||
      (pod.automountServiceAccountToken === undefined && account?.automountServiceAccountToken !== false)
    ) {
      report(
        workload,
        `${at('automountServiceAccountToken')} must be false (the service never calls the Kubernetes API)`,
      );
    }
    if (longRunning && workload.kind !== 'Pod' && workload.kind !== 'DaemonSet') {
      const covered = ofKind('PodDisruptionBudget').some((budget) =>
        matchesSelector(budget.spec?.selector?.matchLabels, podLabels),
      );
      if (!covered) {
        report(workload, 'no PodDisruptionBudget selects its pods');
      }
      if (workload.spec?.replicas !== undefined && workload.spec.replicas < 2) {
        report(workload, 'spec.replicas: at least 2, so that a drain or a crash leaves one pod serving');
      }
    }

    const volumes = new Set((pod.volumes ?? []).map((volume) => volume.name));
    const containers = [
      ...(pod.initContainers ?? []).map((container, index) => ({
        container,
        where: at(`initContainers[${index}]`),
        init: true,
      })),
      ...(pod.containers ?? []).map((container, index) => ({
        container,
        where: at(`containers[${index}]`),
        init: false,
      })),
    ];
    for (const { container, where, init } of containers) {
      const security = container.securityContext ?? {};
      const podSecurity = pod.securityContext ?? {};
      const image = String(container.image ?? '');
      if (
        !/(:[\w][\w.-]*|@sha256:[0-9a-f]{64})$/.test(image.replace(/^[^/]*:\d+\//, '')) ||
        /:latest$/.test(image)
      ) {
        report(workload, `${where}.image: ${image || '(none)'} needs a version tag or a digest (not latest)`);
      }
      if ((security.runAsNonRoot ?? podSecurity.runAsNonRoot) !== true) {
        report(
          workload,
          `${where}.securityContext.runAsNonRoot must be true (here or in the pod's securityContext)`,
        );
      }
      if ((security.runAsUser ?? podSecurity.runAsUser) === 0) {
        report(workload, `${where}.securityContext.runAsUser must not be 0`);
      }
      if (security.readOnlyRootFilesystem !== true) {
        report(workload, `${where}.securityContext.readOnlyRootFilesystem must be true`);
      }
      if (security.allowPrivilegeEscalation !== false) {
        report(workload, `${where}.securityContext.allowPrivilegeEscalation must be false`);
      }
      if (security.privileged === true) {
        report(workload, `${where}.securityContext.privileged must not be true`);
      }
      if (!(security.capabilities?.drop ?? []).includes('ALL')) {
        report(workload, `${where}.securityContext.capabilities.drop must include ALL`);
      }
      if (security.capabilities?.add?.length) {
        report(workload, `${where}.securityContext.capabilities.add must be empty`);
      }
      const seccomp = (security.seccompProfile ?? podSecurity.seccompProfile)?.type;
      if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') {
        report(
          workload,
          `${where}.securityContext.seccompProfile.type must be RuntimeDefault (here or in the pod's securityContext)`,
        );
      }
      const mounts = container.volumeMounts ?? [];
      if (
        security.readOnlyRootFilesystem === true &&
        !mounts.some((mount) => mount.mountPath === '/tmp' && volumes.has(mount.name))
      ) {
        report(
          workload,
          `${where}.volumeMounts: a read-only root file system needs a writable volume at /tmp (os.tmpdir())`,
        );
      }

      const { requests = {}, limits = {} } = container.resources ?? {};
      for (const [value, name] of [
        [requests.cpu, 'requests.cpu'],
        [requests.memory, 'requests.memory'],
        [limits.memory, 'limits.memory'],
      ]) {
        if (value === undefined) {
          report(workload, `${where}.resources.${name} is missing`);
        }
      }
      if (
        requests.memory !== undefined &&
        limits.memory !== undefined &&
        parseQuantity(limits.memory) < parseQuantity(requests.memory)
      ) {
        report(
          workload,
          `${where}.resources: limits.memory (${limits.memory}) is below requests.memory (${requests.memory})`,
        );
      }

      const env = container.env ?? [];
      const seen = new Set();
      for (const variable of env) {
        if (seen.has(variable.name)) {
          report(workload, `${where}.env: ${variable.name} is set twice`);
        }
        seen.add(variable.name);
        if (SECRET_NAME.test(variable.name) && variable.value !== undefined) {
          report(
            workload,
            `${where}.env: ${variable.name} has a literal value: take it from a Secret (valueFrom.secretKeyRef)`,
          );
        }
      }
      for (const source of container.envFrom ?? []) {
        const configMap = ofKind('ConfigMap').find((map) => map.metadata?.name === source.configMapRef?.name);
        for (const key of Object.keys(configMap?.data ?? {}).filter((name) => SECRET_NAME.test(name))) {
          report(
            workload,
            `${where}.envFrom: ${key} comes from ConfigMap ${configMap.metadata.name}: take it from a Secret`,
          );
        }
      }
      if (init || !longRunning) {
        continue;
      }

      // A container of the service: what Kubernetes needs to know of it.
      const byName = new Map(env.map((variable) => [variable.name, variable]));
      const fromSecret = (name) => byName.get(name)?.valueFrom?.secretKeyRef;
      if (!fromSecret('DATABASE_URL') || fromSecret('DATABASE_URL').optional === true) {
        report(
          workload,
          `${where}.env: DATABASE_URL must come from a Secret (secretKeyRef, not optional): production refuses to start without it`,
        );
      }
      if (
        !byName.has('AUTH_JWKS_URL') &&
        !byName.has('AUTH_JWT_SECRET') &&
        (!fromSecret('AUTH_TOKENS') || fromSecret('AUTH_TOKENS').optional === true)
      ) {
        report(
          workload,
          `${where}.env: AUTH_TOKENS must come from a Secret (secretKeyRef, not optional), unless JWT settings are given`,
        );
      }
      const ports = container.ports ?? [];
      const host = byName.get('HOST')?.value;
      if (host !== undefined && !['0.0.0.0', '::'].includes(host)) {
        report(
          workload,
          `${where}.env: HOST=${host} is not reachable from the kubelet and the Service (0.0.0.0 or ::)`,
        );
      }
      const port = byName.get('PORT')?.value;
      if (port !== undefined && !ports.some((entry) => entry.containerPort === Number(port))) {
        report(workload, `${where}.env: PORT=${port} is not one of the container's ports`);
      }
      const metricsPort = byName.get('METRICS_PORT')?.value;
      if (metricsPort === undefined) {
        report(
          workload,
          `${where}.env: METRICS_PORT is missing: /metrics would be served on the API's port, which the Ingress exposes`,
        );
      } else if (
        !ports.some((entry) => entry.name === 'metrics' && entry.containerPort === Number(metricsPort))
      ) {
        report(
          workload,
          `${where}.env: METRICS_PORT=${metricsPort} is not the container's port named metrics`,
        );
      }
      const trustProxy = byName.get('TRUST_PROXY')?.value;
      if (trustProxy !== undefined && !/^\d+$/.test(trustProxy)) {
        report(
          workload,
          `${where}.env: TRUST_PROXY=${trustProxy} trusts every address it names, and any of them may forge X-Forwarded-For: give the number of proxy hops in front (1)`,
        );
      }
      const probes = [
        ['readinessProbe', '/health/ready', true],
        ['livenessProbe', '/health/live', true],
        ['startupProbe', /^\/health\/(live|ready)$/, false],
      ];
      for (const [field, expected, required] of probes) {
        const probe = container[field];
        if (!probe) {
          if (required) {
            report(workload, `${where}.${field} is missing (GET ${expected})`);
          }
          continue;
        }
        const path = probe.httpGet?.path;
        if (typeof expected === 'string' ? path !== expected : !expected.test(path ?? '')) {
          report(
            workload,
            `${where}.${field}: an httpGet on ${typeof expected === 'string' ? expected : '/health/live or /health/ready'} (is ${path ?? 'no httpGet'})`,
          );
        }
        const probePort = probe.httpGet?.port;
        if (
          probePort !== undefined &&
          !ports.some((entry) => entry.name === probePort || entry.containerPort === probePort)
        ) {
          report(workload, `${where}.${field}.httpGet.port: ${probePort} is not a port of the container`);
        }
      }
      const preStop = container.lifecycle?.preStop;
      if (!preStop) {
        report(
          workload,
          `${where}.lifecycle.preStop is missing: a pause lets endpoints drain before SIGTERM`,
        );
      }
      const shutdownMs = Number(byName.get('SHUTDOWN_TIMEOUT_MS')?.value ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
      const pause = preStopSeconds(preStop);
      const grace = pod.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_S;
      if (!(grace > pause + shutdownMs / 1000)) {
        report(
          workload,
          `${at('terminationGracePeriodSeconds')} (${grace}) must exceed the preStop pause (${pause} s) + SHUTDOWN_TIMEOUT_MS (${shutdownMs / 1000} s)`,
        );
      }
    }
  }

  for (const service of ofKind('Service')) {
    const selected = workloads.filter((workload) =>
      matchesSelector(service.spec?.selector, podSpecOf(workload).labels),
    );
    if (selected.length === 0) {
      report(service, 'spec.selector selects no pods of the manifests');
    }
    for (const [index, port] of (service.spec?.ports ?? []).entries()) {
      const target = port.targetPort ?? port.port;
      const served = selected.some((workload) =>
        podSpecOf(workload).spec.containers?.some((container) =>
          (container.ports ?? []).some((entry) => entry.name === target || entry.containerPort === target),
        ),
      );
      if (selected.length > 0 && !served) {
        report(service, `spec.ports[${index}].targetPort: ${target} is not a port of the pods it selects`);
      }
    }
  }
  for (const workload of workloads) {
    const { labels: podLabels, spec } = podSpecOf(workload);
    const policies = ofKind('NetworkPolicy').filter((policy) =>
      matchesSelector(policy.spec?.podSelector?.matchLabels, podLabels),
    );
    const types = new Set(policies.flatMap((policy) => policy.spec?.policyTypes ?? []));
    if (!types.has('Ingress') || !types.has('Egress')) {
      report(
        workload,
        'no NetworkPolicy limits both what reaches its pods and what they reach (policyTypes Ingress and Egress)',
      );
    }
    const portNames = new Set(
      (spec.containers ?? []).flatMap((container) =>
        (container.ports ?? []).flatMap((entry) => [entry.name, entry.containerPort]),
      ),
    );
    for (const policy of policies) {
      for (const [index, rule] of (policy.spec?.ingress ?? []).entries()) {
        if (!rule.ports?.length) {
          report(policy, `spec.ingress[${index}] allows every port: name the ports it opens`);
        }
        for (const entry of rule.ports ?? []) {
          if (!portNames.has(entry.port)) {
            report(
              policy,
              `spec.ingress[${index}].ports: ${entry.port} is not a port of the pods it selects`,
            );
          }
        }
      }
    }
  }
  for (const service of ofKind('Service')) {
    const ports = service.spec?.ports ?? [];
    const isMetrics = (entry) => entry.targetPort === 'metrics' || entry.name === 'metrics';
    // A ServiceMonitor finds pods through a Service: one for the metrics port alone, with
    // no cluster IP, routes no traffic (the NetworkPolicy lets only Prometheus reach the port).
    const forDiscovery = service.spec?.clusterIP === 'None' && ports.every(isMetrics);
    for (const [index, entry] of ports.entries()) {
      if (isMetrics(entry) && !forDiscovery) {
        report(
          service,
          `spec.ports[${index}] routes the metrics port, which only Prometheus should reach (a headless Service of the metrics port alone may name it, for a ServiceMonitor)`,
        );
      }
    }
  }
  problems.push(...monitoringProblems(objects));
  for (const budget of ofKind('PodDisruptionBudget')) {
    if (
      !workloads.some((workload) =>
        matchesSelector(budget.spec?.selector?.matchLabels, podSpecOf(workload).labels),
      )
    ) {
      report(budget, 'spec.selector selects no pods of the manifests');
    }
  }
  for (const autoscaler of ofKind('HorizontalPodAutoscaler')) {
    const { kind, name } = autoscaler.spec?.scaleTargetRef ?? {};
    if (!objects.some((object) => object?.kind === kind && object.metadata?.name === name)) {
      report(autoscaler, `spec.scaleTargetRef: ${kind}/${name} is not in the manifests`);
    }
    if ((autoscaler.spec?.minReplicas ?? 1) < 2) {
      report(autoscaler, 'spec.minReplicas: at least 2, so that a drain or a crash leaves one pod serving');
    }
  }
  return problems;
}

/** The headings of a Markdown page as GitHub anchors them: `### PlantStoreShedding` is `#plantstoreshedding`. */
function anchorsOf(file) {
  const anchors = new Set();
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) {
      anchor = `${base}-${n}`;
    }
    anchors.add(anchor);
  }
  return anchors;
}

/**
 * ServiceMonitors scrape a port of a Service of the manifests; alerts say how bad they are,
 * what happened, and where their runbook is (a section of a page of docs/); dashboards
 * for Grafana's sidecar are JSON.
 */
function monitoringProblems(objects) {
  const problems = [];
  const report = (object, message) => problems.push(`${describe(object)}: ${message}`);
  const services = objects.filter((object) => object?.kind === 'Service');
  for (const monitor of objects.filter((object) => object?.kind === 'ServiceMonitor')) {
    const selected = services.filter((service) =>
      matchesSelector(monitor.spec?.selector?.matchLabels, service.metadata?.labels),
    );
    if (selected.length === 0) {
      report(monitor, 'spec.selector selects no Service of the manifests');
    }
    for (const [index, endpoint] of (monitor.spec?.endpoints ?? []).entries()) {
      const served = selected.some((service) =>
        (service.spec?.ports ?? []).some((port) => port.name === endpoint.port),
      );
      if (selected.length > 0 && !served) {
        report(
          monitor,
          `spec.endpoints[${index}].port: ${endpoint.port} is not a port of the Service it selects`,
        );
      }
    }
  }
  const anchors = new Map();
  for (const rule of objects.filter((object) => object?.kind === 'PrometheusRule')) {
    for (const [g, group] of (rule.spec?.groups ?? []).entries()) {
      for (const [r, alert] of (group.rules ?? []).entries()) {
        if (alert.alert === undefined) {
          continue;
        }
        const at = `spec.groups[${g}].rules[${r}] (${alert.alert})`;
        if (!alert.labels?.severity) {
          report(rule, `${at}: labels.severity is missing`);
        }
        if (!alert.annotations?.summary) {
          report(rule, `${at}: annotations.summary is missing`);
        }
        const runbook = alert.annotations?.runbook_url;
        const [, page, anchor] = /^(docs\/[\w-]+\.md)#(.+)$/.exec(runbook ?? '') ?? [];
        if (runbook === undefined) {
          report(rule, `${at}: annotations.runbook_url is missing`);
        } else if (!page) {
          report(rule, `${at}: annotations.runbook_url ${runbook} must be docs/<page>.md#<section>`);
        } else {
          const file = join(REPO, page);
          if (!anchors.has(page)) {
            anchors.set(page, existsSync(file) ? anchorsOf(file) : new Set());
          }
          if (!anchors.get(page).has(anchor)) {
            report(rule, `${at}: annotations.runbook_url: ${page} has no section #${anchor}`);
          }
        }
      }
    }
  }
  for (const map of objects.filter(
    (object) => object?.kind === 'ConfigMap' && object.metadata?.labels?.grafana_dashboard !== undefined,
  )) {
    for (const [key, value] of Object.entries(map.data ?? {})) {
      let dashboard;
      try {
        dashboard = JSON.parse(String(value));
      } catch (error) {
        report(map, `data.${key}: a Grafana dashboard, but not JSON (${error.message})`);
        continue;
      }
      if (typeof dashboard?.title !== 'string' || !Array.isArray(dashboard.panels)) {
        report(map, `data.${key}: a Grafana dashboard has a title and panels`);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------
// The check

/** Every problem of a set of rendered objects: schema, unknown fields, project rules. */
async function checkObjects(objects, fieldChecker, options) {
  const problems = [];
  for (const object of objects) {
    if (!isObject(object)) {
      problems.push(`a document is not a YAML mapping: ${JSON.stringify(object)}`);
      continue;
    }
    for (const problem of [...(await schemaProblems(object)), ...fieldChecker(object)]) {
      problems.push(`${describe(object)}: ${problem}`);
    }
  }
  return [...problems, ...projectProblems(objects.filter(isObject), options)];
}

/** The YAML blocks of docs/kubernetes.md that are objects of a kind with a schema. */
function docsExamples() {
  if (!existsSync(DOCS)) {
    return [];
  }
  const blocks = [...readFileSync(DOCS, 'utf8').matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map(
    (match) => match[1],
  );
  return blocks
    .flatMap((block) => parseYaml(block, `${relativeToRepo(DOCS)}: a yaml example`))
    .filter((document) => isObject(document) && modelModule(document.apiVersion, document.kind));
}

/** Secret files a generator reads must be git-ignored (when git can tell). */
function unignoredSecretFiles(files) {
  const problems = [];
  for (const file of files) {
    const result = spawnSync('git', ['check-ignore', '-q', file], { cwd: REPO });
    if (result.status === 1) {
      problems.push(
        `${relativeToRepo(file)}: a secretGenerator reads it, so it must be git-ignored (and never committed)`,
      );
    }
  }
  return problems;
}

/**
 * Renders every entry point: `{ name, objects }`, `{ name, skipped }` (the built-in
 * renderer cannot), or `{ name, error }`.
 */
function renderAll(kubectl) {
  const copy = kubectl.kustomizeVersion ? workingCopy() : undefined;
  try {
    return entryPoints(findKustomizations(ROOT)).map((dir) => {
      const name = relativeToRepo(dir);
      try {
        if (copy) {
          return { name, objects: renderWithKubectl(join(copy, relative(ROOT, dir))) };
        }
        return { name, objects: renderDirectly(dir) };
      } catch (error) {
        if (error instanceof Unrenderable) {
          return { name, skipped: `${error.message}: needs kubectl kustomize (${kubectl.reason})` };
        }
        // Name the files of the repository, not those of the copy.
        return { name, error: copy ? error.message.replaceAll(copy, relativeToRepo(ROOT)) : error.message };
      }
    });
  } finally {
    if (copy) {
      rmSync(copy, { recursive: true, force: true });
    }
  }
}

async function main() {
  const kubectl = findKubectl(process.argv.includes('--no-kubectl'));
  const dirs = findKustomizations(ROOT);
  const allowedSecrets = generatedSecretNames(dirs);
  const problems = unignoredSecretFiles(dirs.flatMap((dir) => generatorFiles(dir, 'secretGenerator')));
  const targets = renderAll(kubectl);
  for (const target of targets.filter((entry) => entry.error)) {
    problems.push(`${target.name}: ${target.error}`);
  }
  // deploy/kubernetes itself must stay readable without kubectl (CI may have none), and
  // whatever the built-in renderer reads must read the same as with kubectl.
  for (const target of targets.filter((entry) => !entry.skipped)) {
    const isRoot = target.name === relativeToRepo(ROOT);
    try {
      const direct = renderDirectly(join(REPO, target.name));
      if (target.objects && kubectl.kustomizeVersion && !sameObjects(direct, target.objects)) {
        problems.push(`${target.name}: the built-in renderer reads it differently from kubectl kustomize`);
      }
    } catch (error) {
      if (error instanceof Unrenderable) {
        if (isRoot) {
          problems.push(`${target.name}: must stay renderable without kubectl: ${error.message}`);
        }
      } else if (!target.error) {
        problems.push(`${target.name}: ${error.message}`);
      }
    }
  }
  const examples = docsExamples();
  const rendered = targets.filter((target) => target.objects);
  const fieldChecker = createFieldChecker(
    moduleList([...rendered.flatMap((target) => target.objects), ...examples]),
  );

  for (const target of rendered) {
    for (const problem of await checkObjects(target.objects, fieldChecker, { allowedSecrets })) {
      problems.push(`${target.name}: ${problem}`);
    }
  }
  for (const example of examples) {
    for (const problem of [...(await schemaProblems(example)), ...fieldChecker(example)]) {
      problems.push(`${relativeToRepo(DOCS)}: example ${describe(example)}: ${problem}`);
    }
  }
  for (const target of targets.filter((entry) => entry.skipped)) {
    console.warn(`${target.name}: not checked: ${target.skipped}`);
  }

  if (problems.length > 0) {
    for (const problem of problems) {
      console.error(problem);
    }
    console.error(`\nKubernetes manifests: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
  const renderer = kubectl.kustomizeVersion
    ? `kubectl kustomize (kustomize ${kubectl.kustomizeVersion})`
    : `the built-in renderer (${kubectl.reason})`;
  const summary = rendered.map((target) => `${target.name}: ${target.objects.length} objects`).join(', ');
  console.log(
    `Kubernetes manifests: OK (${summary}; ${examples.length} docs examples; rendered with ${renderer}; schemas from kubernetes-models)`,
  );
}

/** The same objects, in any order. */
function sameObjects(left, right) {
  const sorted = (objects) => [...objects].sort((a, b) => describe(a).localeCompare(describe(b)));
  return isDeepStrictEqual(sorted(left), sorted(right));
}

function moduleList(objects) {
  return [...new Set(objects.map((object) => modelModule(object?.apiVersion, object?.kind)).filter(Boolean))];
}

// ---------------------------------------------------------------------------------------
// --self-test: each known break of the base must be reported

const SELF_TESTS = [
  ['the base as committed passes', () => {}, null],
  ['a missing readiness probe', (o) => delete container(o).readinessProbe, /readinessProbe is missing/],
  [
    'a liveness probe elsewhere',
    (o) => (container(o).livenessProbe.httpGet.path = '/healthz'),
    /livenessProbe: an httpGet on \/health\/live/,
  ],
  [
    'a probe on an unknown port',
    (o) => (container(o).readinessProbe.httpGet.port = 'web'),
    /readinessProbe\.httpGet\.port: web/,
  ],
  [
    'a literal DATABASE_URL',
    (o) => (
      (envVar(o, 'DATABASE_URL').value = 'postgres://u:p@db/x'),
      delete envVar(o, 'DATABASE_URL').valueFrom
    ),
    /DATABASE_URL has a literal value/,
  ],
  [
    'a literal AUTH_TOKENS',
    (o) => Object.assign(envVar(o, 'AUTH_TOKENS'), { value: 'a-token-0123456789', valueFrom: undefined }),
    /AUTH_TOKENS has a literal value/,
  ],
  [
    'no AUTH_TOKENS',
    (o) => (container(o).env = container(o).env.filter((v) => v.name !== 'AUTH_TOKENS')),
    /AUTH_TOKENS must come from a Secret/,
  ],
  [
    'a credential in a ConfigMap',
    (o) => o.push(configMap({ DATABASE_URL: 'postgres://u:p@db/x' })),
    /ConfigMap\/plant-store: data\.DATABASE_URL/,
  ],
  ['a loopback HOST', (o) => (envVar(o, 'HOST').value = '127.0.0.1'), /HOST=127\.0\.0\.1 is not reachable/],
  ['a PORT the container does not expose', (o) => (envVar(o, 'PORT').value = '8080'), /PORT=8080 is not one/],
  [
    'a Secret from a secretGenerator',
    (o) => o.push({ ...secret(), metadata: { name: 'plant-store-b79b65592b', labels } }),
    null,
    { allowedSecrets: ['plant-store'] },
  ],
  [
    'a committed Secret',
    (o) => o.push(secret()),
    /Secret\/plant-store: a Secret in the manifests commits its values/,
  ],
  [
    'runAsNonRoot off',
    (o) => ((pod(o).securityContext.runAsNonRoot = false), delete container(o).securityContext.runAsNonRoot),
    /runAsNonRoot must be true/,
  ],
  [
    'a writable root file system',
    (o) => delete container(o).securityContext.readOnlyRootFilesystem,
    /readOnlyRootFilesystem must be true/,
  ],
  ['no /tmp volume', (o) => (container(o).volumeMounts = []), /writable volume at \/tmp/],
  [
    'capabilities kept',
    (o) => delete container(o).securityContext.capabilities,
    /capabilities\.drop must include ALL/,
  ],
  [
    'privilege escalation allowed',
    (o) => (container(o).securityContext.allowPrivilegeEscalation = true),
    /allowPrivilegeEscalation must be false/,
  ],
  ['no memory limit', (o) => delete container(o).resources.limits, /resources\.limits\.memory is missing/],
  [
    'a memory limit below the request',
    (o) => (container(o).resources.limits.memory = '128Mi'),
    /limits\.memory \(128Mi\) is below/,
  ],
  ['no preStop', (o) => delete container(o).lifecycle, /lifecycle\.preStop is missing/],
  [
    'a grace period shorter than the drain',
    (o) => (pod(o).terminationGracePeriodSeconds = 12),
    /terminationGracePeriodSeconds \(12\) must exceed the preStop pause \(5 s\) \+ SHUTDOWN_TIMEOUT_MS \(10 s\)/,
  ],
  ['the latest image', (o) => (container(o).image = 'plant-store:latest'), /needs a version tag/],
  [
    'a port that is not a number (schema)',
    (o) => (container(o).ports[0].containerPort = '3000x'),
    /schema: spec\.template\.spec\.containers\[0\]\.ports\[0\]\.containerPort: must be integer/,
  ],
  [
    'a misspelt field',
    (o) => (container(o).readinesProbe = container(o).readinessProbe),
    /containers\[0\]\.readinesProbe: unknown field/,
  ],
  [
    'a misspelt nested field',
    (o) => (pod(o).securityContext.runAsNonRooot = true),
    /securityContext\.runAsNonRooot: unknown field/,
  ],
  [
    'a Service on an unknown port',
    (o) => (find(o, 'Service').spec.ports[0].targetPort = 'web'),
    /Service\/plant-store: spec\.ports\[0\]\.targetPort: web/,
  ],
  [
    'a Service that selects nothing',
    (o) => (find(o, 'Service').spec.selector = { app: 'other' }),
    /Service\/plant-store: spec\.selector selects no pods/,
  ],
  [
    'an autoscaler on nothing',
    (o) => (find(o, 'HorizontalPodAutoscaler').spec.scaleTargetRef.name = 'other'),
    /scaleTargetRef: Deployment\/other is not in the manifests/,
  ],
  [
    'no disruption budget',
    (o) => o.splice(o.indexOf(find(o, 'PodDisruptionBudget')), 1),
    /no PodDisruptionBudget selects its pods/,
  ],
  [
    'a service account token mounted',
    (o) => (pod(o).automountServiceAccountToken = true),
    /automountServiceAccountToken must be false/,
  ],
  [
    'a selector that misses the template',
    (o) => (find(o, 'Deployment').spec.selector.matchLabels.tier = 'x'),
    /selector\.matchLabels does not match/,
  ],
  [
    'no NetworkPolicy',
    (o) => o.splice(o.indexOf(find(o, 'NetworkPolicy')), 1),
    /no NetworkPolicy limits both what reaches its pods and what they reach/,
  ],
  [
    'a NetworkPolicy that opens every port',
    (o) => delete find(o, 'NetworkPolicy').spec.ingress[0].ports,
    /spec\.ingress\[0\] allows every port/,
  ],
  [
    'a NetworkPolicy on an unknown port',
    (o) => (find(o, 'NetworkPolicy').spec.ingress[0].ports[0].port = 'web'),
    /spec\.ingress\[0\]\.ports: web is not a port of the pods/,
  ],
  [
    'metrics on the API’s port',
    (o) => container(o).env.splice(container(o).env.indexOf(envVar(o, 'METRICS_PORT')), 1),
    /METRICS_PORT is missing/,
  ],
  [
    'a Service that routes the metrics port',
    (o) => find(o, 'Service').spec.ports.push({ name: 'metrics', port: 9464, targetPort: 'metrics' }),
    /routes the metrics port/,
  ],
  [
    'TRUST_PROXY as subnets',
    (o) => (envVar(o, 'TRUST_PROXY').value = 'loopback,uniquelocal'),
    /TRUST_PROXY=loopback,uniquelocal trusts every address it names/,
  ],
  [
    'no app.kubernetes.io labels',
    (o) => delete find(o, 'Service').metadata.labels,
    /Service\/plant-store: metadata\.labels: app\.kubernetes\.io\/part-of is missing/,
  ],
];

/** Each known break of the base with the monitoring component (overlays/monitoring) must be reported. */
const MONITORING_SELF_TESTS = [
  ['the base with the monitoring component passes', () => {}, null],
  [
    'a ServiceMonitor that selects no Service',
    (o) => (find(o, 'ServiceMonitor').spec.selector.matchLabels['app.kubernetes.io/component'] = 'api-x'),
    /ServiceMonitor\/plant-store: spec\.selector selects no Service/,
  ],
  [
    'a ServiceMonitor on a port its Service lacks',
    (o) => (find(o, 'ServiceMonitor').spec.endpoints[0].port = 'http'),
    /spec\.endpoints\[0\]\.port: http is not a port of the Service/,
  ],
  [
    'a misspelt ServiceMonitor field (the custom resource’s types)',
    (o) => (find(o, 'ServiceMonitor').spec.endpoints[0].intervall = '30s'),
    /ServiceMonitor\/plant-store: spec\.endpoints\[0\]\.intervall: unknown field/,
  ],
  [
    'an alert’s duration that is not one (the custom resource’s schema)',
    (o) => (find(o, 'PrometheusRule').spec.groups[0].rules[0].for = 'five minutes'),
    /PrometheusRule\/plant-store: schema: spec\.groups\[0\]\.rules\[0\]\.for/,
  ],
  [
    'a metrics Service with a cluster IP',
    (o) => delete metricsService(o).spec.clusterIP,
    /Service\/plant-store-metrics: spec\.ports\[0\] routes the metrics port/,
  ],
  [
    'a metrics Service that routes the API too',
    (o) => metricsService(o).spec.ports.push({ name: 'http', port: 80, targetPort: 'http' }),
    /Service\/plant-store-metrics: spec\.ports\[0\] routes the metrics port/,
  ],
  [
    'an alert without a runbook',
    (o) => delete find(o, 'PrometheusRule').spec.groups[0].rules[0].annotations.runbook_url,
    /rules\[0\] \(PlantStoreHighErrorRate\): annotations\.runbook_url is missing/,
  ],
  [
    'a runbook the docs do not have',
    (o) =>
      (find(o, 'PrometheusRule').spec.groups[0].rules[0].annotations.runbook_url =
        'docs/operations.md#plantstoreerrors'),
    /docs\/operations\.md has no section #plantstoreerrors/,
  ],
  [
    'a runbook elsewhere',
    (o) =>
      (find(o, 'PrometheusRule').spec.groups[0].rules[0].annotations.runbook_url =
        'https://wiki.example.com/plant-store'),
    /runbook_url https:\/\/wiki\.example\.com\/plant-store must be docs\/<page>\.md#<section>/,
  ],
  [
    'an alert without a severity',
    (o) => delete find(o, 'PrometheusRule').spec.groups[0].rules[0].labels,
    /\(PlantStoreHighErrorRate\): labels\.severity is missing/,
  ],
  [
    'a dashboard that is not JSON',
    (o) => (dashboardMap(o).data['plant-store.json'] = '{"title": "Plant Store",'),
    /ConfigMap\/plant-store-dashboard: data\.plant-store\.json: a Grafana dashboard, but not JSON/,
  ],
];

const find = (objects, kind) => objects.find((object) => object.kind === kind);
const metricsService = (objects) =>
  objects.find((object) => object.kind === 'Service' && object.metadata.name === 'plant-store-metrics');
const dashboardMap = (objects) =>
  objects.find((object) => object.kind === 'ConfigMap' && object.metadata.labels?.grafana_dashboard);
const pod = (objects) => find(objects, 'Deployment').spec.template.spec;
const container = (objects) => pod(objects).containers[0];
const envVar = (objects, name) => container(objects).env.find((variable) => variable.name === name);
const labels = { 'app.kubernetes.io/name': 'plant-store', 'app.kubernetes.io/part-of': 'plant-store' };
const configMap = (data) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'plant-store', labels },
  data,
});
const secret = () => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'plant-store', labels },
  stringData: { AUTH_TOKENS: 'x' },
});

async function selfTest() {
  const kubectl = findKubectl(process.argv.includes('--no-kubectl'));
  const base = renderDirectly(join(ROOT, 'base'));
  const monitored = renderDirectly(join(ROOT, 'overlays', 'monitoring'));
  const fieldChecker = createFieldChecker(moduleList([...monitored, configMap({}), secret()]));
  let passed = 0;
  let failed = 0;
  const result = (ok, name, detail) => {
    if (ok) {
      passed++;
    } else {
      failed++;
    }
    console.log(
      `${ok ? 'ok' : 'not ok'} ${passed + failed} - ${name}${ok ? '' : `\n  ${detail.replace(/\n/g, '\n  ')}`}`,
    );
  };
  const cases = [
    ...SELF_TESTS.map((entry) => [base, ...entry]),
    ...MONITORING_SELF_TESTS.map((entry) => [monitored, ...entry]),
  ];
  for (const [committed, name, breakIt, expected, options = {}] of cases) {
    const objects = structuredClone(committed);
    breakIt(objects);
    const problems = await checkObjects(JSON.parse(JSON.stringify(objects)), fieldChecker, options);
    const ok = expected === null ? problems.length === 0 : problems.some((problem) => expected.test(problem));
    result(ok, name, problems.length ? `reported:\n${problems.join('\n')}` : 'nothing was reported');
  }
  if (kubectl.kustomizeVersion) {
    for (const [dir, objects] of [
      ['base', base],
      ['overlays/monitoring', monitored],
    ]) {
      const same = sameObjects(renderWithKubectl(join(ROOT, dir)), objects);
      result(
        same,
        `the built-in renderer agrees with kubectl kustomize on ${dir}`,
        `the two renderings of ${dir} differ`,
      );
    }
  } else {
    console.log(`# skipped: the built-in renderer against kubectl kustomize (${kubectl.reason})`);
  }
  const example = join(ROOT, 'overlays', 'example', 'secret.env');
  if (spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: REPO }).status === 0) {
    const flagged = unignoredSecretFiles([`${example}.example`]);
    result(flagged.length === 1, 'a secret file that git would commit is reported', 'nothing was reported');
    const ignored = unignoredSecretFiles([example]);
    result(ignored.length === 0, 'the example overlay keeps secret.env out of git', ignored.join('\n'));
  } else {
    console.log('# skipped: git-ignored secret files (not a git work tree)');
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

try {
  await (process.argv.includes('--self-test') ? selfTest() : main());
} catch (error) {
  // A kustomization or an example that is not even YAML, say: the message says where.
  console.error(`Kubernetes manifests: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

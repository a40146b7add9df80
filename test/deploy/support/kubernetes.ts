import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '../../..');

/** The parts of Kubernetes objects these tests read. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // Rendered manifests are arbitrary JSON; the checks narrow what they read.
  spec?: any;
  data?: Record<string, string>;
}

/** `kubectl kustomize <dir>` (dir relative to the repository), parsed. */
export function renderKustomization(dir: string): KubeObject[] {
  const result = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8' });
  if (result.error) throw new Error(`kubectl renders the manifests and could not be run (${result.error.message}); install kubectl.`);
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJS() as KubeObject).filter(Boolean);
}

/** Schema problems of each object (Kubernetes and KEDA schemas), from validate-k8s-objects.mts. */
export function schemaProblems(objects: readonly KubeObject[]): string[] {
  const result = spawnSync(process.execPath, ['--import', require.resolve('tsx'), join(__dirname, 'validate-k8s-objects.mts')], {
    cwd: ROOT,
    input: JSON.stringify(objects),
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`the schema validator failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as string[];
}

/** One container's environment as the pod sees it: the ConfigMap it reads, then its own env. */
export function containerEnv(objects: readonly KubeObject[], deployment: KubeObject): Record<string, string> {
  const container = deployment.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name;
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name);
    Object.assign(env, map?.data ?? {});
  }
  for (const entry of container.env ?? []) if (typeof entry.value === 'string') env[entry.name] = entry.value;
  return env;
}

/**
 * Validates Kubernetes objects against the Kubernetes API's and KEDA's schemas with
 * kubernetes-models (validators generated from the Kubernetes OpenAPI document and from KEDA's
 * CRDs). Those packages are ES modules only, which jest's CommonJS cannot load, so the tests run
 * this file as a child process: a JSON array of objects on stdin, a JSON array of problems
 * ("<kind>/<name>: <error>") on stdout.
 */
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';

interface Validatable {
  validate(): void;
}

type KubeObject = { apiVersion?: string; kind?: string; metadata?: { name?: string } };

/** Every kind the manifests may use, by apiVersion/kind. Anything else is a problem in itself. */
const MODELS: Record<string, new (data: never) => Validatable> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

function problemsOf(object: KubeObject): string[] {
  const label = `${object.kind ?? '?'}/${object.metadata?.name ?? '?'}`;
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) return [`${label}: no schema for ${object.apiVersion}/${object.kind}`];
  try {
    new Model(object as never).validate();
    return [];
  } catch (err) {
    return [`${label}: ${err instanceof Error ? err.message : String(err)}`];
  }
}

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const objects = JSON.parse(Buffer.concat(chunks).toString('utf8')) as KubeObject[];
process.stdout.write(JSON.stringify(objects.flatMap(problemsOf)));

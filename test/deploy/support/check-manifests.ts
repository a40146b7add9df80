import { containerEnv, type KubeObject } from './kubernetes';

/** Routes every service serves for its probes (DESIGN §4: /healthz liveness, /readyz readiness). */
export const PROBE_ROUTES = { livenessProbe: '/healthz', readinessProbe: '/readyz' } as const;

/** How each service scales, when it exists (issue 15): workers on their backlog with KEDA, HTTP on CPU. */
export const AUTOSCALING: Record<string, 'keda' | 'cpu'> = {
  sender: 'keda',
  'webhook-dispatcher': 'keda',
  gateway: 'cpu',
  tracking: 'cpu',
};

const ofKind = (objects: readonly KubeObject[], kind: string) => objects.filter((o) => o.kind === kind);
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined && Object.entries(selector).every(([key, value]) => labels?.[key] === value);

/** The service a workload runs: the image's entry point takes it as the only argument. */
export function serviceOf(workload: KubeObject): string | undefined {
  return workload.spec?.template?.spec?.containers?.[0]?.args?.[0];
}

function preStopSeconds(container: { lifecycle?: { preStop?: { exec?: { command?: string[] } } } }): number | undefined {
  const [command, seconds] = container.lifecycle?.preStop?.exec?.command ?? [];
  return command === 'sleep' ? Number(seconds) : undefined;
}

function checkRestricted(label: string, workload: KubeObject): string[] {
  const problems: string[] = [];
  const pod = workload.spec.template.spec;
  const container = pod.containers[0];
  if (pod.securityContext?.runAsNonRoot !== true || !(pod.securityContext?.runAsUser > 0)) problems.push(`${label}: must run as a non-root uid`);
  const security = container.securityContext ?? {};
  if (security.allowPrivilegeEscalation !== false) problems.push(`${label}: allowPrivilegeEscalation must be false`);
  if (security.readOnlyRootFilesystem !== true) problems.push(`${label}: the root filesystem must be read-only`);
  if (!security.capabilities?.drop?.includes('ALL')) problems.push(`${label}: must drop all capabilities`);
  if (!(container.envFrom ?? []).some((source: { secretRef?: { name?: string } }) => source.secretRef?.name)) {
    problems.push(`${label}: must read its secrets from a Secret (envFrom secretRef)`);
  }
  return problems;
}

function checkProbes(objects: readonly KubeObject[], label: string, deployment: KubeObject): string[] {
  const problems: string[] = [];
  const container = deployment.spec.template.spec.containers[0];
  const env = containerEnv(objects, deployment);
  for (const [probe, route] of Object.entries(PROBE_ROUTES)) {
    const get = container[probe]?.httpGet;
    if (!get) {
      problems.push(`${label}: no ${probe} (GET ${route})`);
      continue;
    }
    if (get.path !== route) problems.push(`${label}: ${probe} asks ${get.path}, a route the service does not serve for it (${route})`);
    const port = (container.ports ?? []).find((p: { name?: string; containerPort: number }) => p.name === get.port || p.containerPort === get.port);
    if (!port) {
      problems.push(`${label}: ${probe} names port ${get.port}, which the container does not declare`);
    } else if (!Object.entries(env).some(([name, value]) => name.endsWith('_PORT') && Number(value) === port.containerPort)) {
      problems.push(`${label}: ${probe} port ${port.containerPort} is not a port the service is configured to listen on (no *_PORT=${port.containerPort})`);
    }
  }
  return problems;
}

function checkDeployment(objects: readonly KubeObject[], services: readonly string[], deployment: KubeObject): string[] {
  const label = `Deployment/${deployment.metadata.name}`;
  const pod = deployment.spec.template.spec;
  if (pod.containers.length !== 1) return [`${label}: expected one container`];
  const container = pod.containers[0];
  const service = serviceOf(deployment);
  const problems = [...checkRestricted(label, deployment), ...checkProbes(objects, label, deployment)];
  if (!service || !services.includes(service)) problems.push(`${label}: runs ${service ?? 'nothing'}, which is not a service under services/`);
  for (const kind of ['requests', 'limits'] as const) {
    for (const resource of ['cpu', 'memory']) {
      if (container.resources?.[kind]?.[resource] === undefined) problems.push(`${label}: no ${resource} in resources.${kind}`);
    }
  }
  const pause = preStopSeconds(container);
  if (pause === undefined) problems.push(`${label}: no preStop pause`);
  if (!(pod.terminationGracePeriodSeconds > (pause ?? 0) + 10)) {
    problems.push(`${label}: terminationGracePeriodSeconds must exceed the preStop pause and leave the service time to drain`);
  }
  const podLabels = deployment.spec.template.metadata.labels;
  if (!ofKind(objects, 'PodDisruptionBudget').some((pdb) => matches(pdb.spec.selector?.matchLabels, podLabels))) {
    problems.push(`${label}: no PodDisruptionBudget selects its pods`);
  }
  const name = deployment.metadata.name;
  const scaled = ofKind(objects, 'ScaledObject').filter((s) => s.spec.scaleTargetRef?.name === name);
  const hpas = ofKind(objects, 'HorizontalPodAutoscaler').filter((h) => h.spec.scaleTargetRef?.name === name);
  if (scaled.length + hpas.length > 1) problems.push(`${label}: scaled by more than one autoscaler`);
  const policy = service ? AUTOSCALING[service] : undefined;
  if (policy === 'keda' && scaled.length === 0) problems.push(`${label}: no KEDA ScaledObject on its backlog`);
  if (policy === 'cpu' && !hpas.some((h) => h.spec.metrics?.some((m: { resource?: { name?: string } }) => m.resource?.name === 'cpu'))) {
    problems.push(`${label}: no HorizontalPodAutoscaler on CPU`);
  }
  if (policy !== undefined && deployment.spec.replicas !== undefined && scaled.length > 0) {
    problems.push(`${label}: sets replicas although KEDA owns them`);
  }
  return problems;
}

function checkAutoscalers(objects: readonly KubeObject[]): string[] {
  const problems: string[] = [];
  const deployments = new Set(ofKind(objects, 'Deployment').map((d) => d.metadata.name));
  const auths = new Set(ofKind(objects, 'TriggerAuthentication').map((a) => a.metadata.name));
  for (const scaled of ofKind(objects, 'ScaledObject')) {
    const label = `ScaledObject/${scaled.metadata.name}`;
    if (!deployments.has(scaled.spec.scaleTargetRef?.name)) problems.push(`${label}: scales ${scaled.spec.scaleTargetRef?.name}, which is not a Deployment here`);
    if (!(scaled.spec.minReplicaCount >= 1)) problems.push(`${label}: minReplicaCount must be at least 1`);
    for (const trigger of scaled.spec.triggers ?? []) {
      const auth = trigger.authenticationRef?.name;
      if (auth !== undefined && !auths.has(auth)) problems.push(`${label}: its trigger names TriggerAuthentication ${auth}, which is not here`);
    }
  }
  for (const hpa of ofKind(objects, 'HorizontalPodAutoscaler')) {
    if (!deployments.has(hpa.spec.scaleTargetRef?.name)) {
      problems.push(`HorizontalPodAutoscaler/${hpa.metadata.name}: scales ${hpa.spec.scaleTargetRef?.name}, which is not a Deployment here`);
    }
  }
  return problems;
}

/**
 * What the rendered manifests must hold beyond their schemas (issue 15): a Deployment for every
 * service under services/, each with requests and limits, probes on the routes the service serves
 * and at a port it listens on, a preStop pause inside its grace period, a restricted security
 * context, its secrets from a Secret, a PodDisruptionBudget and its autoscaler; autoscalers that
 * name Deployments that exist; the migration Job restricted as well. Returns the problems found.
 */
export function checkManifests(objects: readonly KubeObject[], services: readonly string[]): string[] {
  const deployments = ofKind(objects, 'Deployment');
  const problems = services
    .filter((service) => !deployments.some((d) => serviceOf(d) === service))
    .map((service) => `services/${service} has no Deployment (a container with args ["${service}"])`);
  for (const deployment of deployments) problems.push(...checkDeployment(objects, services, deployment));
  problems.push(...checkAutoscalers(objects));
  const jobs = ofKind(objects, 'Job').filter((job) => serviceOf(job) === 'migrate');
  if (jobs.length !== 1) problems.push('expected one Job running `mailroom migrate`');
  for (const job of jobs) problems.push(...checkRestricted(`Job/${job.metadata.name}`, job));
  return problems;
}

/** The MX's Service: a LoadBalancer (NodePort in dev) keeping the client's address. */
export function inboundService(objects: readonly KubeObject[]): KubeObject | undefined {
  const mx = ofKind(objects, 'Deployment').find((d) => serviceOf(d) === 'inbound-smtp');
  return ofKind(objects, 'Service').find((s) => mx && matches(s.spec.selector, mx.spec.template.metadata.labels));
}

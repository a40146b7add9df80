import { join } from 'node:path';
import { discoverServiceNames } from '../../scripts/lib/production/entries';
import { checkManifests, inboundService, serviceOf } from './support/check-manifests';
import { type KubeObject, renderKustomization, schemaProblems } from './support/kubernetes';

const ROOT = join(__dirname, '../..');
const SERVICES = discoverServiceNames(ROOT);
const KUSTOMIZATIONS = ['k8s/base', 'k8s/overlays/production', 'k8s/overlays/dev'];
const rendered = new Map(KUSTOMIZATIONS.map((dir) => [dir, renderKustomization(dir)]));
const base = () => rendered.get('k8s/base') as KubeObject[];
const clone = (objects: readonly KubeObject[]) => structuredClone(objects) as KubeObject[];
const find = (objects: KubeObject[], kind: string, service: string) => objects.find((o) => o.kind === kind && serviceOf(o) === service) as KubeObject;

describe('the Kubernetes manifests', () => {
  test.each(KUSTOMIZATIONS)('when %s is rendered, then every object passes the Kubernetes and KEDA schemas', (dir) => {
    const objects = rendered.get(dir) as KubeObject[];
    expect(objects.length).toBeGreaterThan(SERVICES.length);
    expect(schemaProblems(objects)).toEqual([]);
  });

  test.each(KUSTOMIZATIONS)('when %s is rendered, then every service has a complete Deployment, and every autoscaler a target', (dir) => {
    expect(checkManifests(rendered.get(dir) as KubeObject[], SERVICES)).toEqual([]);
  });

  test('when the schemas see a wrong type, a missing field or an unknown kind, then they say so', () => {
    const objects = clone(base());
    find(objects, 'Deployment', 'inbound-smtp').spec.replicas = 'two';
    const scaled = objects.find((o) => o.kind === 'ScaledObject') as KubeObject;
    delete scaled.spec.scaleTargetRef.name;
    objects.push({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    const problems = schemaProblems(objects).join('\n');
    expect(problems).toMatch(/Deployment\/mailroom-inbound-smtp: .*replicas must be integer/);
    expect(problems).toMatch(/ScaledObject\/.*scaleTargetRef must have required property name/);
    expect(problems).toContain('Widget/w: no schema for example.com/v1/Widget');
  });

  test('when a service has no Deployment, then the check names it', () => {
    const objects = clone(base()).filter((o) => !(o.kind === 'Deployment' && serviceOf(o) === 'inbound-smtp'));
    expect(checkManifests(objects, SERVICES)).toContain('services/inbound-smtp has no Deployment (a container with args ["inbound-smtp"])');
    expect(checkManifests(base(), [...SERVICES, 'newcomer'])).toContain('services/newcomer has no Deployment (a container with args ["newcomer"])');
  });

  test('when a probe asks a missing route or a port the service does not listen on, then the check names it', () => {
    const objects = clone(base());
    const container = find(objects, 'Deployment', 'sender').spec.template.spec.containers[0];
    container.readinessProbe.httpGet.path = '/ready';
    container.env = [];
    const problems = checkManifests(objects, SERVICES);
    expect(problems).toContain('Deployment/mailroom-sender: readinessProbe asks /ready, a route the service does not serve for it (/readyz)');
    expect(problems).toContain(
      'Deployment/mailroom-sender: livenessProbe port 9090 is not a port the service is configured to listen on (no *_PORT=9090)',
    );
  });

  test('when a ScaledObject names a missing Deployment, then the check names it, and the sender is left without one', () => {
    const objects = clone(base());
    const scaled = objects.find((o) => o.kind === 'ScaledObject' && o.metadata.name === 'mailroom-sender') as KubeObject;
    scaled.spec.scaleTargetRef.name = 'mailroom-sendr';
    const problems = checkManifests(objects, SERVICES);
    expect(problems).toContain('ScaledObject/mailroom-sender: scales mailroom-sendr, which is not a Deployment here');
    expect(problems).toContain('Deployment/mailroom-sender: no KEDA ScaledObject on its backlog');
  });

  test('when a pod may run as root or write its filesystem, or lacks a disruption budget, then the check says so', () => {
    const objects = clone(base()).filter((o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === 'mailroom-gateway'));
    const gateway = find(objects, 'Deployment', 'gateway');
    delete gateway.spec.template.spec.securityContext;
    gateway.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = false;
    const problems = checkManifests(objects, SERVICES);
    expect(problems).toEqual(
      expect.arrayContaining([
        'Deployment/mailroom-gateway: must run as a non-root uid',
        'Deployment/mailroom-gateway: the root filesystem must be read-only',
        'Deployment/mailroom-gateway: no PodDisruptionBudget selects its pods',
      ]),
    );
  });

  test('then the sender and the webhook dispatcher scale on due work counted in PostgreSQL, from at least one replica', () => {
    const scaled = base().filter((o) => o.kind === 'ScaledObject');
    expect(scaled.map((s) => s.metadata.name)).toContain('mailroom-sender');
    for (const object of scaled) {
      expect(object.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      const [trigger] = object.spec.triggers;
      expect(trigger.type).toBe('postgresql');
      expect(trigger.metadata.query).toMatch(/next_attempt_at <= now\(\)/);
    }
  });

  test.each([
    ['k8s/base', 'LoadBalancer'],
    ['k8s/overlays/production', 'LoadBalancer'],
    ['k8s/overlays/dev', 'NodePort'],
  ])('when %s is rendered, then the MX is a %s Service that keeps the client address', (dir, type) => {
    const service = inboundService(rendered.get(dir) as KubeObject[]);
    expect(service?.spec).toMatchObject({ type, externalTrafficPolicy: 'Local' });
  });

  test.each(KUSTOMIZATIONS)('when %s is rendered, then a Deployment an autoscaler scales sets no replica count (an apply would reset the autoscaler\'s)', (dir) => {
    const objects = rendered.get(dir) as KubeObject[];
    const scaledTargets = objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject')
      .map((o) => o.spec.scaleTargetRef.name as string);
    expect(scaledTargets.length).toBeGreaterThan(0);
    const counted = objects.filter((o) => o.kind === 'Deployment' && scaledTargets.includes(o.metadata.name) && o.spec.replicas !== undefined);
    expect(counted.map((o) => o.metadata.name)).toEqual([]);
  });

  test('then the overlays pin their image and namespace', () => {
    const images = (dir: string) =>
      new Set((rendered.get(dir) as KubeObject[]).filter((o) => o.spec?.template).map((o) => o.spec.template.spec.containers[0].image));
    expect([...images('k8s/overlays/production')]).toEqual(['registry.example.com/mailroom:0.1.0']);
    expect([...images('k8s/overlays/dev')]).toEqual(['mailroom:dev']);
  });
});

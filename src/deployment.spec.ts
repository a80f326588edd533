import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { validateEnvironment } from './host.config';

const root = join(__dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const documented = new Set([...read('docs/deployment.md').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]));

interface ComposeService {
  build?: { context: string; dockerfile: string };
  networks?: Record<string, { ipv4_address?: string } | null>;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown> | string[];
  volumes?: string[];
  ports?: string[];
  stop_grace_period?: string;
}

interface Compose {
  services: Record<string, ComposeService>;
  networks?: Record<string, { ipam?: { config?: { subnet: string }[] } }>;
  volumes?: Record<string, unknown>;
}

interface KubernetesProbe {
  httpGet: { path: string; port: string | number };
}

interface KubernetesContainer {
  ports: { name?: string; containerPort: number }[];
  env: {
    name: string;
    value?: string;
    valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
  }[];
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  startupProbe?: KubernetesProbe;
  readinessProbe?: KubernetesProbe;
  livenessProbe?: KubernetesProbe;
}

interface KubernetesObject {
  kind: string;
  spec: {
    replicas?: number;
    selector?: Record<string, string> | { matchLabels: Record<string, string> };
    sessionAffinity?: string;
    ports?: { port: number; targetPort: string | number }[];
    template?: {
      metadata: { labels: Record<string, string> };
      spec: { terminationGracePeriodSeconds?: number; containers: KubernetesContainer[] };
    };
  };
}

/**
 * The desk's default `shutdownTimeoutMs` (10 s, `MCP_SHUTDOWN_TIMEOUT_MS`): the drain, 2 s for the
 * answers of the calls it cancelled, then the audit flush (at most the timeout again).
 */
const SHUTDOWN_TIMEOUT_S = 10;
const STOP_S = 2 * SHUTDOWN_TIMEOUT_S + 2;

// Compose resolves the `<<` merge keys that share the replicas' settings: so does the parse.
const replicasCompose = () => parse(read('docker/compose.replicas.yaml'), { merge: true }) as Compose;
const replicaServices = (compose: Compose) =>
  Object.entries(compose.services).filter(([name]) => name.startsWith('mcp-host-'));

const kubernetesObjects = () =>
  readdirSync(join(root, 'docker/kubernetes'))
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(read(`docker/kubernetes/${file}`)).map((doc) => doc.toJS() as KubernetesObject),
    );
const kubernetesObject = (kind: string) => {
  const matching = kubernetesObjects().filter((object) => object.kind === kind);
  expect(matching).toHaveLength(1);
  return matching[0];
};

/** HAProxy's configuration as its directives, without comments and blank lines. */
const haproxyDirectives = () =>
  read('docker/haproxy.cfg')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().replace(/\s+/g, ' '))
    .filter(Boolean);

/** An HAProxy duration (`5s`, `10m`, `1h`; milliseconds without a unit) in milliseconds. */
function haproxyDuration(value: string): number {
  const [, amount, unit] = /^(\d+)(us|ms|s|m|h|d)?$/.exec(value)!;
  const units: Record<string, number> = { us: 0.001, ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Number(amount) * units[unit ?? 'ms'];
}

/** The deployment files and their documentation describe the host as it really is. */
describe('deployment files and docs/deployment.md', () => {
  it('documents every variable the host reads', () => {
    const variables = Object.keys(validateEnvironment({}));
    expect(variables.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('sets only real, documented variables in the image, the compose files and the Kubernetes manifests', () => {
    const known = new Set([...Object.keys(validateEnvironment({})), 'NODE_ENV', 'NODE_OPTIONS']);
    const imageVariables = [...read('docker/Dockerfile').matchAll(/\b([A-Z][A-Z_]+)=/g)].map((match) => match[1]);
    const compose = parse(read('docker/compose.yaml')) as Compose;
    const hosts = [compose.services['mcp-host'], ...replicaServices(replicasCompose()).map(([, service]) => service)];
    const composeVariables = hosts.flatMap((host) => Object.keys(host.environment ?? {}));
    const kubernetesVariables = kubernetesObject('Deployment').spec.template!.spec.containers.flatMap((container) =>
      container.env.map((variable) => variable.name),
    );
    for (const name of [...imageVariables, ...composeVariables, ...kubernetesVariables]) {
      expect({ name, known: known.has(name), documented: documented.has(name) }).toEqual({
        name,
        known: true,
        documented: true,
      });
    }
    // Each compose environment itself passes the host's validation.
    for (const host of hosts) expect(() => validateEnvironment({ ...host.environment })).not.toThrow();
  });

  it('runs the host with Redis and PostgreSQL, waiting until both are healthy', () => {
    const compose = parse(read('docker/compose.yaml')) as Compose;
    const host = compose.services['mcp-host'];
    expect(existsSync(join(root, 'docker', host.build!.context, host.build!.dockerfile))).toBe(true);
    expect(host.depends_on).toEqual({
      redis: { condition: 'service_healthy' },
      postgres: { condition: 'service_healthy' },
    });
    expect(host.environment).toMatchObject({ AUDIT_SINK: 'postgres', REDIS_URL: 'redis://redis:6379' });
    expect(host.environment!.DATABASE_URL).toMatch(/@postgres:5432\//);
    const mount = compose.services.prometheus.volumes![0].split(':')[0];
    expect(existsSync(join(root, 'docker', mount))).toBe(true);
    // Clients reach the host directly: no proxy to believe.
    expect(host.environment!.TRUST_PROXY).toBeUndefined();
  });

  it("keeps Redis's data (sessions, streams, tasks, approvals) on a volume in both compose files", () => {
    for (const compose of [parse(read('docker/compose.yaml')) as Compose, replicasCompose()]) {
      const redis = compose.services.redis;
      expect(redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
      expect(redis.command).not.toEqual(expect.arrayContaining(['--appendonly', 'no']));
      const [volume, target] = redis.volumes![0].split(':');
      expect(target).toBe('/data');
      expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    }
  });

  describe('several replicas (docker/compose.replicas.yaml, docker/kubernetes/)', () => {
    it('runs three replicas of one image, each with its own name and audit chain, sharing everything else', () => {
      const compose = replicasCompose();
      const hosts = replicaServices(compose);
      expect(hosts.map(([name]) => name)).toEqual(['mcp-host-1', 'mcp-host-2', 'mcp-host-3']);
      const environments = hosts.map(([, host]) => host.environment!);
      // Distinct: a replica's name says whether it is alive (its tasks fail when it has gone).
      expect(new Set(environments.map((env) => env.MCP_REPLICA)).size).toBe(3);
      expect(new Set(environments.map((env) => env.AUDIT_CHAIN)).size).toBe(3);
      // The same everywhere: a request may reach any replica.
      for (const name of ['MCP_REQUEST_STATE_SECRET', 'REDIS_URL', 'DATABASE_URL', 'MCP_API_KEYS_FILE']) {
        expect({ name, values: new Set(environments.map((env) => env[name])).size }).toEqual({ name, values: 1 });
      }
      expect(environments[0]).toMatchObject({ AUDIT_SINK: 'postgres', REDIS_URL: 'redis://redis:6379' });
      expect(environments[0].DATABASE_URL).toMatch(/@postgres:5432\//);
      for (const [, host] of hosts) {
        expect(existsSync(join(root, 'docker', host.build!.context, host.build!.dockerfile))).toBe(true);
        expect(host.image).toBe(hosts[0][1].image);
        expect(host.depends_on).toEqual({
          redis: { condition: 'service_healthy' },
          postgres: { condition: 'service_healthy' },
        });
        // Reached only through the balancer.
        expect(host.ports).toBeUndefined();
        // Time for the drain and the audit flush after SIGTERM.
        expect(Number(/^(\d+)s$/.exec(host.stop_grace_period ?? '')?.[1])).toBeGreaterThan(STOP_S);
      }
      // Sessions live in Redis: its data outlives a restart.
      expect(compose.services.redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
      expect(compose.services.redis.volumes).toHaveLength(1);
    });

    it("believes the client address of the balancer's X-Forwarded-For, and of no one else", () => {
      const compose = replicasCompose();
      const address = compose.services.balancer.networks!.default!.ipv4_address!;
      const [subnet] = compose.networks!.default.ipam!.config!;
      // The pinned address lies in the project's network, so Compose can give it.
      const [network, bits] = subnet.subnet.split('/');
      const prefix = network.split('.').slice(0, Number(bits) / 8);
      expect(address.split('.').slice(0, prefix.length)).toEqual(prefix);
      for (const [, host] of replicaServices(compose)) {
        expect(host.environment!.TRUST_PROXY).toBe(address);
        expect(validateEnvironment({ ...host.environment }).TRUST_PROXY).toEqual([address]);
      }
      expect(haproxyDirectives()).toContain('option forwardfor');

      const [container] = kubernetesObject('Deployment').spec.template!.spec.containers;
      const trustProxy = container.env.find((variable) => variable.name === 'TRUST_PROXY');
      expect(trustProxy?.value).toBeDefined();
      expect(validateEnvironment({ TRUST_PROXY: trustProxy!.value }).TRUST_PROXY.length).toBeGreaterThan(0);
    });

    it('puts a round-robin balancer with no stickiness in front, routing only to ready replicas', () => {
      const compose = replicasCompose();
      const balancer = compose.services.balancer;
      expect(balancer.image).toMatch(/^haproxy:/);
      const [source, target] = balancer.volumes![0].split(':');
      expect(existsSync(join(root, 'docker', source))).toBe(true);
      expect(target).toBe('/usr/local/etc/haproxy/haproxy.cfg');
      const directives = haproxyDirectives();
      const listen = directives
        .find((directive) => directive.startsWith('bind '))
        ?.split(':')
        .pop();
      expect(balancer.ports).toEqual([`${listen}:${listen}`]);

      expect(directives.filter((directive) => directive.startsWith('balance '))).toEqual(['balance roundrobin']);
      expect(
        directives.filter((directive) =>
          /^(cookie|stick|stick-table|appsession|persist|force-persist|use-server|hash-type)\b/.test(directive),
        ),
      ).toEqual([]);
      // Every request is balanced on its own, even on a client's keep-alive connection.
      expect(directives).toContain('option http-server-close');

      // A rolling update loses no request: what a draining or gone replica refused goes to another.
      expect(directives).toContain('option redispatch 1');
      expect(directives.find((directive) => directive.startsWith('retry-on '))?.split(' ')).toEqual(
        expect.arrayContaining(['conn-failure', '503']),
      );

      expect(directives).toContain('option httpchk');
      expect(directives).toContain('http-check send meth GET uri /health/ready ver HTTP/1.1 hdr Host localhost');
      expect(directives).toContain('http-check expect status 200');
      const servers = directives.filter((directive) => directive.startsWith('server '));
      const port = replicaServices(compose)[0][1].environment!.PORT;
      expect(servers).toEqual(replicaServices(compose).map(([name]) => `server ${name} ${name}:${port}`));
      expect(directives.find((directive) => directive.startsWith('default-server '))).toMatch(/ check /);

      // Event streams and long calls outlast the usual 30 s to 1 min proxy timeouts.
      for (const name of ['client', 'server', 'tunnel']) {
        const timeout = directives.find((directive) => directive.startsWith(`timeout ${name} `))?.split(' ')[2];
        expect({ name, long: haproxyDuration(timeout ?? '0') >= 10 * 60_000 }).toEqual({ name, long: true });
      }
    });

    it('deploys three replicas on Kubernetes, probed on /health/*, behind a Service without session affinity', () => {
      const deployment = kubernetesObject('Deployment');
      expect(deployment.spec.replicas).toBe(3);
      const pod = deployment.spec.template!;
      expect(pod.spec.containers).toHaveLength(1);
      const [container] = pod.spec.containers;
      const env = Object.fromEntries(container.env.map((variable) => [variable.name, variable]));
      for (const name of ['MCP_REPLICA', 'AUDIT_CHAIN']) {
        expect(env[name]).toEqual({ name, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
      }
      for (const name of ['REDIS_URL', 'DATABASE_URL', 'MCP_REQUEST_STATE_SECRET']) {
        expect(env[name]).toEqual({
          name,
          valueFrom: { secretKeyRef: { name: expect.any(String) as string, key: name } },
        });
      }
      expect(env.AUDIT_SINK).toEqual({ name: 'AUDIT_SINK', value: 'postgres' });

      // The probes reach the image's port (PORT=3000) through the container port's name.
      const [port] = container.ports;
      expect(port.containerPort).toBe(3000);
      expect(container.readinessProbe!.httpGet).toEqual({ path: '/health/ready', port: port.name });
      expect(container.startupProbe!.httpGet).toEqual({ path: '/health/ready', port: port.name });
      expect(container.livenessProbe!.httpGet).toEqual({ path: '/health/live', port: port.name });

      // preStop, then the drain and the audit flush after SIGTERM, all within the grace period.
      const [sleep, seconds] = container.lifecycle!.preStop!.exec!.command;
      expect(sleep).toBe('sleep');
      expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(Number(seconds) + STOP_S);

      const service = kubernetesObject('Service');
      expect(service.spec.sessionAffinity ?? 'None').toBe('None');
      expect(service.spec.selector).toEqual(pod.metadata.labels);
      expect(service.spec.ports!.map((servicePort) => servicePort.targetPort)).toEqual([port.name]);
    });
  });
});

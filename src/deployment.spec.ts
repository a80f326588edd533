import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validateEnvironment } from './host.config';

const root = join(__dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const documented = new Set([...read('docs/deployment.md').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]));

interface Compose {
  services: Record<
    string,
    {
      build?: { context: string; dockerfile: string };
      environment?: Record<string, string>;
      depends_on?: Record<string, unknown>;
      volumes?: string[];
    }
  >;
}

/** The deployment files and their documentation describe the host as it really is. */
describe('deployment files and docs/deployment.md', () => {
  it('documents every variable the host reads', () => {
    const variables = Object.keys(validateEnvironment({}));
    expect(variables.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('sets only real, documented variables in the image and the compose file', () => {
    const known = new Set([...Object.keys(validateEnvironment({})), 'NODE_ENV']);
    const imageVariables = [...read('docker/Dockerfile').matchAll(/\b([A-Z][A-Z_]+)=/g)].map((match) => match[1]);
    const compose = parse(read('docker/compose.yaml')) as Compose;
    const composeVariables = Object.keys(compose.services['mcp-host'].environment ?? {});
    for (const name of [...imageVariables, ...composeVariables]) {
      expect({ name, known: known.has(name), documented: documented.has(name) }).toEqual({
        name,
        known: true,
        documented: true,
      });
    }
    // The compose environment itself passes the host's validation.
    expect(() => validateEnvironment({ ...compose.services['mcp-host'].environment })).not.toThrow();
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
  });
});

// The benchmark's peers live in test/bench/peers with their own package.json: installed on first
// use (`npm ci` there), never with the workspace, so that their peer dependencies
// (@nestjs/microservices, which NestFactory loads whenever it can) stay out of the host's tests and
// start-up figures.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PEERS_DIR = dirname(fileURLToPath(import.meta.url));

/** Installs the peers unless they are (npm ci from the committed lock file). */
export function ensurePeers() {
  const installed = ['@rekog/mcp-nest', 'fastmcp'].every((name) =>
    existsSync(join(PEERS_DIR, 'node_modules', name, 'package.json')),
  );
  if (installed) return;
  console.error('benchmark peers: npm ci in test/bench/peers');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS_DIR, stdio: 'inherit' });
}

import { execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real private key as a person would paste it: its kind, and the PEM (or armored) block. */
export interface PrivateKeyBlock {
  readonly kind: string;
  readonly text: string;
}

/** Runs `command` when it is installed; `undefined` when it is not (the kinds it makes are then left out). */
function optional(command: string, argv: readonly string[], cwd: string): boolean {
  try {
    execFileSync(command, argv, { cwd, stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Real private keys of every kind a guardrail must recognise, generated now: RSA (PKCS#1,
 * traditional encrypted PKCS#1, PKCS#8, encrypted PKCS#8), EC (SEC1), Ed25519 (PKCS#8) with
 * `node:crypto`; OpenSSH's own format with `ssh-keygen` and an OpenPGP secret key with `gpg`
 * when they are installed.
 */
export function realPrivateKeys(): PrivateKeyBlock[] {
  const rsa = createPrivateKey(
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }),
  );
  const passphrase = 'correct horse battery staple';
  const keys: PrivateKeyBlock[] = [
    { kind: 'RSA (PKCS#1)', text: rsa.export({ format: 'pem', type: 'pkcs1' }) as string },
    {
      kind: 'RSA (PKCS#1, encrypted)',
      text: rsa.export({ format: 'pem', type: 'pkcs1', cipher: 'aes-256-cbc', passphrase }) as string,
    },
    { kind: 'RSA (PKCS#8)', text: rsa.export({ format: 'pem', type: 'pkcs8' }) as string },
    {
      kind: 'RSA (PKCS#8, encrypted)',
      text: rsa.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase }) as string,
    },
    {
      kind: 'EC (SEC1)',
      text: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
        format: 'pem',
        type: 'sec1',
      }) as string,
    },
    {
      kind: 'Ed25519 (PKCS#8)',
      text: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    },
  ];
  const dir = mkdtempSync(join(tmpdir(), 'private-keys-'));
  try {
    if (optional('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'guardrail-test', '-f', 'id_ed25519'], dir))
      keys.push({ kind: 'OpenSSH', text: readFileSync(join(dir, 'id_ed25519'), 'utf8') });
    const gpg = ['--batch', '--homedir', dir, '--pinentry-mode', 'loopback', '--passphrase', ''];
    if (
      optional(
        'gpg',
        [...gpg, '--quick-generate-key', 'Guardrail Test <guardrail@example.invalid>', 'ed25519', 'sign', 'never'],
        dir,
      )
    )
      keys.push({
        kind: 'OpenPGP',
        text: execFileSync('gpg', [...gpg, '--armor', '--export-secret-keys'], {
          cwd: dir,
          timeout: 30_000,
        }).toString(),
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return keys;
}

/**
 * Every part of `key` that would give it away: each line of its block (header, body, trailer),
 * and, for long lines, each 16-character piece of them (a key redacted but for a fragment is not
 * redacted).
 */
export function partsOf(key: PrivateKeyBlock): string[] {
  const lines = key.text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= 8);
  return lines.flatMap((line) =>
    line.length <= 16
      ? [line]
      : Array.from({ length: Math.ceil(line.length / 16) }, (_, i) => line.slice(i * 16, i * 16 + 16)).filter(
          (piece) => piece.length >= 8,
        ),
  );
}

/** The parts of `key` found in `text` (none: nothing of the key is there). */
export function leakedParts(key: PrivateKeyBlock, text: string): string[] {
  return partsOf(key).filter((part) => text.includes(part));
}

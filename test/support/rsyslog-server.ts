import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import type { TestCertificates } from './test-certificates';

/** A private rsyslogd (Debian's rsyslog and rsyslog-gnutls) taking RFC 5425 syslog over TLS and writing one file. */
export interface RsyslogServer {
  readonly port: number;
  /** The file it writes, each line in RFC 5424 form (`RSYSLOG_SyslogProtocol23Format`). */
  readonly file: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function listening(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`rsyslogd did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startRsyslog(certs: TestCertificates): Promise<RsyslogServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rsyslog-'));
  const port = await freePort();
  const file = join(dir, 'mcp-audit.log');
  const config = join(dir, 'rsyslog.conf');
  // Records are JSON lines of up to a few KB: the 8 KB default would cut a long one.
  writeFileSync(
    config,
    `global(workDirectory="${dir}" maxMessageSize="64k"
  defaultNetstreamDriver="gtls"
  defaultNetstreamDriverCAFile="${certs.caFile}"
  defaultNetstreamDriverCertFile="${certs.certFile}"
  defaultNetstreamDriverKeyFile="${certs.keyFile}")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
input(type="imtcp" port="${port}" address="127.0.0.1")
action(type="omfile" file="${file}" template="RSYSLOG_SyslogProtocol23Format")
`,
  );
  let child: ChildProcess | undefined;
  const server: RsyslogServer = {
    port,
    file,
    async start() {
      // Debian installs it in /usr/sbin, which a user's PATH may lack.
      child = spawn(
        existsSync('/usr/sbin/rsyslogd') ? '/usr/sbin/rsyslogd' : 'rsyslogd',
        ['-n', '-f', config, '-i', join(dir, 'rsyslogd.pid')],
        { stdio: 'ignore' },
      );
      await listening(port);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      });
    },
  };
  await server.start();
  return server;
}

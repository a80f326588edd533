import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Binds a sealed state to its purpose, so no other AES-GCM text of the same key opens as one. */
const PURPOSE = Buffer.from('nest-mcp-host requestState v1');

/**
 * Seals the `requestState` of a multi round-trip request with AES-256-GCM: the client can
 * neither read it nor change it undetected, and any replica that shares the secret opens it.
 * Keys come from the `requestState.secret` option (HKDF-SHA256; the first seals, each opens, so
 * a secret can be rotated); without one, from a random key of this process.
 */
@Injectable()
export class RequestStateSealer implements OnModuleInit {
  private readonly logger = new Logger('McpRequestState');
  private derived: readonly Buffer[] | undefined;

  constructor(@InjectProtocolOptions() private readonly options: Pick<ProtocolOptions, 'requestState'>) {}

  onModuleInit(): void {
    void this.keys;
    if (!this.options.requestState.secrets)
      this.logger.log(
        'No requestState secret configured: a 2026-07-28 client answering an input request must come back to ' +
          'this process. Give every replica the same McpModule option requestState.secret to serve them from any.',
      );
  }

  /** How long a sealed state may be brought back (ms). */
  get ttlMs(): number {
    return this.options.requestState.ttlMs;
  }

  /** The payload as an opaque string (URL-safe base64). */
  seal(payload: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0], iv);
    cipher.setAAD(PURPOSE);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT), iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The payload of a state this host sealed; `undefined` when it was altered or sealed under another key. */
  open(sealed: string): unknown {
    const bytes = Buffer.from(sealed, 'base64url');
    // Node's decoder skips characters it does not know: only the exact text that was sealed opens.
    if (bytes.toString('base64url') !== sealed || bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== FORMAT)
      return undefined;
    const iv = bytes.subarray(1, 1 + IV_BYTES);
    const body = bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(PURPOSE);
        decipher.setAuthTag(tag);
        const text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
        return JSON.parse(text) as unknown;
      } catch {
        // Not sealed under this key: try the next one.
      }
    }
    return undefined;
  }

  private get keys(): readonly Buffer[] {
    return (this.derived ??= this.options.requestState.secrets?.map(keyOf) ?? [randomBytes(32)]);
  }
}

/** The AES-256 key of a configured secret. */
function keyOf(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'nest-mcp-host', 'requestState aes-256-gcm', 32));
}

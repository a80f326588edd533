import { Injectable } from '@nestjs/common';
import type { SecretRedactor } from '#libs/security';

/**
 * Settings of the invocation pipeline that the hosting module decides from its options at
 * start-up (the invocation module has no options of its own).
 */
@Injectable()
export class InvocationSettings {
  /** Removes secrets from tool results and from logged errors; none when unset. */
  redactor: SecretRedactor | undefined;
}

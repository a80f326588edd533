import { Injectable } from '@nestjs/common';
import type { McpUnknownArguments } from '#libs/core';
import type { SecretRedactor } from '#libs/security';

/**
 * Settings of the invocation pipeline that the hosting module decides from its options at
 * start-up (the invocation module has no options of its own).
 */
@Injectable()
export class InvocationSettings {
  /** Removes secrets from tool results and from logged errors; none when unset. */
  redactor: SecretRedactor | undefined;
  /** Arguments no schema declares: refused unless a tool says otherwise. */
  unknownArguments: McpUnknownArguments = 'refuse';
}

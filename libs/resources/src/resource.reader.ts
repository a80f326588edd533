import { Injectable } from '@nestjs/common';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ResourceRegistry } from '#libs/catalog';
import { HandlerRunner, type CallContext } from '#libs/invocation';
import { toReadResourceResult } from './resource-contents.mapper';
import { resourceNotFound } from './resource-not-found';

/**
 * Serves `resources/read`: finds the resource (a fixed URI first, then templates), runs its
 * reader through Nest's pipeline with the template variables as arguments, and maps the result.
 * An unknown URI is `-32002` with the URI in `data`; a failing reader is `-32603`.
 */
@Injectable()
export class ResourceReader {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly runner: HandlerRunner,
  ) {}

  /** Whether `uri` names a resource this host serves. */
  exists(uri: string): boolean {
    return this.registry.resolve(uri) !== undefined;
  }

  async read(uri: string, context: CallContext): Promise<ReadResourceResult> {
    const resolved = this.registry.resolve(uri);
    if (!resolved) throw resourceNotFound(uri);
    const { handler, variables } = resolved;
    const returned = await this.runner.runOrThrow(handler, variables, context, `resources/read "${uri}"`, { uri });
    return toReadResourceResult(returned, uri, handler.definition.mimeType);
  }
}

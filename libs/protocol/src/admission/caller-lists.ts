import { Injectable } from '@nestjs/common';
import type { CatalogList, RegisteredHandler } from '#libs/catalog';
import type { McpCallKind } from '#libs/core';
import type { McpRequest } from '../requests/mcp-request';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { withCacheHints } from '../eras/stateless-result';
import { AccessControl } from './access-control';
import { CacheHints } from './cache-hints';

/** The kind of entry each list holds. */
const KIND_OF_LIST: Readonly<Record<string, McpCallKind>> = { tools: 'tool', prompts: 'prompt' };

/**
 * The catalog's lists as a caller sees them (`tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list`): only the entries the access policy lets them use and that are for
 * their client (an extension's entries only for clients that declared it), so lists and calls agree, in pages of the host's `pageSize` (pre-serialized and cached per view). A
 * 2026-07-28 caller gets the list's caching hints too (`CacheHints`).
 */
@Injectable()
export class CallerLists {
  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly access: AccessControl,
    private readonly hints: CacheHints,
  ) {}

  /** The page the request's `cursor` names, as JSON text. @throws JsonRpcError `-32602` for a bad cursor */
  page<T extends RegisteredHandler>(list: CatalogList<T>, request: McpRequest): string {
    const view = this.access.view<T>(request.principal, request.session, {
      kind: KIND_OF_LIST[list.listName] ?? 'resource',
      caller: { principal: request.principal, client: request.session.clientInfo, transport: request.transport },
    });
    const page = list.listPage(request.params.cursor, this.options.pageSize, view);
    if (!request.session.stateless) return page;
    const hints = this.hints.ofList(list, view);
    return hints ? withCacheHints(page, hints) : page;
  }
}

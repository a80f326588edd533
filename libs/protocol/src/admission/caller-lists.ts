import { Injectable } from '@nestjs/common';
import type { CatalogList, RegisteredHandler } from '#libs/catalog';
import type { DispatchScope } from '../methods/method-handler';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { AccessControl } from './access-control';

/**
 * The catalog's lists as a caller sees them (`tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list`): only the entries the access policy lets them use, so lists and
 * calls agree, in pages of the host's `pageSize` (pre-serialized and cached per view).
 */
@Injectable()
export class CallerLists {
  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly access: AccessControl,
  ) {}

  /** The page `params.cursor` names, as JSON text. @throws JsonRpcError `-32602` for a bad cursor */
  page<T extends RegisteredHandler>(
    list: CatalogList<T>,
    params: Record<string, unknown>,
    scope: DispatchScope,
  ): string {
    return list.listPage(params.cursor, this.options.pageSize, this.access.view<T>(scope.principal));
  }
}

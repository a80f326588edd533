import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { MCP_VIEW_METADATA } from './apps.constants';
import { AppsMessages } from './apps.messages';
import type { McpViewOptions } from './mcp-view-options.interface';
import { compiledView } from './view-document';

/**
 * Around an `@McpView` method (the decorator puts it there): turns the HTML the method returns
 * into the served document (its policy and declared scripts) with the view's `_meta.ui`, so that
 * the `resources/read` contents carry what the host frames the view with.
 */
@Injectable()
export class ViewDocumentInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handler = context.getHandler();
    const options = Reflect.getMetadata(MCP_VIEW_METADATA, handler) as McpViewOptions;
    const where = `${context.getClass().name}.${handler.name}`;
    const view = compiledView(options, where);
    return next.handle().pipe(
      map((html: unknown) => {
        if (typeof html !== 'string') throw new TypeError(AppsMessages.notHtml(where));
        return { text: view.render(html), _meta: { ui: view.meta } };
      }),
    );
  }
}

import { Injectable } from '@nestjs/common';
import { InjectInvocationOptions, type InvocationOptions } from '../options/invocation.options';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Where the user of a call is sent to decide its approval request (URL-mode elicitation): the
 * approval page of the admin dashboard, as the calling client reaches the host (`pageOf` of the
 * `approvals` options, from the request's headers), or the page a host without HTTP serves of its
 * own on loopback, once it listens (`StdioApprovalServer`). `undefined`: nowhere, and nobody is
 * sent there; the request waits for an approver.
 * @internal
 */
@Injectable()
export class ApprovalPageLocator {
  private loopback: string | undefined;

  constructor(@InjectInvocationOptions() private readonly options: InvocationOptions) {}

  /** The page's absolute URL for a call that came with these headers. */
  pageOf(headers: Headers): string | undefined {
    return this.loopback ?? this.options.approvals.pageOf?.(headers);
  }

  /** A listener of the host's own serves the page at `url` from now on (`undefined`: no longer). */
  servedAt(url: string | undefined): void {
    this.loopback = url;
  }
}

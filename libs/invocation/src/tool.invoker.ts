import { randomUUID } from 'node:crypto';
import { HttpException, Injectable, Logger } from '@nestjs/common';
import { ContextIdFactory, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  JsonRpcError,
  MCP_CONTEXT_TYPE,
  MCP_PARAM_ARGS_METADATA,
  McpStartupError,
  McpToolError,
  type McpDiagnostic,
} from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import type { CallContext } from './context/call-context';
import { InvocationMessages } from './invocation.messages';
import { McpParamsFactory } from './mcp-params.factory';
import { toCallToolResult, toolErrorResult } from './results/tool-result.mapper';
import type { CompiledValidator } from './validation/validation-result';
import { ValidatorFactory } from './validation/validator.factory';

type NestHandler = (args: unknown, context: CallContext) => Promise<unknown>;

/** A tool made ready to call: validators compiled, Nest pipeline wrapped around the method. */
interface PreparedTool {
  validateInput: CompiledValidator | undefined;
  validateOutput: CompiledValidator | undefined;
  /** `undefined` for request-scoped providers, whose handler is built per call. */
  handler: NestHandler | undefined;
}

const PIPELINE = { guards: true, interceptors: true, filters: true };

/**
 * Runs tool calls: validates arguments with the tool's compiled validator, runs the method
 * through Nest's guards, interceptors, pipes and filters (context type `mcp`), and maps the
 * outcome to a `CallToolResult`. Tool failures become `isError` results; only protocol
 * errors (`JsonRpcError`) propagate.
 */
@Injectable()
export class ToolInvoker {
  private readonly logger = new Logger('McpInvocation');
  private readonly prepared = new Map<RegisteredTool, PreparedTool>();
  private readonly paramsFactory = new McpParamsFactory();

  constructor(
    private readonly contextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
    private readonly validators: ValidatorFactory,
  ) {}

  /** Prepares every tool up front so that schema problems stop the start-up. */
  prepareAll(tools: readonly RegisteredTool[]): void {
    const diagnostics: McpDiagnostic[] = [];
    for (const tool of tools) {
      try {
        this.prepare(tool);
      } catch (error) {
        diagnostics.push({
          where: tool.where,
          problem: `its schema cannot be compiled: ${(error as Error).message}`,
          fix: 'correct the JSON Schema given in @McpTool({ input / output })',
        });
      }
    }
    if (diagnostics.length > 0) throw new McpStartupError(diagnostics);
  }

  async invoke(tool: RegisteredTool, rawArgs: unknown, context: CallContext): Promise<CallToolResult> {
    const prepared = this.prepared.get(tool) ?? this.prepare(tool);
    let args: unknown = rawArgs ?? {};
    if (prepared.validateInput) {
      const validation = prepared.validateInput(args);
      if (!validation.ok) return toolErrorResult(InvocationMessages.invalidArguments(tool.name, validation.issues));
      args = validation.value;
    }
    try {
      const handler = prepared.handler ?? (await this.requestScopedHandler(tool, context));
      const returned = await handler(args, context);
      return this.toResult(tool, prepared, returned);
    } catch (error) {
      return this.failure(tool, error, context);
    }
  }

  private prepare(tool: RegisteredTool): PreparedTool {
    const prepared: PreparedTool = {
      validateInput: tool.input && this.validators.compile(tool.input.source, tool.input.kind),
      validateOutput: tool.output && this.validators.compile(tool.output.source, tool.output.kind),
      handler: tool.instance && this.createHandler(tool, tool.instance),
    };
    this.prepared.set(tool, prepared);
    return prepared;
  }

  private createHandler(tool: RegisteredTool, instance: object, contextId?: ReturnType<typeof ContextIdFactory.create>): NestHandler {
    const method = (instance as Record<string, (...args: unknown[]) => unknown>)[tool.methodName];
    return this.contextCreator.create(
      instance,
      method,
      tool.methodName,
      MCP_PARAM_ARGS_METADATA,
      this.paramsFactory,
      contextId,
      undefined,
      PIPELINE,
      MCP_CONTEXT_TYPE,
    ) as NestHandler;
  }

  /** Request-scoped providers get a fresh DI sub-tree per call; `REQUEST` is the call context. */
  private async requestScopedHandler(tool: RegisteredTool, context: CallContext): Promise<NestHandler> {
    const contextId = ContextIdFactory.create();
    this.moduleRef.registerRequestByContextId(context, contextId);
    const instance = await this.moduleRef.resolve(tool.hostClass, contextId, { strict: false });
    return this.createHandler(tool, instance, contextId);
  }

  private toResult(tool: RegisteredTool, prepared: PreparedTool, returned: unknown): CallToolResult {
    const result = toCallToolResult(returned);
    if (!prepared.validateOutput || result.isError) return result;
    if (result.structuredContent === undefined) {
      this.logger.error(`${tool.where} declares an output schema but returned no object`);
      return toolErrorResult(InvocationMessages.missingStructuredContent(tool.name));
    }
    const validation = prepared.validateOutput(result.structuredContent);
    if (!validation.ok) {
      this.logger.error(`${tool.where} returned output that fails its schema: ${validation.issues.join('; ')}`);
      return toolErrorResult(InvocationMessages.invalidOutput(tool.name));
    }
    return result;
  }

  private failure(tool: RegisteredTool, error: unknown, context: CallContext): CallToolResult {
    if (error instanceof JsonRpcError) throw error;
    if (error instanceof McpToolError) return toolErrorResult(error.message);
    if (error instanceof HttpException) return toolErrorResult(httpExceptionMessage(error));
    if (context.cancellation.isCancelled) return toolErrorResult(InvocationMessages.cancelled(tool.name));
    const reference = randomUUID();
    this.logger.error(`${tool.where} failed (reference ${reference})`, (error as Error)?.stack ?? String(error));
    return toolErrorResult(InvocationMessages.internalError(tool.name, reference));
  }
}

/** Nest exceptions carry client-facing messages (a `ValidationPipe` gives an array of them). */
function httpExceptionMessage(error: HttpException): string {
  const response = error.getResponse();
  const message = typeof response === 'object' && response !== null ? (response as { message?: unknown }).message : response;
  return Array.isArray(message) ? message.join('; ') : String(message ?? error.message);
}

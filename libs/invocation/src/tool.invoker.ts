import { Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpStartupError, RETRY_AFTER_META, type JsonSchemaObject, type McpDiagnostic } from '#libs/core';
import { prototypeNamedProperties, type RegisteredTool } from '#libs/catalog';
import type { CallContext } from './context/call-context';
import { ConfirmationGate } from './confirmation/confirmation.gate';
import { markedCallFailure } from './results/call-failure-mark';
import { ConfirmationInterceptor } from './confirmation/confirmation.interceptor';
import { Deadlines } from './deadlines';
import { HandlerRunner } from './handler-runner';
import { InjectInvocationOptions, type InvocationOptions } from './options/invocation.options';
import { InvocationMessages } from './invocation.messages';
import type { CallFailure, Invocation } from './results/invocation';
import { errorTextOf, toCallToolResult, toolErrorResult } from './results/tool-result.mapper';
import { compileUndeclaredArguments, type UndeclaredArgumentsCheck } from './validation/undeclared-arguments';
import { ownArguments } from './validation/own-arguments';
import type { CompiledValidator } from './validation/validation-result';
import { InvalidArguments, type CheckedArguments } from './validation/checked-arguments';
import { ValidatorFactory } from './validation/validator.factory';

/** A tool's validators, compiled once. */
interface ToolValidators {
  /** Refuses or strips what the input schema does not declare, before the schema's own validator runs. */
  undeclared: UndeclaredArgumentsCheck | undefined;
  input: CompiledValidator | undefined;
  output: CompiledValidator | undefined;
  /**
   * The input schema declares a property named like a member of every object (`toString`,
   * `constructor`): arguments are then validated and handed over without a prototype, so that one
   * not sent is absent rather than Object's method (see `ownArguments`).
   */
  ownArguments: boolean;
}

/**
 * Runs tool calls: validates arguments with the tool's compiled validator, runs the method
 * through Nest's pipeline, and maps the outcome to a `CallToolResult`. Tool failures become
 * `isError` results, returned with why the call failed (see `Invocation`); only protocol errors
 * (`JsonRpcError`) propagate.
 */
@Injectable()
export class ToolInvoker {
  private readonly logger = new Logger('McpInvocation');
  private readonly validators = new WeakMap<RegisteredTool, ToolValidators>();
  private readonly confirmations = new WeakMap<RegisteredTool, ConfirmationInterceptor>();
  private readonly deadlines = new Deadlines();
  /** Calls running per tool, for `maxConcurrency`. */
  private readonly running = new WeakMap<RegisteredTool, number>();

  constructor(
    private readonly runner: HandlerRunner,
    private readonly validatorFactory: ValidatorFactory,
    private readonly confirmation: ConfirmationGate,
    @InjectInvocationOptions() private readonly options: InvocationOptions,
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

  /**
   * Checks a call's arguments against `tool`'s schema, before anything decides on them (the
   * admission runs it ahead of the policies that read them): arguments it does not declare,
   * their types, the required ones, and the DTO made of them.
   * @returns the arguments the tool runs with, or why they cannot be (an `InvalidArguments`)
   * @example
   * const checked = invoker.check(tool, { status: 'urgent' }); // InvalidArguments ["- status: must be one of open, pending, closed"]
   */
  check(tool: RegisteredTool, rawArgs: unknown): CheckedArguments | InvalidArguments {
    const validators = this.validators.get(tool) ?? this.prepare(tool);
    let args: unknown = rawArgs ?? {};
    let issues: string[] | undefined;
    if (validators.undeclared) ({ value: args, issues } = validators.undeclared(args));
    if (validators.ownArguments) args = ownArguments(args);
    if (validators.input) {
      const validation = validators.input(args);
      if (validation.ok) args = validators.ownArguments ? ownArguments(validation.value) : validation.value;
      else issues = issues ? [...issues, ...validation.issues] : validation.issues;
    }
    return issues ? new InvalidArguments(issues) : (args as CheckedArguments);
  }

  /**
   * Runs one call of `tool` with the arguments `check` gave (invalid ones are answered so, and
   * nothing runs).
   * @param confirm ask the user before running (see `ConfirmationGate`); the caller decides from
   * the tool's `confirm` option and the host's policy.
   * @returns the result to answer with and, when it is an error result, why the call failed:
   * `invalid` arguments, `limited` (busy), `timeout`, `error` (a crash or output that breaks the
   * schema), `denied`/`throttled`/`cancelled`, or `tool_error`. The first outcome wins: a call
   * that timed out stays `timeout` however the tool ends afterwards.
   * @throws JsonRpcError a protocol error the tool's pipeline threw
   * @example
   * const { value, failure } = await invoker.invoke(tool, invoker.check(tool, { title: 'Printer jam' }), context);
   */
  async invoke(
    tool: RegisteredTool,
    checked: CheckedArguments | InvalidArguments,
    context: CallContext,
    confirm = false,
    defaultTimeoutMs = 30_000,
  ): Promise<Invocation<CallToolResult>> {
    if (checked instanceof InvalidArguments)
      return this.failed(toolErrorResult(InvocationMessages.invalidArguments(tool.name, checked.issues)), 'invalid');
    const validators = this.validators.get(tool) ?? this.prepare(tool);
    const args: unknown = checked;
    const limit = tool.options.maxConcurrency;
    const running = this.running.get(tool) ?? 0;
    if (limit !== undefined && running >= limit)
      return this.failed(toolErrorResult(InvocationMessages.busy(tool.name, limit)), 'limited');
    this.running.set(tool, running + 1);
    const timeoutMs = tool.options.timeoutMs ?? defaultTimeoutMs;
    const innermost = confirm ? this.confirmationInterceptor(tool) : undefined;
    // Answered by whichever comes first: the tool, or its deadline. The first answer settles the
    // promise, so its outcome is the one recorded (a timed-out tool that later fails stays `timeout`).
    return new Promise<Invocation<CallToolResult>>((resolve, reject) => {
      const cancelDeadline = this.deadlines.add(timeoutMs, () => {
        context.cancellation.cancel(new Error(`timed out after ${timeoutMs} ms`));
        resolve(this.failed(toolErrorResult(InvocationMessages.timedOut(tool.name, timeoutMs)), 'timeout'));
      });
      // Shutting down: the call is answered now, whatever its handler does with the signal.
      context.cancellation.onShutdown = () => {
        cancelDeadline();
        resolve(this.failed(toolErrorResult(InvocationMessages.shutDown(tool.name)), 'cancelled'));
      };
      // The slot is freed when the tool really stops, even if the caller was answered earlier.
      const settle = (outcome: () => Invocation<CallToolResult>) => {
        this.running.set(tool, (this.running.get(tool) ?? 1) - 1);
        cancelDeadline();
        try {
          resolve(outcome());
        } catch (error) {
          reject(error as Error);
        }
      };
      this.runner.run(tool, args, context, innermost).then(
        (returned) => settle(() => this.toResult(tool, validators, returned)),
        (error: unknown) => settle(() => this.failureResult(tool, error, context)),
      );
    });
  }

  /** Every error result passes here: redacted for the caller, its kind and text kept for the audit trail. */
  private failed(result: CallToolResult, failure: CallFailure): Invocation<CallToolResult> {
    const redacted = this.options.redactor ? this.options.redactor.redactDeep(result) : result;
    return { value: redacted, failure, failureMessage: errorTextOf(redacted) };
  }

  /** A tool's failure as the result the model sees; protocol errors propagate. */
  private failureResult(tool: RegisteredTool, error: unknown, context: CallContext): Invocation<CallToolResult> {
    const failure = this.runner.classify(tool, error, context);
    switch (failure.kind) {
      case 'protocol':
        throw failure.error;
      case 'business': {
        const result = toolErrorResult(failure.message);
        // When to retry, for a client to act on (a throttled call); the message says it in words.
        if (failure.retryAfterSeconds !== undefined) result._meta = { [RETRY_AFTER_META]: failure.retryAfterSeconds };
        return this.failed(result, failure.outcome);
      }
      case 'cancelled':
        return this.failed(toolErrorResult(InvocationMessages.cancelled(tool.name)), failure.outcome);
      case 'internal':
        return this.failed(
          toolErrorResult(InvocationMessages.internalError(tool.name, failure.reference)),
          failure.outcome,
        );
    }
  }

  private confirmationInterceptor(tool: RegisteredTool): ConfirmationInterceptor {
    let interceptor = this.confirmations.get(tool);
    if (!interceptor) {
      interceptor = new ConfirmationInterceptor(this.confirmation, tool);
      this.confirmations.set(tool, interceptor);
    }
    return interceptor;
  }

  private prepare(tool: RegisteredTool): ToolValidators {
    const validators: ToolValidators = {
      undeclared: compileUndeclaredArguments(
        tool.definition.inputSchema as JsonSchemaObject,
        tool.options.unknownArguments ?? this.options.unknownArguments,
      ),
      input:
        tool.input &&
        this.validatorFactory.compile(
          tool.input.source,
          tool.input.kind,
          tool.definition.inputSchema as JsonSchemaObject,
        ),
      output: tool.output && this.validatorFactory.compile(tool.output.source, tool.output.kind),
      // A DTO cannot declare such a name (the catalog refuses it: class-validator breaks on it).
      ownArguments: tool.input?.kind !== 'dto' && prototypeNamedProperties(tool.definition.inputSchema).length > 0,
    };
    this.validators.set(tool, validators);
    return validators;
  }

  private toResult(tool: RegisteredTool, validators: ToolValidators, returned: unknown): Invocation<CallToolResult> {
    const mapped = toCallToolResult(returned);
    // An error result the tool made itself (`failed` redacts it), or one marked by the host's own
    // code (the confirmation gate's refusal, a REST route's 400).
    if (mapped.isError) return this.failed(mapped, markedCallFailure(returned) ?? 'tool_error');
    // Secrets are redacted from it where it leaves (`CallScope`), once governance has seen it as it is.
    const result = mapped;
    if (!validators.output) return { value: result };
    if (result.structuredContent === undefined) {
      this.logger.error(`${tool.where} declares an output schema but returned no object`);
      return this.failed(toolErrorResult(InvocationMessages.missingStructuredContent(tool.name)), 'error');
    }
    const validation = validators.output(result.structuredContent);
    if (!validation.ok) {
      this.logger.error(`${tool.where} returned output that fails its schema: ${validation.issues.join('; ')}`);
      return this.failed(toolErrorResult(InvocationMessages.invalidOutput(tool.name)), 'error');
    }
    return { value: result };
  }
}

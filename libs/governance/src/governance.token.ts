import { Inject } from '@nestjs/common';

/**
 * Token of `McpGovernance` for the engine (admission, lists, results), which injects it by this
 * token rather than by its class: naming the class would load governance's code in every host,
 * governed or not. Provided with governance's providers (and absent without them).
 */
export const MCP_GOVERNANCE = Symbol('MCP:GOVERNANCE');

/** Injects `McpGovernance` by `MCP_GOVERNANCE` (mark it `@Optional()`: it is absent when governance is off). */
export const InjectGovernance = (): ParameterDecorator => Inject(MCP_GOVERNANCE);

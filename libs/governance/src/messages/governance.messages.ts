/** The governance library's messages: start-up problems and what a refused caller is told. */
export const GovernanceMessages = {
  duplicateId: (id: string, other: string) => `policy id "${id}" is already used by ${other}`,
  unknownVariables: (names: string[]) =>
    `the condition reads ${names.map((n) => `"${n}"`).join(', ')}, which no policy is given`,
  badCondition: (message: string) => `the condition is not valid CEL: ${message}`,
  refused: (id: string, reason: string) => `Not allowed by policy "${id}": ${reason}`,
  unevaluable: (message: string) => `the condition could not be evaluated (${message}), so the call is refused`,
  argumentsBlocked: (found: string) =>
    `Refused by guardrail: the arguments contain ${found}. Remove it and call again.`,
  resultBlocked: (found: string) =>
    `The result was withheld by a guardrail: it contained ${found}. Ask an administrator if you need it.`,
  resultRefused: (id: string, reason: string) => `The result was withheld by policy "${id}": ${reason}`,
} as const;

import type { McpGuardrailAction } from './mcp-detector.interface';
import type { CompiledRule } from './guardrail-compiler';
import { armDetector, type ArmedDetector } from './guardrail-scanner';

const STRENGTH: Record<McpGuardrailAction, number> = { flag: 0, redact: 1, block: 2 };

/** The detectors of an entry's rules at one stage: armed once when no rule can exempt a caller. */
export interface ArmedPlan {
  readonly rules: readonly CompiledRule[];
  readonly exempting: boolean;
  readonly detectors: readonly ArmedDetector[];
}

export function planOf(rules: readonly CompiledRule[]): ArmedPlan {
  const exempting = rules.some((rule) => rule.exempts);
  return { rules, exempting, detectors: exempting ? [] : armed(rules) };
}

/** One armed detector per detector, with the strongest action of the rules that name it. */
export function armed(rules: readonly CompiledRule[]): ArmedDetector[] {
  const strongest = new Map<string, { detector: CompiledRule['detectors'][number]; action: McpGuardrailAction }>();
  for (const rule of rules)
    for (const detector of rule.detectors) {
      const known = strongest.get(detector.id);
      if (!known || STRENGTH[rule.action] > STRENGTH[known.action])
        strongest.set(detector.id, { detector, action: rule.action });
    }
  return [...strongest.values()].map(({ detector, action }) => armDetector(detector, action));
}

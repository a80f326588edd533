import type { GuardrailFinding } from '#libs/security';
import type { McpDetector, McpGuardrailAction } from './mcp-detector.interface';

/** A detector as a scan runs it, with what its rules do with its findings. */
export interface ArmedDetector {
  readonly id: string;
  /** Global copy of the detector's pattern. */
  readonly pattern: RegExp;
  readonly validate: ((match: string) => boolean) | undefined;
  readonly action: McpGuardrailAction;
  /** What `redact` puts in place of a match. */
  readonly replacement: string;
}

/** What a scan found, and the value with what it redacted replaced (the same value when nothing was). */
export interface ScanOutcome {
  readonly findings: GuardrailFinding[];
  readonly blocked: boolean;
  readonly value: unknown;
  /** The value with every finding replaced, whatever its action: what the audit trail may keep. */
  readonly scrubbed: unknown;
}

/** Deeper than this, a value is not looked into (JSON arguments and results are shallow). */
const MAX_DEPTH = 64;

/** A detector ready to scan with: its pattern made global once. */
export function armDetector(detector: McpDetector, action: McpGuardrailAction): ArmedDetector {
  const flags = detector.pattern.flags.includes('g') ? detector.pattern.flags : `${detector.pattern.flags}g`;
  return {
    id: detector.id,
    pattern: new RegExp(detector.pattern.source, flags),
    validate: detector.validate,
    action,
    replacement: detector.replacement ?? `[REDACTED:${detector.id}]`,
  };
}

/**
 * Looks through every string of `value` (object keys excepted) with `detectors`, and redacts what a
 * `redact` detector finds (its replacement) in a copy (the parts of `value` without a finding
 * are shared, never written on). Findings name the detector and the path, never the value.
 * @returns `undefined` when nothing was found
 */
export function scanValue(
  value: unknown,
  detectors: readonly ArmedDetector[],
  where: GuardrailFinding['in'],
): ScanOutcome | undefined {
  const findings: GuardrailFinding[] = [];
  let blocked = false;
  // The second pass (only when something was found) replaces every finding, for the audit record.
  let scrubbing = false;
  const visit = (node: unknown, path: string, depth: number): unknown => {
    if (typeof node === 'string') {
      let text = node;
      for (const detector of detectors) {
        let found = false;
        detector.pattern.lastIndex = 0;
        text = text.replace(detector.pattern, (match) => {
          if (detector.validate && !detector.validate(match)) return match;
          found = true;
          return scrubbing || detector.action === 'redact' ? detector.replacement : match;
        });
        if (found && !scrubbing) {
          findings.push({ detector: detector.id, in: where, path, action: detector.action });
          if (detector.action === 'block') blocked = true;
        }
      }
      return text;
    }
    if (typeof node !== 'object' || node === null || depth > MAX_DEPTH) return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < node.length; i++) {
        const item = visit(node[i], `${path}[${i}]`, depth + 1);
        if (item !== node[i]) (copy ??= [...node])[i] = item;
      }
      return copy ?? node;
    }
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(node)) {
      const original = (node as Record<string, unknown>)[key];
      const item = visit(
        original,
        /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`,
        depth + 1,
      );
      if (item !== original) (copy ??= { ...(node as Record<string, unknown>) })[key] = item;
    }
    return copy ?? node;
  };
  const scanned = visit(value, '$', 0);
  if (findings.length === 0) return undefined;
  scrubbing = true;
  return { findings, blocked, value: scanned, scrubbed: visit(value, '$', 0) };
}

import { Inject } from '@nestjs/common';

/**
 * How the replicas tell each other that a pin changed (an approval, a quarantine): the host's
 * configuration-change signal, a broadcast on the backplane with the `cluster` option (nothing to
 * tell on one replica). The pins themselves are in the `CatalogPinStore`; a replica told reads it
 * again at once instead of at its next `resyncMs`.
 */
export interface PinChangeSignal {
  announce(document: string, version: number): Promise<void>;
  /** Another replica's announcements. */
  onChange(listener: (document: string, version: number) => void): () => void;
}

/** The document name pins are announced under. */
export const PINS_DOCUMENT = 'catalog-pins';

/** Token of the `PinChangeSignal` (provided with the host's shared state). */
export const MCP_PIN_CHANGES = Symbol('MCP:PIN_CHANGES');

/** Injects the `PinChangeSignal`. */
export const InjectPinChanges = (): ParameterDecorator => Inject(MCP_PIN_CHANGES);

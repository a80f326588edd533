import type {
  AudioContent,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * Content block builders for tool results. Return one, an array of them, or a full
 * `CallToolResult` from a tool.
 *
 * @example
 * ```ts
 * return [text('Chart attached'), image(pngBase64, 'image/png')];
 * ```
 */
export const text = (value: string): TextContent => ({ type: 'text', text: value });

/** An image given as base64 data. */
export const image = (base64: string, mimeType: string): ImageContent => ({ type: 'image', data: base64, mimeType });

/** Audio given as base64 data. */
export const audio = (base64: string, mimeType: string): AudioContent => ({ type: 'audio', data: base64, mimeType });

/** A resource embedded in the result, with its text or base64 blob. */
export const embeddedResource = (
  resource: { uri: string; mimeType?: string } & ({ text: string } | { blob: string }),
): EmbeddedResource => ({ type: 'resource', resource });

/** A link to a resource the client may read later. */
export const resourceLink = (link: Omit<ResourceLink, 'type'>): ResourceLink => ({ type: 'resource_link', ...link });

import type { Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { McpCompleter } from '#libs/core';
import type { RegisteredHandler } from '../handlers/registered-handler.interface';
import type { UriTemplate } from './uri-template';

/** A resource at a fixed URI. */
export interface RegisteredResource extends RegisteredHandler {
  readonly uri: string;
  /** The definition as sent in `resources/list`. */
  readonly definition: Resource;
}

/** Resources whose URIs match a template. */
export interface RegisteredResourceTemplate extends RegisteredHandler {
  readonly template: UriTemplate;
  /** The definition as sent in `resources/templates/list`. */
  readonly definition: ResourceTemplate;
  readonly complete: Readonly<Record<string, McpCompleter>>;
}

import { McpResourceNotifier } from './resource.notifier';
import { ResourceMethods } from './resource.methods';
import { ResourceReader } from './resource.reader';

/** The resources feature: its MCP methods, the reader and the update notifier. */
export const RESOURCE_PROVIDERS = [ResourceReader, ResourceMethods, McpResourceNotifier];

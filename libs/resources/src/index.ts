export { RESOURCE_PROVIDERS } from './resource.providers';
export { ResourceReader } from './resource.reader';
export { ResourceMethods } from './resource.methods';
export { McpResourceNotifier } from './resource.notifier';
export { MCP_RESOURCE_UPDATES, InjectResourceUpdates, type ResourceUpdates } from './updates/resource-updates';
export { LocalResourceUpdates } from './updates/local-resource-updates';
export { toReadResourceResult } from './resource-contents.mapper';
export { resourceNotFound } from './resource-not-found';

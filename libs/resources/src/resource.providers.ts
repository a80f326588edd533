import { McpResourceNotifier } from './resource.notifier';
import { ResourceReader } from './resource.reader';

/** Serves the resources found by the catalog and their update notifications. */
export const RESOURCE_PROVIDERS = [ResourceReader, McpResourceNotifier];

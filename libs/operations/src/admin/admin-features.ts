import { Inject } from '@nestjs/common';
import type { McpAuthorizationServer } from '#libs/authorization-server';
import type { UserConnections } from '#libs/downstream-identity';
import type { CatalogPins, McpGovernance } from '#libs/governance';

/**
 * The features the dashboard shows when they are on, bound by `McpModule` with those the module
 * holds: a feature left out is absent here, and its code is never loaded for the dashboard's sake
 * (injecting its class would load it).
 */
export interface AdminFeatures {
  readonly authorizationServer?: McpAuthorizationServer;
  readonly connections?: UserConnections;
  readonly governance?: McpGovernance;
  readonly pins?: CatalogPins;
}

/** Token of the `AdminFeatures`. */
export const MCP_ADMIN_FEATURES = Symbol('MCP:ADMIN_FEATURES');

/** Injects the `AdminFeatures`. */
export const InjectAdminFeatures = (): ParameterDecorator => Inject(MCP_ADMIN_FEATURES);

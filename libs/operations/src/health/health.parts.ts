import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { McpHealthIndicator } from './mcp.health';

/**
 * The health probes (`/health/live`, `/health/ready`) with terminus. Required by `operationsParts`
 * only when they are mounted, so a host without them does not load `@nestjs/terminus`.
 * @internal
 */
export const HEALTH_PARTS: { imports: DynamicModule['imports'] & object; controllers: Type[]; providers: Provider[] } =
  {
    imports: [TerminusModule],
    controllers: [HealthController],
    providers: [McpHealthIndicator],
  };

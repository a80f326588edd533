import { ExpressPlatform } from './express.platform';
import { FastifyPlatform } from './fastify.platform';
import type { HttpAdapter, HttpPlatform } from './http-platform';

const platforms = new WeakMap<HttpAdapter, HttpPlatform>();

/**
 * The platform of an application's HTTP adapter, chosen once per adapter.
 * @internal
 */
export function httpPlatformOf(adapter: HttpAdapter): HttpPlatform {
  let platform = platforms.get(adapter);
  if (!platform) {
    platform = adapter.getType() === 'fastify' ? new FastifyPlatform(adapter) : new ExpressPlatform(adapter);
    platforms.set(adapter, platform);
  }
  return platform;
}

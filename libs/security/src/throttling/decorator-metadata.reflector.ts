import { Reflector } from '@nestjs/core';

type Target = Parameters<Reflector['getAllAndOverride']>[1][number];

/**
 * A `Reflector` that reads `getAllAndOverride(key, [handler, class])` once per handler, class and
 * key: decorator metadata is written when classes are defined and does not change afterwards.
 * Other questions are answered as `Reflector` answers them.
 */
export class DecoratorMetadataReflector extends Reflector {
  private readonly read = new WeakMap<Target, WeakMap<Target, Map<unknown, unknown>>>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override getAllAndOverride<TResult = unknown, TKey = unknown>(metadataKey: TKey, targets: Target[]): TResult {
    if (targets.length !== 2 || typeof targets[0] !== 'function' || typeof targets[1] !== 'function')
      return this.reflector.getAllAndOverride(metadataKey, targets);
    const [handler, classRef] = targets;
    let byClass = this.read.get(handler);
    if (!byClass) this.read.set(handler, (byClass = new WeakMap()));
    let byKey = byClass.get(classRef);
    if (!byKey) byClass.set(classRef, (byKey = new Map()));
    if (byKey.has(metadataKey)) return byKey.get(metadataKey) as TResult;
    const value = this.reflector.getAllAndOverride<TResult, TKey>(metadataKey, targets);
    byKey.set(metadataKey, value);
    return value;
  }
}

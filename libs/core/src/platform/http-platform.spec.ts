import { Module, type INestApplication } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ExpressPlatform } from './express.platform';
import { FastifyPlatform } from './fastify.platform';
import { httpPlatformOf } from './http-platform-of';

@Module({})
class EmptyModule {}

describe('httpPlatformOf', () => {
  const apps: INestApplication[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });
  const create = async (platform: 'express' | 'fastify') => {
    const app =
      platform === 'fastify'
        ? await NestFactory.create(EmptyModule, new FastifyAdapter(), { logger: false })
        : await NestFactory.create(EmptyModule, { logger: false });
    apps.push(app);
    return app;
  };

  it("chooses the adapter's platform once per adapter", async () => {
    const express = (await create('express')).get(HttpAdapterHost).httpAdapter;
    const fastify = (await create('fastify')).get(HttpAdapterHost).httpAdapter;
    expect(httpPlatformOf(express)).toBeInstanceOf(ExpressPlatform);
    expect(httpPlatformOf(express).type).toBe('express');
    expect(httpPlatformOf(fastify)).toBeInstanceOf(FastifyPlatform);
    expect(httpPlatformOf(fastify)).toBe(httpPlatformOf(fastify));
  });

  it('says what to do when a Fastify app is asked to take in-process requests only once it listens', async () => {
    const app = await create('fastify');
    await app.listen(0, '127.0.0.1');
    expect(() => httpPlatformOf(app.get(HttpAdapterHost).httpAdapter).acceptInProcessRequests()).toThrow(
      'This Fastify application already listens, and a request made in process needs a request hook added ' +
        'before that (to give its routes request.user). The REST bridge adds it when McpModule exposes a route; ' +
        'otherwise make the first in-process request before app.listen().',
    );
  });
});

// The README's quick start as an adopter writes it (one provider, one tool validated by a
// class-validator DTO, `McpModule.forRoot` with its defaults) on Express, against the built
// package. Plain JavaScript: the decorators TypeScript would apply are applied by hand.
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsNumber } from 'class-validator';
import { McpArgs, McpModule, McpTool } from 'nest-mcp-host';

class AddDto {}
Reflect.decorate([IsNumber()], AddDto.prototype, 'a');
Reflect.decorate([IsNumber()], AddDto.prototype, 'b');

class MathTools {
  add({ a, b }) {
    return String(a + b);
  }
}
Reflect.defineMetadata('design:paramtypes', [AddDto], MathTools.prototype, 'add');
McpArgs()(MathTools.prototype, 'add', 0);
Reflect.decorate(
  [McpTool({ description: 'Adds two numbers', annotations: { readOnlyHint: true } })],
  MathTools.prototype,
  'add',
  Object.getOwnPropertyDescriptor(MathTools.prototype, 'add'),
);
Injectable()(MathTools);

class AppModule {}
Module({ imports: [McpModule.forRoot({ name: 'my-host', version: '1.0.0' })], providers: [MathTools] })(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(Number(process.env.PORT ?? 3009), '127.0.0.1');

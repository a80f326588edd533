// A bare Nest HTTP application (Express, one empty module): what Nest alone takes to start and
// answer; the yardstick of the start-up targets.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

class EmptyModule {}
Module({})(EmptyModule);
const app = await NestFactory.create(EmptyModule, { logger: false });
await app.listen(Number(process.env.PORT ?? 3008), '127.0.0.1');

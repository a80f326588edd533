// The README's quick start as an adopter writes it (one provider, one tool validated by a
// class-validator DTO, `McpModule.forRoot` with its defaults) on Express, against the built
// package, as TypeScript compiles it for Node (CommonJS, Nest's default): each import a `require`,
// each imported name read where it is used. Plain JavaScript: the decorators TypeScript would apply
// are applied by hand. readme-app-server.mjs is the same app as an ES module.
require('reflect-metadata');
const common_1 = require('@nestjs/common');
const core_1 = require('@nestjs/core');
const class_validator_1 = require('class-validator');
const nest_mcp_host_1 = require('nest-mcp-host');

class AddDto {}
Reflect.decorate([(0, class_validator_1.IsNumber)()], AddDto.prototype, 'a');
Reflect.decorate([(0, class_validator_1.IsNumber)()], AddDto.prototype, 'b');

class MathTools {
  add({ a, b }) {
    return String(a + b);
  }
}
Reflect.defineMetadata('design:paramtypes', [AddDto], MathTools.prototype, 'add');
(0, nest_mcp_host_1.McpArgs)()(MathTools.prototype, 'add', 0);
Reflect.decorate(
  [(0, nest_mcp_host_1.McpTool)({ description: 'Adds two numbers', annotations: { readOnlyHint: true } })],
  MathTools.prototype,
  'add',
  Object.getOwnPropertyDescriptor(MathTools.prototype, 'add'),
);
(0, common_1.Injectable)()(MathTools);

class AppModule {}
(0, common_1.Module)({
  imports: [nest_mcp_host_1.McpModule.forRoot({ name: 'my-host', version: '1.0.0' })],
  providers: [MathTools],
})(AppModule);

async function bootstrap() {
  const app = await core_1.NestFactory.create(AppModule, { logger: false });
  await app.listen(Number(process.env.PORT ?? 3009), '127.0.0.1');
}
void bootstrap();

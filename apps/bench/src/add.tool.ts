import { Injectable } from '@nestjs/common';
import { IsNumber } from 'class-validator';
import { McpArgs, McpTool } from 'nest-mcp-host';

export class AddDto {
  @IsNumber()
  a!: number;

  @IsNumber()
  b!: number;
}

/** The measured tool: a DTO-validated call with a trivial body, so the host's own cost shows. */
@Injectable()
export class AddTool {
  @McpTool({ description: 'Adds two numbers', annotations: { readOnlyHint: true } })
  add(@McpArgs() { a, b }: AddDto): string {
    return String(a + b);
  }
}

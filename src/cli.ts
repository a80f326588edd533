// First: registers the OpenTelemetry SDK when OTEL_* variables ask for it.
import './tracing';
import 'reflect-metadata';
import { runMcpCli } from 'nest-mcp-host/cli';
import { AppModule } from './app.module';

/** The support desk's tools on the command line: `npm run -s desk -- call search_tickets --status open`. */
void runMcpCli(AppModule.register({ transport: 'cli' }), { name: 'desk', apiKeyEnv: 'DESK_API_KEY' });

import { Agent, createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { UnusedConnections } from './unused-connections';

describe('UnusedConnections', () => {
  let server: Server;
  let unused: UnusedConnections;
  let port: number;

  beforeEach(async () => {
    server = createServer((_req, res) => res.end('ok'));
    unused = new UnusedConnections();
    unused.watch(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => new Promise((resolve) => (server.listening ? server.close(resolve) : resolve(undefined))));

  const open = () =>
    new Promise<Socket>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
    });
  const accepted = () => new Promise((resolve) => setImmediate(resolve));

  it('ends, when the server closes, a connection that sent nothing, so that the close completes', async () => {
    const preconnect = await open();
    await accepted();
    const ended = new Promise((resolve) => preconnect.once('close', resolve));
    const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    await ended;
    await closed;
  });

  it('counts what it ends', async () => {
    await open();
    await open();
    await accepted();
    expect(unused.end()).toBe(2);
  });

  it('leaves a connection that is being answered or has been, keep-alive, to Node', async () => {
    const agent = new Agent({ keepAlive: true });
    const answered = await new Promise<string>((resolve) =>
      request({ port, host: '127.0.0.1', agent }, (res) => {
        res.setEncoding('utf8');
        res.on('data', resolve);
      }).end(),
    );
    expect(answered).toBe('ok');
    const partial = await open();
    partial.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unused.end()).toBe(0);
    expect(partial.destroyed).toBe(false);
    partial.destroy();
    agent.destroy();
  });

  it('forgets a connection once it has closed', async () => {
    const serverSide = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const gone = await open();
    const closed = new Promise((resolve) => serverSide.then((socket) => socket.once('close', resolve)));
    gone.destroy();
    await closed;
    expect(unused.end()).toBe(0);
  });
});

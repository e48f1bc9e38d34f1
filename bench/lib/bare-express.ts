/**
 * Express's hello world (expressjs.com/en/starter/hello-world.html) on a free port, printed on stdout: the
 * reference bench/api-load.ts compares the service's hot path with. The same express package the service runs on.
 */
import express from 'express';

const app = express();
app.get('/', (_request, response) => {
  response.send('Hello World!');
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : ''}\n`);
});

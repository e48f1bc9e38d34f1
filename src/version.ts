/** Version of this build, as in package.json; the API contract version is openapi.yaml's info.version. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const packageJson = require('../package.json') as { version: string; engines?: { node?: string } };
export const SERVICE_VERSION: string = packageJson.version;
/** package.json's `engines.node`: the Node versions the service supports (warned about at start-up). */
export const NODE_ENGINES: string | undefined = packageJson.engines?.node;

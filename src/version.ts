/** Version of this build, as in package.json; the API contract version is openapi.yaml's info.version. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const SERVICE_VERSION: string = (require('../package.json') as { version: string }).version;

/**
 * The e2e tests' view of the contract checks. The implementation lives in src/openapi/openapi-contract.ts, shared
 * with the contract runner (npx stt-contract), so a response the tests accept is one the runner accepts too.
 * expectMatchesSpec(response, operationId) throws a ContractViolation whose message lists every finding, which
 * is what a failed jest assertion shows.
 */
export {
  ContractViolation,
  errorSlugs,
  expectEventFrameMatchesSpec,
  expectMatchesSpec,
  expectWebhookMatchesSpec,
  openApiDocument,
  operationIds,
  specRoutes,
  type ContractResponse,
  type SpecRoute,
  type WebhookDelivery,
} from '../../src/openapi/openapi-contract';

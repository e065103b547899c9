/**
 * The outbound address guard, for every context that connects to addresses its users give
 * (imports here, webhook deliveries in notifications): one implementation, in
 * `application/import-asset/address-policy.ts`.
 */
export { checkImportUrl, isIpLiteral, refusedAddress } from '../application/import-asset/address-policy';

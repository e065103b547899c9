/**
 * The outbound address guard, for every context that connects to addresses its users give
 * (imports here, webhook deliveries in notifications): one implementation, in
 * `domain/address-policy.ts`.
 */
export { checkImportUrl, isIpLiteral, refusedAddress } from '../domain/address-policy';

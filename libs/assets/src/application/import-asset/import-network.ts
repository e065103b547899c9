/**
 * The network as seen by imports (DESIGN rule 11: DNS for import is a port). The import
 * service always checks every address `resolve` returns before it connects, and then
 * connects to exactly the checked address (no second lookup, so no DNS-rebinding window).
 *
 * Production uses `DnsImportNetwork`. Tests construct their own subclass (test/support) to
 * resolve test names and reach a local HTTPS server with a self-signed certificate; the
 * module only takes such an instance from `AssetsModule.forRoot({ importNetwork })`, which
 * the service's `main.ts` never passes.
 */
export abstract class ImportNetwork {
  /** Every address of `hostname` (IPv4 and IPv6). */
  abstract resolve(hostname: string): Promise<string[]>;

  /** Where the connection for a checked address is opened. Production: exactly there. */
  dialTarget(address: string, port: number): { address: string; port: number } {
    return { address, port };
  }

  /** Extra trusted CA certificates (PEM). Production: none, the system's store. */
  trustedCertificates(): string[] | undefined {
    return undefined;
  }
}

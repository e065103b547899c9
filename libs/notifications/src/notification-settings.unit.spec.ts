import { ConfigError } from '@gensvc/config';
import { parseAllowedPorts } from './notification-settings';

describe('WEBHOOK_ALLOWED_PORTS', () => {
  it('is empty by default: public webhook addresses use port 443 only', () => {
    expect(parseAllowedPorts(undefined)).toEqual([]);
    expect(parseAllowedPorts(' ')).toEqual([]);
  });

  it('takes comma-separated TCP ports, duplicates folded', () => {
    expect(parseAllowedPorts('8443, 9443,8443')).toEqual([8443, 9443]);
    expect(parseAllowedPorts('1,65535')).toEqual([1, 65535]);
  });

  it.each(['0', '65536', 'http', '8443;9443', '-1', '443.5', ',', '8443,'])('refuses %j naming the variable', (raw) => {
    expect(() => parseAllowedPorts(raw)).toThrow(ConfigError);
    expect(() => parseAllowedPorts(raw)).toThrow(/WEBHOOK_ALLOWED_PORTS/);
  });
});

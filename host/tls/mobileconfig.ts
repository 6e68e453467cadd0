/**
 * The iOS configuration profile (`/ca.mobileconfig`) that installs the local CA as a
 * root certificate: one `com.apple.security.root` payload holding the CA's DER. Its
 * PayloadUUIDs derive from the CA, so the same CA always gives the same profile and
 * installing it again replaces rather than duplicates it.
 */
import { createHash, type X509Certificate } from 'node:crypto';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A name-based UUID (version 5 layout) from SHA-256 of `label` and the CA's DER. */
function stableUuid(label: string, der: Buffer): string {
  const bytes = createHash('sha256').update(label).update(der).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex').toUpperCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The profile for `ca`, whose common name is shown as the certificate's name. */
export function caMobileconfig(ca: X509Certificate, hostName: string): string {
  const der = ca.raw;
  const fingerprint = createHash('sha256').update(der).digest('hex').slice(0, 16);
  const commonName = /CN=([^\n]+)/.exec(ca.subject)?.[1] ?? 'Tether Local CA';
  const identifier = `dev.tether.local-ca.${fingerprint}`;
  const base64 =
    der
      .toString('base64')
      .match(/.{1,52}/g)
      ?.join('\n\t\t\t') ?? '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
\t<key>PayloadContent</key>
\t<array>
\t\t<dict>
\t\t\t<key>PayloadCertificateFileName</key>
\t\t\t<string>tether-local-ca.cer</string>
\t\t\t<key>PayloadContent</key>
\t\t\t<data>
\t\t\t${base64}
\t\t\t</data>
\t\t\t<key>PayloadDescription</key>
\t\t\t<string>The certificate authority of the Tether host on ${escapeXml(hostName)}</string>
\t\t\t<key>PayloadDisplayName</key>
\t\t\t<string>${escapeXml(commonName)}</string>
\t\t\t<key>PayloadIdentifier</key>
\t\t\t<string>${identifier}.root</string>
\t\t\t<key>PayloadType</key>
\t\t\t<string>com.apple.security.root</string>
\t\t\t<key>PayloadUUID</key>
\t\t\t<string>${stableUuid('tether/ca-payload', der)}</string>
\t\t\t<key>PayloadVersion</key>
\t\t\t<integer>1</integer>
\t\t</dict>
\t</array>
\t<key>PayloadDescription</key>
\t<string>Lets this device trust the Tether host on ${escapeXml(hostName)} over HTTPS on your local network. Its certificate authority may only vouch for .local names, localhost and private network addresses.</string>
\t<key>PayloadDisplayName</key>
\t<string>${escapeXml(commonName)}</string>
\t<key>PayloadIdentifier</key>
\t<string>${identifier}</string>
\t<key>PayloadRemovalDisallowed</key>
\t<false/>
\t<key>PayloadType</key>
\t<string>Configuration</string>
\t<key>PayloadUUID</key>
\t<string>${stableUuid('tether/profile', der)}</string>
\t<key>PayloadVersion</key>
\t<integer>1</integer>
</dict>
</plist>
`;
}

/**
 * The admin page: static HTML and one script (no inline script: the page's CSP forbids
 * it). The token comes from the URL fragment, which never reaches a server.
 */
export const ADMIN_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tether · admin</title>
<style>
  body { font: 15px/1.45 -apple-system, system-ui, sans-serif; margin: 2rem auto; max-width: 42rem; padding: 0 1rem; color: #1d1d1f; }
  h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
  button { font: inherit; padding: .4rem .9rem; border-radius: .5rem; border: 1px solid #888; background: #fff; cursor: pointer; }
  button.primary { background: #0a66ff; color: #fff; border-color: #0a66ff; }
  #qr img { width: 240px; height: 240px; image-rendering: pixelated; }
  #sas { font-size: 2rem; letter-spacing: .2rem; font-variant-numeric: tabular-nums; }
  code { word-break: break-all; font-size: .8rem; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #ddd; }
  .muted { color: #666; } .error { color: #b00020; }
</style>
</head>
<body>
<h1>Tether host</h1>
<p id="status" class="muted">Loading…</p>
<h2>Pair a device</h2>
<p><button id="pair" class="primary">Show a pairing code</button></p>
<div id="offer" hidden>
  <div id="qr"></div>
  <p>Scan it with the phone's camera, or open this link on the device:<br><code id="link"></code></p>
  <p id="offer-state" class="muted"></p>
</div>
<h2>Devices</h2>
<table><thead><tr><th>Name</th><th>Platform</th><th>Last seen</th><th></th></tr></thead><tbody id="devices"></tbody></table>
<script src="/admin/admin.js"></script>
</body>
</html>
`;

export const ADMIN_PAGE_SCRIPT = `'use strict';
const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
const $ = (id) => document.getElementById(id);
let polling = null;

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error((data.error && data.error.message) || response.statusText);
  return data;
}

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : 'never';
}

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

async function loadDevices() {
  const { devices } = await api('GET', '/admin/api/devices');
  const rows = devices.map((device) => {
    const tr = document.createElement('tr');
    tr.append(cell(device.name), cell(device.platform), cell(device.revoked ? 'revoked' : when(device.lastSeenAt)));
    const actions = document.createElement('td');
    if (!device.revoked) {
      const button = document.createElement('button');
      button.textContent = 'Revoke';
      button.onclick = async () => {
        if (!confirm('Revoke ' + device.name + '? It is disconnected at once.')) return;
        await api('POST', '/admin/api/devices/' + encodeURIComponent(device.deviceId) + '/revoke');
        await loadDevices();
      };
      actions.append(button);
    }
    tr.append(actions);
    return tr;
  });
  $('devices').replaceChildren(...rows);
  const paired = devices.filter((device) => !device.revoked).length;
  const revoked = devices.length - paired;
  $('status').textContent =
    paired + ' paired device' + (paired === 1 ? '' : 's') + (revoked === 0 ? '' : ' (' + revoked + ' revoked)');
}

async function pollOffer(offerId) {
  const offer = await api('GET', '/admin/api/offers/' + encodeURIComponent(offerId));
  const state = $('offer-state');
  if (offer.state === 'paired') {
    clearInterval(polling);
    state.className = '';
    state.innerHTML = '';
    const sas = document.createElement('div');
    sas.id = 'sas';
    sas.textContent = offer.sas.slice(0, 3) + ' ' + offer.sas.slice(3);
    state.append('Paired with ' + offer.device.name + '. Check that the device shows the same code:', sas);
    $('qr').replaceChildren();
    await loadDevices();
  } else if (offer.state !== 'pending') {
    clearInterval(polling);
    state.textContent = offer.state === 'expired' ? 'This code expired. Make a new one.' : 'This code failed three times and is void.';
    $('qr').replaceChildren();
  } else {
    state.textContent = 'Waiting for the device… (expires ' + new Date(offer.expiresAt).toLocaleTimeString() + ')';
  }
}

$('pair').onclick = async () => {
  clearInterval(polling);
  const offer = await api('POST', '/admin/api/offers', {});
  const image = document.createElement('img');
  image.alt = 'pairing QR code';
  image.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(offer.qrSvg);
  $('qr').replaceChildren(image);
  $('link').textContent = offer.link;
  $('offer').hidden = false;
  polling = setInterval(() => pollOffer(offer.offerId).catch(show), 1000);
  await pollOffer(offer.offerId);
};

function show(error) {
  $('status').className = 'error';
  $('status').textContent = error.message;
}

if (!token) show(new Error('Open this page from the link tether start printed: it carries the admin token.'));
else loadDevices().catch(show);
`;

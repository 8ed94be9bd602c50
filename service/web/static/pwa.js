// Installable app (issue 26): the service worker that shows Web Push notices and opens the game
// on a tap, and the "Notify me" button that subscribes this browser: `pushManager.subscribe`
// with GET /v1/me/push-key's key, then POST /v1/me/push-subscriptions with the subscription
// (README.md, Web Push).
import { el } from './dom.js';
import { t } from './i18n.js';

const pushWorks = 'serviceWorker' in navigator && 'PushManager' in window // i18n-ignore
  && 'Notification' in window; // i18n-ignore

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js', { scope: '/play/' }).catch((error) => {
    console.warn('service worker not registered', error);
  });
}

// The VAPID key as the bytes `applicationServerKey` takes (it comes base64url, unpadded).
function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

// Ask to be told of your turns (and the other notices) on this device, even with the page closed.
async function subscribe(ctx) {
  if (await Notification.requestPermission() !== 'granted') {
    ctx.say(t('Notifications are blocked for this site: allow them in the browser to be told.'),
      true);
    return false;
  }
  const registration = await navigator.serviceWorker.ready;
  const { public_key: key } = await ctx.api('GET', '/me/push-key');
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  // The server takes the endpoint and keys (toJSON() also has expirationTime).
  const { endpoint, keys } = subscription.toJSON();
  await ctx.api('POST', '/me/push-subscriptions', { endpoint, keys });
  ctx.say(t('Notifications on: you will be told when it is your turn.'));
  return true;
}

// The header's "Notify me" button (none where the browser cannot take pushes).
export function notifyButton(ctx) {
  if (!pushWorks) return null;
  const button = el('button', { type: 'button', class: 'link', id: 'notify-me',
    onclick: async () => {
      button.disabled = true;
      try {
        if (await subscribe(ctx)) {
          button.textContent = t('Notifications on');
          return;
        }
      } catch (error) { ctx.fail(error); }
      button.disabled = false;
    } }, t('Notify me'));
  return button;
}

// The page's service worker (issue 26): it makes the web client an installable app and shows
// Web Push notices (service/push.py sends {title, body, url, notice}); a tap opens the game.

self.addEventListener('install', () => self.skipWaiting());
// Control the open pages at once, so a tap can take one of them to the game.
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let message;
  try {
    message = event.data.json();
  } catch {
    message = { title: 'Tablestream', // i18n-ignore: the brand
      body: event.data ? event.data.text() : '', url: '/play/' };
  }
  const notice = message.notice || {};
  event.waitUntil(self.registration.showNotification(message.title, {
    body: message.body,
    data: { url: message.url || '/play/' },
    // One notification per game and kind: a newer one replaces the older.
    tag: notice.game_id ? `${notice.game_id}:${notice.kind}` : undefined,
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url, self.location.origin).href;
  event.waitUntil(openGame(url));
});

async function openGame(url) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const page = windows.find((client) => client.url.startsWith(`${self.location.origin}/play/`));
  if (page) {
    await page.navigate(url);
    return page.focus().catch(() => page);
  }
  return self.clients.openWindow(url);
}

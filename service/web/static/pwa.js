// Installable app (issue 26): the service worker that shows Web Push notices and opens the game
// on a tap. Subscribing is `pushManager.subscribe` with GET /v1/me/push-key's key, then POST
// /v1/me/push-subscriptions with the subscription (README.md, Web Push).
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js', { scope: '/play/' }).catch((error) => {
    console.warn('service worker not registered', error);
  });
}
